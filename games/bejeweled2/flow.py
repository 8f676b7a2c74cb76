"""The match flow of Bejeweled 2 (one player), as pure functions over JSON state.

No Django and no IO: every function takes the state (never mutated), the acting seat and the time,
and returns an Outcome or raises ActionError. The lead wires these into a GameDefinition.

Modes (``settings["mode"]``):

- ``classic``: no clock; the game is over when no legal move remains.
- ``action``: a draining clock kept by the server (``deadlines["clock"]``): 60 s to start, +1 s a
  piece removed, never more than 90 s, draining faster each level (see ``drain_per_second``). The
  deadline is recomputed on every swap, so the core's scheduler ends the game when it runs out
  even if the page is closed. A stuck board is reshuffled.
- ``endless``: like Classic, but a stuck board is reshuffled (seeded).
- ``puzzle``: the puzzle ``settings["puzzle"]`` of ``puzzles.PUZZLES``; no new gems; an empty board
  solves it (the match ends); a stuck board fails it (``phase`` ``failed``): the player may
  ``restart`` it, ask for the ``solution`` (after a failure) or end.

Phases (``state["phase"]``): ``playing``, ``failed`` (puzzle only), ``over``.
Levels (all modes but Puzzle): level L lasts 1,000 x L points (level 2 at 1,000, 3 at 3,000...).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from games.bejeweled2 import engine, solver
from games.bejeweled2.puzzles import PUZZLES
from games.core.contract import Setting, settled
from games.core.flowkit import copy_json, derived_seed, dispatcher, draw_rng, due, iso
from games.core.gamedef import ActionError, Outcome, SeatInfo, State, Viewer

MIN_SEATS = 1
MAX_SEATS = 1
MODES = ("classic", "action", "endless", "puzzle")
MODE_TITLES = {
    "classic": "Classic",
    "action": "Action",
    "endless": "Endless",
    "puzzle": "Puzzle",
}
UNVERSIONED_ACTIONS: frozenset[str] = frozenset({"swap"})
"""A swap sent while the previous move's frames are still animating is played on the board as it
is now (it is refused only if illegal there)."""

CLOCK = "clock"
CLOCK_START_MS = 60_000
CLOCK_PER_PIECE_MS = 1_000
CLOCK_CAP_MS = 90_000
LEVEL_POINTS = 1_000
PRIZES = {"garnets": 0, "tokens": 0}
"""A solo game pays nothing: it is practice and a high-score table."""

REASONS = {
    "no_moves": "no legal move is left",
    "time_up": "the clock ran out",
    "solved": "the puzzle is solved",
    "ended": "the player ended the game",
    "adjudicated": "the host ended the game",
}


# --- settings ----------------------------------------------------------------------------------


MODE_HELP = {
    "classic": "Classic: no clock; the game ends when no move is left.",
    "action": "Action: a draining clock; every gem removed adds a second.",
    "endless": "Endless: no clock, and a stuck board is reshuffled.",
    "puzzle": "Puzzle: clear the board with no new gems falling.",
}
SETTINGS = (
    Setting("mode", "Mode", "classic", choices=tuple((mode, MODE_HELP[mode]) for mode in MODES)),
    Setting(
        "puzzle",
        "Puzzle (Puzzle mode)",
        0,
        choices=tuple((index, f"{index + 1}. {p.title}") for index, p in enumerate(PUZZLES)),
    ),
)
"""A game's settings: the mode and, for Puzzle mode, which puzzle."""


# --- levels and the Action clock ---------------------------------------------------------------


def level_start(level: int) -> int:
    """The score at which ``level`` begins: level L lasts 1,000 x L points."""
    return LEVEL_POINTS * level * (level - 1) // 2


def level_for(score: int) -> int:
    level = 1
    while score >= level_start(level + 1):
        level += 1
    return level


def level_progress(score: int) -> dict[str, int]:
    """Points scored into the current level and the points the level lasts."""
    level = level_for(score)
    return {"points": score - level_start(level), "needed": LEVEL_POINTS * level}


def drain_per_second(level: int) -> tuple[int, int]:
    """How many seconds of the Action clock drain per real second, as a fraction
    (numerator, denominator): 1 at level 1, then a quarter more each level (1.25, 1.5, ...)."""
    return level + 3, 4


def _clock_left_ms(clock: dict[str, Any], now: datetime) -> int:
    """Milliseconds left on the Action clock at ``now`` (may be negative once run out)."""
    elapsed_ms = (now - datetime.fromisoformat(clock["at"])) // timedelta(milliseconds=1)
    num, den = drain_per_second(clock["level"])
    return clock["left_ms"] - elapsed_ms * num // den


def _set_clock(state: State, left_ms: int, level: int, now: datetime) -> None:
    num, den = drain_per_second(level)
    state["clock"] = {"left_ms": left_ms, "at": iso(now), "level": level}
    runs_out = now + timedelta(microseconds=-(-left_ms * 1000 * den // num))
    state["deadlines"] = {CLOCK: iso(runs_out)}


# --- the start ---------------------------------------------------------------------------------


def start(settings: dict[str, Any], seats: list[SeatInfo], seed: int, now: datetime) -> Outcome:
    if len(seats) != 1:
        raise ValueError("Bejeweled 2 is played by one player")
    settings = settled(SETTINGS, settings)
    mode = settings["mode"]
    seat = seats[0]
    state: State = {
        "seed": seed,
        "draws": 0,
        "seats": [
            {"index": seat.index, "role": seat.role, "name": seat.name, "is_bot": seat.is_bot}
        ],
        "mode": mode,
        "puzzle": None,
        "phase": "playing",
        "board": "",
        "start_board": None,
        "score": 0,
        "level": 1,
        "moves": 0,
        "hints": 0,
        "hint": None,
        "last": None,
        "turn_started": iso(now),
        "started_at": iso(now),
        "clock": None,
        "deadlines": {},
        "failures": 0,
        "restarts": 0,
        "solution": None,
        "solved": False,
        "reshuffles": 0,
        "reason": None,
        "result": None,
    }
    if mode == "puzzle":
        index = settings["puzzle"]
        board = engine.format_board(engine.parse_board(PUZZLES[index].board))
        state.update(puzzle=index, board=board, start_board=board, level=None)
    else:
        state["board"] = engine.format_board(engine.generate_board(derived_seed(seed, "board")))
    if mode == "action":
        _set_clock(state, CLOCK_START_MS, 1, now)
    public = {"mode": mode, "board": state["board"], "puzzle": state["puzzle"]}
    return Outcome(state=state, kind="started", public=public)


# --- helpers -----------------------------------------------------------------------------------


def _check_playing(state: State, doing: str) -> None:
    phase = state["phase"]
    if phase == "over":
        raise ActionError("the game is over", code="match_over")
    if phase == "failed":
        raise ActionError(
            f"you cannot {doing} now: the puzzle is stuck; restart it, ask for the solution or end",
            code="wrong_phase",
        )


def _check_puzzle(state: State, doing: str) -> None:
    if state["mode"] != "puzzle":
        raise ActionError(f"you can {doing} only in Puzzle mode", code="not_puzzle")
    if state["phase"] == "over":
        raise ActionError("the game is over", code="match_over")


def _check_time(state: State, now: datetime) -> None:
    if state["mode"] == "action":
        runs_out = due(state, CLOCK)
        if runs_out is not None and now >= runs_out:
            raise ActionError("time is up: the clock ran out", code="time_up")


def _cell(action: dict[str, Any], key: str) -> str:
    value = action.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ActionError(f"name the cell '{key}' to swap, e.g. C4", code="bad_cell")
    return value.strip().upper()


def _summary(state: State, reason: str) -> str:
    mode = state["mode"]
    if mode == "puzzle":
        title = PUZZLES[state["puzzle"]].title
        if state["solved"]:
            moves = state["moves"]
            return f"Puzzle {state['puzzle'] + 1}, {title}, solved in {moves} move(s)."
        return f"Puzzle {state['puzzle'] + 1}, {title}, not solved: {REASONS[reason]}."
    return (
        f"{MODE_TITLES[mode]} game over, {REASONS[reason]}: {state['score']:,} points, "
        f"level {state['level']}, {state['moves']} move(s)."
    )


def _finish(new: State, reason: str, winner: int | None = None) -> dict[str, Any]:
    """End the game in ``new`` (a private copy); return the match result."""
    new["phase"] = "over"
    new["reason"] = reason
    new["deadlines"] = {}
    if winner is None and (new["mode"] != "puzzle" or new["solved"]) and reason != "adjudicated":
        winner = 0
    result: dict[str, Any] = {
        "winner": winner,
        "summary": _summary(new, reason),
        "score": new["score"],
        "level": new["level"],
        "mode": new["mode"],
        "moves": new["moves"],
        "reason": reason,
    }
    if new["mode"] == "puzzle":
        result["solved"] = new["solved"]
        result["puzzle"] = new["puzzle"]
        following = new["puzzle"] + 1
        result["next_puzzle"] = following if following < len(PUZZLES) and new["solved"] else None
    new["result"] = dict(result)
    return result


def _outcome(new: State, kind: str, public: dict[str, Any], result: dict | None) -> Outcome:
    """An event; a finished game pays its (zero) prizes to seat 0."""
    prizes = {0: dict(PRIZES)} if result is not None else {}
    return Outcome(state=new, kind=kind, public=public, result=result, prizes=prizes)


# --- actions -----------------------------------------------------------------------------------


def swap(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """Swap two side-by-side cells: ``{"type": "swap", "a": "C4", "b": "C5"}``."""
    _check_playing(state, "swap")
    _check_time(state, now)
    a, b = _cell(action, "a"), _cell(action, "b")
    refill = (
        None if state["mode"] == "puzzle" else derived_seed(state["seed"], "refill", state["moves"])
    )
    try:
        turn = engine.swap(state["board"], a, b, refill)
    except ValueError as error:
        raise ActionError(str(error), code="illegal_swap") from None
    new = copy_json(state)
    board = engine.format_board(turn.board)
    new.update(
        board=board,
        score=state["score"] + turn.score,
        moves=state["moves"] + 1,
        hint=None,
        turn_started=iso(now),
    )
    # The last move as the panels sum it up; its steps (each with the board after it) are the
    # event's, which the page animates.
    new["last"] = {
        "a": a,
        "b": b,
        "score": turn.score,
        "removed": turn.removed,
        "cascades": turn.cascades,
        "reshuffled": None,
    }
    public: dict[str, Any] = {
        "a": a,
        "b": b,
        "score": turn.score,
        "removed": turn.removed,
        "total": new["score"],
        "steps": turn.steps,
        "board": board,
    }
    if state["mode"] != "puzzle":
        new["level"] = level_for(new["score"])
        if new["level"] > state["level"]:
            public["level_up"] = new["level"]
        public["level"] = new["level"]
    if state["mode"] == "action":
        left = _clock_left_ms(state["clock"], now)
        left = min(CLOCK_CAP_MS, left + CLOCK_PER_PIECE_MS * turn.removed)
        _set_clock(new, left, new["level"], now)
        public["deadline"] = new["deadlines"][CLOCK]
    return _after_move(new, public)


def _after_move(new: State, public: dict[str, Any]) -> Outcome:
    mode = new["mode"]
    if mode == "puzzle":
        if engine.parse_board(new["board"]).is_clear:
            new["solved"] = True
            result = _finish(new, "solved")
            public["result"] = new["result"]
            return _outcome(new, "puzzle_solved", public, result)
        if not engine.has_legal_move(new["board"]):
            new["phase"] = "failed"
            new["failures"] += 1
            public["failed"] = True
            return _outcome(new, "puzzle_failed", public, None)
        return _outcome(new, "swapped", public, None)
    if engine.has_legal_move(new["board"]):
        return _outcome(new, "swapped", public, None)
    if mode == "classic":
        result = _finish(new, "no_moves")
        public["result"] = new["result"]
        return _outcome(new, "game_over", public, result)
    seed = draw_rng(new).randrange(2**63)
    new["board"] = engine.format_board(engine.reshuffle(new["board"], seed))
    new["reshuffles"] += 1
    new["last"]["reshuffled"] = new["board"]
    public["reshuffled"] = new["board"]
    return _outcome(new, "swapped", public, None)


def hint(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """Show a legal move: the best by immediate score (in Puzzle mode, the first move of a
    shortest solution from this board when one exists)."""
    _check_playing(state, "ask for a hint")
    _check_time(state, now)
    move = None
    if state["mode"] == "puzzle":
        move = solver.first_move(state["board"])
    if move is None:
        move = engine.best_move(state["board"])
    if move is None:
        raise ActionError("there is no legal move to hint", code="no_moves")
    new = copy_json(state)
    new["hint"] = {"a": move[0], "b": move[1]}
    new["hints"] += 1
    return Outcome(state=new, kind="hint", public={"a": move[0], "b": move[1]})


def restart(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """Put the puzzle back as it started (Puzzle mode)."""
    _check_puzzle(state, "restart")
    new = copy_json(state)
    new.update(
        board=state["start_board"],
        phase="playing",
        score=0,
        moves=0,
        hint=None,
        last=None,
        turn_started=iso(now),
        restarts=state["restarts"] + 1,
    )
    return Outcome(state=new, kind="restarted", public={"board": new["board"]})


def solution(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """After a failure, show the shortest solution of the puzzle from its start."""
    _check_puzzle(state, "ask for the solution")
    if state["failures"] < 1:
        raise ActionError(
            "the solution is offered once the puzzle has got stuck at least once",
            code="no_failure_yet",
        )
    moves = solver.solve(state["start_board"]).moves or []
    new = copy_json(state)
    new["solution"] = [list(move) for move in moves]
    return Outcome(state=new, kind="solution", public={"solution": new["solution"]})


def end(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """The player ends the game (``resign`` or ``end``)."""
    if state["phase"] == "over":
        raise ActionError("the game is over", code="match_over")
    new = copy_json(state)
    result = _finish(new, "ended")
    return _outcome(new, "game_over", {"reason": "ended", "result": new["result"]}, result)


ACTIONS = {
    "swap": swap,
    "hint": hint,
    "restart": restart,
    "solution": solution,
    "resign": end,
    "end": end,
}


_dispatch = dispatcher(ACTIONS)


def act(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """A solo game: only the player in seat 0 moves."""
    if seat != 0:
        raise ActionError("only the player in seat 0 plays this game", code="not_your_game")
    return _dispatch(state, seat, action, now)


def available_actions(state: State) -> list[str]:
    """What the player may do now: the page offers exactly these."""
    phase = state["phase"]
    if phase == "over":
        return []
    if phase == "failed":
        actions = ["restart", "end"]
    else:
        actions = ["swap", "hint", "end"]
        if state["mode"] == "puzzle":
            actions.insert(2, "restart")
    if state["mode"] == "puzzle" and state["failures"] >= 1:
        actions.insert(-1, "solution")
    return actions


# --- clocks and the host -----------------------------------------------------------------------


def timeout(
    state: State, key: str, now: datetime, drafts: dict[int, dict] | None = None
) -> Outcome:
    """The Action clock ran out (the deadline is recomputed on every swap; a firing that finds the
    clock not yet run out changes nothing)."""
    if key != CLOCK or state["mode"] != "action" or state["phase"] != "playing":
        new = copy_json(state)
        new.get("deadlines", {}).pop(key, None)
        return Outcome(state=new, kind="clock_ignored", public={"clock": key})
    runs_out = due(state, CLOCK)
    if runs_out is None or now < runs_out:
        return Outcome(state=copy_json(state), kind="clock_not_due", public={"clock": key})
    new = copy_json(state)
    new["clock"] = {**state["clock"], "left_ms": 0, "at": iso(runs_out)}
    result = _finish(new, "time_up")
    return _outcome(new, "game_over", {"reason": "time_up", "result": new["result"]}, result)


def clean_draft(state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
    raise ActionError("Bejeweled 2 keeps no drafts: every swap is played at once", code="no_drafts")


def adjudicate(state: State, award: dict[str, Any], now: datetime) -> Outcome:
    """The host ends the game: ``{"winner": 0}`` or ``{"winner": None}``."""
    if state["phase"] == "over":
        raise ActionError("the game is already over", code="match_over")
    winner = award.get("winner")
    if winner not in (0, None) or isinstance(winner, bool):
        raise ActionError("the winner is seat 0 or no one (None)", code="bad_award")
    new = copy_json(state)
    result = _finish(new, "adjudicated", winner)
    return _outcome(new, "adjudicated", {"winner": winner, "result": new["result"]}, result)


# --- what everyone sees ------------------------------------------------------------------------


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """Everything on the table: a solo game has no hidden information, so the player, the host
    and spectators all see the same (the match seed, which would foretell the new gems, is kept
    back from everyone)."""
    mode = state["mode"]
    puzzle = None
    if mode == "puzzle":
        index = state["puzzle"]
        puzzle = {
            "index": index,
            "number": index + 1,
            "title": PUZZLES[index].title,
            "par": PUZZLES[index].par,
            "count": len(PUZZLES),
        }
    clock = None
    if mode == "action" and state["clock"]:
        num, den = drain_per_second(state["clock"]["level"])
        clock = {
            "left_ms": state["clock"]["left_ms"],
            "at": state["clock"]["at"],
            "drain_per_second": f"{num / den:g}",
            "cap_ms": CLOCK_CAP_MS,
        }
    last = state["last"]
    return {
        "game": "bejeweled2",
        "mode": mode,
        "mode_title": MODE_TITLES[mode],
        "player": state["seats"][0]["name"],
        "phase": state["phase"],
        "board": state["board"],
        "rows": state["board"].split("\n"),
        "score": state["score"],
        "level": state["level"],
        "level_progress": None if mode == "puzzle" else level_progress(state["score"]),
        "moves": state["moves"],
        "hints": state["hints"],
        "hint": copy_json(state["hint"]),
        "last": copy_json(last),
        "deadline": state["deadlines"].get(CLOCK),
        "clock": clock,
        "turn_started": state["turn_started"],
        "puzzle": puzzle,
        "failures": state["failures"],
        "solution": copy_json(state["solution"]),
        "reshuffles": state["reshuffles"],
        "actions": available_actions(state),
        "over": state["phase"] == "over",
        "reason": state["reason"],
        "reason_text": REASONS.get(state["reason"]) if state["reason"] else None,
        "result": copy_json(state["result"]),
        "you": viewer.seat == 0,
    }
