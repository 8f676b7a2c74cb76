"""The board of a Bejeweled death match, as a pure library (no Django, no IO): its cells and
their names, the immutable ``Board`` and its text, the lines and 2x2 squares a turn removes, and
the boards a live match deals (round 1's, and the rocks refilled between rounds).

The board has 7 rows (1-7, row 1 on top) and 8 columns (A-H). A cell holds a gem of one of the
colours in ``COLOURS`` or a rock ``#``. Inside a turn (rules.py) the grid is a list of small ints:
0-4 the colours of ``COLOURS``, 5 a rock, 6 a hole (a removed gem that gravity has not yet
replaced); ``grid_of`` and ``board_of`` go between the two.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from games.core.game import gridtext

ROWS = 7
COLUMNS = 8
SIZE = ROWS * COLUMNS
COLOURS = "RBGYP"
ROCK = "#"
HOLE = "."
COLUMN_LETTERS = "ABCDEFGH"
COLOUR_NAMES = {"R": "red", "B": "blue", "G": "green", "Y": "yellow", "P": "purple"}

Cell = tuple[int, int]
"""A cell as (row, column), both counted from 0: (0, 0) is A1, (3, 5) is F4."""


class BoardError(ValueError):
    """A board text or board value that is not a legal Bejeweled death match board."""


class ProofError(ValueError):
    """A proof that cannot be read, or that is illegal on the board it is played on. Declared
    with the board, whose cells a proof names: a cell that does not exist is this error."""


# --- cells -----------------------------------------------------------------------------------

# A turn's grid (rules.py): 0-4 the colours of ``COLOURS``, then these.
ROCK_CODE = 5
HOLE_CODE = 6
_TEXT = COLOURS + ROCK + HOLE
_ENCODE = bytes.maketrans(_TEXT.encode(), bytes(range(len(_TEXT))))
_DECODE = bytes.maketrans(bytes(range(len(_TEXT))), _TEXT.encode())
CELL_NAMES = gridtext.cell_names(ROWS, COLUMNS, COLUMN_LETTERS)
CELL_INDEX = {name: i for i, name in enumerate(CELL_NAMES)}


def cell_name(row: int, col: int) -> str:
    """The name of a cell: ``cell_name(3, 5) == "F4"`` (row and column counted from 0)."""
    if not (0 <= row < ROWS and 0 <= col < COLUMNS):
        raise ProofError(f"there is no cell at row {row + 1}, column {col + 1}")
    return CELL_NAMES[row * COLUMNS + col]


def parse_cell(name: str) -> Cell:
    """``parse_cell("F4") == (3, 5)``; case and surrounding spaces are ignored."""
    shown = gridtext.shown_name(name)
    index = CELL_INDEX.get(shown)
    if index is None:
        raise ProofError(f"unknown cell {shown}")
    return divmod(index, COLUMNS)


def check_cell(cell: object) -> int:
    """The index of a (row, column) cell, or ProofError."""
    if (
        isinstance(cell, tuple)
        and len(cell) == 2
        and all(isinstance(n, int) and not isinstance(n, bool) for n in cell)
        and 0 <= cell[0] < ROWS
        and 0 <= cell[1] < COLUMNS
    ):
        return cell[0] * COLUMNS + cell[1]
    raise ProofError(f"unknown cell {cell!r}")


# --- boards ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """An immutable board: ``cells`` holds the 56 cells row by row, top row first."""

    cells: str

    def __post_init__(self) -> None:
        _check_cells(self.cells)

    @property
    def rows(self) -> tuple[str, ...]:
        return gridtext.rows_of(self.cells, COLUMNS)

    def __getitem__(self, cell: str | Cell) -> str:
        """``board["F4"]`` or ``board[3, 5]``: the gem letter or ``#``."""
        row, col = parse_cell(cell) if isinstance(cell, str) else cell
        return self.cells[check_cell((row, col))]

    def count(self, what: str) -> int:
        """How many cells hold ``what`` (a colour letter or ``#``)."""
        return self.cells.count(what)

    def __str__(self) -> str:
        return format_board(self)


def _check_cells(cells: object) -> None:
    if not isinstance(cells, str) or len(cells) != SIZE:
        raise BoardError(f"a board has {ROWS} rows of {COLUMNS} cells, {SIZE} in all")
    for i, ch in enumerate(cells):
        if ch not in COLOURS and ch != ROCK:
            raise BoardError(
                f"{CELL_NAMES[i]}: unknown character {ch!r}; use R, B, G, Y, P for gems and "
                "# for rocks"
            )
    for col in range(COLUMNS):
        column = cells[col::COLUMNS]
        top_gem = len(column) - len(column.lstrip(ROCK))
        below = column.find(ROCK, top_gem)
        if below != -1:
            raise BoardError(
                f"{CELL_NAMES[below * COLUMNS + col]} is a rock under a gem; rocks can only be "
                f"above every gem of their column"
            )


def board_of(grid: Iterable[int]) -> Board:
    """A Board from a settled grid, skipping the checks (the rules keep it legal)."""
    board = object.__new__(Board)
    object.__setattr__(board, "cells", bytes(grid).translate(_DECODE).decode())
    return board


def grid_of(board: Board) -> list[int]:
    return list(board.cells.encode().translate(_ENCODE))


def grid_text(grid: list[int]) -> str:
    flat = bytes(grid).translate(_DECODE).decode()
    return gridtext.text_of(gridtext.rows_of(flat, COLUMNS))


def parse_board(text: str) -> Board:
    """Read 7 lines of 8 cells (``R B G Y P #``), top row first. Blank lines around the board and
    spaces anywhere are ignored."""
    if not isinstance(text, str):
        raise BoardError("a board is given as text: 7 lines of 8 cells")
    return Board(gridtext.fixed_cells(text, ROWS, COLUMNS, BoardError))


def format_board(board: Board) -> str:
    """7 lines of 8 cells, top row first, no trailing newline."""
    return gridtext.text_of(board.rows)


# --- lines, squares and neighbourhoods, computed once ------------------------------------------

_TRIPLES = tuple(
    [
        (r * COLUMNS + c, r * COLUMNS + c + 1, r * COLUMNS + c + 2)
        for r in range(ROWS)
        for c in range(6)
    ]
    + [
        (r * COLUMNS + c, (r + 1) * COLUMNS + c, (r + 2) * COLUMNS + c)
        for r in range(5)
        for c in range(8)
    ]
)
_SQUARES = tuple(
    (r * COLUMNS + c, r * COLUMNS + c + 1, (r + 1) * COLUMNS + c, (r + 1) * COLUMNS + c + 1)
    for r in range(ROWS - 1)
    for c in range(COLUMNS - 1)
)
_TRIPLES_THROUGH = tuple(tuple(t for t in _TRIPLES if i in t) for i in range(SIZE))


def find_matches(g: list[int], bend: bool) -> dict[int, str]:
    """Every gem in a line of 3+ of one colour ("match") and, with Bend, every gem of a colour
    that holds 3 or 4 cells of a 2x2 square ("bend"). Holes and rocks are not gems, so they break
    lines."""
    found: dict[int, str] = {}
    for a, b, c in _TRIPLES:
        x = g[a]
        if x < 5 and x == g[b] == g[c]:
            found[a] = found[b] = found[c] = "match"
    if bend:
        for a, b, c, d in _SQUARES:
            # Three of four cells alike means the top pair or the bottom pair is alike.
            x = g[a]
            if not (x < 5 and x == g[b] and (g[c] == x or g[d] == x)):
                x = g[c]
                if not (x < 5 and x == g[d] and (g[a] == x or g[b] == x)):
                    continue
            for i in (a, b, c, d):
                if g[i] == x and i not in found:
                    found[i] = "bend"
    return found


def _has_line(g: list[int]) -> bool:
    for a, b, c in _TRIPLES:
        x = g[a]
        if x < 5 and x == g[b] == g[c]:
            return True
    return False


def has_match(board: Board, bend: bool = False) -> bool:
    """Whether any line of 3 gems of one colour exists (and, with ``bend``, any 2x2 square with 3 or
    4 gems of one colour)."""
    return bool(find_matches(grid_of(board), bend))


# --- boards for the live match ---------------------------------------------------------------


def generate_board(seed: int) -> Board:
    """A round-1 board: every gem uniformly random, with no line of three anywhere (drawn again
    until none appears, so every such board is equally likely)."""
    rng = random.Random(seed)
    colours = range(len(COLOURS))
    while True:
        grid = rng.choices(colours, k=SIZE)
        if not _has_line(grid):
            return board_of(grid)


def refill_rocks(board: Board, seed: int) -> Board:
    """Replace every rock with a random gem so that no line of three runs through a new gem. The
    rocks are filled in reading order, each with a colour drawn from those that complete no line
    with the gems already there; one always remains, since a cell's neighbours can forbid at
    most four colours."""
    rng = random.Random(seed)
    grid = grid_of(board)
    for i in range(SIZE):
        if grid[i] != ROCK_CODE:
            continue
        forbidden = set()
        for a, b, c in _TRIPLES_THROUGH[i]:
            x, y = (grid[j] for j in (a, b, c) if j != i)
            if x == y and x < ROCK_CODE:
                forbidden.add(x)
        grid[i] = rng.choice([x for x in range(len(COLOURS)) if x not in forbidden])
    return board_of(grid)
