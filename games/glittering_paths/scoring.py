"""Scoring: what a legal Glittering Paths path scores, the move that plays it (its cells emptied,
the steps a page animates) and the running totals (pure: no Django, no IO; ``engine`` offers these
under engine-api.md).

A path scores the number of its cells of the start's gem type divided by the largest count of any
single other gem type on it; a total is rounded half up to 2 places after every move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from games.glittering_paths.boards import (
    EMPTY,
    Board,
    as_board,
    as_player,
    format_board,
    parse_cell,
)
from games.glittering_paths.paths import check_path, path_cells

FOUR_PLACES = Decimal("0.0001")
TWO_PLACES = Decimal("0.01")

Step = dict[str, Any]
"""One JSON-serialisable step of a move, for a page to animate (see ``play_path``)."""


def score_fraction(board: Board | str, player: str, cells: Sequence[str]) -> Fraction:
    """The exact score of a legal path, as a fraction (PathError for an illegal path)."""
    b = as_board(board)
    names = check_path(b, player, cells)
    gems = [b[name] for name in names]
    start = gems[0]
    others: dict[str, int] = {}
    for gem in gems[1::2]:
        others[gem] = others.get(gem, 0) + 1
    return Fraction(gems.count(start), max(others.values()))


def as_decimal(value: Fraction) -> Decimal:
    """A score as a Decimal: exact when it has a finite decimal expansion (``3/2 -> 1.5``),
    otherwise rounded half up to 4 places (``5/3 -> 1.6667``)."""
    den = value.denominator
    for prime in (2, 5):
        while den % prime == 0:
            den //= prime
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return exact if den == 1 else exact.quantize(FOUR_PLACES, rounding=ROUND_HALF_UP)


def path_score(board: Board | str, player: str, cells: Sequence[str]) -> Decimal:
    """What the path scores for ``player``: the cells of its start's gem type divided by the
    largest count of any single other gem type on it. Exact where the quotient has a finite
    decimal expansion, else rounded half up to 4 places. PathError (a ValueError) names the rule
    an illegal path breaks."""
    return as_decimal(score_fraction(board, player, cells))


def round_total(value: Fraction | Decimal | int | str) -> Decimal:
    """A running total rounded half up to 2 decimal places (done after every move)."""
    exact = Fraction(Decimal(value)) if isinstance(value, str) else Fraction(value)
    hundredths = (exact * 100 + Fraction(1, 2)).__floor__()
    return (Decimal(hundredths) / 100).quantize(TWO_PLACES)


def add_to_total(total: str | Decimal, score: Fraction) -> Decimal:
    """``total`` plus a move's exact score, rounded half up to 2 places."""
    return round_total(Fraction(Decimal(total)) + score)


@dataclass(frozen=True, slots=True)
class Move:
    """A path played: its cells, the exact score, the board after it and the steps to animate."""

    cells: tuple[str, ...]
    fraction: Fraction
    board: Board
    steps: list[Step]

    @property
    def score(self) -> Decimal:
        return as_decimal(self.fraction)


def play_path(board: Board | str, player: str, cells: Sequence[str]) -> Move:
    """Play a legal path: its score, and the board with every cell of the path emptied.

    Steps, each with ``board``, the board's text after it (as a page draws it):
    ``{"kind": "path", "player", "cells", "gems", "board"}``, the path drawn on the board as it
    stands, then ``{"kind": "remove", "cells", "board"}``, its cells emptied."""
    b = as_board(board)
    fraction = score_fraction(b, player, cells)
    names = path_cells(cells)
    grid = [list(row) for row in b.rows]
    gems = []
    for name in names:
        row, col = parse_cell(name, b)
        gems.append(grid[row][col])
        grid[row][col] = EMPTY
    after = Board(tuple("".join(row) for row in grid))
    steps: list[Step] = [
        {
            "kind": "path",
            "player": as_player(player),
            "cells": list(names),
            "gems": gems,
            "board": format_board(b),
        },
        {"kind": "remove", "cells": list(names), "board": format_board(after)},
    ]
    return Move(cells=tuple(names), fraction=fraction, board=after, steps=steps)
