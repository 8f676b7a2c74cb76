"""The powerups as a death match offers them: the three types, the powerups of each (the
engine's names), their labels, and which a player may pick for the next round after a proof."""

from __future__ import annotations

from games.bejeweled_dm import engine

TYPES = ("starter", "passive", "active")
CHOICES = {"starter": engine.STARTERS, "passive": engine.PASSIVES, "active": engine.ACTIVES}
TYPE_LABELS = {"starter": "Starter", "passive": "Passive", "active": "Active"}


def allowed_picks(used: dict[str, str] | None) -> dict[str, list[str]]:
    """Per type, the powerups a player may pick: any not used in the proof just made."""
    return {
        kind: [name for name in CHOICES[kind] if not used or name != used[kind]] for kind in TYPES
    }
