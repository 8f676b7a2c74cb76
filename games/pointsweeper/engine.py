"""Rules of Pointsweeper, as a pure library (no Django, no IO).

A board is a chessboard of 64 squares named in chess notation (files a-h left to right, ranks 1-8
from the first player's side). Each square holds a mine ``M`` or a tile worth -2 to 5 points; a
match board has 10 mines and 54 tiles. Players use chess pieces (``K Q R B N P``) to *scout* (learn
the sum and the number of mines of every square the piece could move to from a square, that square
included) or to *claim* (move the piece; every square it passes through is claimed, unless one of
them is an unclaimed mine: then only the mines are claimed).

Every function here takes plain values, never mutates them, and raises a ``ValueError`` subclass
whose message a player can read. Pieces move as on an empty chessboard: nothing blocks a slider,
pieces do not stay on the board after their turn. The decisions made beyond the seed and the
rulings are written down in docs/rules/pointsweeper.md.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from games.core.game import gridtext

FILES = "abcdefgh"
SIZE = 8
SQUARES = gridtext.cell_names(SIZE, SIZE, FILES)
"""All 64 squares, a1 b1 ... h1 a2 ... h8 (index = (rank - 1) * 8 + file)."""
MINE = "M"
LOWEST, HIGHEST = -2, 5
TILE_VALUES = tuple(range(LOWEST, HIGHEST + 1))
MINES_PER_BOARD = 10
TILES_PER_BOARD = SIZE * SIZE - MINES_PER_BOARD
PIECES = "KQRBNP"
PIECE_IDS = ("K", "Q", "R1", "R2", "B1", "B2", "N1", "N2", *(f"P{i}" for i in range(1, 9)))
"""Each player's 16 pieces on every board, named one by one (a piece's uses are its own)."""
PIECE_NAMES = {
    "K": "king",
    "Q": "queen",
    "R": "rook",
    "B": "bishop",
    "N": "knight",
    "P": "pawn",
}

Cell = int | str
"""What a square holds: a tile's points (an int from -2 to 5) or ``MINE``."""

_INDEX = {name: i for i, name in enumerate(SQUARES)}
_ROOK_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
_BISHOP_STEPS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))


class BoardError(ValueError):
    """A board text or value that is not a legal Pointsweeper board."""


class MoveError(ValueError):
    """A piece, square or move that the rules do not allow."""


# --- squares -------------------------------------------------------------------------------------


def square_index(name: object) -> int:
    """``square_index("e4") == 28``; case and surrounding spaces are ignored."""
    shown = name.strip().lower() if isinstance(name, str) else repr(name)
    index = _INDEX.get(shown)
    if index is None:
        raise MoveError(f"there is no square {shown!s} (squares run from a1 to h8)")
    return index


def square_name(file: int, rank: int) -> str:
    """The square at ``file`` and ``rank`` counted from 0: ``square_name(4, 3) == "e4"``."""
    if not (0 <= file < SIZE and 0 <= rank < SIZE):
        raise MoveError(f"there is no square at file {file + 1}, rank {rank + 1}")
    return SQUARES[rank * SIZE + file]


def normal_square(name: object) -> str:
    """The square's name in lower case: ``normal_square(" E4 ") == "e4"``."""
    return SQUARES[square_index(name)]


def piece_letter(piece: object) -> str:
    """The piece's letter from a letter, a numbered piece (``"R2"``) or its name (``"rook"``)."""
    if isinstance(piece, str):
        text = piece.strip()
        lowered = text.lower()
        for letter, name in PIECE_NAMES.items():
            if lowered == name:
                return letter
        if text and text[0].upper() in PIECES and (len(text) == 1 or text[1:].isdigit()):
            return text[0].upper()
    raise MoveError(f"unknown piece {piece!r}: use K, Q, R, B, N or P")


# --- boards --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """An immutable board: ``cells`` holds the 64 squares in ``SQUARES`` order (a1 first)."""

    cells: tuple[Cell, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.cells, tuple) or len(self.cells) != SIZE * SIZE:
            raise BoardError("a board has exactly 64 squares")
        for square, cell in zip(SQUARES, self.cells, strict=True):
            if cell == MINE and isinstance(cell, str):
                continue
            if isinstance(cell, bool) or not isinstance(cell, int):
                raise BoardError(f"{square} holds {cell!r}: a square holds M or -2..5")
            if not LOWEST <= cell <= HIGHEST:
                raise BoardError(f"{square} holds {cell}: tiles are worth -2 to 5 points")

    def __getitem__(self, square: str) -> Cell:
        """``board["e4"]``: the tile's points or ``"M"``."""
        return self.cells[square_index(square)]

    def is_mine(self, square: str) -> bool:
        return self.cells[square_index(square)] == MINE

    @property
    def mines(self) -> frozenset[str]:
        """The squares that hold mines."""
        return frozenset(s for s, c in zip(SQUARES, self.cells, strict=True) if c == MINE)

    def count_mines(self) -> int:
        return sum(1 for c in self.cells if c == MINE)

    def __str__(self) -> str:
        return format_board(self)


def parse_board(text: str) -> Board:
    """A board from its text: 8 lines, rank 8 first, each of 8 space-separated tokens ``-2``..``5``
    or ``M``. Blank lines around the board and spaces around lines are ignored; ``m`` and ``+3``
    are read as ``M`` and ``3``. Any number of mines is accepted here (a match board is checked
    by ``check_match_board``)."""
    if not isinstance(text, str):
        raise BoardError("a board is text: 8 lines of 8 values")
    lines = gridtext.lines(text)
    if len(lines) != SIZE:
        raise BoardError(f"a board has 8 lines (ranks 8 down to 1), not {len(lines)}")
    cells: list[Cell | None] = [None] * (SIZE * SIZE)
    for row, line in enumerate(lines):
        rank = SIZE - 1 - row
        tokens = line.split()
        if len(tokens) != SIZE:
            raise BoardError(f"rank {rank + 1} has {len(tokens)} values, not 8: {line!r}")
        for file, token in enumerate(tokens):
            cells[rank * SIZE + file] = _parse_cell(token, square_name(file, rank))
    return Board(tuple(cells))  # type: ignore[arg-type]


def _parse_cell(token: str, square: str) -> Cell:
    if token.upper() == MINE:
        return MINE
    try:
        value = int(token)
    except ValueError:
        raise BoardError(f"{square} holds {token!r}: write M or a number from -2 to 5") from None
    if not LOWEST <= value <= HIGHEST:
        raise BoardError(f"{square} holds {value}: tiles are worth -2 to 5 points")
    return value


def format_board(board: Board) -> str:
    """The board as text, rank 8 first: the inverse of ``parse_board``."""
    lines = []
    for rank in range(SIZE - 1, -1, -1):
        row = board.cells[rank * SIZE : (rank + 1) * SIZE]
        lines.append(" ".join(str(cell) for cell in row))
    return gridtext.text_of(lines)


def check_match_board(board: Board) -> Board:
    """The board itself if it has exactly 10 mines and 54 tiles, as every match board must."""
    mines = board.count_mines()
    if mines != MINES_PER_BOARD:
        raise BoardError(f"a match board has exactly 10 mines and 54 tiles; this one has {mines}")
    return board


def generate_board(seed: int) -> Board:
    """A match board: 10 mines on random squares and 54 tiles of -2..5, each value equally
    likely, all drawn from ``seed``."""
    rng = random.Random(seed)
    mines = set(rng.sample(range(SIZE * SIZE), MINES_PER_BOARD))
    cells: list[Cell] = [
        MINE if i in mines else rng.choice(TILE_VALUES) for i in range(SIZE * SIZE)
    ]
    return Board(tuple(cells))


def _as_board(board: Board | str) -> Board:
    if isinstance(board, Board):
        return board
    return parse_board(board)


# --- how pieces move -----------------------------------------------------------------------------


def _check_pawn_start(index: int, doing: str) -> None:
    if index // SIZE in (0, SIZE - 1):
        raise MoveError(
            f"a pawn cannot be placed on rank 1 or 8 to {doing} (it was placed on {SQUARES[index]})"
        )


@cache
def _moves(piece: str, index: int, first_player: bool) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Every move of ``piece`` from ``index`` on an empty board, as (end, squares passed through,
    start and end included) in a fixed order."""
    file, rank = index % SIZE, index // SIZE
    found: list[tuple[int, tuple[int, ...]]] = []

    def on(f: int, r: int) -> bool:
        return 0 <= f < SIZE and 0 <= r < SIZE

    if piece in "QRB":
        steps = {"Q": _ROOK_STEPS + _BISHOP_STEPS, "R": _ROOK_STEPS, "B": _BISHOP_STEPS}[piece]
        for df, dr in steps:
            path = [index]
            f, r = file + df, rank + dr
            while on(f, r):
                path.append(r * SIZE + f)
                found.append((path[-1], tuple(path)))
                f, r = f + df, r + dr
    elif piece in "KN":
        jumps = _ROOK_STEPS + _BISHOP_STEPS if piece == "K" else _KNIGHT_JUMPS
        for df, dr in jumps:
            if on(file + df, rank + dr):
                end = (rank + dr) * SIZE + file + df
                found.append((end, (index, end)))
    elif piece == "P":
        if rank in (0, SIZE - 1):
            return ()
        ahead = 1 if first_player else -1
        home = 1 if first_player else SIZE - 2
        one = (rank + ahead) * SIZE + file
        found.append((one, (index, one)))
        if rank == home:
            two = (rank + 2 * ahead) * SIZE + file
            found.append((two, (index, one, two)))
        for df in (-1, 1):
            if on(file + df, rank + ahead):
                end = (rank + ahead) * SIZE + file + df
                found.append((end, (index, end)))
    return tuple(found)


def scout_squares(piece: str, square: str, first_player: bool) -> tuple[str, ...]:
    """The squares a scout with ``piece`` on ``square`` covers: the square itself, then every
    square the piece could move to from it on an empty board. Pawns: one step forward, two from
    their home rank, and the two forward diagonals; the first player's pawns move toward rank 8."""
    letter = piece_letter(piece)
    index = square_index(square)
    if letter == "P":
        _check_pawn_start(index, "scout")
    return tuple(SQUARES[i] for i in _scout_indices(letter, index, bool(first_player)))


@cache
def _scout_indices(letter: str, index: int, first_player: bool) -> tuple[int, ...]:
    return (index, *(end for end, _ in _moves(letter, index, first_player)))


def move_path(piece: str, start: str, end: str, first_player: bool) -> tuple[str, ...]:
    """The squares ``piece`` passes through from ``start`` to ``end``, both included (a knight and
    a king: only the two). Raises MoveError if the piece cannot make that move."""
    letter = piece_letter(piece)
    a, b = square_index(start), square_index(end)
    name = PIECE_NAMES[letter]
    if a == b:
        raise MoveError(f"a claim must move the piece: the {name} starts and ends on {SQUARES[a]}")
    if letter == "P":
        _check_pawn_start(a, "claim")
    for target, path in _moves(letter, a, bool(first_player)):
        if target == b:
            return tuple(SQUARES[i] for i in path)
    if letter == "P":
        toward = "rank 8" if first_player else "rank 1"
        raise MoveError(
            f"a pawn cannot move from {SQUARES[a]} to {SQUARES[b]}: your pawns move toward "
            f"{toward}, one square forward (two from their home rank) or one diagonally forward"
        )
    raise MoveError(f"a {name} cannot move from {SQUARES[a]} to {SQUARES[b]}")


def legal_moves(piece: str, first_player: bool) -> list[tuple[str, str]]:
    """Every (start, end) claim ``piece`` can make on an empty board."""
    letter = piece_letter(piece)
    return [
        (SQUARES[a], SQUARES[end])
        for a in range(SIZE * SIZE)
        for end, _ in _moves(letter, a, bool(first_player))
    ]


def move_paths(piece: str, first_player: bool) -> list[tuple[str, str, tuple[int, ...]]]:
    """Every claim of ``piece`` as (start, end, square indices passed through)."""
    letter = piece_letter(piece)
    return [
        (SQUARES[a], SQUARES[end], path)
        for a in range(SIZE * SIZE)
        for end, path in _moves(letter, a, bool(first_player))
    ]


# --- scouting and claiming -----------------------------------------------------------------------


def _claimed_indices(claimed: Iterable[str]) -> frozenset[int]:
    if isinstance(claimed, str):
        raise MoveError("claimed squares are a set of names such as {'e4', 'a1'}")
    return frozenset(square_index(s) for s in claimed)


def scout(
    board: Board | str,
    piece: str,
    square: str,
    first_player: bool,
    claimed: Iterable[str] = frozenset(),
) -> tuple[int, int]:
    """What a scout tells its player: (the sum of the unclaimed tiles, the number of unclaimed
    mines) among the squares ``piece`` on ``square`` covers (``scout_squares``)."""
    grid = _as_board(board)
    letter = piece_letter(piece)
    index = square_index(square)
    if letter == "P":
        _check_pawn_start(index, "scout")
    taken = _claimed_indices(claimed)
    total = mines = 0
    for i in _scout_indices(letter, index, bool(first_player)):
        if i in taken:
            continue
        cell = grid.cells[i]
        if cell == MINE:
            mines += 1
        else:
            total += cell  # type: ignore[operator]
    return total, mines


@dataclass(frozen=True)
class Claim:
    """A claim's result. ``squares``: the squares now claimed, in the order the piece passes them
    (only the unclaimed mines when the piece passed over any); ``points``: the tiles' sum (0 when
    a mine was hit); ``mines``: how many mines were claimed; ``path``: every square passed through;
    ``steps``: what to animate, one step per square of the path."""

    squares: tuple[str, ...]
    points: int
    mines: int
    path: tuple[str, ...] = ()
    steps: list[dict[str, Any]] = field(default_factory=list)

    @property
    def hit_mine(self) -> bool:
        return self.mines > 0


def claim(
    board: Board | str,
    piece: str,
    start: str,
    end: str,
    first_player: bool,
    claimed: Iterable[str] = frozenset(),
) -> Claim:
    """Move ``piece`` from ``start`` to ``end`` and claim every unclaimed square it passes
    through, start and end included. If any of them is a mine, only the mines are claimed and the
    other tiles stay hidden. Already claimed squares count nothing.

    ``steps`` holds one dict per square of the path: ``{"kind": "tile", "square", "value"}`` for a
    tile claimed, ``{"kind": "mine", "square"}`` for a mine claimed, ``{"kind": "taken",
    "square"}`` for a square claimed earlier and ``{"kind": "hidden", "square"}`` for a tile left
    hidden because the claim hit a mine. Hidden tiles' values never appear in a Claim."""
    grid = _as_board(board)
    path = move_path(piece, start, end, first_player)
    taken = _claimed_indices(claimed)
    fresh = [s for s in path if square_index(s) not in taken]
    mines = tuple(s for s in fresh if grid[s] == MINE)
    steps: list[dict[str, Any]] = []
    if mines:
        for s in path:
            if square_index(s) in taken:
                steps.append({"kind": "taken", "square": s})
            elif grid[s] == MINE:
                steps.append({"kind": "mine", "square": s})
            else:
                steps.append({"kind": "hidden", "square": s})
        return Claim(squares=mines, points=0, mines=len(mines), path=path, steps=steps)
    points = 0
    for s in path:
        if square_index(s) in taken:
            steps.append({"kind": "taken", "square": s})
        else:
            value = grid[s]
            points += value  # type: ignore[operator]
            steps.append({"kind": "tile", "square": s, "value": value})
    return Claim(squares=tuple(fresh), points=points, mines=0, path=path, steps=steps)


def triangular(mines: int) -> int:
    """The penalty for ``mines`` claimed mines: 1 + 2 + ... + mines (6 mines cost 21 points)."""
    if isinstance(mines, bool) or not isinstance(mines, int) or mines < 0:
        raise ValueError("a number of mines is a whole number, 0 or more")
    return mines * (mines + 1) // 2


def final_total(points: int, mines: int) -> int:
    """A player's match total: the points of every tile claimed minus the triangular number of
    every mine claimed, over all three boards."""
    return points - triangular(mines)
