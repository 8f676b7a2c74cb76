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

The grid (cells, boards, groups) is in grid.py, the pregame auction in bidding.py and the scoring
in scoring.py; this module plays a round and gathers them all under the contract's names
(../shared/spec/engine-api.md), so that the match, the bots, the tools and the tests import one
module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.seven_gem_swap.bidding import (
    CHOICE_STEPS,
    BidError,
    allocate_colours,
    allocation_details,
    parse_bid,
    toward_zero,
)
from games.seven_gem_swap.grid import (
    _NAMES,
    _TARGET,
    COLOUR_NAMES,
    COLOURS,
    COLUMN_LETTERS,
    COLUMNS,
    GEMS_PER_COLOUR,
    MAX_MOVES,
    MOVE_NAMES,
    MOVES,
    ROCK,
    ROCKS,
    ROWS,
    SIZE,
    Board,
    BoardError,
    SubmissionError,
    _as_board,
    _board,
    cell_name,
    changed_cells,
    check_standard,
    format_board,
    generate_board,
    largest_group,
    largest_group_cells,
    neighbours,
    parse_board,
    parse_cell,
)
from games.seven_gem_swap.scoring import (
    final_placing,
    garnets_for,
    round_points,
)

__all__ = [
    "BidError",
    "Board",
    "BoardError",
    "CHOICE_STEPS",
    "COLOURS",
    "COLOUR_NAMES",
    "COLUMNS",
    "COLUMN_LETTERS",
    "GEMS_PER_COLOUR",
    "MAX_MOVES",
    "MOVES",
    "MOVE_NAMES",
    "ROCK",
    "ROCKS",
    "ROWS",
    "RoundResult",
    "SIZE",
    "Step",
    "Submission",
    "SubmissionError",
    "allocate_colours",
    "allocation_details",
    "cell_name",
    "changed_cells",
    "check_standard",
    "final_placing",
    "format_board",
    "garnets_for",
    "generate_board",
    "largest_group",
    "largest_group_cells",
    "neighbours",
    "parse_bid",
    "parse_board",
    "parse_cell",
    "parse_moves",
    "parse_submissions",
    "resolve_round",
    "round_points",
    "toward_zero",
]

Step = dict[str, Any]
"""One JSON-serialisable step of a round, for the host's page to animate (see ``resolve_round``)."""


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
