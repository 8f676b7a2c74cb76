"""Rules of Seven Gem Swap, as a pure library (no Django, no IO).

The grid has 10 rows (1-10, row 1 on top) and 10 columns (A-J). A cell holds a gem of one of the
seven colours in ``COLOURS`` (red, orange, yellow, green, blue, indigo, violet) or a rock ``#``.
Each player owns one colour. In a round every player may take control of one gem of their colour
and move it with a sequence of single steps (``U`` up toward row 1, ``D`` down, ``L`` left, ``R``
right); each step swaps the gem with whatever is beside it and locks the cell it left. All players'
steps happen together; ``resolve_round`` plays a whole round. ``largest_group`` measures what a
player scores; ``allocate_colours`` runs the pregame auction of colours.

Everything decided beyond the seed text and shared/spec/rulings.md is written down in
docs/rules/seven-gem-swap.md.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.core.game import gridtext

ROWS = 10
COLUMNS = 10
SIZE = ROWS * COLUMNS
COLOURS = "ROYGBIV"
ROCK = "#"
COLUMN_LETTERS = "ABCDEFGHIJ"
COLOUR_NAMES = {
    "R": "red",
    "O": "orange",
    "Y": "yellow",
    "G": "green",
    "B": "blue",
    "I": "indigo",
    "V": "violet",
}
GEMS_PER_COLOUR = 10
ROCKS = SIZE - GEMS_PER_COLOUR * len(COLOURS)
MAX_MOVES = 40
MOVES = "UDLR"
MOVE_NAMES = {"U": "up", "D": "down", "L": "left", "R": "right"}
_DELTA = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}

Step = dict[str, Any]
"""One JSON-serialisable step of a round, for the host's page to animate (see ``resolve_round``)."""


class BoardError(ValueError):
    """A board text or value that is not a Seven Gem Swap grid."""


class SubmissionError(ValueError):
    """A round's submission that cannot be read or cannot be played on this grid."""


class BidError(ValueError):
    """A pregame bid that cannot be read."""


# --- cells -------------------------------------------------------------------------------------

_NAMES = gridtext.cell_names(ROWS, COLUMNS, COLUMN_LETTERS)
_INDEX = {name: i for i, name in enumerate(_NAMES)}


def cell_name(index: int) -> str:
    """The name of the cell at ``index`` (0 is A1, 9 is J1, 10 is A2, 99 is J10)."""
    if not isinstance(index, int) or not 0 <= index < SIZE:
        raise BoardError(f"there is no cell number {index!r}")
    return _NAMES[index]


def parse_cell(name: object) -> int:
    """The index of a cell named like ``C4`` (column letter A-J, row 1-10); case and surrounding
    spaces are ignored."""
    if not isinstance(name, str):
        raise SubmissionError(f"a cell is named by its column and row, like C4 (not {name!r})")
    index = _INDEX.get(gridtext.shown_name(name))
    if index is None:
        raise SubmissionError(
            f"there is no cell {name.strip()!r}; columns are A-J and rows 1-10, like C4"
        )
    return index


def _step_target(index: int, move: str) -> int | None:
    """The cell one step from ``index`` in direction ``move``, or None off the grid."""
    dr, dc = _DELTA[move]
    row, col = divmod(index, COLUMNS)
    row, col = row + dr, col + dc
    if 0 <= row < ROWS and 0 <= col < COLUMNS:
        return row * COLUMNS + col
    return None


_TARGET = tuple({move: _step_target(i, move) for move in MOVES} for i in range(SIZE))


def neighbours(cell: str) -> dict[str, str]:
    """The cells one move from ``cell``, by the move that reaches each (moves off the grid left
    out): ``neighbours("A1") == {"D": "A2", "R": "B1"}``."""
    targets = _TARGET[parse_cell(cell)]
    return {move: _NAMES[t] for move, t in targets.items() if t is not None}


_NEIGHBOURS = tuple(
    tuple(t for t in (_TARGET[i][move] for move in MOVES) if t is not None) for i in range(SIZE)
)


# --- boards ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """An immutable grid: ``cells`` holds the 100 cells row by row, top row (row 1) first."""

    cells: str

    def __post_init__(self) -> None:
        if not isinstance(self.cells, str) or len(self.cells) != SIZE:
            raise BoardError(f"a grid has {ROWS} rows of {COLUMNS} cells, {SIZE} in all")
        for i, ch in enumerate(self.cells):
            if ch not in COLOURS and ch != ROCK:
                raise BoardError(
                    f"{_NAMES[i]}: unknown character {ch!r}; gems are R O Y G B I V and a rock is #"
                )

    @property
    def rows(self) -> tuple[str, ...]:
        return gridtext.rows_of(self.cells, COLUMNS)

    def __getitem__(self, cell: str | int) -> str:
        """``board["C4"]``: the gem letter or ``#`` in that cell."""
        return self.cells[parse_cell(cell) if isinstance(cell, str) else _check_index(cell)]

    def count(self, what: str) -> int:
        """How many cells hold ``what`` (a colour letter or ``#``)."""
        return self.cells.count(what)

    def __str__(self) -> str:
        return format_board(self)


def _check_index(index: object) -> int:
    if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < SIZE:
        return index
    raise BoardError(f"there is no cell number {index!r}")


def _board(cells: Iterable[str]) -> Board:
    """A Board from cells the rules produced, skipping the checks."""
    board = object.__new__(Board)
    object.__setattr__(board, "cells", "".join(cells))
    return board


def parse_board(text: str) -> Board:
    """Read 10 lines of 10 cells (``R O Y G B I V`` for gems, ``#`` for a rock), row 1 first.
    Blank lines around the grid and spaces anywhere are ignored."""
    if not isinstance(text, str):
        raise BoardError(f"a grid is given as text: {ROWS} lines of {COLUMNS} cells")
    return Board(gridtext.fixed_cells(text, ROWS, COLUMNS, BoardError, noun="grid"))


def format_board(board: Board) -> str:
    """10 lines of 10 cells, row 1 first, no trailing newline."""
    return gridtext.text_of(_as_board(board).rows)


def _as_board(board: Board | str) -> Board:
    if isinstance(board, Board):
        return board
    if isinstance(board, str):
        return parse_board(board)
    raise BoardError("a grid is a Board or its text: 10 lines of 10 cells")


def check_standard(board: Board | str) -> Board:
    """The grid, if it holds exactly 10 gems of each colour and 30 rocks (as a match starts);
    BoardError naming what is off otherwise."""
    board = _as_board(board)
    wrong = [
        f"{board.count(c)} {COLOUR_NAMES[c]}" for c in COLOURS if board.count(c) != GEMS_PER_COLOUR
    ]
    if wrong:
        raise BoardError(
            f"a starting grid has {GEMS_PER_COLOUR} gems of each colour; this one has "
            + ", ".join(wrong)
        )
    if board.count(ROCK) != ROCKS:
        raise BoardError(f"a starting grid has {ROCKS} rocks; this one has {board.count(ROCK)}")
    return board


def generate_board(seed: int) -> Board:
    """A starting grid: 10 gems of each colour and 30 rocks in a seeded random order."""
    items = list(COLOURS * GEMS_PER_COLOUR + ROCK * ROCKS)
    random.Random(seed).shuffle(items)
    return _board(items)


def changed_cells(before: Board | str, after: Board | str) -> list[str]:
    """The cells (in reading order) whose content differs between two grids."""
    a, b = _as_board(before).cells, _as_board(after).cells
    return [_NAMES[i] for i in range(SIZE) if a[i] != b[i]]


# --- groups ------------------------------------------------------------------------------------


def _colour_set(colours: str) -> frozenset[str]:
    if not isinstance(colours, str) or not colours.strip():
        raise ValueError("name at least one gem colour, e.g. 'RB' (R O Y G B I V)")
    letters = colours.strip().upper()
    for ch in letters:
        if ch not in COLOURS:
            raise ValueError(f"{ch!r} is not a gem colour; use R O Y G B I V")
    return frozenset(letters)


def _largest(cells: str, wanted: frozenset[str]) -> int:
    seen = [False] * SIZE
    best = 0
    for start in range(SIZE):
        if seen[start] or cells[start] not in wanted:
            continue
        seen[start] = True
        stack = [start]
        size = 0
        while stack:
            i = stack.pop()
            size += 1
            for j in _NEIGHBOURS[i]:
                if not seen[j] and cells[j] in wanted:
                    seen[j] = True
                    stack.append(j)
        best = max(best, size)
    return best


def largest_group(board: Board | str, colours: str) -> int:
    """The size of the largest group of orthogonally connected gems whose colours are all among
    ``colours`` (``"RB"``: red and blue gems together; ``"R"`` or ``"RR"``: red alone). Rocks never
    belong to a group; 0 when no gem of those colours is on the grid."""
    return _largest(_as_board(board).cells, _colour_set(colours))


def largest_group_cells(board: Board | str, colours: str) -> list[str]:
    """The cells of a largest group of ``colours`` (as ``largest_group`` counts it), in grid
    order: the first such group met reading the grid row by row; [] when there is none. What the
    page lights up where a player's points came from."""
    cells = _as_board(board).cells
    wanted = _colour_set(colours)
    seen = [False] * SIZE
    best: list[int] = []
    for start in range(SIZE):
        if seen[start] or cells[start] not in wanted:
            continue
        seen[start] = True
        stack, group = [start], []
        while stack:
            i = stack.pop()
            group.append(i)
            for j in _NEIGHBOURS[i]:
                if not seen[j] and cells[j] in wanted:
                    seen[j] = True
                    stack.append(j)
        if len(group) > len(best):
            best = group
    return [cell_name(i) for i in sorted(best)]


# --- a round -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A resolved round.

    ``board``: the grid after every sequence. ``failed``: for each player who submitted, whether a
    move of theirs failed (which ends the sequence and costs a point). ``steps``: the round step
    by step, for the host's animation (each a dict: ``step`` from 1, ``moves``: one entry per
    player moving in that step with ``player``, ``from``, ``to`` (None off the grid),
    ``direction``, ``ok``, ``reason`` (None, ``off_grid``, ``locked``, ``controlled`` or
    ``same_target``) and ``swapped`` (what the controlled gem swapped with), ``locked``: the
    cells locked after the step, and ``board``: the grid's text after the step, for a page to
    draw as it is). ``positions``: where each controlled gem ends. ``made``: how many moves of
    each player succeeded.
    """

    board: Board
    failed: dict[str, bool]
    steps: list[Step] = field(default_factory=list)
    positions: dict[str, str] = field(default_factory=dict)
    made: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Submission:
    """One player's round: the controlled gem's cell index, its moves and whether it premoves."""

    gem: int
    moves: str
    premove: bool


def parse_moves(moves: object) -> str:
    """A movement sequence as upper-case ``U D L R`` letters (at most 40; spaces around it and
    letter case ignored; an empty sequence is allowed)."""
    if not isinstance(moves, str):
        raise SubmissionError("a movement sequence is a string of U, D, L and R, like UURD")
    text = moves.strip().upper()
    for ch in text:
        if ch not in MOVES:
            raise SubmissionError(
                f"{ch!r} is not a move; a sequence uses only U (up), D (down), L (left), R (right)"
            )
    if len(text) > MAX_MOVES:
        raise SubmissionError(
            f"a sequence has at most {MAX_MOVES} moves (this one has {len(text)})"
        )
    return text


def parse_submissions(
    board: Board, submissions: Mapping[str, tuple[str, str, bool]]
) -> dict[str, Submission]:
    """Check every player's (gem cell, moves, premove) against the grid."""
    if not isinstance(submissions, Mapping):
        raise SubmissionError("submissions map each player to (gem cell, moves, premove)")
    parsed: dict[str, Submission] = {}
    holders: dict[int, str] = {}
    for player, entry in submissions.items():
        if not isinstance(player, str):
            raise SubmissionError(f"a player is named by a string, not {player!r}")
        if not isinstance(entry, tuple | list) or len(entry) != 3:
            raise SubmissionError(f"{player}: a submission is (gem cell, moves, premove)")
        gem_name, moves, premove = entry
        gem = parse_cell(gem_name)
        if board.cells[gem] == ROCK:
            raise SubmissionError(f"{player}: {_NAMES[gem]} holds a rock; control one of your gems")
        if gem in holders:
            raise SubmissionError(
                f"{player}: the gem in {_NAMES[gem]} is already controlled by {holders[gem]}"
            )
        holders[gem] = player
        if not isinstance(premove, bool):
            raise SubmissionError(f"{player}: premove is true or false")
        try:
            text = parse_moves(moves)
        except SubmissionError as error:
            raise SubmissionError(f"{player}: {error}") from None
        parsed[player] = Submission(gem=gem, moves=text, premove=premove)
    return parsed


def resolve_round(
    board: Board | str,
    submissions: Mapping[str, tuple[str, str, bool]],
    *,
    record: bool = True,
) -> RoundResult:
    """Play one round: every player's controlled gem moves through its sequence, step by step.

    All players' k-th moves happen together in one step. A premover's moves run one step ahead:
    in step 1 only the premovers move (their first moves, together); in step k+1 a premover's
    (k+1)-th move happens together with everyone else's k-th move. (Without any premover, step k
    holds everyone's k-th move.)

    A move fails when its target is off the grid, when the target cell is locked, when the target
    holds another player's controlled gem at the start of the step (a submitted gem stays
    controlled for the whole round, also after its sequence has ended), or when another player's
    move targets the same cell in the same step. A move that succeeds swaps the controlled gem with
    what is in the target cell (a gem or a rock) and locks the cell the gem left. A failed move
    changes nothing and ends that player's sequence. ``record=False`` skips the steps.
    """
    grid = _as_board(board)
    plan = parse_submissions(grid, submissions)
    cells = list(grid.cells)
    position = {player: sub.gem for player, sub in plan.items()}
    controlled = {sub.gem for sub in plan.values()}
    locked: set[int] = set()
    failed = dict.fromkeys(plan, False)
    made = dict.fromkeys(plan, 0)
    any_premove = any(sub.premove for sub in plan.values())
    # Step t (from 1) holds move number t - offset of each player (counted from 1).
    offset = {player: 0 if (sub.premove or not any_premove) else 1 for player, sub in plan.items()}
    last_step = max((len(sub.moves) + offset[p] for p, sub in plan.items()), default=0)
    steps: list[Step] = []
    for t in range(1, last_step + 1):
        movers: list[tuple[str, str, int, int | None]] = []
        for player, sub in plan.items():
            k = t - offset[player]
            if failed[player] or not 1 <= k <= len(sub.moves):
                continue
            move = sub.moves[k - 1]
            here = position[player]
            movers.append((player, move, here, _TARGET[here][move]))
        if not movers:
            continue
        aimed: dict[int, int] = {}
        for _, _, _, target in movers:
            if target is not None:
                aimed[target] = aimed.get(target, 0) + 1
        outcomes: list[tuple[str, str, int, int | None, str | None]] = []
        for player, move, here, target in movers:
            if target is None:
                reason = "off_grid"
            elif target in locked:
                reason = "locked"
            elif target in controlled:
                reason = "controlled"
            elif aimed[target] > 1:
                reason = "same_target"
            else:
                reason = None
            outcomes.append((player, move, here, target, reason))
        # Successful moves touch disjoint pairs of cells, so they can be applied one by one.
        entries: list[dict[str, Any]] = []
        for player, move, here, target, reason in outcomes:
            swapped = None
            if reason is None:
                assert target is not None
                swapped = cells[target]
                cells[here], cells[target] = cells[target], cells[here]
                locked.add(here)
                controlled.discard(here)
                controlled.add(target)
                position[player] = target
                made[player] += 1
            else:
                failed[player] = True
            if record:
                entries.append(
                    {
                        "player": player,
                        "from": _NAMES[here],
                        "to": _NAMES[target] if target is not None else None,
                        "direction": move,
                        "ok": reason is None,
                        "reason": reason,
                        "swapped": swapped,
                    }
                )
        if record:
            steps.append(
                {
                    "step": t,
                    "moves": entries,
                    "locked": [_NAMES[i] for i in sorted(locked)],
                    "board": format_board(_board(cells)),
                }
            )
    return RoundResult(
        board=_board(cells),
        failed=failed,
        steps=steps,
        positions={player: _NAMES[i] for player, i in position.items()},
        made=made,
    )


# --- the pregame auction of colours ------------------------------------------------------------

CHOICE_STEPS = ("first", "second", "third")


def parse_bid(bid: object, colours: object) -> tuple[int, str]:
    """A bid: a whole number of points, 0 or less, and three different colours ranked first to
    third (``"RGB"``: red first, green second, blue third)."""
    if isinstance(bid, bool) or not isinstance(bid, int):
        raise BidError("a bid is a whole number of points, 0 or less (e.g. -5)")
    if bid > 0:
        raise BidError("a bid is 0 or a negative number of points (e.g. -5)")
    if not isinstance(colours, str):
        raise BidError("rank three different colours, e.g. 'RGB' (R O Y G B I V)")
    text = colours.strip().upper()
    if len(text) != 3 or any(ch not in COLOURS for ch in text):
        raise BidError("rank exactly three colours from R O Y G B I V, e.g. 'RGB'")
    if len(set(text)) != 3:
        raise BidError("your three ranked colours must all be different")
    return bid, text


def toward_zero(value: int, divisor: int) -> int:
    """``value / divisor`` rounded toward zero (-13 / 2 gives -6, -13 / 4 gives -3)."""
    quotient = abs(value) // divisor
    return -quotient if value < 0 else quotient


def allocation_details(
    bids: Mapping[str, tuple[int, str]], seed: int, *, absent: Iterable[str] = ()
) -> dict[str, dict[str, Any]]:
    """``allocate_colours`` with how each colour was won: for each player ``colour``, ``score``
    and ``by`` (``first``, ``second``, ``third`` or ``random``). Players in ``absent`` sent no bid:
    they take part in none of the three steps and get a random free colour at 0."""
    if not isinstance(bids, Mapping):
        raise BidError("bids map each player to (bid, three ranked colours)")
    parsed: dict[str, tuple[int, str]] = {}
    for player, entry in bids.items():
        if not isinstance(player, str):
            raise BidError(f"a player is named by a string, not {player!r}")
        if not isinstance(entry, tuple | list) or len(entry) != 2:
            raise BidError(f"{player}: a bid is (points, three ranked colours)")
        try:
            parsed[player] = parse_bid(*entry)
        except BidError as error:
            raise BidError(f"{player}: {error}") from None
    missing = [p for p in absent if p not in parsed]
    for player in missing:
        if not isinstance(player, str):
            raise BidError(f"a player is named by a string, not {player!r}")
    if len(set(missing)) != len(missing):
        raise BidError("a player without a bid is listed twice")
    if len(parsed) + len(missing) > len(COLOURS):
        raise BidError(f"there are only {len(COLOURS)} colours, one for each player")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError("the seed is a whole number")

    result: dict[str, dict[str, Any]] = {}
    free = list(COLOURS)
    waiting = [p for p in parsed]
    for rank, by in enumerate(CHOICE_STEPS):
        claims: dict[str, list[str]] = {}
        for player in waiting:
            colour = parsed[player][1][rank]
            if colour in free:
                claims.setdefault(colour, []).append(player)
        for colour, players in claims.items():
            most = min(parsed[p][0] for p in players)
            top = [p for p in players if parsed[p][0] == most]
            if len(top) > 1:
                continue  # a tie: the colour stays free and the tied players move on
            winner = top[0]
            bid = parsed[winner][0]
            score = bid if rank == 0 else toward_zero(bid, 2 if rank == 1 else 4)
            result[winner] = {"colour": colour, "score": score, "by": by}
            free.remove(colour)
        waiting = [p for p in waiting if p not in result]
    rest = sorted(waiting + missing)
    rng = random.Random(seed)
    colours = rng.sample(free, len(rest))
    for player, colour in zip(rest, colours, strict=True):
        result[player] = {"colour": colour, "score": 0, "by": "random"}
    return result


def allocate_colours(bids: Mapping[str, tuple[int, str]], seed: int) -> dict[str, tuple[str, int]]:
    """The pregame auction. ``bids`` maps each player to (points, three colours ranked); the
    result maps each player to (their colour, their starting score).

    Step 1: for each colour, the player with the most negative bid among those who ranked it first
    claims it. Step 2: for each colour still free, the same among the players still without a
    colour who ranked it second. Step 3: the same with third choices. At any step, a tie for the
    most negative bid leaves that colour free for that step and the tied players move on. The rest
    get random free colours (from ``seed``). A first choice starts at the full bid, a second at
    half of it and a third at a quarter, both rounded toward zero (-13 gives -6 and -3); a random
    colour starts at 0.
    """
    details = allocation_details(bids, seed)
    return {player: (entry["colour"], entry["score"]) for player, entry in details.items()}


# --- scoring -----------------------------------------------------------------------------------


def round_points(
    board: Board | str, round_number: int, own: str, card: str | None, failed: bool
) -> dict[str, int]:
    """A player's points for one round: from round 2, the round number times the largest group of
    their own colour and the card played (x3 when the card is their own colour; with no card,
    their own colour alone), minus 1 if their sequence failed. Returns ``group``, ``multiplier``,
    ``penalty`` and ``points``."""
    if own not in COLOURS or len(own) != 1:
        raise ValueError(f"{own!r} is not a gem colour; use R O Y G B I V")
    if card is not None and (card not in COLOURS or len(card) != 1):
        raise ValueError(f"{card!r} is not a colour card; use R O Y G B I V")
    penalty = 1 if failed else 0
    if round_number < 2:
        return {"group": 0, "multiplier": 0, "penalty": penalty, "points": -penalty}
    group = largest_group(board, own + (card or ""))
    multiplier = round_number * (3 if card == own else 1)
    return {
        "group": group,
        "multiplier": multiplier,
        "penalty": penalty,
        "points": group * multiplier - penalty,
    }


def garnets_for(total: int) -> int:
    """One garnet for every multiple of 75 points reached (none for 0 or less)."""
    return max(0, total) // 75


def final_placing(totals: Mapping[str, int]) -> dict[str, Any]:
    """Who wins what: the highest total wins 2 Tokens of Life; a tie of 2 or 3 players gives each
    1 (a tie of 4 or more: none). The lowest total is the Elimination Candidate; when several
    share it, ``elimination_candidate`` is None and ``ec_tied`` lists them for the host.
    Returns ``top`` (players with the highest total), ``tokens`` (player -> tokens),
    ``elimination_candidate``, ``ec_tied`` and ``garnets`` (player -> garnets)."""
    if not totals:
        raise ValueError("no players to place")
    best = max(totals.values())
    worst = min(totals.values())
    top = sorted(p for p, t in totals.items() if t == best)
    bottom = sorted(p for p, t in totals.items() if t == worst)
    each = 2 if len(top) == 1 else 1 if len(top) <= 3 else 0
    tokens = {p: (each if p in top else 0) for p in totals}
    return {
        "top": top,
        "tokens": tokens,
        "elimination_candidate": bottom[0] if len(bottom) == 1 else None,
        "ec_tied": bottom if len(bottom) > 1 else [],
        "garnets": {p: garnets_for(t) for p, t in totals.items()},
    }
