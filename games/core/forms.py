from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.core.validators import MaxValueValidator, MinValueValidator

from games.core.game.contract import Setting

if TYPE_CHECKING:
    from games.core.game.gamedef import GameDefinition


class SignupForm(UserCreationForm):
    display_name = forms.CharField(
        max_length=40, help_text="What other players and spectators see."
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name")

    def save(self, commit: bool = True) -> User:
        user = super().save(commit=False)
        user.first_name = self.cleaned_data["display_name"]
        if commit:
            user.save()
        return user


def _field(setting: Setting) -> forms.Field:
    """The form field that asks the host for ``setting`` (games/core/game/contract.py); one shown
    only for some values of another (``shown_when``) says so to static/js/settings_form.js."""
    field = _asking(setting)
    if setting.shown_when is not None:
        name, values = setting.shown_when
        field.widget.attrs["data-shown-when"] = name
        field.widget.attrs["data-shown-values"] = " ".join(str(value) for value in values)
    return field


def _asking(setting: Setting) -> forms.Field:
    common: dict[str, Any] = {"label": setting.label, "help_text": setting.help}
    kind = setting.kind
    if kind == "bool":
        return forms.BooleanField(required=False, initial=setting.default, **common)
    if kind == "int":
        return forms.IntegerField(
            min_value=setting.low, max_value=setting.high, initial=setting.default, **common
        )
    choices = [(str(value), label) for value, label in setting.choices]
    if kind == "several":
        initial = [str(value) for value in setting.default]
        return forms.MultipleChoiceField(
            choices=choices,
            initial=initial,
            required=False,
            widget=forms.CheckboxSelectMultiple,
            **common,
        )
    if kind == "choice":
        # A few choices are shown side by side (radio buttons); a long list as a menu.
        widget = forms.RadioSelect if len(choices) <= 4 else forms.Select
        return forms.TypedChoiceField(
            choices=choices,
            coerce=type(setting.default),
            initial=str(setting.default),
            widget=widget,
            **common,
        )
    widget = (
        forms.Textarea(attrs={"rows": setting.lines, "spellcheck": "false"})
        if setting.lines
        else forms.TextInput()
    )
    return forms.CharField(
        required=False, strip=False, initial=setting.default, widget=widget, **common
    )


def setting_fields(table: tuple[Setting, ...]) -> dict[str, forms.Field]:
    """A form field for each setting of ``table`` (a game's, a season's), by its name."""
    return {setting.name: _field(setting) for setting in table}


class MatchSettingsForm(forms.Form):
    """Title and seats, then the game's settings, each a field made from its declaration
    (``GameDefinition.setting_table``); the game's own cleaning checks them all."""

    title = forms.CharField(max_length=120, required=False)
    seat_count = forms.IntegerField(min_value=1, initial=2, label="Seats")
    game: ClassVar[GameDefinition]
    setting_fields: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def for_game(cls, game: GameDefinition) -> type[MatchSettingsForm]:
        table = game.setting_table()
        fields = setting_fields(table)
        names = (*cls.setting_fields, *[s.name for s in table if s.name not in cls.setting_fields])
        attrs = {"game": game, "setting_fields": names, **fields}
        return type(f"{type(game).__name__}SettingsForm", (cls,), attrs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        seats = self.fields["seat_count"]
        seats.min_value = self.game.min_seats
        seats.max_value = self.game.max_seats
        seats.initial = self.game.min_seats
        seats.validators = [
            MinValueValidator(self.game.min_seats),
            MaxValueValidator(self.game.max_seats),
        ]
        if self.game.min_seats == self.game.max_seats:
            seats.widget = forms.HiddenInput()

    def clean(self) -> dict[str, Any]:
        """Each setting by its own rule (the error beside its field), then the game's rule
        between them."""
        cleaned = super().clean()
        table = {setting.name: setting for setting in self.game.setting_table()}
        for name, setting in table.items():
            if name in cleaned:
                try:
                    cleaned[name] = setting.clean(cleaned[name])
                except ValueError as error:
                    self.add_error(name, str(error))
        if not self.errors:
            try:
                self.game.clean_settings(self.match_settings())
            except ValueError as error:
                self.add_error(None, str(error))
        return cleaned

    def roles(self) -> list[str]:
        count = self.cleaned_data["seat_count"]
        roles = list(self.game.roles[:count])
        return roles + [""] * (count - len(roles))

    def match_settings(self) -> dict[str, Any]:
        return {name: self.cleaned_data[name] for name in self.setting_fields}
