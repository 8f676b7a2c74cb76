"""The Seven Gem Swap grid, pure (no Django, no IO): 10 rows (1-10, row 1 on top) and 10 columns
(A-J); a cell holds a gem of one of the seven colours in ``COLOURS`` (red, orange, yellow, green,
blue, indigo, violet) or a rock ``#``. The cells and their names, the steps between them, boards
read and written as text, a starting grid, and the groups of gems that score
(``largest_group``). The engine (engine.py) gathers it under the contract's names."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from games.core.game import gridtext

ROWS = 10
COLUMNS = 10
SIZE = ROWS * COLUMNS
COLOURS = "ROYGBIV"
ROCK = "#"
COLUMN_LETTERS = "ABCDEFGHIJ"
COLOUR_NAMES = {
    "R": "red",
    "O": "orange",
    "Y": "yellow",
    "G": "green",
    "B": "blue",
    "I": "indigo",
    "V": "violet",
}
GEMS_PER_COLOUR = 10
ROCKS = SIZE - GEMS_PER_COLOUR * len(COLOURS)
MAX_MOVES = 40
MOVES = "UDLR"
MOVE_NAMES = {"U": "up", "D": "down", "L": "left", "R": "right"}
_DELTA = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


class BoardError(ValueError):
    """A board text or value that is not a Seven Gem Swap grid."""


class SubmissionError(ValueError):
    """A round's submission that cannot be read or cannot be played on this grid."""


# --- cells -------------------------------------------------------------------------------------

_NAMES = gridtext.cell_names(ROWS, COLUMNS, COLUMN_LETTERS)
_INDEX = {name: i for i, name in enumerate(_NAMES)}


def cell_name(index: int) -> str:
    """The name of the cell at ``index`` (0 is A1, 9 is J1, 10 is A2, 99 is J10)."""
    if not isinstance(index, int) or not 0 <= index < SIZE:
        raise BoardError(f"there is no cell number {index!r}")
    return _NAMES[index]


def parse_cell(name: object) -> int:
    """The index of a cell named like ``C4`` (column letter A-J, row 1-10); case and surrounding
    spaces are ignored."""
    if not isinstance(name, str):
        raise SubmissionError(f"a cell is named by its column and row, like C4 (not {name!r})")
    index = _INDEX.get(gridtext.shown_name(name))
    if index is None:
        raise SubmissionError(
            f"there is no cell {name.strip()!r}; columns are A-J and rows 1-10, like C4"
        )
    return index


def _step_target(index: int, move: str) -> int | None:
    """The cell one step from ``index`` in direction ``move``, or None off the grid."""
    dr, dc = _DELTA[move]
    row, col = divmod(index, COLUMNS)
    row, col = row + dr, col + dc
    if 0 <= row < ROWS and 0 <= col < COLUMNS:
        return row * COLUMNS + col
    return None


_TARGET = tuple({move: _step_target(i, move) for move in MOVES} for i in range(SIZE))


def neighbours(cell: str) -> dict[str, str]:
    """The cells one move from ``cell``, by the move that reaches each (moves off the grid left
    out): ``neighbours("A1") == {"D": "A2", "R": "B1"}``."""
    targets = _TARGET[parse_cell(cell)]
    return {move: _NAMES[t] for move, t in targets.items() if t is not None}


_NEIGHBOURS = tuple(
    tuple(t for t in (_TARGET[i][move] for move in MOVES) if t is not None) for i in range(SIZE)
)


# --- boards ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """An immutable grid: ``cells`` holds the 100 cells row by row, top row (row 1) first."""

    cells: str

    def __post_init__(self) -> None:
        if not isinstance(self.cells, str) or len(self.cells) != SIZE:
            raise BoardError(f"a grid has {ROWS} rows of {COLUMNS} cells, {SIZE} in all")
        for i, ch in enumerate(self.cells):
            if ch not in COLOURS and ch != ROCK:
                raise BoardError(
                    f"{_NAMES[i]}: unknown character {ch!r}; gems are R O Y G B I V and a rock is #"
                )

    @property
    def rows(self) -> tuple[str, ...]:
        return gridtext.rows_of(self.cells, COLUMNS)

    def __getitem__(self, cell: str | int) -> str:
        """``board["C4"]``: the gem letter or ``#`` in that cell."""
        return self.cells[parse_cell(cell) if isinstance(cell, str) else _check_index(cell)]

    def count(self, what: str) -> int:
        """How many cells hold ``what`` (a colour letter or ``#``)."""
        return self.cells.count(what)

    def __str__(self) -> str:
        return format_board(self)


def _check_index(index: object) -> int:
    if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < SIZE:
        return index
    raise BoardError(f"there is no cell number {index!r}")


def _board(cells: Iterable[str]) -> Board:
    """A Board from cells the rules produced, skipping the checks."""
    board = object.__new__(Board)
    object.__setattr__(board, "cells", "".join(cells))
    return board


def parse_board(text: str) -> Board:
    """Read 10 lines of 10 cells (``R O Y G B I V`` for gems, ``#`` for a rock), row 1 first.
    Blank lines around the grid and spaces anywhere are ignored."""
    if not isinstance(text, str):
        raise BoardError(f"a grid is given as text: {ROWS} lines of {COLUMNS} cells")
    return Board(gridtext.fixed_cells(text, ROWS, COLUMNS, BoardError, noun="grid"))


def format_board(board: Board) -> str:
    """10 lines of 10 cells, row 1 first, no trailing newline."""
    return gridtext.text_of(_as_board(board).rows)


def _as_board(board: Board | str) -> Board:
    if isinstance(board, Board):
        return board
    if isinstance(board, str):
        return parse_board(board)
    raise BoardError("a grid is a Board or its text: 10 lines of 10 cells")


def check_standard(board: Board | str) -> Board:
    """The grid, if it holds exactly 10 gems of each colour and 30 rocks (as a match starts);
    BoardError naming what is off otherwise."""
    board = _as_board(board)
    wrong = [
        f"{board.count(c)} {COLOUR_NAMES[c]}" for c in COLOURS if board.count(c) != GEMS_PER_COLOUR
    ]
    if wrong:
        raise BoardError(
            f"a starting grid has {GEMS_PER_COLOUR} gems of each colour; this one has "
            + ", ".join(wrong)
        )
    if board.count(ROCK) != ROCKS:
        raise BoardError(f"a starting grid has {ROCKS} rocks; this one has {board.count(ROCK)}")
    return board


def generate_board(seed: int) -> Board:
    """A starting grid: 10 gems of each colour and 30 rocks in a seeded random order."""
    items = list(COLOURS * GEMS_PER_COLOUR + ROCK * ROCKS)
    random.Random(seed).shuffle(items)
    return _board(items)


def changed_cells(before: Board | str, after: Board | str) -> list[str]:
    """The cells (in reading order) whose content differs between two grids."""
    a, b = _as_board(before).cells, _as_board(after).cells
    return [_NAMES[i] for i in range(SIZE) if a[i] != b[i]]


# --- groups ------------------------------------------------------------------------------------


def _colour_set(colours: str) -> frozenset[str]:
    if not isinstance(colours, str) or not colours.strip():
        raise ValueError("name at least one gem colour, e.g. 'RB' (R O Y G B I V)")
    letters = colours.strip().upper()
    for ch in letters:
        if ch not in COLOURS:
            raise ValueError(f"{ch!r} is not a gem colour; use R O Y G B I V")
    return frozenset(letters)


def _largest(cells: str, wanted: frozenset[str]) -> int:
    seen = [False] * SIZE
    best = 0
    for start in range(SIZE):
        if seen[start] or cells[start] not in wanted:
            continue
        seen[start] = True
        stack = [start]
        size = 0
        while stack:
            i = stack.pop()
            size += 1
            for j in _NEIGHBOURS[i]:
                if not seen[j] and cells[j] in wanted:
                    seen[j] = True
                    stack.append(j)
        best = max(best, size)
    return best


def largest_group(board: Board | str, colours: str) -> int:
    """The size of the largest group of orthogonally connected gems whose colours are all among
    ``colours`` (``"RB"``: red and blue gems together; ``"R"`` or ``"RR"``: red alone). Rocks never
    belong to a group; 0 when no gem of those colours is on the grid."""
    return _largest(_as_board(board).cells, _colour_set(colours))


def largest_group_cells(board: Board | str, colours: str) -> list[str]:
    """The cells of a largest group of ``colours`` (as ``largest_group`` counts it), in grid
    order: the first such group met reading the grid row by row; [] when there is none. What the
    page lights up where a player's points came from."""
    cells = _as_board(board).cells
    wanted = _colour_set(colours)
    seen = [False] * SIZE
    best: list[int] = []
    for start in range(SIZE):
        if seen[start] or cells[start] not in wanted:
            continue
        seen[start] = True
        stack, group = [start], []
        while stack:
            i = stack.pop()
            group.append(i)
            for j in _NEIGHBOURS[i]:
                if not seen[j] and cells[j] in wanted:
                    seen[j] = True
                    stack.append(j)
        if len(group) > len(best):
            best = group
    return [cell_name(i) for i in sorted(best)]
