"""Levels and the Action bar of Bejeweled 2: where each level starts, what a full bar holds,
how fast it drains at each level, and how full it is at a given time, with its deadline (when it
runs empty) kept in the state's ``deadlines[CLOCK]``. Pure."""

from __future__ import annotations

from datetime import datetime, timedelta

from games.core.game.flowkit import iso
from games.core.game.gamedef import State

CLOCK = "clock"
"""The deadline key of the Action bar: when it runs empty."""
LEVEL_POINTS = 1_000


def level_start(level: int) -> int:
    """The score at which ``level`` begins: level L lasts 1,000 x L points."""
    return LEVEL_POINTS * level * (level - 1) // 2


def level_for(score: int) -> int:
    level = 1
    while score >= level_start(level + 1):
        level += 1
    return level


def level_progress(score: int, level: int) -> dict[str, int]:
    """Points scored into the current level and the points the level lasts."""
    return {"points": max(0, score - level_start(level)), "needed": LEVEL_POINTS * level}


def bar_size(level: int) -> int:
    """The points a full bar holds at ``level``: a level's worth, 1,000 x level."""
    return LEVEL_POINTS * level


def bar_drain(mode: str, level: int) -> tuple[int, int]:
    """The points the bar loses per second, as a fraction (numerator, denominator):
    5 x L x (L + 3) / 4 at level L (5 at level 1, 12.5 at 2, 22.5 at 3), so a full bar empties in
    800 / (L + 3) seconds (200 s at level 1, 100 s at level 5); half as fast again in Hyper."""
    if mode == "hyper":
        return 15 * level * (level + 3), 8
    return 5 * level * (level + 3), 4


def bar_left(state: State, now: datetime) -> int:
    """The points in the bar at ``now`` (0 once it has run empty)."""
    bar = state["bar"]
    elapsed_ms = max(0, (now - datetime.fromisoformat(bar["at"])) // timedelta(milliseconds=1))
    num, den = bar_drain(state["mode"], bar["level"])
    return max(0, bar["points"] - elapsed_ms * num // (den * 1000))


def set_bar(state: State, points: int, level: int, now: datetime) -> None:
    """Fill the bar to ``points`` at ``now``; its deadline is when it runs empty."""
    num, den = bar_drain(state["mode"], level)
    state["bar"] = {"points": points, "at": iso(now), "level": level}
    runs_out = now + timedelta(milliseconds=-(-points * den * 1000 // num))
    state["deadlines"] = {**state["deadlines"], CLOCK: iso(runs_out)}
