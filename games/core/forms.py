from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.core.validators import MaxValueValidator, MinValueValidator

from games.core.gamedef import award_value

if TYPE_CHECKING:
    from games.core.gamedef import GameDefinition


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


class MatchSettingsForm(forms.Form):
    """Title and seats; a game's own form adds its settings as extra fields."""

    title = forms.CharField(max_length=120, required=False)
    seat_count = forms.IntegerField(min_value=1, initial=2, label="Seats")
    auto_start = forms.BooleanField(
        required=False, initial=True, help_text="Start as soon as every seat is taken."
    )
    game: ClassVar[GameDefinition]
    setting_fields: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def for_game(cls, game: GameDefinition) -> type[MatchSettingsForm]:
        return type(f"{type(game).__name__}SettingsForm", (cls,), {"game": game})

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

    def roles(self) -> list[str]:
        count = self.cleaned_data["seat_count"]
        roles = list(self.game.roles[:count])
        return roles + [""] * (count - len(roles))

    def match_settings(self) -> dict[str, Any]:
        chosen = {name: self.cleaned_data[name] for name in self.setting_fields}
        chosen["auto_start"] = self.cleaned_data["auto_start"]
        return chosen


class AdjudicateForm(forms.Form):
    """The host's award: one of the choices the game offers now (``award_choices``, each the
    JSON of an award its ``adjudicate`` accepts, labelled with seats as players see them), and
    a reason that goes with the award to the players."""

    award = forms.ChoiceField(
        widget=forms.RadioSelect,
        label="Award",
        error_messages={
            "invalid_choice": "That award is not on offer now (the match has moved on); "
            "choose again from the list.",
        },
    )
    reason = forms.CharField(
        max_length=200,
        required=False,
        help_text="Shown to the players with the award.",
        widget=forms.TextInput(attrs={"size": 60}),
    )

    def __init__(self, *args: Any, choices: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["award"].choices = choices
        if self.is_bound and "award" not in self.data and "winner_seat" in self.data:
            # The older form's fields (a seat index and a scope), accepted only when they name
            # an award on offer now.
            legacy = {
                "scope": self.data.get("scope", "round"),
                "winner_seat": self.data["winner_seat"],
            }
            if str(legacy["winner_seat"]).isdigit():
                legacy["winner_seat"] = int(legacy["winner_seat"])
            self.data = self.data.copy()
            self.data["award"] = award_value(legacy)

    def chosen_award(self) -> dict[str, Any]:
        """The award to pass to the game, with the reason when one was given."""
        award: dict[str, Any] = json.loads(self.cleaned_data["award"])
        reason = self.cleaned_data["reason"].strip()
        if reason:
            award["reason"] = reason
        return award

    def chosen_label(self) -> str:
        return dict(self.fields["award"].choices)[self.cleaned_data["award"]]
