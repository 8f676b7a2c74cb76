from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.core.validators import MaxValueValidator, MinValueValidator

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
