"""The rules of a Bejeweled death match turn, as a pure library (no Django, no IO).

``engine`` offers these rules with the board (board.py), the proof (proof.py) and the solver's
best claim (engine-api.md); the solver plays them on bitboards and imports these modules, not
the engine, so nothing imports in a circle.

A proof names one active, one passive and one or two starter powerups; ``resolve`` plays the
whole turn on a board and counts the gems removed. The order of operations is the one in
shared/spec/rulings.md; every choice made beyond it is written down in
docs/rules/bejeweled-death-match.md. The rules run once, in ``_Turn``, on the board's grid of
small ints (board.py); ``resolve`` asks it to record the steps for animation, ``resolve_count``
(the solver's fast path) does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .board import (
    CELL_INDEX,
    CELL_NAMES,
    COLOUR_NAMES,
    COLOURS,
    COLUMNS,
    HOLE_CODE,
    ROCK_CODE,
    ROWS,
    SIZE,
    Board,
    BoardError,
    Cell,
    ProofError,
    board_of,
    check_cell,
    find_matches,
    grid_of,
    grid_text,
    parse_board,
)
from .proof import Proof, check_starter, clause_text, parse_proof

Step = dict[str, Any]
"""One JSON-serialisable step of a turn, for a page to animate (see ``resolve``)."""

# What a Column and a Plus going off at a cell reach.
_COLUMN_CELLS = tuple(tuple(r * COLUMNS + c for r in range(ROWS)) for c in range(COLUMNS))


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
        fields["board"] = grid_text(self.g)
        fields["count"] = self.count
        fields["active_cell"] = CELL_NAMES[self.active] if self.active >= 0 else None
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
        cell = check_cell(proof.active_cell)
        if self.g[cell] == ROCK_CODE:
            name = CELL_NAMES[cell]
            raise ProofError(
                f"{proof.active} {name}: {name} is a rock; an active powerup replaces a gem"
            )
        self.active = cell
        if self.steps is not None:
            self.record("place", cell=CELL_NAMES[cell], active=proof.active)
        self.use_starter(proof.first, "")
        self.settle()

    def use_starter(self, cells: tuple[Cell, ...], which: str) -> None:
        g = self.g
        kind = self.proof.starter
        where = [check_cell(cell) for cell in cells]
        shown = f"{which}{clause_text(kind, cells)}"
        if kind == "Rotate":
            tl = where[0]
            where = [tl, tl + 1, tl + COLUMNS + 1, tl + COLUMNS]  # clockwise from the top-left
        for i in where:
            if g[i] >= ROCK_CODE:
                raise ProofError(f"{shown}: {CELL_NAMES[i]} is a rock; {kind} takes gems only")
        if kind == "Pick":
            if len(where) == 2 and g[where[0]] == g[where[1]]:
                colour = COLOUR_NAMES[COLOURS[g[where[0]]]]
                raise ProofError(
                    f"{shown}: both gems are {colour}; Pick takes gems of different colours"
                )
            if self.steps is not None:
                self.record("starter", starter=kind, cells=[CELL_NAMES[i] for i in where])
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
            self.record("starter", starter=kind, cells=[CELL_NAMES[i] for i in named])

    def settle(self) -> None:
        """The seed's loop, until the board has no more removals."""
        found = find_matches(self.g, self.bend)
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
                found = find_matches(self.g, self.bend)
            if not self.gravity():
                return
            found = find_matches(self.g, self.bend)
            if not found:
                return

    def remove(self, cells: dict[int, str]) -> None:
        """Remove gems (each cell named with its cause) and note what that triggers."""
        g = self.g
        chain = self.chain
        for i in cells:
            if g[i] == chain:
                self.seeds.append(i)
            g[i] = HOLE_CODE
        self.count += len(cells)
        if self.active in cells:
            self.fired = self.active
            self.active = -1
        if self.steps is not None:
            self.record("remove", cells={CELL_NAMES[i]: cells[i] for i in sorted(cells)})

    def activate(self) -> None:
        cell, self.fired = self.fired, -1
        kind = self.proof.active
        if self.steps is not None:
            self.record("activate", cell=CELL_NAMES[cell], active=kind)
        if kind == "Refresh":
            self.refreshed = True
            return
        g = self.g
        reach = _COLUMN_CELLS[cell % COLUMNS] if kind == "Column" else _PLUS_CELLS[cell]
        cause = kind.lower()
        targets = {i: cause for i in reach if g[i] < ROCK_CODE}
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
            changes = {
                "from": COLOURS[a],
                "to": COLOURS[b],
                "cells": [CELL_NAMES[i] for i in cells],
            }
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
            above = {
                i - COLUMNS: "chain" for i in seeds if i >= COLUMNS and g[i - COLUMNS] < ROCK_CODE
            }
            if above:
                self.remove(above)
                changed = True
        return changed

    def gravity(self) -> bool:
        """Gems fall to the bottom of their column in order; the cells above become rocks. Returns
        whether there was anything to fill."""
        g = self.g
        if HOLE_CODE not in g:
            return False
        moves: list[list[str]] = []
        rocks: list[str] = []
        for column in _COLUMN_CELLS:
            if not any(g[i] == HOLE_CODE for i in column):
                continue
            to = ROWS - 1
            for row in range(ROWS - 1, -1, -1):
                i = column[row]
                x = g[i]
                if x < ROCK_CODE:
                    if row != to:
                        j = column[to]
                        g[j] = x
                        if i == self.active:
                            self.active = j
                        if self.steps is not None:
                            moves.append([CELL_NAMES[i], CELL_NAMES[j]])
                    to -= 1
            for row in range(to, -1, -1):
                i = column[row]
                if g[i] != ROCK_CODE:
                    g[i] = ROCK_CODE
                    rocks.append(CELL_NAMES[i])
        if self.steps is not None:
            moves.sort(key=lambda move: CELL_INDEX[move[1]])
            rocks.sort(key=CELL_INDEX.__getitem__)
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
    turn = _Turn(grid_of(start), parsed, steps)
    turn.play()
    active = CELL_NAMES[turn.active] if turn.active >= 0 else None
    return Resolution(turn.count, board_of(turn.g), steps, parsed, active)


def resolve_count(board: Board, proof: Proof) -> tuple[int, Board]:
    """The solver's fast path: the same rules as ``resolve``, without recording steps."""
    turn = _Turn(grid_of(board), proof, None)
    turn.play()
    return turn.count, board_of(turn.g)


def resolve_first_use(board: Board, proof: Proof) -> tuple[int, Board, bool]:
    """The turn up to Refresh's second starter use (``proof.second`` is not looked at): the count
    so far, the settled board, and whether Refresh went off. With ``resolve_second_use`` a solver
    can try every second use from one settled board."""
    turn = _Turn(grid_of(board), proof, None)
    turn.play_first_use()
    return turn.count, board_of(turn.g), turn.refreshed


def resolve_second_use(board: Board, proof: Proof, cells: tuple[Cell, ...]) -> tuple[int, Board]:
    """Refresh's second use of ``proof.starter`` at ``cells`` on ``board``, the settled board that
    ``resolve_first_use`` returned, with ``proof.passive`` in force: the gems it removes and the
    settled board. The Refresh powerup is spent by then, so no active is on the board; Recolor has
    already had its effect (Refresh only goes off once something was removed).
    ``resolve_first_use`` count + this count is what ``resolve_count`` gives for the whole proof."""
    check_starter(proof.starter, cells)
    turn = _Turn(grid_of(board), proof, None)
    turn.use_starter(cells, "second ")
    turn.settle()
    return turn.count, board_of(turn.g)
