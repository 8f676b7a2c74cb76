"""The host's settings for a Pointsweeper match."""

from __future__ import annotations

from typing import Any

from django import forms

from games.core.forms import MatchSettingsForm
from games.pointsweeper import flow

BOARD_HELP = "8 lines of 8 values, rank 8 first: -2 to 5 for a tile, M for a mine (10 mines)."


class PointsweeperSettingsForm(MatchSettingsForm):
    boards = forms.ChoiceField(
        label="Boards",
        choices=[
            ("random", "Three boards drawn at random"),
            ("pasted", "I paste the three boards below"),
        ],
        initial="random",
        widget=forms.RadioSelect,
    )
    board_1 = forms.CharField(
        label="Board 1",
        required=False,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=BOARD_HELP,
    )
    board_2 = forms.CharField(
        label="Board 2", required=False, widget=forms.Textarea(attrs={"rows": 8})
    )
    board_3 = forms.CharField(
        label="Board 3", required=False, widget=forms.Textarea(attrs={"rows": 8})
    )
    move_seconds = forms.IntegerField(
        label="Time for each move (seconds)",
        min_value=1,
        max_value=3600,
        initial=60,
        help_text=flow.SETTINGS_HELP["move_seconds"],
    )
    bank_seconds = forms.IntegerField(
        label="Time bank per board (seconds)",
        min_value=0,
        max_value=7200,
        initial=120,
        help_text="Used once a move takes longer than its time; empty bank: you have passed.",
    )
    order_seconds = forms.IntegerField(
        label="Time to choose the order (seconds)",
        min_value=1,
        max_value=3600,
        initial=60,
        help_text=flow.SETTINGS_HELP["order_seconds"],
    )
    scout_turns = forms.IntegerField(
        label="Scout-only turns",
        min_value=0,
        max_value=16,
        initial=3,
        help_text=flow.SETTINGS_HELP["scout_turns"],
    )
    tie_to = forms.ChoiceField(
        label="A tied total goes to",
        choices=[("DMO", "the DMO"), ("EC", "the EC")],
        initial="DMO",
    )

    setting_fields = (
        "boards",
        "move_seconds",
        "bank_seconds",
        "order_seconds",
        "scout_turns",
        "tie_to",
    )

    def match_settings(self) -> dict[str, Any]:
        chosen = super().match_settings()
        chosen["board_texts"] = [self.cleaned_data.get(f"board_{n}") or "" for n in (1, 2, 3)]
        return chosen

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        settings = {name: cleaned.get(name) for name in self.setting_fields}
        settings["board_texts"] = [cleaned.get(f"board_{n}") or "" for n in (1, 2, 3)]
        try:
            flow.clean_settings(settings)
        except ValueError as error:
            self.add_error(None, str(error))
        return cleaned
