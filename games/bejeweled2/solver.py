"""The exact Puzzle-mode solver: the shortest sequence of swaps that clears a board, or the proof
that none does.

Puzzle mode has no new gems, so a move is a function of the board alone and every legal move
removes at least two pieces: the boards reachable from a puzzle form a finite graph with no
cycles. ``solve`` searches it breadth first, one move count at a time, meeting each board once;
the first cleared board found is reached in the fewest moves, and a search that runs out of
boards has visited every board the puzzle can reach, none of them clear: that is the proof.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.bejeweled2.engine import (
    _PAIRS,
    BOMBS,
    EMPTY,
    HYPERCUBE,
    POWER_GEMS,
    ROCK,
    SIZE,
    Board,
    _as_board,
    _is_legal,
    cell_name,
    quick_swap,
)

_CLEAR = EMPTY * SIZE


@dataclass(frozen=True)
class Solution:
    """``moves``: the shortest list of swaps that clears the board ([] when it is already clear),
    or None when no sequence does. ``explored``: how many distinct boards the search met."""

    moves: list[tuple[str, str]] | None
    explored: int

    @property
    def solvable(self) -> bool:
        return self.moves is not None


def _hopeless(cells: str) -> bool:
    """A board that can never be cleared: nothing on it can blast (no power gem, hypercube or
    bomb), no colour has the 4 gems a power gem needs, and a rock or a colour of one or two gems
    is left, which only a line of three or a blast could remove."""
    if any(ch in cells for ch in POWER_GEMS) or HYPERCUBE in cells:
        return False
    if any(ch in cells for ch in BOMBS):
        return False
    counts: dict[str, int] = {}
    for ch in cells:
        if ch != EMPTY:
            counts[ch] = counts.get(ch, 0) + 1
    if any(n >= 4 for ch, n in counts.items() if ch != ROCK):
        return False
    return ROCK in counts or any(n < 3 for n in counts.values())


def solve(board: Board | str, max_boards: int = 2_000_000) -> Solution:
    """The shortest sequence of swaps that empties ``board`` in puzzle mode (no new gems), or
    ``moves=None`` when none exists. Raises RuntimeError if more than ``max_boards`` distinct
    boards would have to be searched (no shipped puzzle comes near)."""
    start = _as_board(board).cells
    if start == _CLEAR:
        return Solution([], 1)
    parents: dict[str, tuple[str, int, int] | None] = {start: None}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for cells in frontier:
            g = list(cells)
            for i, j in _PAIRS:
                if not _is_legal(g, i, j):
                    continue
                after, _ = quick_swap(cells, i, j)
                if after in parents:
                    continue
                parents[after] = (cells, i, j)
                if after == _CLEAR:
                    return Solution(_path(parents, after), len(parents))
                if len(parents) > max_boards:
                    raise RuntimeError(f"the search passed {max_boards} boards")
                if not _hopeless(after):
                    following.append(after)
        frontier = following
    return Solution(None, len(parents))


def _path(parents: dict[str, tuple[str, int, int] | None], cells: str) -> list[tuple[str, str]]:
    moves = []
    link = parents[cells]
    while link is not None:
        previous, i, j = link
        moves.append((cell_name(i), cell_name(j)))
        link = parents[previous]
    return moves[::-1]


def first_move(board: Board | str) -> tuple[str, str] | None:
    """The first swap of a shortest solution, or None when the board cannot be cleared."""
    moves = solve(board).moves
    return moves[0] if moves else None
