"""Rules of Bejeweled 2 (single player), as a pure library (no Django, no IO).

The board has 8 rows (1-8, row 1 on top) and 8 columns (A-H); gravity pulls toward row 8. A cell
holds a gem of one of the seven colours of ``COLOURS`` (``P R Y G B O W``), a power gem of that
colour (the lower-case letter), a hypercube ``H``, a rock ``#``, a bomb (a digit: the moves it has
left) or nothing (``.``).

A move swaps two side-by-side cells. ``swap`` plays the whole move: the lines it makes, the
specials they leave, power-gem blasts, falls, new gems from above (when a refill seed is given),
the cascades that follow, and the bombs' countdown. Every choice made beyond the seed text and
shared/spec/rulings.md is written down in docs/rules/bejeweled-2.md.

The rules run once, in ``_play``: ``swap`` asks it to record the steps for a page to animate
(each with the board after it, so a page draws every step as it is), the hint and the puzzle
solver do not.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

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

POINTS_PER_GEM = 10
POWER_GEM_BONUS = 50
HYPERCUBE_BONUS = 100
NEW_BOMB = "9"
"""A bomb that drops in as a new piece (when rocks and bombs fall in) has 9 moves left."""
GRAVITIES = ("down", "up")

Step = dict[str, Any]
"""One JSON-serialisable step of a move, for a page to animate (see ``swap``)."""


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


class _Play:
    """The state of one move being played: the grid, the score so far, the recorded steps.

    ``shown`` holds what a page sees ahead of the grid while a step is recorded: the cells a
    removal has taken (emptied in the grid only once every blast is known), a special piece made
    in place and a hypercube's swap (played without moving the two pieces, which both go)."""

    def __init__(
        self,
        g: list[str],
        rng: random.Random | None,
        record: bool,
        gravity: str = "down",
        rocks_and_bombs: bool = False,
        specials: bool = True,
    ) -> None:
        self.g = g
        self.rng = rng
        self.record = record
        self.up = gravity == "up"
        self.rocks_and_bombs = rocks_and_bombs
        self.specials = specials
        self.steps: list[Step] = []
        self.shown: dict[int, str] = {}
        self.score = 0
        self.removed = 0
        self.depth = 1

    def step(self, kind: str, **data: Any) -> None:
        """Record a step with the board after it and the move's score so far."""
        if self.record:
            self.steps.append(
                {"kind": kind, **data, "board": self._board_text(), "score": self.score}
            )

    def _board_text(self) -> str:
        """The board as a page shows it now, as ``format_board`` writes it."""
        g = self.g
        if self.shown:
            g = g.copy()
            for cell, piece in self.shown.items():
                g[cell] = piece
        cells = "".join(g)
        return "\n".join([cells[r : r + COLUMNS] for r in range(0, SIZE, COLUMNS)])

    # Removal: collect, blast, clear.

    def remove(self, first: dict[int, tuple[str, int | None]], protected: set[int]) -> None:
        """Remove ``first`` (cell -> (cause, source cell)) and everything the power gems among
        them blast, chain after chain; then empty the cells. ``protected`` cells (specials made in
        this same step) are never removed."""
        gone: set[int] = set()
        groups: dict[tuple[str, int | None], list[int]] = {}
        for cell, key in first.items():
            if cell in gone or cell in protected or self.g[cell] == EMPTY:
                continue
            gone.add(cell)
            groups.setdefault(key, []).append(cell)
        for (cause, source), cells in groups.items():
            self._scored(cause, source, cells)
        pending = sorted(c for c in gone if self.g[c] in POWER_GEMS)
        while pending:
            source = pending.pop(0)
            hit = [
                n
                for n in _AROUND[source]
                if n not in gone and n not in protected and self.g[n] != EMPTY
            ]
            gone.update(hit)
            self._scored("blast", source, hit)
            pending.extend(n for n in hit if self.g[n] in POWER_GEMS)
        for cell in gone:
            self.g[cell] = EMPTY
            self.shown.pop(cell, None)

    def _scored(self, cause: str, source: int | None, cells: list[int]) -> None:
        points = POINTS_PER_GEM * self.depth * len(cells)
        self.score += points
        self.removed += len(cells)
        if self.record:
            self.shown.update(dict.fromkeys(cells, EMPTY))
            where = {} if source is None else {"source": _NAMES[source]}
            self.step(
                "remove",
                cause=cause,
                depth=self.depth,
                cells=[_NAMES[c] for c in sorted(cells)],
                points=points,
                **where,
            )

    # Lines and the specials they leave.

    def match(self, lines: list[tuple[int, ...]], swapped: tuple[int, ...], fell: set[int]) -> None:
        """Remove every line at the current depth, leaving the specials its groups make."""
        groups = _groups(lines)
        sites: dict[int, str] = {}
        first: dict[int, tuple[str, int | None]] = {}
        for group in groups:
            cells = sorted({c for line in group for c in line})
            made = _special_made(group) if self.specials else None
            if made is not None:
                site = self._site(group, cells, swapped, fell)
                colour = _COLOUR_OF[self.g[site]]
                sites[site] = HYPERCUBE if made == "hypercube" else colour.lower()
            for c in cells:
                if c not in sites:
                    first[c] = ("line", None)
            if self.record:
                self.step(
                    "line",
                    depth=self.depth,
                    colour=_COLOUR_OF[self.g[cells[0]]],
                    lines=[[_NAMES[c] for c in line] for line in group],
                )
        for site, piece in sorted(sites.items()):
            bonus = HYPERCUBE_BONUS if piece == HYPERCUBE else POWER_GEM_BONUS
            self.score += bonus
            if self.record:
                self.shown[site] = piece
            self.step(
                "special",
                cell=_NAMES[site],
                made="hypercube" if piece == HYPERCUBE else "power_gem",
                piece=piece,
                depth=self.depth,
                points=bonus,
            )
        self.remove(first, set(sites))
        for site, piece in sites.items():
            self.g[site] = piece
            self.shown.pop(site, None)

    def _site(
        self,
        group: list[tuple[int, ...]],
        cells: list[int],
        swapped: tuple[int, ...],
        fell: set[int],
    ) -> int:
        """Where a group's special appears. From the swap: the swapped-in gem (the one in the
        group). From a cascade: the group's gem that fell last, lowest then leftmost (highest
        then leftmost when gravity pulls up)."""
        if self.depth == 1 and swapped:
            for c in swapped:
                if c in cells:
                    return c
            shared = _shared(group)
            candidates = shared or cells
        else:
            candidates = [c for c in cells if c in fell] or cells
        if self.up:
            return max(candidates, key=lambda c: (-(c // COLUMNS), -(c % COLUMNS)))
        return max(candidates, key=lambda c: (c // COLUMNS, -(c % COLUMNS)))

    # Falls and new gems.

    def fall(self) -> set[int]:
        """Let every piece fall as far as it can (toward row 8, or toward row 1 when gravity
        pulls up), then fill the emptied end of each column with new pieces (when refilling), as
        if they fell in from beyond the edge they fall from. Returns the cells whose piece just
        arrived."""
        g = self.g
        moves: list[list[str]] = []
        arrived: set[int] = set()
        # The rows from the edge pieces fall toward to the edge new pieces come from.
        order = range(ROWS) if self.up else range(ROWS - 1, -1, -1)
        ahead = COLUMNS if self.up else -COLUMNS
        for col in range(COLUMNS):
            target = order[0] * COLUMNS + col
            for row in order:
                cell = row * COLUMNS + col
                piece = g[cell]
                if piece == EMPTY:
                    continue
                if cell != target:
                    g[target] = piece
                    g[cell] = EMPTY
                    arrived.add(target)
                    moves.append([_NAMES[cell], _NAMES[target]])
                target += ahead
        if moves:
            self.step("fall", moves=moves)
        if self.rng is not None:
            new: dict[str, str] = {}
            for col in range(COLUMNS):
                for row in reversed(order):
                    cell = row * COLUMNS + col
                    if g[cell] != EMPTY:
                        break
                    g[cell] = self._new_piece()
                    arrived.add(cell)
                    new[_NAMES[cell]] = g[cell]
            if new:
                self.step("new", cells=new)
        return arrived

    def _new_piece(self) -> str:
        """A new piece: a uniform random gem; with rocks and bombs, one in 25 is a rock and one
        in 25 a bomb of 9 moves."""
        assert self.rng is not None
        if self.rocks_and_bombs:
            roll = self.rng.randrange(25)
            if roll == 0:
                return ROCK
            if roll == 1:
                return NEW_BOMB
        return self.rng.choice(COLOURS)

    def cascade(self, swapped: tuple[int, ...], fell: set[int]) -> None:
        """Match, fall and match again until the board is settled."""
        while True:
            lines = _lines(self.g)
            if not lines:
                return
            self.match(lines, swapped, fell)
            fell = self.fall()
            swapped = ()
            self.depth += 1

    def countdown(self) -> None:
        """Every bomb has one move fewer left; a bomb at 0 explodes like a power gem."""
        g = self.g
        bombs = [c for c in range(SIZE) if g[c] in BOMBS]
        if not bombs:
            return
        exploding = []
        counts = {}
        for c in bombs:
            left = max(0, int(g[c]) - 1)
            g[c] = str(left)
            counts[_NAMES[c]] = left
            if left == 0:
                exploding.append(c)
        self.step("countdown", bombs=counts)
        if not exploding:
            return
        gone: set[int] = set(exploding)
        first: dict[int, tuple[str, int | None]] = {}
        for bomb in exploding:
            first.setdefault(bomb, ("bomb", bomb))
        for bomb in exploding:
            for n in _AROUND[bomb]:
                if n not in gone and g[n] != EMPTY:
                    gone.add(n)
                    first[n] = ("bomb", bomb)
        self.remove(first, set())
        fell = self.fall()
        self.depth += 1
        self.cascade((), fell)


def _groups(lines: list[tuple[int, ...]]) -> list[list[tuple[int, ...]]]:
    """Lines that share a gem belong to one group (an L, a T, a cross...)."""
    groups: list[list[tuple[int, ...]]] = []
    cells_of: list[set[int]] = []
    for line in lines:
        cells = set(line)
        joined = [k for k, seen in enumerate(cells_of) if seen & cells]
        merged = [line]
        for k in joined:
            merged.extend(groups[k])
            cells |= cells_of[k]
        for k in reversed(joined):
            del groups[k]
            del cells_of[k]
        groups.append(merged)
        cells_of.append(cells)
    return groups


def _special_made(group: list[tuple[int, ...]]) -> str | None:
    """A line of 5+ makes a hypercube; a line of exactly 4, or an L or T, makes one power gem."""
    longest = max(len(line) for line in group)
    if longest >= 5:
        return "hypercube"
    if longest == 4 or len(group) > 1:
        return "power_gem"
    return None


def _shared(group: list[tuple[int, ...]]) -> list[int]:
    seen: set[int] = set()
    shared = set()
    for line in group:
        for c in line:
            if c in seen:
                shared.add(c)
            seen.add(c)
    return sorted(shared)


def _play(
    g: list[str],
    i: int,
    j: int,
    rng: random.Random | None,
    record: bool,
    gravity: str = "down",
    rocks_and_bombs: bool = False,
    specials: bool = True,
) -> _Play:
    """Play the legal swap of cells ``i`` and ``j`` on grid ``g`` (changed in place)."""
    play = _Play(g, rng, record, gravity, rocks_and_bombs, specials)
    x, y = g[i], g[j]
    if HYPERCUBE in (x, y):
        # The swap is made first, like any swap; only then does the hypercube fire, from the cell
        # it moved into, at the piece now in the cell it left (a power gem explodes there).
        g[i], g[j] = y, x
        play.step("swap", cells=[_NAMES[i], _NAMES[j]])
        cube, other = (j, i) if x == HYPERCUBE else (i, j)
        target = g[other]
        if target == HYPERCUBE:
            hit = [i, j]
            what = "hypercube"
        elif target == ROCK:
            hit = [c for c in range(SIZE) if g[c] == ROCK] + [cube]
            what = "rock"
        elif target in BOMBS:
            hit = [c for c in range(SIZE) if g[c] in BOMBS] + [cube]
            what = "bomb"
        else:
            colour = _COLOUR_OF[target]
            hit = [c for c in range(SIZE) if _COLOUR_OF.get(g[c]) == colour] + [cube]
            what = colour
        play.step("hypercube", cell=_NAMES[cube], target=what)
        play.remove(dict.fromkeys(hit, ("hypercube", cube)), set())
        fell = play.fall()
        play.depth += 1
        play.cascade((), fell)
    else:
        g[i], g[j] = y, x
        play.step("swap", cells=[_NAMES[i], _NAMES[j]])
        play.cascade((j, i), set())
    play.countdown()
    return play


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
    new gems (see ``_Play._new_piece``); ``specials=False`` (Original, the first Bejeweled's
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


def quick_swap(cells: str, i: int, j: int, *, specials: bool = True) -> tuple[str, int]:
    """The settled cells and score of the legal swap of cells ``i`` and ``j``, no refill, no
    steps: the solver's and the hint's fast path. The caller has checked legality."""
    g = list(cells)
    play = _play(g, i, j, None, record=False, specials=specials)
    return "".join(g), play.score


# --- hints, boards, reshuffles -----------------------------------------------------------------


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
