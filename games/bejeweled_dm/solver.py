"""The best claim of a Bejeweled death match round: the largest count any legal proof reaches.

``best_claim(board, starters, passives, actives)`` is exact: it looks at every proof that uses one
offered powerup of each type, by search, with a proof that reaches the count it returns. It does so
without resolving every proof on its own:

- For one passive (with its colours) and one starter use, a turn goes exactly the same way
  wherever the active powerup stands, until the moment its gem is removed. So each starter use is
  played once with no active ("the plain turn"); an active on a gem the plain turn never removes
  counts what the plain turn counts; an active on a removed gem goes off at the next activation
  point (right after the look for lines that follows its removal), and the turn is resumed from a
  snapshot taken there, once per distinct set of cells a Column or Plus would reach.
- Refresh changes nothing in the first use: it only grants a second use when its gem is removed,
  so its best is the plain count plus the best second use on the settled board (when anything was
  removed at all). The best second use depends only on the settled board, the starter and the
  passive, and is kept in a table, since many first uses settle to the same board.
- A Swap of two gems of one colour, or a Rotate of four, leaves the board as it is: only the first
  such use is played (an active moved by it ends on a gem where it could have been placed).

``exhaustive_best_claim`` is the plain reference: every proof (``enumerate_proofs``) resolved by
the engine. The tests check that both agree; the benchmark (benchmarks/bejeweled_dm_solver.py)
times both.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace

from . import solver_bits as bits
from .engine import (
    ACTIVES,
    COLOURS,
    COLUMNS,
    PASSIVES,
    ROCK,
    ROWS,
    SIZE,
    STARTERS,
    Board,
    Cell,
    Proof,
    format_proof,
    parse_board,
    resolve_count,
    resolve_first_use,
)

PassiveChoice = tuple[str, str]
"""A passive powerup with its colours, as in ``Proof``: ``("Recolor", "RB")``, ``("Bend", "")``."""

Move = tuple[Cell, ...]
"""A starter use as the cells of its clause: Swap two, Rotate the top-left, Pick one or two."""


# --- what is offered -----------------------------------------------------------------------------


def _offer(what: str, given: Collection[str] | str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The offered powerups of one type in the canonical order, or ValueError."""
    names = ", ".join(allowed[:-1]) + " or " + allowed[-1]
    if isinstance(given, str):
        given = [given]
    try:
        items = list(given)
    except TypeError:
        raise ValueError(f"the {what} powerups are given as a collection of names") from None
    if not items:
        raise ValueError(f"no {what} powerup offered; offer at least one of {names}")
    known = {name.lower(): name for name in allowed}
    chosen = set()
    for item in items:
        name = known.get(item.strip().lower()) if isinstance(item, str) else None
        if name is None:
            raise ValueError(f"unknown {what} powerup {item!r}; use {names}")
        chosen.add(name)
    return tuple(name for name in allowed if name in chosen)


def _as_board(board: Board | str) -> Board:
    if isinstance(board, Board):
        return board
    if isinstance(board, str):
        return parse_board(board)
    raise ValueError("a board is given as a Board or as its text")


def passive_choices(passives: tuple[str, ...]) -> list[PassiveChoice]:
    """Every passive with every choice of colours: Recolor's 20 ordered pairs of different colours,
    Chain's 5 colours, Bend."""
    choices: list[PassiveChoice] = []
    for passive in passives:
        if passive == "Recolor":
            choices += [("Recolor", a + b) for a in COLOURS for b in COLOURS if a != b]
        elif passive == "Chain":
            choices += [("Chain", colour) for colour in COLOURS]
        else:
            choices.append((passive, ""))
    return choices


def starter_moves(board: Board, starter: str) -> list[Move]:
    """Every legal use of a starter on a board, in reading order: Swap each pair of side-by-side
    gems (the left or upper one first), Rotate each 2x2 of four gems, Pick each gem, then each pair
    of gems of different colours."""
    cells = board.cells
    gems = [i for i in range(SIZE) if cells[i] != ROCK]
    moves: list[Move] = []
    if starter == "Swap":
        for i in gems:
            row, column = divmod(i, COLUMNS)
            if column + 1 < COLUMNS and cells[i + 1] != ROCK:
                moves.append(((row, column), (row, column + 1)))
            if row + 1 < ROWS and cells[i + COLUMNS] != ROCK:
                moves.append(((row, column), (row + 1, column)))
    elif starter == "Rotate":
        for i in gems:
            row, column = divmod(i, COLUMNS)
            if (
                row + 1 < ROWS
                and column + 1 < COLUMNS
                and ROCK not in (cells[i + 1], cells[i + COLUMNS], cells[i + COLUMNS + 1])
            ):
                moves.append(((row, column),))
    else:
        moves += [(divmod(i, COLUMNS),) for i in gems]
        moves += [
            (divmod(i, COLUMNS), divmod(j, COLUMNS))
            for n, i in enumerate(gems)
            for j in gems[n + 1 :]
            if cells[i] != cells[j]
        ]
    return moves


def _cell_bit(cell: Cell) -> int:
    return bits.BIT_OF_INDEX[cell[0] * COLUMNS + cell[1]]


_NO_PROOF = (
    "no legal proof: the offered starters cannot be used on this board "
    "(Swap needs two gems side by side, Rotate a 2x2 of gems, Pick a gem)"
)


# --- the plain reference -------------------------------------------------------------------


def enumerate_proofs(
    board: Board | str,
    starters: Collection[str] | str,
    passives: Collection[str] | str,
    actives: Collection[str] | str,
) -> Iterator[Proof]:
    """Every legal proof using one offered powerup of each type: each active on each gem, each
    passive with each colour choice, each starter use; with Refresh, the proof without a second
    clause and, when Refresh goes off, one proof for each legal second use on the settled board."""
    start = _as_board(board)
    offered_starters = _offer("starter", starters, STARTERS)
    offered_passives = _offer("passive", passives, PASSIVES)
    offered_actives = _offer("active", actives, ACTIVES)
    gems = [divmod(i, COLUMNS) for i in range(SIZE) if start.cells[i] != ROCK]
    for active in offered_actives:
        for passive, colours in passive_choices(offered_passives):
            for starter in offered_starters:
                for move in starter_moves(start, starter):
                    for cell in gems:
                        proof = Proof(active, cell, passive, colours, starter, move)
                        yield proof
                        if active != "Refresh":
                            continue
                        _, settled, refreshed = resolve_first_use(start, proof)
                        if refreshed:
                            for second in starter_moves(settled, starter):
                                yield replace(proof, second=second)


def exhaustive_best_claim(
    board: Board | str,
    starters: Collection[str] | str,
    passives: Collection[str] | str,
    actives: Collection[str] | str,
) -> tuple[int, str]:
    """The plain reference for ``best_claim``: resolve every proof with the engine and keep the
    first that reaches the largest count. Slow; for tests and the benchmark."""
    start = _as_board(board)
    best_count = -1
    best_proof: Proof | None = None
    for proof in enumerate_proofs(start, starters, passives, actives):
        count, _ = resolve_count(start, proof)
        if count > best_count:
            best_count, best_proof = count, proof
    if best_proof is None:
        raise ValueError(_NO_PROOF)
    return best_count, format_proof(best_proof)


# --- the search ----------------------------------------------------------------------------


@dataclass
class SearchStats:
    """What a search did: plain turns played, resumed turns after an activation, second uses."""

    first_uses: int = 0
    activations: int = 0
    second_uses: int = 0

    @property
    def states(self) -> int:
        return self.first_uses + self.activations + self.second_uses


@dataclass(frozen=True)
class _Candidate:
    count: int
    active: str
    passive: PassiveChoice
    starter: str
    move: Move
    second: Move | None = None


class _Search:
    """One best-claim search on one board."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.masks, self.rocks = bits.board_masks(board)
        self.gem_count = SIZE - board.count(ROCK)
        self.second_best: dict[tuple[object, ...], tuple[int, Move | None]] = {}
        self.stats = SearchStats()

    # one starter use with no active on the board

    def play(
        self,
        masks: bits.Masks | tuple[int, ...],
        rocks: int,
        starter: str,
        move: Move,
        bend: bool,
        chain: int,
        recolor: tuple[int, int] | None,
        points: list[bits.Snapshot] | None,
    ) -> tuple[int, bits.Masks, int]:
        grid = list(masks)
        if starter == "Pick":
            picked = 0
            for cell in move:
                picked |= 1 << _cell_bit(cell)
            seeds = bits.remove_cells(grid, picked, chain)
            count = picked.bit_count()
            if recolor is not None:
                source, target = recolor
                grid[target] |= grid[source]
                grid[source] = 0
            found = bits.find_matches(grid, bend)
            return bits.settle(
                grid, rocks, picked, count, seeds, None, bend, chain, found, picked, points, False
            )
        if starter == "Swap":
            bits.swap(grid, _cell_bit(move[0]), _cell_bit(move[1]))
        else:
            bits.rotate(grid, _cell_bit(move[0]))
        found = bits.find_matches(grid, bend)
        return bits.settle(grid, rocks, 0, 0, 0, recolor, bend, chain, found, 0, points, False)

    def best_activation(
        self, points: list[bits.Snapshot], active: str, bend: bool, chain: int, plain: int
    ) -> int:
        """The best count of a Column or Plus going off at any cell removed in the plain turn
        (which counts ``plain``)."""
        best = -1
        for point in points:
            gems = 0
            for mask in point.masks:
                gems |= mask
            tried: set[int] = set()
            removed = point.removed
            while removed:
                low = removed & -removed
                removed ^= low
                bit = low.bit_length() - 1
                reach = bits.COLUMN_OF_BIT[bit] if active == "Column" else bits.PLUS_MASK[bit]
                targets = reach & gems
                if targets in tried:
                    continue
                tried.add(targets)
                if not targets:
                    # Nothing in reach: the turn goes on as the plain turn does.
                    best = max(best, plain)
                    continue
                self.stats.activations += 1
                grid = list(point.masks)
                seeds = point.seeds | bits.remove_cells(grid, targets, chain)
                count, _, _ = bits.settle(
                    grid,
                    point.rocks,
                    point.holes | targets,
                    point.count + targets.bit_count(),
                    seeds,
                    point.recolor,
                    bend,
                    chain,
                    0,
                    0,
                    None,
                    True,
                )
                best = max(best, count)
        return best

    def best_second_use(
        self, masks: bits.Masks, rocks: int, starter: str, bend: bool, chain: int
    ) -> tuple[int, Move | None]:
        """The best second use of the starter on a settled board (Recolor has done its work by then,
        so only Bend and Chain matter), kept in a table."""
        key = (*masks, rocks, starter, bend, chain)
        known = self.second_best.get(key)
        if known is not None:
            return known
        settled = bits.masks_board(masks, rocks)
        best: tuple[int, Move | None] = (0, None)
        for move in starter_moves(settled, starter):
            if starter == "Swap":
                first, second = _cell_bit(move[0]), _cell_bit(move[1])
                if bits.colour_at(masks, first) == bits.colour_at(masks, second):
                    continue
            self.stats.second_uses += 1
            count, _, _ = self.play(masks, rocks, starter, move, bend, chain, None, None)
            if count > best[0]:
                best = (count, move)
        self.second_best[key] = best
        return best

    def run(
        self, starters: tuple[str, ...], passives: tuple[str, ...], actives: tuple[str, ...]
    ) -> _Candidate:
        best: _Candidate | None = None
        branching = [active for active in actives if active != "Refresh"]
        for passive in passive_choices(passives):
            name, colours = passive
            bend = name == "Bend"
            chain = COLOURS.index(colours) if name == "Chain" else -1
            recolor = (
                (COLOURS.index(colours[0]), COLOURS.index(colours[1]))
                if name == "Recolor"
                else None
            )
            for starter in starters:
                unchanged_seen = False
                for move in starter_moves(self.board, starter):
                    if starter != "Pick" and self.leaves_board_as_is(starter, move):
                        if unchanged_seen:
                            continue
                        unchanged_seen = True
                    points: list[bits.Snapshot] | None = [] if branching else None
                    self.stats.first_uses += 1
                    count, settled, rocks = self.play(
                        self.masks, self.rocks, starter, move, bend, chain, recolor, points
                    )
                    for active in actives:
                        second: Move | None = None
                        if active == "Refresh":
                            value = count
                            if count:
                                extra, second = self.best_second_use(
                                    settled, rocks, starter, bend, chain
                                )
                                value += extra
                        else:
                            assert points is not None
                            value = count if count < self.gem_count else -1
                            activated = self.best_activation(points, active, bend, chain, count)
                            value = max(value, activated)
                        if best is None or value > best.count:
                            best = _Candidate(value, active, passive, starter, move, second)
        if best is None:
            raise ValueError(_NO_PROOF)
        return best

    def leaves_board_as_is(self, starter: str, move: Move) -> bool:
        """A Swap of two gems of one colour or a Rotate of four."""
        colours = self.board.cells
        if starter == "Swap":
            (r1, c1), (r2, c2) = move
            return colours[r1 * COLUMNS + c1] == colours[r2 * COLUMNS + c2]
        row, column = move[0]
        i = row * COLUMNS + column
        square = {colours[i], colours[i + 1], colours[i + COLUMNS], colours[i + COLUMNS + 1]}
        return len(square) == 1

    def proof(self, candidate: _Candidate) -> Proof:
        """A proof reaching the candidate's count: the first placement of the active (in reading
        order) that does."""
        passive, colours = candidate.passive
        for i in range(SIZE):
            if self.board.cells[i] == ROCK:
                continue
            proof = Proof(
                candidate.active,
                divmod(i, COLUMNS),
                passive,
                colours,
                candidate.starter,
                candidate.move,
            )
            if candidate.active == "Refresh":
                _, _, refreshed = resolve_first_use(self.board, proof)
                if candidate.count and not refreshed:
                    continue
                proof = replace(proof, second=candidate.second)
            if resolve_count(self.board, proof)[0] == candidate.count:
                return proof
        raise AssertionError(f"no placement reaches the count found: {candidate}")


def search_best_claim(
    board: Board | str,
    starters: Collection[str] | str,
    passives: Collection[str] | str,
    actives: Collection[str] | str,
) -> tuple[int, str, SearchStats]:
    """``best_claim`` with the search's statistics, for the benchmark."""
    start = _as_board(board)
    offered = (
        _offer("starter", starters, STARTERS),
        _offer("passive", passives, PASSIVES),
        _offer("active", actives, ACTIVES),
    )
    search = _Search(start)
    candidate = search.run(*offered)
    return candidate.count, format_proof(search.proof(candidate)), search.stats


def best_claim(
    board: Board | str,
    starters: Collection[str] | str,
    passives: Collection[str] | str,
    actives: Collection[str] | str,
) -> tuple[int, str]:
    """The largest count any proof using one offered powerup of each type reaches, and one proof
    (canonical text) that reaches it. ``starters``, ``passives`` and ``actives`` are collections of
    the clause keywords, e.g. ``best_claim(board, {"Swap"}, {"Bend"}, {"Plus", "Refresh"})``."""
    count, proof, _ = search_best_claim(board, starters, passives, actives)
    return count, proof
