"""Rules of the Bejeweled death match, as a pure library (no Django, no IO).

``engine`` offers these rules with the solver's best claim (engine-api.md); the solver plays them
on bitboards and imports this module, not the engine, so nothing imports in a circle.

The board has 7 rows (1-7, row 1 on top) and 8 columns (A-H). A cell holds a gem of one of the
colours in ``COLOURS`` or a rock ``#``. A proof names one active, one passive and one or two
starter powerups; ``resolve`` plays the whole turn and counts the gems removed. The order of
operations is the one in shared/spec/rulings.md; every choice made beyond it is written down in
docs/rules/bejeweled-death-match.md.

Inside a turn the grid is a list of small ints: 0-4 the colours of ``COLOURS``, 5 a rock, 6 a hole
(a removed gem that gravity has not yet replaced). The rules run once, in ``_Turn``; ``resolve``
asks it to record the steps for animation, ``resolve_count`` (the solver's fast path) does not.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from games.core.game import gridtext

ROWS = 7
COLUMNS = 8
SIZE = ROWS * COLUMNS
COLOURS = "RBGYP"
ROCK = "#"
HOLE = "."
COLUMN_LETTERS = "ABCDEFGH"
COLOUR_NAMES = {"R": "red", "B": "blue", "G": "green", "Y": "yellow", "P": "purple"}

STARTERS = ("Swap", "Rotate", "Pick")
PASSIVES = ("Recolor", "Chain", "Bend")
ACTIVES = ("Column", "Plus", "Refresh")

Cell = tuple[int, int]
"""A cell as (row, column), both counted from 0: (0, 0) is A1, (3, 5) is F4."""

Step = dict[str, Any]
"""One JSON-serialisable step of a turn, for a page to animate (see ``resolve``)."""


class BoardError(ValueError):
    """A board text or board value that is not a legal Bejeweled death match board."""


class ProofError(ValueError):
    """A proof that cannot be read, or that is illegal on the board it is played on."""


# --- cells -----------------------------------------------------------------------------------

_ROCK = 5
_HOLE = 6
_TEXT = COLOURS + ROCK + HOLE
_ENCODE = bytes.maketrans(_TEXT.encode(), bytes(range(len(_TEXT))))
_DECODE = bytes.maketrans(bytes(range(len(_TEXT))), _TEXT.encode())
_NAMES = gridtext.cell_names(ROWS, COLUMNS, COLUMN_LETTERS)
_INDEX = {name: i for i, name in enumerate(_NAMES)}


def cell_name(row: int, col: int) -> str:
    """The name of a cell: ``cell_name(3, 5) == "F4"`` (row and column counted from 0)."""
    if not (0 <= row < ROWS and 0 <= col < COLUMNS):
        raise ProofError(f"there is no cell at row {row + 1}, column {col + 1}")
    return _NAMES[row * COLUMNS + col]


def parse_cell(name: str) -> Cell:
    """``parse_cell("F4") == (3, 5)``; case and surrounding spaces are ignored."""
    shown = gridtext.shown_name(name)
    index = _INDEX.get(shown)
    if index is None:
        raise ProofError(f"unknown cell {shown}")
    return divmod(index, COLUMNS)


def _check_cell(cell: object) -> int:
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


def _name(cell: Cell) -> str:
    return _NAMES[cell[0] * COLUMNS + cell[1]]


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
        return self.cells[_check_cell((row, col))]

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
                f"{_NAMES[i]}: unknown character {ch!r}; use R, B, G, Y, P for gems and # for rocks"
            )
    for col in range(COLUMNS):
        column = cells[col::COLUMNS]
        top_gem = len(column) - len(column.lstrip(ROCK))
        below = column.find(ROCK, top_gem)
        if below != -1:
            raise BoardError(
                f"{_NAMES[below * COLUMNS + col]} is a rock under a gem; rocks can only be above "
                f"every gem of their column"
            )


def _board(grid: Iterable[int]) -> Board:
    """A Board from a settled grid, skipping the checks (the rules keep it legal)."""
    board = object.__new__(Board)
    object.__setattr__(board, "cells", bytes(grid).translate(_DECODE).decode())
    return board


def _grid(board: Board) -> list[int]:
    return list(board.cells.encode().translate(_ENCODE))


def _text(grid: list[int]) -> str:
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
_COLUMN_CELLS = tuple(tuple(r * COLUMNS + c for r in range(ROWS)) for c in range(COLUMNS))
_TRIPLES_THROUGH = tuple(tuple(t for t in _TRIPLES if i in t) for i in range(SIZE))


def _plus_cells(i: int) -> tuple[int, ...]:
    row, col = divmod(i, COLUMNS)
    cells = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        for k in (1, 2):
            r, c = row + dr * k, col + dc * k
            if 0 <= r < ROWS and 0 <= c < COLUMNS:
                cells.append(r * COLUMNS + c)
    return tuple(sorted(cells))


_PLUS_CELLS = tuple(_plus_cells(i) for i in range(SIZE))


def _find_matches(g: list[int], bend: bool) -> dict[int, str]:
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
    return bool(_find_matches(_grid(board), bend))


# --- proofs ----------------------------------------------------------------------------------

_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}
_KEYWORDS = {name.lower(): name for name in ACTIVES + PASSIVES + STARTERS}
_COLOUR_ARGS = {"Recolor": 2, "Chain": 1, "Bend": 0}
_COLOUR_WORDS = {name: letter for letter, name in COLOUR_NAMES.items()}


def _clause(kind: str, cells: Iterable[Cell]) -> str:
    return " ".join([kind, *(_name(cell) for cell in cells)])


@dataclass(frozen=True, slots=True)
class Proof:
    """A parsed proof. Cells are (row, column) from 0; ``colours`` is ``"RB"`` for Recolor R B,
    ``"Y"`` for Chain Y and ``""`` for Bend; ``second`` is the starter's second use (Refresh only).
    Building one checks everything that does not depend on the board."""

    active: str
    active_cell: Cell
    passive: str
    colours: str
    starter: str
    first: tuple[Cell, ...]
    second: tuple[Cell, ...] | None = None

    def __post_init__(self) -> None:
        if self.active not in ACTIVES:
            raise ProofError(f"unknown active powerup {self.active!r}; use Column, Plus or Refresh")
        _check_cell(self.active_cell)
        if self.passive not in PASSIVES:
            raise ProofError(
                f"unknown passive powerup {self.passive!r}; use Recolor, Chain or Bend"
            )
        _check_colours(self.passive, self.colours)
        if self.starter not in STARTERS:
            raise ProofError(f"unknown starter powerup {self.starter!r}; use Swap, Rotate or Pick")
        _check_starter(self.starter, self.first)
        if self.second is not None:
            if self.active != "Refresh":
                raise ProofError(
                    f"two {self.starter} clauses given, but only Refresh grants a second use; "
                    f"use exactly one starter"
                )
            _check_starter(self.starter, self.second)

    def __str__(self) -> str:
        return format_proof(self)


def _check_colours(passive: str, colours: object) -> None:
    wanted = _COLOUR_ARGS[passive]
    shown = f"{passive} {' '.join(colours)}".strip() if isinstance(colours, str) else passive
    if not isinstance(colours, str) or len(colours) != wanted:
        raise ProofError(
            {
                "Recolor": f"{shown}: Recolor takes two colours, A and B (e.g. Recolor R B)",
                "Chain": f"{shown}: Chain takes one colour (e.g. Chain Y)",
                "Bend": f"{shown}: Bend takes no colour",
            }[passive]
        )
    for colour in colours:
        if colour not in COLOURS:
            raise ProofError(f"{shown}: unknown colour {colour}; use R, B, G, Y or P")
    if passive == "Recolor" and colours[0] == colours[1]:
        raise ProofError(f"{shown}: choose two different colours")


def _check_starter(kind: str, cells: object) -> None:
    if not isinstance(cells, tuple):
        raise ProofError(f"{kind}: the cells must be a tuple of (row, column) pairs")
    for cell in cells:
        _check_cell(cell)
    shown = _clause(kind, cells)
    if kind == "Swap":
        if len(cells) != 2:
            raise ProofError(f"{shown}: Swap takes two cells side by side (e.g. Swap F4 F5)")
        (r1, c1), (r2, c2) = cells
        if abs(r1 - r2) + abs(c1 - c2) != 1:
            raise ProofError(f"{shown}: the two cells are not adjacent")
    elif kind == "Rotate":
        if len(cells) != 1:
            raise ProofError(
                f"{shown}: Rotate takes one cell, the top-left of the 2x2 square (e.g. Rotate C3)"
            )
        row, col = cells[0]
        if row > ROWS - 2 or col > COLUMNS - 2:
            raise ProofError(
                f"{shown}: the 2x2 square would leave the board; name its top-left cell, "
                f"in columns A-G and rows 1-6"
            )
    else:
        if len(cells) not in (1, 2):
            raise ProofError(f"{shown}: Pick takes one or two cells (e.g. Pick A1 B2)")
        if len(cells) == 2 and cells[0] == cells[1]:
            raise ProofError(f"{shown}: pick two different cells")


def parse_proof(text: str) -> Proof:
    """Read a proof such as ``"Plus F4; Bend; Swap F4 F5"``: clauses joined by ``;`` in any order,
    keywords, cells and colours in any case. A second starter clause (Refresh only) is the later
    of the two starter clauses."""
    if not isinstance(text, str):
        raise ProofError("a proof is given as text, e.g. 'Plus F4; Bend; Swap F4 F5'")
    actives: list[tuple[str, Cell]] = []
    passives: list[tuple[str, str]] = []
    starters: list[tuple[str, tuple[Cell, ...]]] = []
    for clause in (part.strip() for part in text.split(";")):
        if not clause:
            continue
        word, *args = clause.split()
        kind = _KEYWORDS.get(word.lower())
        if kind is None:
            raise ProofError(
                f"{clause}: unknown powerup {word!r}; use Column, Plus, Refresh, Recolor, Chain, "
                f"Bend, Swap, Rotate or Pick"
            )
        if kind in PASSIVES:
            passives.append(
                (kind, "".join(_COLOUR_WORDS.get(arg.lower(), arg.upper()) for arg in args))
            )
            continue
        try:
            cells = tuple(parse_cell(arg) for arg in args)
        except ProofError as error:
            raise ProofError(f"{kind} {' '.join(args).upper()}: {error}") from None
        if kind in ACTIVES:
            if len(cells) != 1:
                raise ProofError(
                    f"{_clause(kind, cells)}: {kind} takes one cell, the gem it replaces "
                    f"(e.g. {kind} F4)"
                )
            actives.append((kind, cells[0]))
        else:
            starters.append((kind, cells))
    if not (actives or passives or starters):
        raise ProofError(
            "the proof is empty; give an active, a passive and a starter, "
            "e.g. 'Plus F4; Bend; Swap F4 F5'"
        )
    for found, what, names in (
        (actives, "active", "Column, Plus or Refresh with the gem it replaces"),
        (passives, "passive", "Recolor, Chain or Bend"),
    ):
        if not found:
            raise ProofError(f"no {what} powerup given; add one of {names}")
        if len(found) > 1:
            count = _NUMBER_WORDS.get(len(found), str(len(found)))
            raise ProofError(f"{count} {what} powerups given; use exactly one")
    if not starters:
        raise ProofError("no starter powerup given; add one of Swap, Rotate or Pick")
    if len(starters) > 2:
        count = _NUMBER_WORDS.get(len(starters), str(len(starters)))
        raise ProofError(
            f"{count} starter clauses given; use one, or two when the active powerup is Refresh"
        )
    (active, active_cell), (passive, colours) = actives[0], passives[0]
    starter, first = starters[0]
    second = None
    if len(starters) == 2:
        if starters[1][0] != starter:
            raise ProofError(
                f"{_clause(starter, first)} then {_clause(*starters[1])}: the second starter use "
                f"must be the same powerup as the first ({starter})"
            )
        second = starters[1][1]
    return Proof(active, active_cell, passive, colours, starter, first, second)


def format_proof(proof: Proof) -> str:
    """The canonical text of a proof: active; passive; starter[; second starter]."""
    clauses = [
        f"{proof.active} {_name(proof.active_cell)}",
        " ".join([proof.passive, *proof.colours]),
        _clause(proof.starter, proof.first),
    ]
    if proof.second is not None:
        clauses.append(_clause(proof.starter, proof.second))
    return "; ".join(clauses)


# --- the turn --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Resolution:
    """The outcome of a turn: the count of gems removed, the settled board, the steps to animate,
    the proof as read, and where the active powerup ended if it never activated."""

    removed: int
    board: Board
    steps: list[Step]
    proof: Proof
    active_cell: str | None


class _Turn:
    """One turn played on a private copy of the grid. With ``steps`` set to a list, every change is
    recorded there; with ``None`` nothing is, and the rules run exactly the same way."""

    __slots__ = (
        "g",
        "proof",
        "steps",
        "count",
        "active",
        "fired",
        "refreshed",
        "bend",
        "recolor",
        "chain",
        "seeds",
    )

    def __init__(self, grid: list[int], proof: Proof, steps: list[Step] | None) -> None:
        self.g = grid
        self.proof = proof
        self.steps = steps
        self.count = 0
        self.active = -1  # the active powerup's cell while it is on the board
        self.fired = -1  # the cell where the active was removed, until it is resolved
        self.refreshed = False
        self.bend = proof.passive == "Bend"
        self.recolor = (
            (COLOURS.index(proof.colours[0]), COLOURS.index(proof.colours[1]))
            if proof.passive == "Recolor"
            else None
        )  # set to None once done: after it, no gem of colour A is left to recolour
        self.chain = COLOURS.index(proof.colours) if proof.passive == "Chain" else -1
        self.seeds: list[int] = []  # removed cells of the Chain colour, not yet chained from

    # recording

    def record(self, kind: str, **fields: Any) -> None:
        assert self.steps is not None
        fields["board"] = _text(self.g)
        fields["count"] = self.count
        fields["active_cell"] = _NAMES[self.active] if self.active >= 0 else None
        self.steps.append({"kind": kind, **fields})

    # the order of operations

    def play(self) -> None:
        """The whole turn: the first starter use, then Refresh's second use if it went off."""
        proof = self.proof
        self.play_first_use()
        if self.refreshed:
            if self.steps is not None:
                self.record("refresh", starter=proof.starter, used=proof.second is not None)
            if proof.second is not None:
                self.use_starter(proof.second, "second ")
                self.settle()
        elif proof.second is not None:
            raise ProofError(f"the second {proof.starter} is never used: Refresh did not activate")

    def play_first_use(self) -> None:
        """Place the active powerup, use the starter once and let the board settle."""
        proof = self.proof
        cell = _check_cell(proof.active_cell)
        if self.g[cell] == _ROCK:
            name = _NAMES[cell]
            raise ProofError(
                f"{proof.active} {name}: {name} is a rock; an active powerup replaces a gem"
            )
        self.active = cell
        if self.steps is not None:
            self.record("place", cell=_NAMES[cell], active=proof.active)
        self.use_starter(proof.first, "")
        self.settle()

    def use_starter(self, cells: tuple[Cell, ...], which: str) -> None:
        g = self.g
        kind = self.proof.starter
        where = [_check_cell(cell) for cell in cells]
        shown = f"{which}{_clause(kind, cells)}"
        if kind == "Rotate":
            tl = where[0]
            where = [tl, tl + 1, tl + COLUMNS + 1, tl + COLUMNS]  # clockwise from the top-left
        for i in where:
            if g[i] >= _ROCK:
                raise ProofError(f"{shown}: {_NAMES[i]} is a rock; {kind} takes gems only")
        if kind == "Pick":
            if len(where) == 2 and g[where[0]] == g[where[1]]:
                colour = COLOUR_NAMES[COLOURS[g[where[0]]]]
                raise ProofError(
                    f"{shown}: both gems are {colour}; Pick takes gems of different colours"
                )
            if self.steps is not None:
                self.record("starter", starter=kind, cells=[_NAMES[i] for i in where])
            self.remove(dict.fromkeys(where, "pick"))
            if self.recolor is not None:
                self.apply_recolor()
            return
        # Swap exchanges two cells; Rotate moves each cell's gem to the next cell clockwise.
        moved = [g[i] for i in where]
        moved = moved[-1:] + moved[:-1]
        for i, x in zip(where, moved, strict=True):
            g[i] = x
        if self.active in where:
            self.active = where[(where.index(self.active) + 1) % len(where)]
        if self.steps is not None:
            named = where if kind == "Swap" else where[:1]
            self.record("starter", starter=kind, cells=[_NAMES[i] for i in named])

    def settle(self) -> None:
        """The seed's loop, until the board has no more removals."""
        found = _find_matches(self.g, self.bend)
        while True:
            while True:
                if found:
                    self.remove(found)
                if self.fired >= 0:
                    self.activate()
                changed = False
                if self.recolor is not None and self.count:
                    changed = self.apply_recolor()
                if self.seeds:
                    changed = self.apply_chain() or changed
                if not changed:
                    break
                found = _find_matches(self.g, self.bend)
            if not self.gravity():
                return
            found = _find_matches(self.g, self.bend)
            if not found:
                return

    def remove(self, cells: dict[int, str]) -> None:
        """Remove gems (each cell named with its cause) and note what that triggers."""
        g = self.g
        chain = self.chain
        for i in cells:
            if g[i] == chain:
                self.seeds.append(i)
            g[i] = _HOLE
        self.count += len(cells)
        if self.active in cells:
            self.fired = self.active
            self.active = -1
        if self.steps is not None:
            self.record("remove", cells={_NAMES[i]: cells[i] for i in sorted(cells)})

    def activate(self) -> None:
        cell, self.fired = self.fired, -1
        kind = self.proof.active
        if self.steps is not None:
            self.record("activate", cell=_NAMES[cell], active=kind)
        if kind == "Refresh":
            self.refreshed = True
            return
        g = self.g
        reach = _COLUMN_CELLS[cell % COLUMNS] if kind == "Column" else _PLUS_CELLS[cell]
        cause = kind.lower()
        targets = {i: cause for i in reach if g[i] < _ROCK}
        if targets:
            self.remove(targets)

    def apply_recolor(self) -> bool:
        assert self.recolor is not None
        a, b = self.recolor
        self.recolor = None
        g = self.g
        cells = [i for i in range(SIZE) if g[i] == a]
        for i in cells:
            g[i] = b
        if cells and self.steps is not None:
            changes = {"from": COLOURS[a], "to": COLOURS[b], "cells": [_NAMES[i] for i in cells]}
            self.record("recolor", **changes)
        return bool(cells)

    def apply_chain(self) -> bool:
        """Each removed gem of the Chain colour removes the gem directly above it, if that cell
        holds a gem (not a hole, not a rock); a removed gem of the Chain colour carries on upward.
        Each level of the climb is one removal."""
        g = self.g
        changed = False
        while self.seeds:
            seeds, self.seeds = self.seeds, []
            above = {i - COLUMNS: "chain" for i in seeds if i >= COLUMNS and g[i - COLUMNS] < _ROCK}
            if above:
                self.remove(above)
                changed = True
        return changed

    def gravity(self) -> bool:
        """Gems fall to the bottom of their column in order; the cells above become rocks. Returns
        whether there was anything to fill."""
        g = self.g
        if _HOLE not in g:
            return False
        moves: list[list[str]] = []
        rocks: list[str] = []
        for column in _COLUMN_CELLS:
            if not any(g[i] == _HOLE for i in column):
                continue
            to = ROWS - 1
            for row in range(ROWS - 1, -1, -1):
                i = column[row]
                x = g[i]
                if x < _ROCK:
                    if row != to:
                        j = column[to]
                        g[j] = x
                        if i == self.active:
                            self.active = j
                        if self.steps is not None:
                            moves.append([_NAMES[i], _NAMES[j]])
                    to -= 1
            for row in range(to, -1, -1):
                i = column[row]
                if g[i] != _ROCK:
                    g[i] = _ROCK
                    rocks.append(_NAMES[i])
        if self.steps is not None:
            moves.sort(key=lambda move: _INDEX[move[1]])
            rocks.sort(key=_INDEX.__getitem__)
            self.record("fall", moves=moves, rocks=rocks)
        return True


def _as_proof(proof: str | Proof) -> Proof:
    if isinstance(proof, Proof):
        return proof
    return parse_proof(proof)


def _as_board(board: Board | str) -> Board:
    if isinstance(board, Board):
        return board
    if isinstance(board, str):
        return parse_board(board)
    raise BoardError("a board is given as a Board or as its text")


def resolve(board: Board | str, proof: str | Proof) -> Resolution:
    """Play a whole turn and record every step.

    Steps are dicts, each with ``kind``, ``board`` (the grid text after the step, ``.`` for a hole),
    ``count`` (gems removed so far) and ``active_cell`` (the active powerup's cell, or None once it
    has activated):

    - ``place``: ``cell``, ``active``: the active powerup replaces the gem at ``cell``.
    - ``starter``: ``starter``, ``cells`` (Swap: both cells; Rotate: the top-left; Pick: the picked
      cells, removed by the ``remove`` step that follows).
    - ``remove``: ``cells``, a dict from cell to cause: match, bend, pick, chain, column or plus.
    - ``activate``: ``cell``, ``active``: the active powerup, removed at ``cell``, takes effect.
    - ``recolor``: ``from``, ``to``, ``cells``: gems that changed colour.
    - ``fall``: ``moves`` ([from, to] for each gem that fell), ``rocks`` (cells that became rocks).
    - ``refresh``: ``starter``, ``used``: Refresh's second starter use begins (or, with no second
      clause, the turn ends).
    """
    start = _as_board(board)
    parsed = _as_proof(proof)
    steps: list[Step] = []
    turn = _Turn(_grid(start), parsed, steps)
    turn.play()
    active = _NAMES[turn.active] if turn.active >= 0 else None
    return Resolution(turn.count, _board(turn.g), steps, parsed, active)


def resolve_count(board: Board, proof: Proof) -> tuple[int, Board]:
    """The solver's fast path: the same rules as ``resolve``, without recording steps."""
    turn = _Turn(_grid(board), proof, None)
    turn.play()
    return turn.count, _board(turn.g)


def resolve_first_use(board: Board, proof: Proof) -> tuple[int, Board, bool]:
    """The turn up to Refresh's second starter use (``proof.second`` is not looked at): the count
    so far, the settled board, and whether Refresh went off. With ``resolve_second_use`` a solver
    can try every second use from one settled board."""
    turn = _Turn(_grid(board), proof, None)
    turn.play_first_use()
    return turn.count, _board(turn.g), turn.refreshed


def resolve_second_use(board: Board, proof: Proof, cells: tuple[Cell, ...]) -> tuple[int, Board]:
    """Refresh's second use of ``proof.starter`` at ``cells`` on ``board``, the settled board that
    ``resolve_first_use`` returned, with ``proof.passive`` in force: the gems it removes and the
    settled board. The Refresh powerup is spent by then, so no active is on the board; Recolor has
    already had its effect (Refresh only goes off once something was removed).
    ``resolve_first_use`` count + this count is what ``resolve_count`` gives for the whole proof."""
    _check_starter(proof.starter, cells)
    turn = _Turn(_grid(board), proof, None)
    turn.use_starter(cells, "second ")
    turn.settle()
    return turn.count, _board(turn.g)


# --- boards for the live match ---------------------------------------------------------------


def generate_board(seed: int) -> Board:
    """A round-1 board: every gem uniformly random, with no line of three anywhere (drawn again
    until none appears, so every such board is equally likely)."""
    rng = random.Random(seed)
    colours = range(len(COLOURS))
    while True:
        grid = rng.choices(colours, k=SIZE)
        if not _has_line(grid):
            return _board(grid)


def refill_rocks(board: Board, seed: int) -> Board:
    """Replace every rock with a random gem so that no line of three runs through a new gem. The
    rocks are filled in reading order, each with a colour drawn from those that complete no line
    with the gems already there; one always remains, since a cell's neighbours can forbid at
    most four colours."""
    rng = random.Random(seed)
    grid = _grid(board)
    for i in range(SIZE):
        if grid[i] != _ROCK:
            continue
        forbidden = set()
        for a, b, c in _TRIPLES_THROUGH[i]:
            x, y = (grid[j] for j in (a, b, c) if j != i)
            if x == y and x < _ROCK:
                forbidden.add(x)
        grid[i] = rng.choice([x for x in range(len(COLOURS)) if x not in forbidden])
    return _board(grid)
