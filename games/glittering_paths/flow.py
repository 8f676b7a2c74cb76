"""The phase machine of a Glittering Paths match, as pure functions over JSON state.

No Django and no IO: every function takes the state (never mutated), the acting seat and the time,
and returns an Outcome or raises ActionError. What a viewer may see is view.py's ``view``, the one
gate; what the page draws from its answer (the boards as grids, names, labels) is page.py's.

Seat 0 plays red (ruby, garnet, jasper), seat 1 blue (sapphire, lapis, aquamarine). A match is
three rounds; each round's phases (``state["phase"]``):

- ``race``: the board is revealed; the first legal path either player submits before
  ``deadlines["race"]`` (2 minutes) is made and its player moved first. No path in time: a seeded
  draw picks who starts.
- ``turns``: ``state["turn"]`` moves (a path or a pass) before ``deadlines["turn"]`` (1 minute);
  no move in time is a skip. The round ends when each player has skipped or passed twice in a
  row, when neither player has a legal path, or when both agree to end it.
- ``interval``: a short pause before the next round (``deadlines["next_round"]``).
- ``over``: the higher total wins; a tie goes to the Death Match Opponent (setting).

Totals are exact decimals stored as strings, rounded half up to 2 places after every move. Each
turn's record keeps the board before it, so ``round_analysis`` can show the best path that was
available beside the one played. Each round's board, its start and its end (and after the third
the match's) are rounds.py's; who plays which colour is players.py's.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction
from typing import Any

from games.core.game.contract import Setting, settled
from games.core.game.flowkit import (
    check_clock,
    copy_json,
    dispatcher,
    dmo_seat,
    draw,
    iso,
    match_awarded,
    on_running_clock,
    seats_kept,
    set_clock,
)
from games.core.game.gamedef import ActionError, Outcome, SeatInfo, State
from games.glittering_paths import analysis, engine
from games.glittering_paths.players import COLOURS, seat_colour, seat_named
from games.glittering_paths.rounds import (
    begin_round,
    clean_boards,
    end_round,
    finish_match,
    round_public,
)

GAME = "glittering-paths"
MAX_SECONDS = 86400

UNVERSIONED_ACTIONS: frozenset[str] = frozenset({"path"})
"""A path is accepted even from a page that had not yet seen the latest version: in the race two
paths may cross, and the first accepted stands (the other is refused, naming who moved first)."""

CLOCK_OF_PHASE = {"race": "race", "turns": "turn", "interval": "next_round"}


# --- settings ------------------------------------------------------------------------------------


def _pasted_boards(value: str) -> str:
    """The host's three boards as kept: each line trimmed (a browser sends \r\n and spaces),
    checked, one blank line between boards; "" when the boards are drawn at random."""
    text = "\n".join(line.strip() for line in value.splitlines()).strip()
    return "\n\n".join(clean_boards(text))


def _board_area(area: int) -> int:
    try:
        engine.board_shapes(area)
    except engine.BoardError as error:
        raise ValueError(f"board_area: {error}") from None
    return area


TIE_TO = (("DMO", "the DMO (Death Match Opponent)"), ("EC", "the EC"))
SETTINGS = (
    Setting(
        "race_seconds",
        "Race for the first move (seconds)",
        120,
        low=5,
        high=MAX_SECONDS,
        help="No legal path in time: a random draw picks who starts.",
    ),
    Setting(
        "turn_seconds",
        "Each turn (seconds)",
        60,
        low=5,
        high=MAX_SECONDS,
        help="No path or pass in time is a skip.",
    ),
    Setting("interval_seconds", "Pause between rounds (seconds)", 15, low=0, high=MAX_SECONDS),
    Setting(
        "board_area",
        "Board size (cells, about)",
        64,
        low=16,
        high=400,
        help="Each round's board is a rectangle of about this many cells (64: 8x8 and the like).",
        check=_board_area,
    ),
    Setting(
        "boards",
        "Your own boards (optional)",
        "",
        lines=8,
        help="Paste three boards of R G J S L A, one blank line between boards, each symmetric "
        "under a half turn with the colours swapped. Empty: boards drawn at random.",
        check=_pasted_boards,
    ),
    Setting("tie_to", "Equal totals go to", "DMO", choices=TIE_TO),
)
"""A match's settings (see docs/rules/glittering-paths.md): the form, defaults and checks."""


# --- small helpers -------------------------------------------------------------------------------


def _phase(state: State, *wanted: str, doing: str) -> None:
    phase = state["phase"]
    if phase in wanted:
        return
    reasons = {
        "race": "no one has moved yet this round; the first legal path is made",
        "turns": "the players are taking turns",
        "interval": "the round is over; the next one starts shortly",
        "over": "the match is over",
    }
    raise ActionError(f"you cannot {doing} now: {reasons[phase]}", code="wrong_phase")


def _seat(seat: object) -> int:
    if seat not in (0, 1) or isinstance(seat, bool):
        raise ActionError("only the two players act in this game", code="not_a_player")
    return int(seat)


# --- the match's start ---------------------------------------------------------------------------


def start(settings: dict[str, Any], seats: list[SeatInfo], seed: int, now: datetime) -> Outcome:
    settings = settled(SETTINGS, settings)
    if len(seats) != 2:
        raise ActionError("Glittering Paths is for exactly two players", code="bad_seats")
    dmo = dmo_seat(seats)
    state: State = {
        "game": GAME,
        "seed": seed,
        "draws": 0,
        "seats": [{**seat, "colour": seat_colour(i)} for i, seat in enumerate(seats_kept(seats))],
        "dmo": dmo,
        "tie_to": dmo if settings["tie_to"] == "DMO" else 1 - dmo,
        "timers": {
            "race": settings["race_seconds"],
            "turn": settings["turn_seconds"],
            "next_round": settings["interval_seconds"],
        },
        "board_area": settings["board_area"],
        "pasted": clean_boards(settings["boards"]),
        "round": 0,
        "phase": "race",
        "board": "",
        "start_board": "",
        "turn": None,
        "turn_number": 1,
        "turn_started": iso(now),
        "first": None,
        "start_kind": None,
        "moves": [],
        "streak": [0, 0],
        "agreed": [False, False],
        "totals": ["0.00", "0.00"],
        "last_move": None,
        "history": [],
        "winner": None,
        "result": None,
        "deadlines": {},
    }
    begin_round(state, 1, now)
    return Outcome(state, "started", round_public(state))


# --- moves ---------------------------------------------------------------------------------------


def _check_turn_field(state: State, seat: int, action: dict[str, Any]) -> None:
    """A path or pass may name the turn it is for (``"turn"``, as the page saw it); one meant
    for a turn already played is refused instead of being made on the changed board."""
    if "turn" not in action:
        return
    meant = action["turn"]
    if not isinstance(meant, int) or isinstance(meant, bool):
        raise ActionError("turn must be the whole number of the turn you are moving in", "bad_turn")
    if meant == state["turn_number"]:
        return
    if meant == 1 and state["start_kind"] == "race" and state["first"] != seat:
        first = state["first"]
        raise ActionError(
            f"{seat_named(state, first)} moved first: their path arrived first and was made, so "
            "yours was not. It is your turn now on the changed board.",
            code="race_lost",
        )
    raise ActionError(
        f"that move was for turn {meant}, which is over; the board may have changed "
        f"(this is turn {state['turn_number']})",
        code="stale_turn",
    )


def _not_your_turn(state: State, seat: int) -> None:
    if state["turn"] != seat:
        raise ActionError(
            f"it is {seat_named(state, state['turn'])}'s turn; wait for yours", code="not_your_turn"
        )


def _cells(action: dict[str, Any]) -> list[str]:
    cells = action.get("cells")
    if not isinstance(cells, list) or not all(isinstance(c, str) for c in cells):
        raise ActionError(
            "send the path as a list of cells, e.g. ['A1', 'B1', 'B2']", code="bad_cells"
        )
    return cells


def path(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    seat = _seat(seat)
    _phase(state, "race", "turns", doing="draw a path")
    cells = _cells(action)
    if state["phase"] == "race":
        _check_turn_field(state, seat, action)
        check_clock(state, "race", now, "the 2 minutes of the race are over")
    else:
        _check_turn_field(state, seat, action)
        _not_your_turn(state, seat)
        check_clock(state, "turn", now, "your minute for this turn is over")
    try:
        move = engine.play_path(state["board"], seat_colour(seat), cells)
    except ValueError as error:
        raise ActionError(f"illegal path: {error}", code="illegal_path") from None
    new = copy_json(state)
    racing = state["phase"] == "race"
    if racing:
        new["first"] = seat
        new["start_kind"] = "race"
    total = engine.add_to_total(new["totals"][seat], move.fraction)
    record = {
        "turn": state["turn_number"],
        "seat": seat,
        "player": seat_colour(seat),
        "kind": "path",
        "cells": list(move.cells),
        "score": str(move.score),
        "exact": _fraction_text(move.fraction),
        "board_before": state["board"],
        "total": str(total),
        "race": racing,
    }
    new["totals"][seat] = str(total)
    new["board"] = engine.format_board(move.board)
    new["streak"][seat] = 0
    new["agreed"] = [False, False]
    new["last_move"] = {**{k: v for k, v in record.items() if k != "board_before"}}
    new["last_move"]["steps"] = move.steps
    new["moves"].append(record)
    public = {
        "seat": seat,
        "turn": record["turn"],
        "cells": record["cells"],
        "score": record["score"],
        "total": record["total"],
        "totals": list(new["totals"]),
        "race": racing,
        "steps": move.steps,
    }
    return _after_turn(new, now, "race_won" if racing else "path_made", public)


def _fraction_text(value: Fraction) -> str:
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


def pass_(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    seat = _seat(seat)
    if state["phase"] == "race":
        raise ActionError(
            "no one has moved yet: the first legal path is made; there is nothing to pass",
            code="wrong_phase",
        )
    _phase(state, "turns", doing="pass")
    _check_turn_field(state, seat, action)
    _not_your_turn(state, seat)
    check_clock(state, "turn", now, "your minute for this turn is over")
    new = _skip_or_pass(state, seat, "pass")
    public = {"seat": seat, "turn": state["turn_number"], "totals": list(new["totals"])}
    return _after_turn(new, now, "passed", public)


def _skip_or_pass(state: State, seat: int, kind: str) -> State:
    new = copy_json(state)
    new["moves"].append(
        {
            "turn": state["turn_number"],
            "seat": seat,
            "player": seat_colour(seat),
            "kind": kind,
            "cells": [],
            "score": "0",
            "exact": "0",
            "board_before": state["board"],
            "total": state["totals"][seat],
            "race": False,
        }
    )
    new["streak"][seat] += 1
    new["last_move"] = {
        "turn": state["turn_number"],
        "seat": seat,
        "player": seat_colour(seat),
        "kind": kind,
        "cells": [],
        "steps": [],
    }
    return new


def _after_turn(new: State, now: datetime, kind: str, public: dict[str, Any]) -> Outcome:
    """A turn was taken (``new`` is a private copy): end the round, or hand the turn over."""
    mover = new["moves"][-1]["seat"]
    if new["streak"][0] >= 2 and new["streak"][1] >= 2:
        return end_round(new, "skips", now, kind=kind, public=public)
    if not any(engine.has_legal_path(new["board"], colour) for colour in COLOURS):
        return end_round(new, "no_paths", now, kind=kind, public=public)
    new["phase"] = "turns"
    new["turn"] = 1 - mover
    new["turn_number"] += 1
    new["turn_started"] = iso(now)
    new["deadlines"] = {}
    set_clock(new, "turn", now, new["timers"]["turn"])
    public = {**public, "next": new["turn"], "turn_number": new["turn_number"]}
    return Outcome(new, kind, public)


# --- ending a round by agreement -----------------------------------------------------------------


def agree_end(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    seat = _seat(seat)
    _phase(state, "race", "turns", doing="agree to end the round")
    if state["agreed"][seat]:
        raise ActionError(
            "you already agreed to end the round; waiting for your opponent", code="already_agreed"
        )
    new = copy_json(state)
    new["agreed"][seat] = True
    public = {"seat": seat, "agreed": list(new["agreed"])}
    if all(new["agreed"]):
        return end_round(new, "agreed", now, kind="agreed_end", public=public)
    return Outcome(new, "end_offered", public)


def withdraw_end(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    seat = _seat(seat)
    _phase(state, "race", "turns", doing="withdraw an agreement")
    if not state["agreed"][seat]:
        raise ActionError("you have not agreed to end the round", code="not_agreed")
    new = copy_json(state)
    new["agreed"][seat] = False
    return Outcome(new, "end_withdrawn", {"seat": seat, "agreed": list(new["agreed"])})


# --- clocks --------------------------------------------------------------------------------------


def _time_up(
    state: State, key: str, now: datetime, drafts: dict[int, dict[str, Any]] | None = None
) -> Outcome:
    """The phase's clock ran out. A draft being drawn is never made for the player: no move
    in time is a skip, as the rules say (``drafts`` is accepted and ignored)."""
    phase = state["phase"]
    if phase == "race":
        new = copy_json(state)
        first = draw(new, [0, 1])
        new["first"] = first
        new["start_kind"] = "random"
        new["phase"] = "turns"
        new["turn"] = first
        new["turn_started"] = iso(now)
        new["deadlines"] = {}
        set_clock(new, "turn", now, new["timers"]["turn"])
        return Outcome(new, "random_start", {"first": first, "turn_number": new["turn_number"]})
    if phase == "turns":
        seat = state["turn"]
        new = _skip_or_pass(state, seat, "skip")
        public = {"seat": seat, "turn": state["turn_number"], "totals": list(new["totals"])}
        return _after_turn(new, now, "skipped", public)
    new = copy_json(state)
    begin_round(new, state["round"] + 1, now)
    return Outcome(new, "round_started", round_public(new))


timeout = on_running_clock(CLOCK_OF_PHASE, _time_up)


# --- the host ------------------------------------------------------------------------------------


def adjudicate(state: State, award: dict[str, Any], now: datetime) -> Outcome:
    """The host settles: ``{"winner": seat}`` ends the match with that winner;
    ``{"end_round": true}`` ends the current round as it stands."""
    if state["phase"] == "over":
        raise ActionError("the match is already over", code="match_over")
    if award.get("end_round") is True:
        _phase(state, "race", "turns", doing="end the round")
        new = copy_json(state)
        return end_round(new, "host", now, kind="adjudicated", public={"scope": "round"})
    winner = award.get("winner")
    if award.get("scope", "match") != "match" or winner not in (0, 1) or isinstance(winner, bool):
        raise ActionError(
            "award the match with {'scope': 'match', 'winner': 0 or 1} (a round has no winner "
            "in this game: the host ends it as it stands)",
            code="bad_award",
        )
    new = match_awarded(state, award)
    new["winner"] = winner
    return finish_match(new, {"scope": "match"}, kind="adjudicated", awarded=True)


# --- dispatch ------------------------------------------------------------------------------------

ACTIONS = {
    "path": path,
    "pass": pass_,
    "agree_end": agree_end,
    "withdraw_end": withdraw_end,
}


act = dispatcher(ACTIONS)


# --- the path being drawn ------------------------------------------------------------------------

MAX_DRAFT = engine.MAX_ROWS * engine.MAX_COLUMNS
# What the page shows under a path that breaks no rule: the length rule is checked on submission.
SO_FAR = "No rule broken so far; a path has an odd number of cells, at least 3."
LEGAL = "A legal path: submit it."


def clean_draft(state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
    """A seat's path being drawn, ``{"cells": [...]}``, checked on the board as it stands: kept
    with the rule the path breaks so far (``"problem"``, None when none), whether it could be
    submitted as it is (``"complete"``), the sentence the page shows under it (``"verdict"``)
    and the round and turn whose board it was checked on. A path breaking a rule is a draft
    (the page says which rule, as it is drawn); a cell that is not one of the board's is not,
    and refuses the draft, which then changes nothing. It says nothing of the score (the page
    never tells one: docs/rules/glittering-paths.md). Only the drafting seat and the host see it."""
    if not isinstance(draft, dict) or set(draft) - {"cells"}:
        raise ActionError("a draft is {'cells': [cell names]}", code="bad_draft")
    cells = draft.get("cells", [])
    if not isinstance(cells, list) or not all(isinstance(c, str) for c in cells):
        raise ActionError("a draft's cells are a list of cell names like 'A1'", code="bad_draft")
    if len(cells) > MAX_DRAFT:
        raise ActionError("that draft is longer than any board", code="bad_draft")
    names = [c.strip().upper() for c in cells]
    colour = seat_colour(_seat(seat))
    board = state.get("board") or ""
    if names and not board:
        raise ActionError("there is no board to draw a path on yet", code="bad_cell")
    if names:
        shape = engine.parse_board(board)
        for name in names:
            try:
                engine.parse_cell(name, shape)
            except ValueError as error:  # not a cell of this board: never drawn on the page
                raise ActionError(str(error), code="bad_cell") from None
    problem = engine.path_problem(board, colour, names, partial=True) if board else None
    complete = bool(board) and problem is None and len(names) >= 3 and len(names) % 2 == 1
    return {
        "cells": names,
        "problem": problem,
        "complete": complete,
        "verdict": _verdict(names, problem, complete),
        "round": state.get("round"),
        "turn": state.get("turn_number"),
    }


def _verdict(cells: list[str], problem: str | None, complete: bool) -> str:
    if not cells:
        return ""
    if problem is not None:
        return problem
    return LEGAL if complete else SO_FAR


# --- the analysis after each round ---------------------------------------------------------------


def analysis_job(state: State) -> dict[str, Any] | None:
    """The next finished round waiting for its analysis, or None. The job carries the round's
    moves (each with the board before it), so it can run without the state, outside any lock."""
    for entry in state.get("history", []):
        if entry.get("analysis") is None:
            return {"round": entry["round"], "moves": entry["moves"]}
    return None


def run_analysis(job: dict[str, Any]) -> dict[str, Any]:
    return {"round": job["round"], "rows": analysis.round_analysis(job)}


def record_analysis(state: State, job: dict[str, Any], result: dict[str, Any]) -> Outcome:
    new = copy_json(state)
    rows = result["rows"]
    new["history"][job["round"] - 1]["analysis"] = rows
    public = {"round": job["round"], "analysis": rows}
    return Outcome(new, "analysis", public, informational=True)
