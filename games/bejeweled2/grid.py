"""The Bejeweled 2 board, pure (no Django, no IO): 8 rows (1-8, row 1 on top) and 8 columns
(A-H). A cell holds a gem of one of the seven colours of ``COLOURS`` (``P R Y G B O W``), a power
gem of that colour (the lower-case letter), a hypercube ``H``, a rock ``#``, a bomb (a digit: the
moves it has left) or nothing (``.``). The cells and their names, boards read and written as
text, the lines of three or more, the legal swaps, and new and reshuffled boards. The engine
(engine.py) gathers it under the contract's names."""

from __future__ import annotations

import random
from dataclasses import dataclass

from games.core.game import gridtext

ROWS = 8
COLUMNS = 8
SIZE = ROWS * COLUMNS
COLOURS = "PRYGBOW"
POWER_GEMS = COLOURS.lower()
HYPERCUBE = "H"
ROCK = "#"
EMPTY = "."
BOMBS = "0123456789"
COLUMN_LETTERS = "ABCDEFGH"
COLOUR_NAMES = {
    "P": "purple",
    "R": "red",
    "Y": "yellow",
    "G": "green",
    "B": "blue",
    "O": "orange",
    "W": "white",
}


class BoardError(ValueError):
    """A board text or value that is not a Bejeweled 2 board."""


class MoveError(ValueError):
    """A swap the rules do not allow (or cells that cannot be read)."""


# --- cells -----------------------------------------------------------------------------------

_NAMES = gridtext.cell_names(ROWS, COLUMNS, COLUMN_LETTERS)
_INDEX = {name: i for i, name in enumerate(_NAMES)}
_ALLOWED = set(COLOURS + POWER_GEMS + HYPERCUBE + ROCK + EMPTY + BOMBS)
_COLOUR_OF = {ch: ch.upper() for ch in COLOURS + POWER_GEMS}
"""The colour a piece matches as; hypercubes, rocks, bombs and empty cells match nothing."""


def cell_name(index: int) -> str:
    """The name of a cell from its index in reading order: 0 is ``A1``, 63 is ``H8``."""
    return _NAMES[index]


def parse_cell(name: object) -> int:
    """The index (reading order, from 0) of a cell named like ``C4``; case and spaces ignored."""
    shown = gridtext.shown_name(name)
    index = _INDEX.get(shown)
    if index is None:
        raise MoveError(f"there is no cell {shown}; name cells A1 to H8 (column, then row)")
    return index


def _neighbours8(i: int) -> tuple[int, ...]:
    row, col = divmod(i, COLUMNS)
    return tuple(
        r * COLUMNS + c
        for r in (row - 1, row, row + 1)
        for c in (col - 1, col, col + 1)
        if (r, c) != (row, col) and 0 <= r < ROWS and 0 <= c < COLUMNS
    )


_AROUND = tuple(_neighbours8(i) for i in range(SIZE))
_PAIRS = tuple(
    (i, j)
    for i in range(SIZE)
    for j in (i + 1, i + COLUMNS)
    if j < SIZE and (j == i + COLUMNS or j % COLUMNS != 0)
)
"""Every pair of side-by-side cells, in reading order of the first cell (right, then below)."""
_ROW_LINES = tuple(tuple(range(r * COLUMNS, (r + 1) * COLUMNS)) for r in range(ROWS))
_COL_LINES = tuple(tuple(range(c, SIZE, COLUMNS)) for c in range(COLUMNS))


# --- boards ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """An immutable board: ``cells`` holds the 64 cells row by row, top row first."""

    cells: str

    def __post_init__(self) -> None:
        if not isinstance(self.cells, str) or len(self.cells) != SIZE:
            raise BoardError(f"a board has {ROWS} rows of {COLUMNS} cells, {SIZE} in all")
        for i, ch in enumerate(self.cells):
            if ch not in _ALLOWED:
                raise BoardError(
                    f"{_NAMES[i]}: unknown piece {ch!r}; use P R Y G B O W for gems, p r y g b o w "
                    f"for power gems, H for a hypercube, # for a rock, 0-9 for a bomb, . for empty"
                )

    @property
    def rows(self) -> tuple[str, ...]:
        return gridtext.rows_of(self.cells, COLUMNS)

    def __getitem__(self, name: str) -> str:
        """``board["C4"]``: the piece in that cell."""
        return self.cells[parse_cell(name)]

    def count(self, piece: str) -> int:
        return self.cells.count(piece)

    @property
    def is_clear(self) -> bool:
        """Whether every cell is empty (a solved puzzle)."""
        return self.cells == EMPTY * SIZE

    @property
    def is_full(self) -> bool:
        return EMPTY not in self.cells

    def __str__(self) -> str:
        return format_board(self)


def _board(cells: list[str]) -> Board:
    """A Board from a grid the rules produced, skipping the checks."""
    board = object.__new__(Board)
    object.__setattr__(board, "cells", "".join(cells))
    return board


def parse_board(text: str) -> Board:
    """Read 8 lines of 8 cells, top row first. Blank lines around the board and spaces anywhere
    are ignored."""
    if isinstance(text, Board):
        return text
    if not isinstance(text, str):
        raise BoardError("a board is given as text: 8 lines of 8 cells")
    return Board(gridtext.fixed_cells(text, ROWS, COLUMNS, BoardError, blank_lines=True))


def format_board(board: Board) -> str:
    """8 lines of 8 cells, top row first, no trailing newline."""
    return gridtext.text_of(_as_board(board).rows)


def _as_board(board: Board | str) -> Board:
    if isinstance(board, Board):
        return board
    if isinstance(board, str):
        return parse_board(board)
    raise BoardError("a board is given as a Board or as its text: 8 lines of 8 cells")


# --- lines -----------------------------------------------------------------------------------


def _runs(g: list[str], line: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The runs of 3+ pieces of one colour along one row or column."""
    found = []
    start = 0
    n = len(line)
    while start < n:
        colour = _COLOUR_OF.get(g[line[start]])
        end = start + 1
        if colour is not None:
            while end < n and _COLOUR_OF.get(g[line[end]]) == colour:
                end += 1
            if end - start >= 3:
                found.append(line[start:end])
        start = end
    return found


def _lines(g: list[str]) -> list[tuple[int, ...]]:
    """Every horizontal and vertical line of 3+ gems of one colour (power gems match their
    colour; hypercubes, rocks and bombs match nothing)."""
    lines = []
    for line in _ROW_LINES:
        lines.extend(_runs(g, line))
    for line in _COL_LINES:
        lines.extend(_runs(g, line))
    return lines


def _has_line(g: list[str]) -> bool:
    for lines in (_ROW_LINES, _COL_LINES):
        for line in lines:
            previous, length = None, 0
            for i in line:
                colour = _COLOUR_OF.get(g[i])
                if colour is not None and colour == previous:
                    length += 1
                    if length == 3:
                        return True
                else:
                    previous, length = colour, 1
    return False


def _line_through(g: list[str], i: int) -> bool:
    """Whether cell ``i`` is part of a line of 3+ of its colour."""
    colour = _COLOUR_OF.get(g[i])
    if colour is None:
        return False
    row, col = divmod(i, COLUMNS)
    left = col
    while left > 0 and _COLOUR_OF.get(g[i - (col - left) - 1]) == colour:
        left -= 1
    right = col
    while right < COLUMNS - 1 and _COLOUR_OF.get(g[i + (right - col) + 1]) == colour:
        right += 1
    if right - left >= 2:
        return True
    up = row
    while up > 0 and _COLOUR_OF.get(g[(up - 1) * COLUMNS + col]) == colour:
        up -= 1
    down = row
    while down < ROWS - 1 and _COLOUR_OF.get(g[(down + 1) * COLUMNS + col]) == colour:
        down += 1
    return down - up >= 2


def has_match(board: Board | str) -> bool:
    """Whether any line of 3 gems of one colour stands on the board."""
    return _has_line(list(_as_board(board).cells))


# --- legal moves -----------------------------------------------------------------------------


def _is_legal(g: list[str], i: int, j: int) -> bool:
    x, y = g[i], g[j]
    if x == EMPTY or y == EMPTY:
        return False
    if x == HYPERCUBE or y == HYPERCUBE:
        return True
    if _COLOUR_OF.get(x) == _COLOUR_OF.get(y):
        # Same colour (or two non-gems): the swap changes no line.
        return _COLOUR_OF.get(x) is not None and (_line_through(g, i) or _line_through(g, j))
    g[i], g[j] = y, x
    legal = _line_through(g, i) or _line_through(g, j)
    g[i], g[j] = x, y
    return legal


def legal_moves(board: Board | str) -> list[tuple[str, str]]:
    """Every legal swap, as pairs of cell names in reading order of the first cell (its right
    neighbour before the one below). A swap is legal when both cells hold something and either
    one of them is a hypercube or the swap leaves a line of 3+ through one of the two cells."""
    g = list(_as_board(board).cells)
    return [(_NAMES[i], _NAMES[j]) for i, j in _PAIRS if _is_legal(g, i, j)]


def has_legal_move(board: Board | str) -> bool:
    """Whether at least one legal swap exists (False means the game is stuck)."""
    g = list(_as_board(board).cells)
    return any(_is_legal(g, i, j) for i, j in _PAIRS)


def _check_swap(g: list[str], a: object, b: object) -> tuple[int, int]:
    i, j = parse_cell(a), parse_cell(b)
    if i == j:
        raise MoveError(f"{_NAMES[i]}: pick two different cells to swap")
    (ri, ci), (rj, cj) = divmod(i, COLUMNS), divmod(j, COLUMNS)
    if abs(ri - rj) + abs(ci - cj) != 1:
        raise MoveError(
            f"{_NAMES[i]} and {_NAMES[j]} are not side by side; swap a piece with the one "
            f"directly above, below, left or right of it"
        )
    for k in (i, j):
        if g[k] == EMPTY:
            raise MoveError(f"{_NAMES[k]} is empty; only two pieces can be swapped")
    if not _is_legal(g, i, j):
        raise MoveError(
            f"swapping {_NAMES[i]} and {_NAMES[j]} makes no line of three; a swap must line up "
            f"three or more gems of one colour (or move a hypercube)"
        )
    return i, j


# --- new and reshuffled boards ---------------------------------------------------------------


def generate_board(seed: int) -> Board:
    """A full board of random gems (uniform colours) with no line of three and at least one
    legal move, from a seeded generator: the same seed gives the same board."""
    rng = random.Random(seed)
    while True:
        g: list[str] = []
        for i in range(SIZE):
            row, col = divmod(i, COLUMNS)
            banned = set()
            if col >= 2 and g[i - 1] == g[i - 2]:
                banned.add(g[i - 1])
            if row >= 2 and g[i - COLUMNS] == g[i - 2 * COLUMNS]:
                banned.add(g[i - COLUMNS])
            g.append(rng.choice([c for c in COLOURS if c not in banned]))
        if any(_is_legal(g, i, j) for i, j in _PAIRS):
            return _board(g)


def reshuffle(board: Board | str, seed: int) -> Board:
    """The same pieces in a new order with no line of three and at least one legal move (for a
    stuck board in Endless and Action). If 1,000 shuffles find none, a new board instead."""
    start = _as_board(board)
    rng = random.Random(seed)
    pieces = list(start.cells)
    for _ in range(1000):
        rng.shuffle(pieces)
        if not _has_line(pieces) and any(_is_legal(pieces, i, j) for i, j in _PAIRS):
            return _board(pieces)
    return generate_board(rng.randrange(2**63))
