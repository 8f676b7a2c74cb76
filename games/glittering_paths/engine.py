"""Rules of Glittering Paths, as a pure library (no Django, no IO).

A board is a rectangle of cells named by column letter and row number (A1 is the top-left
cell). A cell holds a gem or is empty (``.``):

- the red player's gems: ruby ``R``, garnet ``G``, jasper ``J``;
- the blue player's gems: sapphire ``S``, lapis ``L``, aquamarine ``A``.

A move is a path: distinct cells holding gems, each side by side with the one before, turning a
right angle at every cell (the steps go across, then up or down, then across...), with an odd
number of cells, at least 3. It starts on a gem of the mover's colour; every other cell (1st, 3rd,
5th...) holds that same gem type and the cells between never do. The move scores the number of
cells of the start's type divided by the largest count of any single other gem type on the path;
then every cell of the path is emptied.

The rules are written once, in ``path_problem`` (which reports the first rule a path or a path
being drawn breaks); ``path_score`` and the flow rely on it, and ``best_path`` (an exact search
with a bound, see ``_Search``) is tested against an exhaustive search.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

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
FOUR_PLACES = Decimal("0.0001")
TWO_PLACES = Decimal("0.01")

Step = dict[str, Any]
"""One JSON-serialisable step of a move, for a page to animate (see ``play_path``)."""


class BoardError(ValueError):
    """A board text or board value that is not a legal Glittering Paths board."""


class PathError(ValueError):
    """A path that cannot be read, or that breaks a rule on the board it is drawn on."""


# --- boards ------------------------------------------------------------------------------------


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
    return gridtext.text_of(_board(board).rows)


def _board(board: Board | str) -> Board:
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
    b = _board(board)
    h, w = b.height, b.width
    for r in range(h):
        for c in range(w):
            gem = b.rows[r][c]
            opposite = b.rows[h - 1 - r][w - 1 - c]
            if SWAP[gem] != opposite:
                want = GEM_NAMES.get(SWAP[gem], "an empty cell")
                return (
                    f"{cell_name(r, c)} holds {_gem_phrase(gem)}, so the opposite cell "
                    f"{cell_name(h - 1 - r, w - 1 - c)} must hold "
                    f"{'a ' + want if SWAP[gem] != EMPTY else want}, not {_gem_phrase(opposite)}"
                )
    return None


def _gem_phrase(gem: str) -> str:
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


def _player(player: object) -> str:
    if isinstance(player, str) and player.strip().lower() in PLAYERS:
        return player.strip().lower()
    raise PathError(f"the player is 'red' or 'blue', not {player!r}")


# --- the path rules ----------------------------------------------------------------------------


def _cells_list(cells: object) -> list[str]:
    if isinstance(cells, str):
        cells = cells.replace(",", " ").split()
    if not isinstance(cells, list | tuple) or not all(isinstance(c, str) for c in cells):
        raise PathError("a path is a list of cell names, e.g. ['A1', 'A2', 'B2']")
    return [c.strip().upper() for c in cells]


def path_problem(
    board: Board | str, player: str, cells: Sequence[str], *, partial: bool = False
) -> str | None:
    """The first rule the path ``cells`` breaks for ``player``, as a sentence, or None when the
    path is legal. With ``partial=True`` the path is still being drawn: only the rules a longer
    path could not mend are checked (not its length)."""
    b = _board(board)
    who = _player(player)
    names = _cells_list(cells)
    if not names:
        return None if partial else "a path has at least 3 cells; this one has none"
    seen: set[tuple[int, int]] = set()
    points: list[tuple[int, int]] = []
    start_gem = ""
    for i, name in enumerate(names):
        try:
            row, col = parse_cell(name, b)
        except PathError as error:
            return str(error)
        gem = b.rows[row][col]
        if gem == EMPTY:
            return f"{name} is empty; a path only uses cells that hold a gem"
        if (row, col) in seen:
            return f"{name} is used twice; a path never repeats a cell"
        if points:
            pr, pc = points[-1]
            if abs(pr - row) + abs(pc - col) != 1:
                return (
                    f"{names[i - 1]} and {name} are not side by side; each step goes to a cell "
                    "directly above, below, left or right"
                )
            if len(points) >= 2:
                qr, qc = points[-2]
                if (qr == pr) == (pr == row):
                    return (
                        f"{names[i - 2]}, {names[i - 1]}, {name} do not make a right angle; a "
                        "path turns at every cell"
                    )
        if i == 0:
            if colour_of(gem) != who:
                first, second, third = (GEM_NAMES[g] for g in GEMS_OF[who])
                return (
                    f"the path starts on {_gem_phrase(gem)} ({name}), a {colour_of(gem)} gem; "
                    f"{who}'s paths start on a {first}, {second} or {third}"
                )
            start_gem = gem
        elif i % 2 == 0 and gem != start_gem:
            return (
                f"{name} holds {_gem_phrase(gem)}; the 1st, 3rd, 5th... cells of this path "
                f"must all be {GEM_NAMES[start_gem]} like the start"
            )
        elif i % 2 == 1 and gem == start_gem:
            return (
                f"{name} holds {_gem_phrase(gem)} like the start; the 2nd, 4th... cells of a "
                "path must hold other gems"
            )
        seen.add((row, col))
        points.append((row, col))
    if partial:
        return None
    if len(names) < 3:
        return f"a path has at least 3 cells; this one has {len(names)}"
    if len(names) % 2 == 0:
        return f"a path has an odd number of cells; this one has {len(names)}"
    return None


def check_path(board: Board | str, player: str, cells: Sequence[str]) -> list[str]:
    """The path's cell names (upper case), or PathError naming the rule it breaks."""
    problem = path_problem(board, player, cells)
    if problem is not None:
        raise PathError(problem)
    return _cells_list(cells)


def score_fraction(board: Board | str, player: str, cells: Sequence[str]) -> Fraction:
    """The exact score of a legal path, as a fraction (PathError for an illegal path)."""
    b = _board(board)
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
    b = _board(board)
    fraction = score_fraction(b, player, cells)
    names = _cells_list(cells)
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
            "player": _player(player),
            "cells": list(names),
            "gems": gems,
            "board": format_board(b),
        },
        {"kind": "remove", "cells": list(names), "board": format_board(after)},
    ]
    return Move(cells=tuple(names), fraction=fraction, board=after, steps=steps)


# --- the search for the best path ----------------------------------------------------------------


class _Search:
    """An exact depth-first search for the best path of one player on one board.

    The cells are numbered row by row. Because a path turns at every cell, its steps go in one
    orientation (across, or up/down) from each cell of the start's type and in the other into the
    next one, so the start-type cells of a path sit on one diagonal lattice: the same colour of
    the chequerboard as the start, and the cells between on the other colour.

    Bound: with ``k`` cells between so far and the largest count of one other type ``m`` (at
    least 1), a path that ends with largest count ``m'`` scores at most ``(k' + 1) / m'`` where
    ``k' <= cap(m') = sum over other types t of min(m', cells of t on the other chequerboard
    colour)`` and ``k' <= k + (unused start-type cells on the start's colour)``. The best of these
    is at ``m' = m`` (a larger ``m'`` always scores strictly less), so the bound is reached only by
    a path of exactly ``2 * k'' + 1`` cells; a branch is cut when its bound is below the best so
    far, or equal to it but no longer.
    """

    def __init__(self, board: Board, player: str) -> None:
        self.board = board
        self.player = player
        w, h = board.width, board.height
        self.w = w
        flat = "".join(board.rows)
        self.codes = [GEMS.find(ch) for ch in flat]  # -1 for an empty cell
        n = w * h
        across: list[list[int]] = [[] for _ in range(n)]
        updown: list[list[int]] = [[] for _ in range(n)]
        for i in range(n):
            if self.codes[i] < 0:
                continue
            r, c = divmod(i, w)
            if c > 0 and self.codes[i - 1] >= 0:
                across[i].append(i - 1)
            if c < w - 1 and self.codes[i + 1] >= 0:
                across[i].append(i + 1)
            if r > 0 and self.codes[i - w] >= 0:
                updown[i].append(i - w)
            if r < h - 1 and self.codes[i + w] >= 0:
                updown[i].append(i + w)
        self.neighbours = (across, updown)
        self.best_num = 0
        self.best_den = 1
        self.best_len = 0
        self.best_path: list[int] = []
        self.nodes = 0

    def run(self) -> tuple[Fraction, list[str]]:
        codes = self.codes
        w = self.w
        for gem in GEMS_OF[self.player]:
            t = GEMS.index(gem)
            starts = [i for i, code in enumerate(codes) if code == t]
            if not starts:
                continue
            for parity in (0, 1):
                mine = [i for i in starts if (i // w + i % w) % 2 == parity]
                if not mine:
                    continue
                others = [0] * len(GEMS)
                for i, code in enumerate(codes):
                    if code >= 0 and code != t and (i // w + i % w) % 2 != parity:
                        others[code] += 1
                present = [x for x in others if x]
                if not present:
                    continue
                top = max(present)
                cap = [0] + [sum(min(m, x) for x in present) for m in range(1, top + 1)]
                for start in mine:
                    self._from(start, t, len(mine), cap, top)
        if not self.best_path:
            return Fraction(0), []
        names = [cell_name(*divmod(i, w)) for i in self.best_path]
        return Fraction(self.best_num, self.best_den), names

    def _from(self, start: int, t: int, lattice: int, cap: list[int], top: int) -> None:
        codes = self.codes
        counts = [0] * len(GEMS)
        path = [start]
        used = {start}

        def visit(cell: int, out: list[int], into: list[int], k: int, m: int) -> None:
            self.nodes += 1
            if k:
                better = (k + 1) * self.best_den - self.best_num * m
                if better > 0 or (better == 0 and 2 * k + 1 > self.best_len):
                    self.best_num, self.best_den = k + 1, m
                    self.best_len = 2 * k + 1
                    self.best_path = list(path)
            m1 = m or 1
            reach = min(cap[min(m1, top)], lattice - 1)  # k' can be at most this
            gain = (reach + 1) * self.best_den - self.best_num * m1
            if gain < 0 or (gain == 0 and 2 * reach + 1 <= self.best_len) or reach <= k:
                return
            options = []
            for j in out[cell]:
                code = codes[j]
                if code == t or j in used:
                    continue
                for nxt in into[j]:
                    if codes[nxt] == t and nxt not in used:
                        options.append((counts[code], j, nxt))
            if len(options) > 1:
                options.sort()
            for _, j, nxt in options:
                code = codes[j]
                counts[code] += 1
                path.append(j)
                path.append(nxt)
                used.add(j)
                used.add(nxt)
                visit(nxt, out, into, k + 1, max(m, counts[code]))
                used.discard(nxt)
                used.discard(j)
                path.pop()
                path.pop()
                counts[code] -= 1

        across, updown = self.neighbours
        visit(start, across, updown, 0, 0)
        visit(start, updown, across, 0, 0)


def best_path(board: Board | str, player: str) -> tuple[Decimal, list[str]]:
    """The highest-scoring legal path for ``player`` and its score; among paths of the best
    score, a longest one. ``(Decimal(0), [])`` when the player has no legal path. Exact: an
    exhaustive search that skips only branches that provably cannot do better."""
    fraction, cells = best_path_fraction(board, player)
    return as_decimal(fraction), cells


def best_path_fraction(board: Board | str, player: str) -> tuple[Fraction, list[str]]:
    """``best_path`` with the exact score as a fraction."""
    return _Search(_board(board), _player(player)).run()


def has_legal_path(board: Board | str, player: str) -> bool:
    """Whether ``player`` has any legal path (a 3-cell one exists whenever any path does)."""
    b = _board(board)
    who = _player(player)
    h, w = b.height, b.width
    rows = b.rows
    for r in range(h):
        for c in range(w):
            gem = rows[r][c]
            if colour_of(gem) != who:
                continue
            for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                r1, c1 = r + dr, c + dc
                if not (0 <= r1 < h and 0 <= c1 < w):
                    continue
                mid = rows[r1][c1]
                if mid in (EMPTY, gem):
                    continue
                for er, ec in ((dc, dr), (-dc, -dr)):
                    r2, c2 = r1 + er, c1 + ec
                    if 0 <= r2 < h and 0 <= c2 < w and rows[r2][c2] == gem:
                        return True
    return False


def random_path(board: Board | str, player: str, rng: random.Random) -> list[str]:
    """A random legal path for ``player`` (a random walk that stops at a random legal length), or
    [] when there is none. For practice bots."""
    b = _board(board)
    who = _player(player)
    if not has_legal_path(b, who):
        return []
    h, w = b.height, b.width
    starts = [(r, c) for r in range(h) for c in range(w) if colour_of(b.rows[r][c]) == who]
    for _ in range(200):
        r, c = rng.choice(starts)
        gem = b.rows[r][c]
        path = [(r, c)]
        across_first = rng.random() < 0.5
        best: list[tuple[int, int]] = []
        while True:
            step_out = [(0, 1), (0, -1)] if across_first else [(1, 0), (-1, 0)]
            step_in = [(1, 0), (-1, 0)] if across_first else [(0, 1), (0, -1)]
            options = []
            pr, pc = path[-1]
            for dr, dc in step_out:
                r1, c1 = pr + dr, pc + dc
                if not (0 <= r1 < h and 0 <= c1 < w) or (r1, c1) in path:
                    continue
                if b.rows[r1][c1] in (EMPTY, gem):
                    continue
                for er, ec in step_in:
                    r2, c2 = r1 + er, c1 + ec
                    inside = 0 <= r2 < h and 0 <= c2 < w
                    if inside and (r2, c2) not in path and b.rows[r2][c2] == gem:
                        options.append(((r1, c1), (r2, c2)))
            if not options:
                break
            path.extend(rng.choice(options))
            best = list(path)
            if rng.random() < 0.4:
                break
        if best:
            return [cell_name(r, c) for r, c in best]
    return []


# --- boards for a match ------------------------------------------------------------------------


def board_shapes(area: int) -> list[tuple[int, int]]:
    """The board shapes (rows, columns) used for a target area: within 10% of it, each side 4 to
    26, sides differing by at most 4, at least one side even (so that no cell is its own
    opposite under the half turn)."""
    if not isinstance(area, int) or isinstance(area, bool) or not 16 <= area <= 400:
        raise BoardError("the board area is a whole number of cells from 16 to 400")
    shapes = [
        (rows, cols)
        for rows in range(4, 27)
        for cols in range(4, 27)
        if abs(rows * cols - area) <= area / 10
        and abs(rows - cols) <= 4
        and (rows % 2 == 0 or cols % 2 == 0)
    ]
    if not shapes:
        raise BoardError(f"no rectangular board has about {area} cells")
    return shapes


def generate_board(seed: int, round_no: int, rows: int, cols: int) -> Board:
    """A random full board for round ``round_no`` (1-3), symmetric under the half turn with the
    gems swapped; jasper and aquamarine only in round 3. Every board this returns gives both
    players a legal path (boards that do not are redrawn)."""
    if rows % 2 and cols % 2:
        raise BoardError("a symmetric full board needs an even number of rows or of columns")
    if not (1 <= rows <= MAX_ROWS and 1 <= cols <= MAX_COLUMNS) or rows * cols < 4:
        raise BoardError(f"a board has 1 to {MAX_ROWS} rows and columns and at least 4 cells")
    gems = GEMS if round_no >= 3 else "RGSL"
    rng = random.Random(seed)
    for _ in range(1000):
        grid = [[EMPTY] * cols for _ in range(rows)]
        for i in range(rows * cols // 2):
            r, c = divmod(i, cols)
            gem = rng.choice(gems)
            grid[r][c] = gem
            grid[rows - 1 - r][cols - 1 - c] = SWAP[gem]
        board = Board(tuple("".join(row) for row in grid))
        if has_legal_path(board, RED) and has_legal_path(board, BLUE):
            return board
    raise BoardError(f"could not draw a playable {rows}x{cols} board")  # pragma: no cover


def check_round_board(board: Board | str, round_no: int) -> Board:
    """A host's board for round ``round_no``: full, symmetric, no jasper or aquamarine before
    round 3, and a legal path for both players. BoardError says what is wrong."""
    b = _board(board)
    where = f"round {round_no}'s board"
    if b.height % 2 and b.width % 2:
        raise BoardError(
            f"{where} is {b.shape}: a symmetric full board needs an even number of rows or "
            "of columns (the middle cell would be its own opposite)"
        )
    for r, row in enumerate(b.rows):
        c = row.find(EMPTY)
        if c != -1:
            raise BoardError(f"{where}: {cell_name(r, c)} is empty; a round starts on a full board")
    if round_no < 3:
        for r, row in enumerate(b.rows):
            for c, gem in enumerate(row):
                if gem in "JA":
                    raise BoardError(
                        f"{where}: {cell_name(r, c)} holds {_gem_phrase(gem)}; jasper and "
                        "aquamarine appear only in round 3"
                    )
    problem = symmetry_problem(b)
    if problem:
        raise BoardError(f"{where} is not symmetric: {problem}")
    for who in PLAYERS:
        if not has_legal_path(b, who):
            raise BoardError(f"{where} gives {who} no legal path")
    return b


def all_cells(board: Board | str) -> Iterable[str]:
    """Every cell name of the board, row by row."""
    b = _board(board)
    for r in range(b.height):
        for c in range(b.width):
            yield cell_name(r, c)
