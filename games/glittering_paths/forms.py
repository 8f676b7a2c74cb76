"""The host's settings for a Glittering Paths match (see docs/rules/glittering-paths.md)."""

from __future__ import annotations

from django import forms

from games.core.forms import MatchSettingsForm
from games.glittering_paths import flow


class GlitteringPathsSettingsForm(MatchSettingsForm):
    race_seconds = forms.IntegerField(
        label="Race for the first move (seconds)",
        min_value=5,
        max_value=flow.MAX_SECONDS,
        initial=120,
        help_text="No legal path in time: a random draw picks who starts.",
    )
    turn_seconds = forms.IntegerField(
        label="Each turn (seconds)",
        min_value=5,
        max_value=flow.MAX_SECONDS,
        initial=60,
        help_text="No path or pass in time is a skip.",
    )
    interval_seconds = forms.IntegerField(
        label="Pause between rounds (seconds)", min_value=0, max_value=flow.MAX_SECONDS, initial=15
    )
    board_area = forms.IntegerField(
        label="Board size (cells, about)",
        min_value=16,
        max_value=400,
        initial=64,
        help_text="Each round's board is a rectangle of about this many cells (64: 8x8 and the "
        "like).",
    )
    boards = forms.CharField(
        label="Your own boards (optional)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "cols": 30, "spellcheck": "false"}),
        help_text="Paste three boards of R G J S L A, one blank line between boards, each "
        "symmetric under a half turn with the colours swapped. Empty: boards drawn at random.",
    )
    tie_to = forms.ChoiceField(
        label="Equal totals go to",
        choices=[("DMO", "the DMO (Death Match Opponent)"), ("EC", "the EC")],
        initial="DMO",
    )

    setting_fields = (
        "race_seconds",
        "turn_seconds",
        "interval_seconds",
        "board_area",
        "boards",
        "tie_to",
    )

    def clean_boards(self) -> str:
        lines = self.cleaned_data["boards"].splitlines()
        text = "\n".join(line.strip() for line in lines).strip()
        try:
            flow.clean_boards(text)
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None
        return text
