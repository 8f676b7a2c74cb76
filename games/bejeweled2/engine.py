"""Rules of Bejeweled 2 (single player), as a pure library (no Django, no IO).

The board has 8 rows (1-8, row 1 on top) and 8 columns (A-H); gravity pulls toward row 8. A cell
holds a gem of one of the seven colours of ``COLOURS`` (``P R Y G B O W``), a power gem of that
colour (the lower-case letter), a hypercube ``H``, a rock ``#``, a bomb (a digit: the moves it has
left) or nothing (``.``).

A move swaps two side-by-side cells. ``swap`` plays the whole move: the lines it makes, the
specials they leave, power-gem blasts, falls, new gems from above (when a refill seed is given),
the cascades that follow, and the bombs' countdown. Every choice made beyond the seed text and
shared/spec/rulings.md is written down in docs/rules/bejeweled-2.md.

The board (cells, boards, lines, legal swaps, new and reshuffled boards) is in grid.py and the
move played out (lines, special gems, blasts, falls, cascades, bombs) in cascade.py; this module
plays a swap and gives the hint, and gathers them all under the contract's names
(../shared/spec/engine-api.md), so that the match, the bots, the tools and the tests import one
module.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from games.bejeweled2.cascade import (
    GRAVITIES,
    HYPERCUBE_BONUS,
    NEW_BOMB,
    POINTS_PER_GEM,
    POWER_GEM_BONUS,
    Step,
    _play,
    quick_swap,
)
from games.bejeweled2.grid import (
    _NAMES,
    _PAIRS,
    BOMBS,
    COLOUR_NAMES,
    COLOURS,
    COLUMN_LETTERS,
    COLUMNS,
    EMPTY,
    HYPERCUBE,
    POWER_GEMS,
    ROCK,
    ROWS,
    SIZE,
    Board,
    BoardError,
    MoveError,
    _as_board,
    _board,
    _check_swap,
    _is_legal,
    cell_name,
    format_board,
    generate_board,
    has_legal_move,
    has_match,
    legal_moves,
    parse_board,
    parse_cell,
    reshuffle,
)

__all__ = [
    "BOMBS",
    "Board",
    "BoardError",
    "COLOURS",
    "COLOUR_NAMES",
    "COLUMNS",
    "COLUMN_LETTERS",
    "EMPTY",
    "GRAVITIES",
    "HYPERCUBE",
    "HYPERCUBE_BONUS",
    "MoveError",
    "NEW_BOMB",
    "POINTS_PER_GEM",
    "POWER_GEMS",
    "POWER_GEM_BONUS",
    "ROCK",
    "ROWS",
    "SIZE",
    "Step",
    "Turn",
    "best_move",
    "cell_name",
    "format_board",
    "generate_board",
    "has_legal_move",
    "has_match",
    "legal_moves",
    "parse_board",
    "parse_cell",
    "quick_swap",
    "reshuffle",
    "swap",
]


# --- one move --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """What a move did: the settled ``board``, the ``score`` it earned, how many pieces it
    ``removed`` (gems, specials, rocks and bombs alike) and the ``steps`` to animate.
    ``cascades`` is the deepest cascade level reached (1: only the swap's own matches)."""

    board: Board
    score: int
    removed: int
    steps: list[Step] = field(default_factory=list)
    cascades: int = 1


def swap(
    board: Board | str,
    a: str,
    b: str,
    rng_seed: int | None,
    *,
    gravity: str = "down",
    rocks_and_bombs: bool = False,
    specials: bool = True,
) -> Turn:
    """Swap the pieces in cells ``a`` and ``b`` (e.g. ``"C4"``, ``"C5"``) and play out the move.

    ``rng_seed`` seeds the new gems that fall in from above; ``None`` means no new gems (puzzle
    mode). Raises MoveError for an illegal swap (the board is left as it was).

    ``gravity="up"`` (Twilight) makes everything fall toward row 1 and new gems come in from
    below; ``rocks_and_bombs=True`` (Finity) lets rocks and bombs of 9 moves fall in among the
    new gems (see ``cascade._Play._new_piece``); ``specials=False`` (Original, the first Bejeweled's
    play) makes no power gem or hypercube: a line of 4 or 5, an L or a T is removed whole.

    The steps, in order: ``swap``; for each depth, ``line`` (one per group of lines that share
    gems), ``special`` (a power gem or hypercube made, with its bonus), ``remove`` (cells removed,
    by ``cause``: ``line``, ``hypercube``, ``blast`` from a power gem at ``source`` or ``bomb``,
    with their points), ``fall`` (moves as [from, to]) and ``new`` (gems that fell in); a
    ``hypercube`` step says what a swapped hypercube destroys; ``countdown`` gives the bombs'
    new counts. The move's score is the sum of the steps' points.

    Every step also carries ``board``, the board after it as ``format_board`` writes it (a
    removal's cells already empty, a special already in its cell; a hypercube's ``swap`` shows
    the two pieces swapped), and ``score``, the move's score so far: a page animates the move by
    drawing each step's board, with no rule of its own.
    """
    start = _as_board(board)
    if rng_seed is not None and (not isinstance(rng_seed, int) or isinstance(rng_seed, bool)):
        raise MoveError("the seed for new gems is a whole number, or None for no new gems")
    if gravity not in GRAVITIES:
        raise MoveError(f"gravity pulls {' or '.join(GRAVITIES)}, not {gravity!r}")
    g = list(start.cells)
    i, j = _check_swap(g, a, b)
    rng = None if rng_seed is None else random.Random(rng_seed)
    play = _play(g, i, j, rng, True, gravity, bool(rocks_and_bombs), bool(specials))
    return Turn(
        board=_board(g),
        score=play.score,
        removed=play.removed,
        steps=play.steps,
        cascades=max(1, play.depth - 1),
    )


# --- the hint ----------------------------------------------------------------------------------


def best_move(board: Board | str, *, specials: bool = True) -> tuple[str, str] | None:
    """The hint: the legal swap that scores most from the gems on the board (no new gems are
    counted, since they are not known yet); the first in ``legal_moves`` order among equals.
    None when no legal move exists. ``specials=False``: scored as Original plays it."""
    start = _as_board(board)
    g = list(start.cells)
    best: tuple[int, int, int] | None = None
    for i, j in _PAIRS:
        if _is_legal(g, i, j):
            _, score = quick_swap(start.cells, i, j, specials=specials)
            if best is None or score > best[0]:
                best = (score, i, j)
    return None if best is None else (_NAMES[best[1]], _NAMES[best[2]])
