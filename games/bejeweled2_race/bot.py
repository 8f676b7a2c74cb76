"""The race's bot: Bejeweled 2's own bot on the seat's own board (``games.bejeweled2.bot``), from
what its seat sees (the seat's view is Bejeweled 2's view of its board); a stuck puzzle is
restarted rather than ended."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.bejeweled2 import bot as bj2_bot

BOT_LEVELS = bj2_bot.BOT_LEVELS


def decide(view: dict[str, Any], seat: int, level: str, now: datetime) -> dict[str, Any] | None:
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose {', '.join(BOT_LEVELS)}")
    actions = view.get("actions") or []
    if not actions or view.get("board") is None:
        return None
    race_ends, bar_ends = (view.get("race") or {}).get("deadline"), view.get("deadline")
    if any(when and now >= datetime.fromisoformat(when) for when in (race_ends, bar_ends)):
        return None  # the time is up: the clock ends the race (or the seat's), not a move
    if "swap" not in actions:
        return {"type": "restart"} if "restart" in actions else None
    action = bj2_bot.decide(view, 0, level, now)
    if action is not None and action["type"] == "end":
        return {"type": "restart"} if "restart" in actions else None
    return action
