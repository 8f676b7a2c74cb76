"""The analysis after each Glittering Paths round: beside every turn, the best path the mover had
on the board before it. Pure and slow-ish (a search per turn): the core runs it outside any lock
(flow.py ``run_analysis``)."""

from __future__ import annotations

from typing import Any

from games.glittering_paths import engine


def round_analysis(state_or_round: dict[str, Any]) -> list[dict[str, Any]]:
    """For every turn of a round, the best path that was available to the mover (on the board
    before that turn) beside the one played. Takes a round record (``state["history"][i]``) or a
    state (then its latest finished round, or the round being played when none has finished).
    Pure and slow-ish: run it outside any lock."""
    record = state_or_round
    if "history" in state_or_round:
        history = state_or_round["history"]
        record = history[-1] if history else {"moves": state_or_round.get("moves", [])}
    rows = []
    for move in record.get("moves", []):
        best, cells = engine.best_path(move["board_before"], move["player"])
        rows.append(
            {
                "turn": move["turn"],
                "seat": move["seat"],
                "player": move["player"],
                "kind": move["kind"],
                "played_cells": list(move["cells"]),
                "played_score": move["score"],
                "best_cells": cells,
                "best_score": str(best),
            }
        )
    return rows
