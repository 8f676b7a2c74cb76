"""The match flow of Bejeweled 2 (one player), as pure functions over JSON state.

No Django and no IO: every function takes the state (never mutated), the acting seat and the time,
and returns an Outcome or raises ActionError. What a viewer may see is view.py's ``view``, the one
gate; what the page draws from its answer (the grid, the pieces' looks, the bars) is page.py's.

Modes (``settings["mode"]``; ``MODES`` says what each one is made of):

- ``classic``: no clock; the game is over when no legal move remains. A requested hint costs
  points (``HINT_POINTS``).
- ``action``: one bar kept by the server (``state["bar"]``), half full at the start: the points a
  move scores fill it (a level's worth of points fills it from empty), time drains it, faster
  each level (``bar_drain``). A full bar completes the level and the next starts half full; an
  empty bar ends the game. The bar's deadline (``deadlines["clock"]``) is recomputed on every
  move, so the core's scheduler ends the game on time even if the page is closed. A requested
  hint costs a tenth of the bar. A stuck board is reshuffled.
- ``endless``: like Classic, but a stuck board is reshuffled (seeded).
- ``puzzle``: the puzzle ``settings["puzzle"]`` of ``puzzles.PUZZLES``; no new gems; an empty board
  solves it (the match ends); a stuck board fails it (``phase`` ``failed``). Undo takes back any
  number of moves, Restart puts the puzzle back; the hint is the next move of a shortest
  solution from the board as it is.
- Hidden modes, opened by play (``UNLOCKS``; a host may open any of them for a match):
  ``twilight`` (Classic with gravity pulling down and up in turn), ``hyper`` (Action with a
  faster bar and a bonus for quick moves), ``cognito`` (the puzzles, scored; a hint or the
  solution makes the puzzle score 0), ``finity`` (Action with rocks and bombs falling in, only
  blasts scoring).
- The secret mode ``original`` (``Mode.secret``): open to everyone but kept off the menu until
  found; the first Bejeweled's play, Classic with no power gems or hypercubes
  (``Mode.specials``).

Phases (``state["phase"]``): ``playing``, ``failed`` (puzzles only), ``over``.
Levels (Classic, Endless, Twilight): level L lasts 1,000 x L points (level 2 at 1,000, 3 at 3,000).
In the bar modes a level ends when the bar is full.

The flow's parts, each pure: the modes (modes.py), the levels and the Action bar (levels.py) and
the end of a game (ending.py).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from games.bejeweled2 import engine, solver
from games.bejeweled2.ending import finish
from games.bejeweled2.levels import CLOCK, bar_left, bar_size, level_for, level_start, set_bar
from games.bejeweled2.modes import MODES
from games.bejeweled2.puzzles import PUZZLES, WORLD_SIZE
from games.core.game.contract import Setting, settled
from games.core.game.flowkit import copy_json, derived_seed, dispatcher, draw_rng, due, iso
from games.core.game.gamedef import ActionError, Outcome, SeatInfo, State

MIN_SEATS = 1
MAX_SEATS = 1

UNVERSIONED_ACTIONS: frozenset[str] = frozenset({"swap"})
"""A swap sent while the previous move's frames are still animating is played on the board as it
is now (it is refused only if illegal there)."""

HINT_POINTS = 100
"""What a requested hint costs in Classic, Endless, Twilight and Original (never below the
level's start)."""
HINT_BAR_SHARE = 10
"""A requested hint in a bar mode costs 1/10 of a full bar."""
QUICK_SECONDS = 3
QUICK_BONUS = 20
QUICK_STREAK_CAP = 10
"""Hyper: a move within 3 s of the one before extends a streak and earns 20 x the streak (at most
10) points, on the score and the bar."""
BLAST_CAUSES = frozenset({"blast", "hypercube", "bomb"})
"""Finity scores only the pieces destroyed by a power gem's blast, a hypercube or a bomb."""
PRIZES = {"garnets": 0, "tokens": 0}
"""A solo game pays nothing: it is practice and a high-score table."""

# --- settings ----------------------------------------------------------------------------------


SETTINGS = (
    Setting("mode", "Mode", "classic", choices=tuple((key, m.help) for key, m in MODES.items())),
    Setting(
        "puzzle",
        "Puzzle (Puzzle and Cognito modes)",
        0,
        choices=tuple(
            (index, f"{index + 1}. World {index // WORLD_SIZE + 1}: {p.title}")
            for index, p in enumerate(PUZZLES)
        ),
        shown_when=("mode", tuple(key for key, mode in MODES.items() if mode.puzzles)),
    ),
    Setting(
        "idle_minutes",
        "Abandoned after (minutes without a move)",
        30,
        help="A game no one plays for this long ends as abandoned (it leaves the live lists).",
        low=1,
        high=7 * 24 * 60,
    ),
)
"""A game's settings: the mode (a host may choose a hidden one), for the puzzle modes which
puzzle, and how long it may sit idle."""

IDLE_DEFAULT_MINUTES: int = SETTINGS[-1].default
"""How long a game started from the play page may sit without a move (the players read it)."""

IDLE = "idle"
"""The clock that ends a game left alone: set at the start and again after every accepted
action, ``idle_minutes`` ahead."""


def _idle_from(state: State, now: datetime) -> State:
    """``state`` (a private copy) with its idle clock set ``idle_minutes`` after ``now``; a game
    over keeps no clock."""
    if state["phase"] != "over":
        minutes = state.get("idle_minutes", IDLE_DEFAULT_MINUTES)
        state["deadlines"] = {**state["deadlines"], IDLE: iso(now + timedelta(minutes=minutes))}
    return state


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
        "bar": None,
        "deadlines": {},
        "failures": 0,
        "restarts": 0,
        "undos": 0,
        "history": [],
        "solution": None,
        "assisted": False,
        "solved": False,
        "gravity": "down",
        "streak": 0,
        "reshuffles": 0,
        "reason": None,
        "result": None,
        "idle_minutes": settings["idle_minutes"],
    }
    if MODES[mode].puzzles:
        index = settings["puzzle"]
        board = engine.format_board(engine.parse_board(PUZZLES[index].board))
        state.update(puzzle=index, board=board, start_board=board, level=None)
    else:
        state["board"] = engine.format_board(engine.generate_board(derived_seed(seed, "board")))
    if MODES[mode].bar:
        set_bar(state, bar_size(1) // 2, 1, now)
    public = {"mode": mode, "board": state["board"], "puzzle": state["puzzle"]}
    return Outcome(state=_idle_from(state, now), kind="started", public=public)


# --- helpers -----------------------------------------------------------------------------------


def _check_playing(state: State, doing: str) -> None:
    if state["phase"] == "failed":
        raise ActionError(
            f"you cannot {doing} now: the puzzle is stuck; undo, restart it, ask for the solution "
            "or end",
            code="wrong_phase",
        )


def _check_puzzle(state: State, doing: str) -> None:
    if not MODES[state["mode"]].puzzles:
        raise ActionError(f"you can {doing} only in the puzzle modes", code="not_puzzle")


def _check_time(state: State, now: datetime) -> None:
    if MODES[state["mode"]].bar:
        runs_out = due(state, CLOCK)
        if runs_out is not None and now >= runs_out:
            raise ActionError("time is up: the bar ran empty", code="time_up")


def _cell(action: dict[str, Any], key: str) -> str:
    value = action.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ActionError(f"name the cell '{key}' to swap, e.g. C4", code="bad_cell")
    return value.strip().upper()


def _outcome(
    new: State, kind: str, public: dict[str, Any], result: dict[str, Any] | None
) -> Outcome:
    """An event; a finished game pays its (zero) prizes to seat 0."""
    prizes = {0: dict(PRIZES)} if result is not None else {}
    return Outcome(state=new, kind=kind, public=public, result=result, prizes=prizes)


# --- actions -----------------------------------------------------------------------------------


def swap(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """Swap two side-by-side cells: ``{"type": "swap", "a": "C4", "b": "C5"}``."""
    _check_playing(state, "swap")
    _check_time(state, now)
    mode = state["mode"]
    a, b = _cell(action, "a"), _cell(action, "b")
    refill = None if MODES[mode].puzzles else derived_seed(state["seed"], "refill", state["moves"])
    try:
        turn = engine.swap(
            state["board"],
            a,
            b,
            refill,
            gravity=state["gravity"],
            rocks_and_bombs=mode == "finity",
            specials=MODES[mode].specials,
        )
    except ValueError as error:
        raise ActionError(str(error), code="illegal_swap") from None
    new = copy_json(state)
    if MODES[mode].puzzles:
        new["history"].append({"board": state["board"], "score": state["score"]})
    board = engine.format_board(turn.board)
    points = turn.score
    steps = turn.steps
    if mode == "finity":
        steps = _blasts_only(turn.steps)
        points = steps[-1]["score"] if steps else 0
    bonus = 0
    if mode == "hyper":
        quick = state["last"] is not None and now - datetime.fromisoformat(
            state["turn_started"]
        ) <= timedelta(seconds=QUICK_SECONDS)
        new["streak"] = min(QUICK_STREAK_CAP, state["streak"] + 1) if quick else 0
        bonus = QUICK_BONUS * new["streak"]
    new.update(
        board=board,
        score=state["score"] + points + bonus,
        moves=state["moves"] + 1,
        hint=None,
        turn_started=iso(now),
    )
    if mode == "twilight":
        new["gravity"] = "up" if state["gravity"] == "down" else "down"
    # The last move as the panels sum it up; its steps (each with the board after it) are the
    # event's, which the page animates.
    new["last"] = {
        "a": a,
        "b": b,
        "score": points + bonus,
        "bonus": bonus,
        "removed": turn.removed,
        "cascades": turn.cascades,
        "reshuffled": None,
    }
    public: dict[str, Any] = {
        "a": a,
        "b": b,
        "score": points + bonus,
        "removed": turn.removed,
        "total": new["score"],
        "steps": steps,
        "board": board,
    }
    if bonus:
        public["bonus"] = bonus
    if MODES[mode].bar:
        _fill_bar(state, new, turn.score + bonus, now, public)
    elif not MODES[mode].puzzles:
        new["level"] = max(state["level"], level_for(new["score"]))
        if new["level"] > state["level"]:
            public["level_up"] = new["level"]
        public["level"] = new["level"]
    return _after_move(new, public)


def _blasts_only(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Finity's steps as the score counts them: a step's ``points`` and the move's running
    ``score`` hold only what blasts destroyed; ``bar_points`` keeps what every step gives the bar.
    The page floats and counts these, so it shows no point the score does not hold."""
    counted = 0
    out = []
    for step in steps:
        step = dict(step)
        if "points" in step:
            step["bar_points"] = step["points"]
            if step.get("kind") != "remove" or step.get("cause") not in BLAST_CAUSES:
                step["points"] = 0
            counted += step["points"]
        step["score"] = counted
        out.append(step)
    return out


def _fill_bar(state: State, new: State, points: int, now: datetime, public: dict[str, Any]) -> None:
    """Add a move's points to the bar; a full bar completes the level and the next level's bar
    starts half full (what overflows is lost)."""
    level = state["bar"]["level"]
    left = bar_left(state, now) + points
    if left >= bar_size(level):
        level += 1
        left = bar_size(level) // 2
        public["level_up"] = level
    new["level"] = level
    public["level"] = level
    set_bar(new, left, level, now)
    public["deadline"] = new["deadlines"][CLOCK]


def _after_move(new: State, public: dict[str, Any]) -> Outcome:
    mode = MODES[new["mode"]]
    if mode.puzzles:
        if engine.parse_board(new["board"]).is_clear:
            new["solved"] = True
            result = finish(new, "solved")
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
    if not mode.reshuffle:
        result = finish(new, "no_moves")
        public["result"] = new["result"]
        return _outcome(new, "game_over", public, result)
    seed = draw_rng(new).randrange(2**63)
    new["board"] = engine.format_board(engine.reshuffle(new["board"], seed))
    new["reshuffles"] += 1
    new["last"]["reshuffled"] = new["board"]
    public["reshuffled"] = new["board"]
    return _outcome(new, "swapped", public, None)


def hint(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """Show a legal move. In the puzzle modes: the next move of a shortest solution from the
    board as it is (free in Puzzle; in Cognito it makes the puzzle score 0). Elsewhere the move
    that scores most at once, for ``HINT_POINTS`` points (Classic, Endless, Twilight) or a tenth
    of the bar (Action, Hyper, Finity). The page's own idle hint stays free."""
    _check_playing(state, "ask for a hint")
    _check_time(state, now)
    mode = MODES[state["mode"]]
    new = copy_json(state)
    public: dict[str, Any] = {}
    if mode.puzzles:
        move = solver.first_move(state["board"])
        if move is None:
            raise ActionError(
                "no sequence of moves clears the board from here: undo or restart",
                code="no_solution",
            )
    else:
        move = engine.best_move(state["board"], specials=mode.specials)
        if move is None:
            raise ActionError("there is no legal move to hint", code="no_moves")
        if mode.bar:
            cost = bar_size(state["bar"]["level"]) // HINT_BAR_SHARE
            left = bar_left(state, now)
            if left <= cost:
                raise ActionError(
                    f"the bar is too low for a hint (it costs {cost:,} of the bar's points)",
                    code="bar_too_low",
                )
            set_bar(new, left - cost, state["bar"]["level"], now)
            public["bar_cost"] = cost
            public["deadline"] = new["deadlines"][CLOCK]
        else:
            cost = min(HINT_POINTS, state["score"] - level_start(state["level"]))
            new["score"] = state["score"] - cost
            public["cost"] = cost
    new["hint"] = {"a": move[0], "b": move[1]}
    new["hints"] += 1
    return Outcome(state=new, kind="hint", public={"a": move[0], "b": move[1], **public})


def undo(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """Take back the last move (puzzle modes), as many times as there are moves."""
    _check_puzzle(state, "undo")
    if not state["history"]:
        raise ActionError("there is no move to undo", code="nothing_to_undo")
    new = copy_json(state)
    before = new["history"].pop()
    new.update(
        board=before["board"],
        score=before["score"],
        moves=state["moves"] - 1,
        phase="playing",
        hint=None,
        last=None,
        undos=state["undos"] + 1,
        turn_started=iso(now),
    )
    return Outcome(state=new, kind="undone", public={"board": new["board"], "moves": new["moves"]})


def restart(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """Put the puzzle back as it started (puzzle modes)."""
    _check_puzzle(state, "restart")
    new = copy_json(state)
    new.update(
        board=state["start_board"],
        phase="playing",
        score=0,
        moves=0,
        hint=None,
        last=None,
        history=[],
        turn_started=iso(now),
        restarts=state["restarts"] + 1,
    )
    return Outcome(state=new, kind="restarted", public={"board": new["board"]})


def solution(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """After a failure, show the shortest solution of the puzzle from its start; a puzzle solved
    after it counts as assisted."""
    _check_puzzle(state, "ask for the solution")
    if state["failures"] < 1:
        raise ActionError(
            "the solution is offered once the puzzle has got stuck at least once",
            code="no_failure_yet",
        )
    moves = PUZZLES[state["puzzle"]].solution
    new = copy_json(state)
    new["solution"] = [list(move) for move in moves]
    new["assisted"] = True
    return Outcome(state=new, kind="solution", public={"solution": new["solution"]})


def end(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """The player ends the game (``resign`` or ``end``)."""
    new = copy_json(state)
    result = finish(new, "ended")
    return _outcome(new, "game_over", {"reason": "ended", "result": new["result"]}, result)


ACTIONS = {
    "swap": swap,
    "hint": hint,
    "undo": undo,
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
    outcome = _dispatch(state, seat, action, now)
    outcome.state = _idle_from(outcome.state, now)
    return outcome


def available_actions(state: State) -> list[str]:
    """What the player may do now: the page offers exactly these."""
    phase = state["phase"]
    if phase == "over":
        return []
    puzzles = MODES[state["mode"]].puzzles
    actions = [] if phase == "failed" else ["swap", "hint"]
    if puzzles:
        if state["history"]:
            actions.append("undo")
        actions.append("restart")
        if state["failures"] >= 1:
            actions.append("solution")
    return [*actions, "end"]


# --- clocks and the host -----------------------------------------------------------------------


def timeout(
    state: State, key: str, now: datetime, drafts: dict[int, dict[str, Any]] | None = None
) -> Outcome:
    """The bar ran empty (its deadline is recomputed on every move; a firing that finds the bar
    not yet empty changes nothing). The idle clock ends a game no one played for
    ``idle_minutes`` as abandoned."""
    idle_until = due(state, IDLE) if key == IDLE else None
    if idle_until is not None and state["phase"] != "over":
        if now < idle_until:
            return Outcome(state=copy_json(state), kind="clock_not_due", public={"clock": key})
        new = copy_json(state)
        result = finish(new, "abandoned")
        return _outcome(new, "game_over", {"reason": "abandoned", "result": new["result"]}, result)
    if key != CLOCK or not MODES[state["mode"]].bar or state["phase"] != "playing":
        new = copy_json(state)
        new.get("deadlines", {}).pop(key, None)
        return Outcome(state=new, kind="clock_ignored", public={"clock": key})
    runs_out = due(state, CLOCK)
    if runs_out is None or now < runs_out:
        return Outcome(state=copy_json(state), kind="clock_not_due", public={"clock": key})
    new = copy_json(state)
    new["bar"] = {**state["bar"], "points": 0, "at": iso(runs_out)}
    result = finish(new, "time_up")
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
    result = finish(new, "adjudicated", winner)
    return _outcome(new, "adjudicated", {"winner": winner, "result": new["result"]}, result)
