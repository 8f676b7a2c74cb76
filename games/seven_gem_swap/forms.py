"""The host's settings for a Seven Gem Swap match."""

from __future__ import annotations

from django import forms

from games.core.forms import MatchSettingsForm
from games.seven_gem_swap import flow


class SevenGemSwapSettingsForm(MatchSettingsForm):
    bid_seconds = forms.IntegerField(
        label="Bidding clock (seconds)",
        min_value=flow.MIN_SECONDS,
        max_value=flow.MAX_SECONDS,
        initial=86400,
        help_text="86400 is 24 hours; a live evening uses a few minutes (e.g. 300).",
    )
    round_seconds = forms.IntegerField(
        label="Each round's clock (seconds)",
        min_value=flow.MIN_SECONDS,
        max_value=flow.MAX_SECONDS,
        initial=86400,
        help_text="A round also ends as soon as every player has submitted.",
    )
    no_card_scores = forms.ChoiceField(
        label="A player who sends nothing in a round (from round 2) scores",
        choices=[
            ("own_colour", "their own colour's largest group (x1), keeping their cards"),
            ("nothing", "nothing that round"),
        ],
        initial="own_colour",
    )
    board = forms.CharField(
        label="Grid (optional)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 10, "cols": 14, "class": "mono"}),
        help_text=(
            "Paste 10 lines of 10 cells (R O Y G B I V, # for a rock): 10 gems of each colour "
            "and 30 rocks. Empty: a random grid."
        ),
    )

    setting_fields = ("bid_seconds", "round_seconds", "no_card_scores", "board")

    def clean_board(self) -> str:
        text = self.cleaned_data.get("board") or ""
        try:
            return flow.clean_settings({"board": text})["board"]
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None
