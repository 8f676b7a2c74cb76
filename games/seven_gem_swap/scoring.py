"""Scoring in Seven Gem Swap, pure: a player's points for a round (their colour's and their
card's largest group times the round), the garnets a total earns, and the final placing (the
Tokens of Life and the Elimination Candidate). The engine (engine.py) gathers it under the
contract's names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.seven_gem_swap.grid import COLOURS, Board, largest_group


def round_points(
    board: Board | str, round_number: int, own: str, card: str | None, failed: bool
) -> dict[str, int]:
    """A player's points for one round: from round 2, the round number times the largest group of
    their own colour and the card played (x3 when the card is their own colour; with no card,
    their own colour alone), minus 1 if their sequence failed. Returns ``group``, ``multiplier``,
    ``penalty`` and ``points``."""
    if own not in COLOURS or len(own) != 1:
        raise ValueError(f"{own!r} is not a gem colour; use R O Y G B I V")
    if card is not None and (card not in COLOURS or len(card) != 1):
        raise ValueError(f"{card!r} is not a colour card; use R O Y G B I V")
    penalty = 1 if failed else 0
    if round_number < 2:
        return {"group": 0, "multiplier": 0, "penalty": penalty, "points": -penalty}
    group = largest_group(board, own + (card or ""))
    multiplier = round_number * (3 if card == own else 1)
    return {
        "group": group,
        "multiplier": multiplier,
        "penalty": penalty,
        "points": group * multiplier - penalty,
    }


def garnets_for(total: int) -> int:
    """One garnet for every multiple of 75 points reached (none for 0 or less)."""
    return max(0, total) // 75


def final_placing(totals: Mapping[str, int]) -> dict[str, Any]:
    """Who wins what: the highest total wins 2 Tokens of Life; a tie of 2 or 3 players gives each
    1 (a tie of 4 or more: none). The lowest total is the Elimination Candidate; when several
    share it, ``elimination_candidate`` is None and ``ec_tied`` lists them for the host.
    Returns ``top`` (players with the highest total), ``tokens`` (player -> tokens),
    ``elimination_candidate``, ``ec_tied`` and ``garnets`` (player -> garnets)."""
    if not totals:
        raise ValueError("no players to place")
    best = max(totals.values())
    worst = min(totals.values())
    top = sorted(p for p, t in totals.items() if t == best)
    bottom = sorted(p for p, t in totals.items() if t == worst)
    each = 2 if len(top) == 1 else 1 if len(top) <= 3 else 0
    tokens = {p: (each if p in top else 0) for p in totals}
    return {
        "top": top,
        "tokens": tokens,
        "elimination_candidate": bottom[0] if len(bottom) == 1 else None,
        "ec_tied": bottom if len(bottom) > 1 else [],
        "garnets": {p: garnets_for(t) for p, t in totals.items()},
    }
