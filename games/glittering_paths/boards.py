"""Glittering Paths boards: a board's text, its cells and their gems, and the half-turn symmetry
every round's board has (pure: no Django, no IO; ``engine`` offers these under engine-api.md).

A board is a rectangle of cells named by column letter and row number (A1 is the top-left
cell). A cell holds a gem or is empty (``.``):

- the red player's gems: ruby ``R``, garnet ``G``, jasper ``J``;
- the blue player's gems: sapphire ``S``, lapis ``L``, aquamarine ``A``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from games.core.game import gridtext

RED = "red"
BLUE = "blue"
PLAYERS = (RED, BLUE)
EMPTY = "."
GEMS = "RGJSLA"
RED_GEMS = "RGJ"
BLUE_GEMS = "SLA"
GEMS_OF = {RED: RED_GEMS, BLUE: BLUE_GEMS}
GEM_NAMES = {
    "R": "ruby",
    "G": "garnet",
    "J": "jasper",
    "S": "sapphire",
    "L": "lapis",
    "A": "aquamarine",
}
SWAP = {"R": "S", "S": "R", "G": "L", "L": "G", "J": "A", "A": "J", EMPTY: EMPTY}
"""What a cell becomes when the board is turned half a turn: ruby <-> sapphire, garnet <-> lapis,
jasper <-> aquamarine (an empty cell stays empty)."""
COLUMN_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_ROWS = 99
MAX_COLUMNS = 26


class BoardError(ValueError):
    """A board text or board value that is not a legal Glittering Paths board."""


class PathError(ValueError):
    """A path that cannot be read, or that breaks a rule on the board it is drawn on."""


@dataclass(frozen=True, slots=True)
class Board:
    """An immutable board: ``rows`` lists the rows top (row 1) to bottom, one letter a cell."""

    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        _check_rows(self.rows)

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0])

    @property
    def shape(self) -> str:
        """``"8x10"``: rows x columns."""
        return f"{self.height}x{self.width}"

    def __getitem__(self, cell: str | tuple[int, int]) -> str:
        """``board["C2"]`` or ``board[1, 2]``: the gem letter, or ``.`` for an empty cell."""
        row, col = parse_cell(cell, self) if isinstance(cell, str) else cell
        if not (0 <= row < self.height and 0 <= col < self.width):
            raise PathError(f"there is no cell at row {row + 1}, column {col + 1}")
        return self.rows[row][col]

    def count(self, gem: str) -> int:
        return sum(row.count(gem) for row in self.rows)

    def __str__(self) -> str:
        return format_board(self)


def _check_rows(rows: object) -> None:
    if not isinstance(rows, tuple) or not rows or not all(isinstance(r, str) for r in rows):
        raise BoardError("a board has at least one row of cells")
    width = len(rows[0])
    if width == 0:
        raise BoardError("a board row needs at least one cell")
    if len(rows) > MAX_ROWS or width > MAX_COLUMNS:
        raise BoardError(f"a board has at most {MAX_ROWS} rows and {MAX_COLUMNS} columns")
    for r, row in enumerate(rows):
        if len(row) != width:
            raise BoardError(
                f"row {r + 1} has {len(row)} cells but row 1 has {width}; a board is a rectangle"
            )
        for c, ch in enumerate(row):
            if ch not in GEMS and ch != EMPTY:
                raise BoardError(
                    f"{COLUMN_LETTERS[c]}{r + 1}: unknown character {ch!r}; use R G J S L A for "
                    "gems and . for an empty cell"
                )


def parse_board(text: str) -> Board:
    """A board from its text: rows top to bottom, one line a row, one letter a cell
    (``R G J S L A`` or ``.``); blank lines and spaces around the rows are ignored."""
    if isinstance(text, Board):
        return text
    if not isinstance(text, str):
        raise BoardError("a board is given as text: rows of R G J S L A and .")
    rows = tuple(line.upper() for line in gridtext.lines(text) if line)
    if not rows:
        raise BoardError("the board is empty: give rows of R G J S L A and .")
    return Board(rows)


def format_board(board: Board | str) -> str:
    """The board's text: rows top to bottom joined by newlines."""
    return gridtext.text_of(as_board(board).rows)


def as_board(board: Board | str) -> Board:
    """A board given as a Board or as its text."""
    if isinstance(board, Board):
        return board
    if isinstance(board, str):
        return parse_board(board)
    raise BoardError("expected a board (its text or a Board)")


def cell_name(row: int, col: int) -> str:
    """``cell_name(1, 2) == "C2"`` (row and column counted from 0)."""
    return gridtext.cell_name(row, col, COLUMN_LETTERS)


def parse_cell(name: object, board: Board | None = None) -> tuple[int, int]:
    """``parse_cell("C2") == (1, 2)``: (row, column) counted from 0. Case and spaces are
    ignored. With a board, a cell off that board is an error."""
    shown = name.strip().upper() if isinstance(name, str) else None
    if not shown or shown[0] not in COLUMN_LETTERS or not shown[1:].isdigit():
        raise PathError(f"{name!r} is not a cell name; cells are named like A1 or C12")
    col = COLUMN_LETTERS.index(shown[0])
    row = int(shown[1:]) - 1
    if board is not None and not (0 <= row < board.height and 0 <= col < board.width):
        last = cell_name(board.height - 1, board.width - 1)
        raise PathError(f"there is no cell {shown} on this board (A1 to {last})")
    if row < 0:
        raise PathError(f"there is no cell {shown}; rows are numbered from 1")
    return row, col


def is_symmetric(board: Board | str) -> bool:
    """Whether the board maps onto itself turned half a turn with ruby <-> sapphire,
    garnet <-> lapis and jasper <-> aquamarine."""
    return symmetry_problem(board) is None


def symmetry_problem(board: Board | str) -> str | None:
    """The first cell that breaks the half-turn symmetry, as a sentence, or None."""
    b = as_board(board)
    h, w = b.height, b.width
    for r in range(h):
        for c in range(w):
            gem = b.rows[r][c]
            opposite = b.rows[h - 1 - r][w - 1 - c]
            if SWAP[gem] != opposite:
                want = GEM_NAMES.get(SWAP[gem], "an empty cell")
                return (
                    f"{cell_name(r, c)} holds {gem_phrase(gem)}, so the opposite cell "
                    f"{cell_name(h - 1 - r, w - 1 - c)} must hold "
                    f"{'a ' + want if SWAP[gem] != EMPTY else want}, not {gem_phrase(opposite)}"
                )
    return None


def gem_phrase(gem: str) -> str:
    """``"a ruby"``, ``"an aquamarine"``, or ``"nothing (it is empty)"``, as a rule says it."""
    if gem == EMPTY:
        return "nothing (it is empty)"
    name = GEM_NAMES[gem]
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def colour_of(gem: str) -> str | None:
    """``"red"`` for R G J, ``"blue"`` for S L A, None for an empty cell."""
    if gem in RED_GEMS:
        return RED
    if gem in BLUE_GEMS:
        return BLUE
    return None


def as_player(player: object) -> str:
    """``"red"`` or ``"blue"`` as given (any case, spaces around), or PathError."""
    if isinstance(player, str) and player.strip().lower() in PLAYERS:
        return player.strip().lower()
    raise PathError(f"the player is 'red' or 'blue', not {player!r}")


def all_cells(board: Board | str) -> Iterable[str]:
    """Every cell name of the board, row by row."""
    b = as_board(board)
    for r in range(b.height):
        for c in range(b.width):
            yield cell_name(r, c)
