"""What Pointsweeper's panels (jinja2/pointsweeper/_panels.html) work out rather than read: a
global of the panels' Jinja2 environment (settings.TEMPLATES)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.pointsweeper.page import minutes


def bank_left_when_paused(p: dict[str, Any], turn_due: str, paused_at: str | None) -> str:
    """The mover's bank as it stood when the match paused: what was left of it then (the turn
    clock runs out when the bank does), not the bank the move started with."""
    if not paused_at:
        return p.get("bank_text", "")
    due = datetime.fromisoformat(turn_due) - datetime.fromisoformat(paused_at)
    return minutes(min(float(p["bank"]), due.total_seconds()))
