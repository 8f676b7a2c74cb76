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
- Recolor B A counts what Recolor A B counts (the boards differ only in the merged colour's
  name), so each pair of colours is played once; the table of second uses is keyed by the board
  up to the names of its colours for the same reason.
- A second Pick of two gems whose single picks change only columns more than two apart counts
  the sum of the two single picks, without playing it.

The turns are played on bitboards by the kernels of ``solver_bits``, written once: the plain turn
with its activations and the whole best second use. numba compiles them when it is installed,
about a hundred times faster; otherwise they run as plain Python. The tests check both ways
against the engine and the exhaustive search.

``exhaustive_best_claim`` is the plain reference: every proof (``enumerate_proofs``) resolved by
the engine. The tests check that both agree; the benchmark (benchmarks/bejeweled_dm_solver.py)
times both.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from types import ModuleType

from . import bitboard
from . import solver_bits as bits
from .board import COLOURS, COLUMNS, ROCK, ROWS, SIZE, Board, Cell, parse_board
from .proof import ACTIVES, PASSIVES, STARTERS, Proof, format_proof, parse_proof
from .rules import resolve_count, resolve_first_use

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


@dataclass(frozen=True, slots=True)
class _Rules:
    """A passive with its colours, as the turn applies it: Bend, the Chain colour (or -1), the
    Recolor pair (or None)."""

    bend: bool
    chain: int
    recolor: tuple[int, int] | None

    @classmethod
    def of(cls, passive: PassiveChoice) -> _Rules:
        name, colours = passive
        indices = tuple(COLOURS.index(colour) for colour in colours)
        return cls(
            name == "Bend",
            indices[0] if name == "Chain" else -1,
            (indices[0], indices[1]) if name == "Recolor" else None,
        )

    def after_first_use(self) -> _Rules:
        """The rules for Refresh's second use: Recolor has done all it can once anything was
        removed (no gem of its first colour is left and no gem appears during a turn)."""
        return _Rules(self.bend, self.chain, None)


@dataclass
class SearchStats:
    """What a search did: plain turns played, turns resumed after an activation, second uses
    played, and second uses counted without playing them (two independent Picks)."""

    first_uses: int = 0
    activations: int = 0
    second_uses: int = 0
    second_uses_summed: int = 0

    @property
    def states(self) -> int:
        """Turns resolved (played or resumed), the benchmark's unit of work."""
        return self.first_uses + self.activations + self.second_uses


@dataclass(frozen=True, slots=True)
class _Candidate:
    count: int
    active: str
    passive: PassiveChoice
    starter: str
    move: Move
    second: Move | None = None
    went_off: tuple[int, int] = (-1, -1)  # Column or Plus: (bit, activation point), or -1


BitMove = tuple[int, ...]
"""A starter use as bits (see solver_bits): Swap two, Rotate the top-left, Pick one or two."""


def _move_bits(move: Move) -> BitMove:
    return tuple(bitboard.BIT_OF_INDEX[row * COLUMNS + column] for row, column in move)


def _bits_move(move: BitMove) -> Move:
    """The cells of a move, in reading order."""
    return tuple(sorted(divmod(bitboard.INDEX_OF_BIT[bit], COLUMNS) for bit in move))


def _kernels(compiled: bool | None) -> ModuleType:
    """The compiled kernels (by default when numba is installed) or the interpreted ones."""
    if compiled is None:
        compiled = bits.COMPILED
    if compiled and not bits.COMPILED:
        raise RuntimeError(
            "the compiled kernels need numba, which is not installed (or NUMBA_DISABLE_JIT is set)"
        )
    return bits if compiled else bits.interpreted()


class _Search:
    """One best-claim search on one board, with the compiled or the interpreted kernels."""

    def __init__(self, board: Board, compiled: bool | None = None) -> None:
        self.board = board
        self.kernels = _kernels(compiled)
        self.masks, self.rocks = bitboard.board_masks(board)
        self.start = self.kernels.array(self.masks)
        self.scratch = self.kernels.Scratch()
        self.gem_count = SIZE - board.count(ROCK)
        self.second_best: dict[tuple[object, ...], tuple[int, BitMove | None]] = {}
        self.stats = SearchStats()

    def first_use(
        self, starter: str, move: BitMove, rules: _Rules, actives: Collection[str]
    ) -> tuple[int, list[int], int, dict[str, tuple[int, tuple[int, int]]]]:
        """The plain first use: (count, settled masks, rocks, and for each of Column and Plus,
        when offered, the best count over every placement, with the cell (bit) and the
        activation point where it went off, or -1 when the plain count is the best)."""
        self.stats.first_uses += 1
        source, target = rules.recolor if rules.recolor is not None else (-1, -1)
        scratch = self.scratch
        (
            count,
            rocks,
            best_column,
            best_plus,
            resumed,
            column_bit,
            column_point,
            plus_bit,
            plus_point,
        ) = self.kernels.first_use(
            self.start,
            self.rocks,
            bitboard.KIND[starter],
            move[0],
            move[1] if len(move) > 1 else -1,
            rules.bend,
            rules.chain,
            source,
            target,
            self.gem_count,
            "Column" in actives,
            "Plus" in actives,
            scratch.points,
            scratch.grid,
            scratch.rows,
        )
        self.stats.activations += resumed
        best = {
            "Column": (best_column, (column_bit, column_point)),
            "Plus": (best_plus, (plus_bit, plus_point)),
        }
        return count, [int(mask) for mask in scratch.grid], rocks, best

    # Refresh

    def best_second_use(
        self, masks: list[int], rocks: int, starter: str, rules: _Rules
    ) -> tuple[int, BitMove | None]:
        """The best second use of the starter on a settled board, under ``rules`` (with no
        Recolor), kept in a table keyed by the board up to the names of the colours (the rules
        only compare colours, except Chain's, which keeps its place)."""
        if rules.chain >= 0:
            others = sorted(mask for colour, mask in enumerate(masks) if colour != rules.chain)
            key: tuple[object, ...] = (masks[rules.chain], *others, rocks, starter, rules.bend)
        else:
            key = (*sorted(masks), rocks, starter, rules.bend, rules.chain)
        known = self.second_best.get(key)
        if known is None:
            known = self.second_best[key] = self.play_second_uses(masks, rocks, starter, rules)
        return known

    def play_second_uses(
        self, masks: list[int], rocks: int, starter: str, rules: _Rules
    ) -> tuple[int, BitMove | None]:
        """Every second use of the starter on a settled board, played by the kernels: the best
        count with a use (bits) that reaches it, or (0, None) when none removes anything."""
        kernels = self.kernels
        board = kernels.array(masks)
        scratch = self.scratch
        if starter == "Pick":
            best, first, second, played, summed = kernels.best_second_pick(
                board, rocks, rules.bend, rules.chain, scratch.points, scratch.rows
            )
            self.stats.second_uses_summed += summed
        else:
            best, first, second, played = kernels.best_second_move(
                board,
                rocks,
                bitboard.KIND[starter],
                rules.bend,
                rules.chain,
                scratch.points,
                scratch.grid,
            )
        self.stats.second_uses += played
        if first < 0:
            return 0, None
        if second < 0:
            return best, (first,)
        return best, (first, second)

    # the whole search

    def run(
        self, starters: tuple[str, ...], passives: tuple[str, ...], actives: tuple[str, ...]
    ) -> _Candidate:
        best: _Candidate | None = None
        first_moves = {starter: self.first_moves(starter) for starter in starters}
        for passive in passive_choices(passives):
            if passive[0] == "Recolor" and passive[1] != "".join(
                sorted(passive[1], key=COLOURS.index)
            ):
                # Recolor B A plays as Recolor A B with the two colours' names exchanged, and no
                # rule looks at a colour's name: the same counts.
                continue
            rules = _Rules.of(passive)
            second_rules = rules.after_first_use()
            for starter in starters:
                for move, move_bits in first_moves[starter]:
                    count, settled, rocks, activated = self.first_use(
                        starter, move_bits, rules, actives
                    )
                    for active in actives:
                        second: Move | None = None
                        if active == "Refresh":
                            value = count
                            if count:
                                extra, second_bits = self.best_second_use(
                                    settled, rocks, starter, second_rules
                                )
                                if second_bits is not None:
                                    value += extra
                                    second = _bits_move(second_bits)
                            went_off = (-1, -1)
                        else:
                            value, went_off = activated[active]
                        if best is None or value > best.count:
                            best = _Candidate(
                                value, active, passive, starter, move, second, went_off
                            )
                    if best is not None and best.count == self.gem_count:
                        return best  # every gem: nothing can do better
        if best is None:
            raise ValueError(_NO_PROOF)
        return best

    def first_moves(self, starter: str) -> list[tuple[Move, BitMove]]:
        """The starter's uses on the board, leaving out all but the first Swap of two gems of one
        colour and Rotate of four: they leave the board as it is (an active moved by one ends on
        a gem where it could have been placed)."""
        moves = []
        unchanged_seen = False
        for move in starter_moves(self.board, starter):
            if starter != "Pick" and self.leaves_board_as_is(starter, move):
                if unchanged_seen:
                    continue
                unchanged_seen = True
            moves.append((move, _move_bits(move)))
        return moves

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
        """A proof reaching the candidate's count, checked with the engine: the active on the
        first gem that does, trying first the gems likeliest to (see ``placements``)."""
        passive, colours = candidate.passive
        for i in self.placements(candidate):
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
                proof = replace(proof, second=candidate.second if refreshed else None)
            if resolve_count(self.board, proof)[0] == candidate.count:
                return proof
        raise AssertionError(f"no placement reaches the count found: {candidate}")

    def placements(self, candidate: _Candidate) -> list[int]:
        """Every gem (cell index) for the active, in the order to try: for Refresh, the gems the
        starter moves or picks (the first line usually runs through one); for a Column or Plus,
        where its best went off, traced back through the starter (exact at the first activation
        point, before anything fell; later, the gems above it in its column, which may have
        fallen there); then every gem in reading order."""
        move = _move_bits(candidate.move)
        came_from = {bit: bit for bit in move}
        if candidate.starter == "Swap":
            came_from = {move[0]: move[1], move[1]: move[0]}
        elif candidate.starter == "Rotate":
            square = bits.rotate_cells(move[0])
            came_from = {square[k]: square[k - 1] for k in range(4)}
        likely = []
        if candidate.active == "Refresh":
            likely = list(move)
        elif candidate.went_off[0] >= 0:
            bit, point = candidate.went_off
            column, row = divmod(bit, bitboard.BYTE)
            rows = [row] if point == 0 else range(row, -1, -1)
            likely = [
                came_from.get(column * bitboard.BYTE + r, column * bitboard.BYTE + r) for r in rows
            ]
        order = [bitboard.INDEX_OF_BIT[bit] for bit in likely] + list(range(SIZE))
        cells = self.board.cells
        return [i for i in dict.fromkeys(order) if cells[i] != ROCK]


# --- helpers for tests and tools -----------------------------------------------------------------


def plain_turn(
    board: Board | str, proof: Proof | str, compiled: bool | None = None
) -> tuple[int, Board]:
    """The first use of ``proof``'s starter with its passive and no active powerup on the board
    (the proof's active is not looked at): the count and the settled board. The same as the
    engine's first use with a Refresh that does not matter."""
    start = _as_board(board)
    parsed = proof if isinstance(proof, Proof) else parse_proof(proof)
    search = _Search(start, compiled)
    rules = _Rules.of((parsed.passive, parsed.colours))
    count, settled, rocks, _ = search.first_use(parsed.starter, _move_bits(parsed.first), rules, ())
    return count, bitboard.masks_board(settled, rocks)


def best_placement(board: Board | str, proof: Proof | str, compiled: bool | None = None) -> int:
    """The best count of ``proof``'s active, passive and first starter use over every placement
    of the active (for Refresh: with the best second use, when it goes off)."""
    start = _as_board(board)
    parsed = proof if isinstance(proof, Proof) else parse_proof(proof)
    search = _Search(start, compiled)
    rules = _Rules.of((parsed.passive, parsed.colours))
    actives = (parsed.active,)
    count, settled, rocks, activated = search.first_use(
        parsed.starter, _move_bits(parsed.first), rules, actives
    )
    if parsed.active != "Refresh":
        return activated[parsed.active][0]
    if not count:
        return 0
    second_rules = rules.after_first_use()
    return count + search.best_second_use(settled, rocks, parsed.starter, second_rules)[0]


def best_second_use(board: Board | str, proof: Proof | str, compiled: bool | None = None) -> int:
    """The best count of a second use of ``proof``'s starter on a settled board under its passive
    (with Recolor spent), as Refresh grants it."""
    start = _as_board(board)
    parsed = proof if isinstance(proof, Proof) else parse_proof(proof)
    search = _Search(start, compiled)
    rules = _Rules.of((parsed.passive, parsed.colours)).after_first_use()
    return search.best_second_use(search.masks, search.rocks, parsed.starter, rules)[0]


def search_best_claim(
    board: Board | str,
    starters: Collection[str] | str,
    passives: Collection[str] | str,
    actives: Collection[str] | str,
    compiled: bool | None = None,
) -> tuple[int, str, SearchStats]:
    """``best_claim`` with the search's statistics, for the benchmark. ``compiled``: use the
    compiled kernels (by default when numba is installed) or the interpreted ones."""
    start = _as_board(board)
    offered = (
        _offer("starter", starters, STARTERS),
        _offer("passive", passives, PASSIVES),
        _offer("active", actives, ACTIVES),
    )
    search = _Search(start, compiled)
    candidate = search.run(*offered)
    return candidate.count, format_proof(search.proof(candidate)), search.stats


def warm_up() -> bool:
    """Load (or, on a machine's first run, compile: several seconds) the numba kernels now rather
    than in the first claim; returns whether they are in use. Nothing to do without numba."""
    if not bits.COMPILED:
        return False
    search_best_claim(
        Board("RGBYPRGB" * 7), STARTERS, ("Recolor", "Chain", "Bend"), ("Column", "Plus", "Refresh")
    )
    return True


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
