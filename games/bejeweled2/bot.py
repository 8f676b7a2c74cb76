"""The practice bot: decides from what the player's seat sees (``view.view``), never the state.

A bot waits a human-like pause after the last move (``view["turn_started"]``), then swaps: the
greedy levels take the hint (the best immediate score; in Puzzle and Cognito the first move of a
shortest solution), the random level any legal move, chosen from a generator seeded by the board
so the same position gives the same choice. A stuck puzzle is ended.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from games.bejeweled2 import engine, modes, solver

BOT_LEVELS = {
    "greedy": "takes the move that scores most right now, about a move a second and a half",
    "random": "plays any legal move, about one every two seconds",
    "relaxed": "takes the best-scoring move, but only every five seconds",
}
PAUSE = {
    "greedy": timedelta(seconds=1.5),
    "random": timedelta(seconds=2),
    "relaxed": timedelta(seconds=5),
}


def choose_move(view: dict[str, Any], level: str) -> tuple[str, str] | None:
    """The swap the bot of ``level`` makes on the board in ``view`` (None when none is legal)."""
    board = view["board"]
    if level == "random":
        moves = engine.legal_moves(board)
        if not moves:
            return None
        return random.Random(f"{board}|{view['moves']}").choice(moves)
    if view["puzzle"] is not None:  # Puzzle and Cognito
        move = solver.first_move(board)
        if move is not None:
            return move
    return engine.best_move(board, specials=modes.MODES[view["mode"]].specials)


def decide(view: dict[str, Any], seat: int, level: str, now: datetime) -> dict[str, Any] | None:
    """The action the bot in ``seat`` takes now, or None to wait."""
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose {', '.join(BOT_LEVELS)}")
    actions = view.get("actions") or []
    if view.get("over") or not actions:
        return None
    if "swap" not in actions:
        return {"type": "end"}
    if now - datetime.fromisoformat(view["turn_started"]) < PAUSE[level]:
        return None
    move = choose_move(view, level)
    if move is None:
        return {"type": "end"}
    return {"type": "swap", "a": move[0], "b": move[1]}
