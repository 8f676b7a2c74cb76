"""A practice opponent for Glittering Paths, deciding only from what its seat may see.

``decide`` reads ``view.view(state, Viewer(seat=seat))`` (never the full state) and returns the
action to send now, or None to keep thinking. It paces itself like a person: it waits some
seconds after the race or its turn begins (never more than a third of the clock).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from games.core.game.flowkit import derived_seed
from games.glittering_paths import engine

BEST = "best"
CASUAL = "casual"
BOT_LEVELS = {
    BEST: "Plays the highest-scoring path there is, after a few seconds' thought.",
    CASUAL: "Plays the best of the three paths it happens to spot, and takes its time.",
}
THINK_SECONDS = {BEST: (4, 8), CASUAL: (8, 16)}
RACE_EXTRA_SECONDS = {BEST: 4, CASUAL: 10}
CASUAL_TRIES = 3


@lru_cache(maxsize=256)
def _best(board: str, colour: str) -> tuple[str, ...]:
    return tuple(engine.best_path(board, colour)[1])


def _casual(board: str, colour: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    found = [engine.random_path(board, colour, rng) for _ in range(CASUAL_TRIES)]
    found = [cells for cells in found if cells]
    if not found:
        return []
    return max(found, key=lambda cells: (engine.score_fraction(board, colour, cells), len(cells)))


def choose_path(board: str, colour: str, level: str, seed: int) -> list[str]:
    """The path the bot plays on ``board`` ([] when it has none)."""
    if level == CASUAL:
        return _casual(board, colour, seed)
    return list(_best(board, colour))


def think_time(view: dict[str, Any], seat: int, level: str) -> timedelta:
    """How long the bot looks at the board before it moves: a level's range, drawn from the
    board and turn (so the same position always takes the same time), at most a third of the
    clock."""
    low, high = THINK_SECONDS.get(level, THINK_SECONDS[BEST])
    seed = derived_seed(0, "think", view["board"], view["turn_number"], seat)
    seconds = low + (seed % 1000) / 1000 * (high - low)
    if view["phase"] == "race":
        seconds += RACE_EXTRA_SECONDS.get(level, 0)
        clock = view["timers"]["race"]
    else:
        clock = view["timers"]["turn"]
    return timedelta(seconds=min(seconds, clock / 3))


def decide(view: dict[str, Any], seat: int, level: str, now: datetime) -> dict[str, Any] | None:
    """The action the bot in ``seat`` sends now, or None to wait. ``view`` is what that seat
    sees (``view.view(state, Viewer(seat=seat))``)."""
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose from {', '.join(BOT_LEVELS)}")
    phase = view.get("phase")
    if phase not in ("race", "turns"):
        return None
    colour = engine.PLAYERS[seat]
    board = view["board"]
    opponent_agreed = view["agreed"][1 - seat]
    if opponent_agreed and not view["agreed"][seat] and not engine.has_legal_path(board, colour):
        return {"type": "agree_end"}
    if phase == "turns" and view["turn"] != seat:
        return None
    started = datetime.fromisoformat(view["turn_started"])
    if now - started < think_time(view, seat, level):
        return None
    seed = derived_seed(0, "bot", board, view["turn_number"], seat)
    cells = choose_path(board, colour, level, seed)
    if cells:
        return {"type": "path", "cells": cells, "turn": view["turn_number"]}
    if phase == "turns":
        return {"type": "pass", "turn": view["turn_number"]}
    return None  # in the race with no path: wait for the opponent or the random start
