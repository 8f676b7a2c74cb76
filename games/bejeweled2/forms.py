"""The settings of a Bejeweled 2 game: the mode and, for Puzzle mode, which puzzle."""

from __future__ import annotations

from typing import Any

from django import forms

from games.bejeweled2 import flow
from games.bejeweled2.puzzles import PUZZLES
from games.core.forms import MatchSettingsForm

MODE_HELP = {
    "classic": "Classic: no clock; the game ends when no move is left.",
    "action": "Action: a draining clock; every gem removed adds a second.",
    "endless": "Endless: no clock, and a stuck board is reshuffled.",
    "puzzle": "Puzzle: clear the board with no new gems falling.",
}


class Bejeweled2SettingsForm(MatchSettingsForm):
    mode = forms.ChoiceField(
        label="Mode",
        choices=[(mode, MODE_HELP[mode]) for mode in flow.MODES],
        initial="classic",
        widget=forms.RadioSelect,
    )
    puzzle = forms.TypedChoiceField(
        label="Puzzle (Puzzle mode)",
        choices=[(index, f"{index + 1}. {p.title}") for index, p in enumerate(PUZZLES)],
        coerce=int,
        initial=0,
    )

    setting_fields = ("mode", "puzzle")

    def match_settings(self) -> dict[str, Any]:
        return flow.clean_settings(super().match_settings())
