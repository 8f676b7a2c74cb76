"""The host's settings for a Bejeweled death match."""

from __future__ import annotations

from typing import Any

from django import forms

from games.bejeweled_dm import engine
from games.core.forms import MatchSettingsForm


def _choices(names: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(name, name) for name in names]


class DeathMatchSettingsForm(MatchSettingsForm):
    first_offer = forms.ChoiceField(
        label="Round 1 powerups",
        choices=[
            ("random", "One of each type, drawn at random"),
            ("chosen", "I choose the set offered for each type"),
        ],
        initial="random",
        widget=forms.RadioSelect,
    )
    offered_starters = forms.MultipleChoiceField(
        label="Round 1 starters (when you choose)",
        choices=_choices(engine.STARTERS),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    offered_passives = forms.MultipleChoiceField(
        label="Round 1 passives (when you choose)",
        choices=_choices(engine.PASSIVES),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    offered_actives = forms.MultipleChoiceField(
        label="Round 1 actives (when you choose)",
        choices=_choices(engine.ACTIVES),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    claim_window_seconds = forms.IntegerField(
        label="Counterclaim window (seconds)", min_value=5, max_value=600, initial=30
    )
    proof_seconds = forms.IntegerField(
        label="Proof time (seconds)", min_value=10, max_value=1800, initial=120
    )
    round_seconds = forms.IntegerField(
        label="Round clock (seconds)",
        min_value=30,
        max_value=7200,
        initial=600,
        help_text="No claim before it runs out: the round goes to the player chosen below.",
    )
    pick_seconds = forms.IntegerField(
        label="Powerup picking time (seconds)",
        min_value=10,
        max_value=600,
        initial=60,
        help_text="A player who has not picked in time gets a random allowed powerup.",
    )
    no_claim_round_to = forms.ChoiceField(
        label="A round with no claim goes to",
        choices=[("DMO", "the DMO (Death Match Opponent)"), ("EC", "the EC")],
        initial="DMO",
    )

    setting_fields = (
        "first_offer",
        "offered_starters",
        "offered_passives",
        "offered_actives",
        "claim_window_seconds",
        "proof_seconds",
        "round_seconds",
        "pick_seconds",
        "no_claim_round_to",
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if cleaned.get("first_offer") == "chosen":
            for field in ("offered_starters", "offered_passives", "offered_actives"):
                if not cleaned.get(field):
                    self.add_error(field, "choose at least one, or let round 1 be drawn at random")
        return cleaned
