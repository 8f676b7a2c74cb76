"""The phase machine of a Pointsweeper match, as pure functions over JSON state.

No Django and no IO: every function takes the state (never mutated), the acting seat and the time,
and returns an Outcome or raises ActionError. What a viewer may see is view.py's ``view``, the one
gate; what the page draws from its answer (the chessboard as a grid, players, reviews) is
page.py's.

A match is three boards. Each board runs through two phases (``state["phase"]``):

- ``order``: the chooser (the DMO on boards 1 and 3, the EC on board 2) says whether they move
  first, before ``deadlines["order"]``; if the clock runs out the first player is drawn at random.
- ``play``: the players take turns to scout, claim or pass with their 16 pieces. The player to
  move (``state["turn"]``) has ``deadlines["turn"]``: one minute for the move, then their bank
  for this board; when it runs out they have passed. A player who has passed or whose pieces have
  all claimed is skipped; the board ends as the seed lists (a-d).
- ``over``: the third board ended (or the host settled the match).

Hidden information lives in the state (``boards``, ``play.notebooks``) and never leaves through
view.py's ``view`` or an Outcome's ``public`` part except once a board is over, when everything on
it is shown to everyone. What each player's pieces may still do is players.py's; what follows a
turn (the next turn, a board's end, the match's result) is board_end.py's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.core.game.contract import Setting, settled
from games.core.game.flowkit import (
    check_clock,
    derived_seed,
    dispatcher,
    dmo_seat,
    draw,
    match_awarded,
    on_running_clock,
    seats_kept,
    set_clock,
    stop_clock,
)
from games.core.game.gamedef import ActionError, Outcome, SeatInfo, State
from games.core.game.words import seat_name
from games.pointsweeper import engine
from games.pointsweeper.board_end import BOARDS, board_in_play, finish_match, next_turn, start_turn
from games.pointsweeper.players import (
    first_player,
    may_claim_now,
    other,
    player_name,
    used_pieces,
)

PIECE_IDS = engine.PIECE_IDS
UNVERSIONED_ACTIONS: frozenset[str] = frozenset()
"""Every Pointsweeper action is a turn taken after seeing the board: none is sealed."""

BOARD_HELP = "8 lines of 8 values, rank 8 first: -2 to 5 for a tile, M for a mine (10 mines)."
SIDES = (("DMO", "the DMO"), ("EC", "the EC"))
WHEN_PASTED = ("boards", ("pasted",))  # the boards' fields are asked for only when pasted
SETTINGS = (
    Setting(
        "boards",
        "Boards",
        "random",
        choices=(
            ("random", "Three boards drawn at random"),
            ("pasted", "I paste the three boards below"),
        ),
    ),
    Setting("board_1", "Board 1", "", lines=8, help=BOARD_HELP, shown_when=WHEN_PASTED),
    Setting("board_2", "Board 2", "", lines=8, shown_when=WHEN_PASTED),
    Setting("board_3", "Board 3", "", lines=8, shown_when=WHEN_PASTED),
    Setting(
        "move_seconds",
        "Time for each move (seconds)",
        60,
        low=1,
        high=3600,
        help="Time for each move before the bank starts to run.",
    ),
    Setting(
        "bank_seconds",
        "Time bank per board (seconds)",
        120,
        low=0,
        high=7200,
        help="Used once a move takes longer than its time; empty bank: you have passed.",
    ),
    Setting(
        "order_seconds",
        "Time to choose the order (seconds)",
        60,
        low=1,
        high=3600,
        help="Time the chooser has to say who moves first (then a random draw).",
    ),
    Setting(
        "scout_turns",
        "Scout-only turns",
        3,
        low=0,
        high=16,
        help="Each player's first turns on a board that may only scout.",
    ),
    Setting("tie_to", "A tied total goes to", "DMO", choices=SIDES),
)
"""A match's settings (see docs/rules/pointsweeper.md): the form, defaults and checks."""
PASTED = ("board_1", "board_2", "board_3")


def check_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """Pasted boards are each checked by the engine (and kept as it writes them); with random
    boards the pasted ones are left empty."""
    kept = dict(settings)
    for number, key in enumerate(PASTED, start=1):
        if settings["boards"] != "pasted":
            kept[key] = ""
            continue
        try:
            board = engine.check_match_board(engine.parse_board(settings[key]))
        except ValueError as error:
            raise ValueError(f"board {number}: {error}") from None
        kept[key] = engine.format_board(board)
    return kept


def _piece(action: dict[str, Any]) -> str:
    raw = action.get("piece")
    piece = raw.strip().upper() if isinstance(raw, str) else None
    if piece not in PIECE_IDS:
        if piece and piece[:1] in "RBN" and len(piece) == 1:
            message = f"name which one: {piece}1 or {piece}2"
        elif piece == "P":
            message = "name which pawn: P1 to P8"
        else:
            message = f"choose a piece: {', '.join(PIECE_IDS)}"
        raise ActionError(message, code="bad_piece")
    return piece


def _square(action: dict[str, Any], key: str) -> str:
    try:
        return engine.normal_square(action.get(key))
    except ValueError as error:
        raise ActionError(f"{key}: {error}", code="bad_square") from None


def _changing(state: State) -> State:
    """A copy of ``state`` for one step to change: a new top level and new containers for every
    part a step changes (the board in play's lists and maps, the totals, the clocks, the list of
    finished boards); what no step changes once made (the seats, the settings, the board texts,
    the log's entries and notes, each finished board's record) is shared with ``state``. A state
    is never changed once made, so sharing is safe, and a step costs the size of the board in
    play, not of the whole match (a deep copy of the finished boards and their analyses was most
    of a step's time, and of a rebuild's)."""
    new = dict(state)
    new["totals"] = {key: list(values) for key, values in state["totals"].items()}
    new["deadlines"] = dict(state.get("deadlines", {}))
    new["history"] = list(state["history"])
    play = state["play"]
    if play is not None:
        new["play"] = {
            **play,
            "claimed": dict(play["claimed"]),
            "revealed": dict(play["revealed"]),
            "used": {
                seat: {key: list(pieces) for key, pieces in used.items()}
                for seat, used in play["used"].items()
            },
            "turns": list(play["turns"]),
            "passed": list(play["passed"]),
            "bank": list(play["bank"]),
            "points": list(play["points"]),
            "mines": list(play["mines"]),
            "log": list(play["log"]),
            "notebooks": {seat: list(notes) for seat, notes in play["notebooks"].items()},
        }
    return new


# --- the match's start and each board's order ----------------------------------------------------


def start(settings: dict[str, Any], seats: list[SeatInfo], seed: int, now: datetime) -> Outcome:
    cleaned = settled(SETTINGS, settings, check_settings)
    dmo = dmo_seat(seats)
    if cleaned["boards"] == "pasted":
        texts = [cleaned[key] for key in PASTED]
    else:
        texts = [
            engine.format_board(engine.generate_board(derived_seed(seed, "board", n)))
            for n in range(1, BOARDS + 1)
        ]
    state: State = {
        "seed": seed,
        "draws": 0,
        "seats": seats_kept(seats),
        "dmo": dmo,
        "ec": other(dmo),
        "settings": {
            key: cleaned[key]
            for key in ("move_seconds", "bank_seconds", "order_seconds", "scout_turns", "tie_to")
        },
        "boards": texts,
        "board_no": 1,
        "phase": "order",
        "chooser": dmo,
        "first": None,
        "turn": None,
        "turn_started": None,
        "play": None,
        "totals": {"points": [0, 0], "mines": [0, 0]},
        "history": [],
        "winner": None,
        "final": None,
        "deadlines": {},
    }
    set_clock(state, "order", now, cleaned["order_seconds"])
    public = {"board_no": 1, "chooser": dmo}
    return Outcome(state=state, kind="started", public=public)


def choose_order(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    if state["phase"] != "order":
        raise ActionError("the order of this board was already chosen", code="wrong_phase")
    if seat != state["chooser"]:
        raise ActionError(
            f"{player_name(state, state['chooser'])} chooses who moves first on this board",
            code="not_chooser",
        )
    check_clock(state, "order", now, "the time to choose the order is over")
    first = action.get("first")
    if not isinstance(first, bool):
        raise ActionError("say whether you move first: first true or false", code="bad_order")
    new = _changing(state)
    return _begin_board(new, seat if first else other(seat), now, chosen=True)


def _begin_board(state: State, first: int, now: datetime, *, chosen: bool) -> Outcome:
    """Set up the board in play (``state`` is already a private copy)."""
    bank = float(state["settings"]["bank_seconds"])
    state["phase"] = "play"
    state["first"] = first
    state["play"] = {
        "claimed": {},
        "revealed": {},
        "used": {str(s): {"scouted": [], "claimed": []} for s in (0, 1)},
        "turns": [0, 0],
        "passed": [False, False],
        "bank": [bank, bank],
        "points": [0, 0],
        "mines": [0, 0],
        "log": [],
        "notebooks": {"0": [], "1": []},
    }
    stop_clock(state, "order")
    start_turn(state, first, now)
    public = {
        "board_no": state["board_no"],
        "chooser": state["chooser"],
        "first": first,
        "chosen": chosen,
    }
    return Outcome(state=state, kind="order_chosen" if chosen else "order_drawn", public=public)


# --- turns ---------------------------------------------------------------------------------------


def _check_turn(state: State, seat: int, doing: str) -> None:
    if state["phase"] == "order":
        raise ActionError(
            f"you cannot {doing} yet: {player_name(state, state['chooser'])} is choosing the order",
            code="wrong_phase",
        )
    if state["phase"] != "play":
        raise ActionError("the match is over", code="match_over")
    if state["turn"] != seat:
        raise ActionError(f"it is {player_name(state, state['turn'])}'s turn", code="not_your_turn")


def _spend_time(state: State, seat: int, now: datetime) -> None:
    """Take the time beyond the free minute of this move off ``seat``'s bank."""
    started = datetime.fromisoformat(state["turn_started"])
    beyond = (now - started).total_seconds() - state["settings"]["move_seconds"]
    bank = state["play"]["bank"]
    bank[seat] = round(max(0.0, bank[seat] - max(0.0, beyond)), 3)


def scout_action(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    _check_turn(state, seat, "scout")
    check_clock(state, "turn", now, "your time bank ran out")
    piece = _piece(action)
    square = _square(action, "square")
    used = used_pieces(state, seat)
    if piece in used["claimed"]:
        raise ActionError(f"{piece} has already claimed and may not scout", code="piece_used")
    if piece in used["scouted"]:
        raise ActionError(f"{piece} has already scouted on this board", code="piece_used")
    first = first_player(state, seat)
    claimed = set(state["play"]["claimed"])
    try:
        covered = engine.scout_squares(piece, square, first)
        total, mines = engine.scout(board_in_play(state), piece, square, first, claimed)
    except ValueError as error:
        raise ActionError(str(error), code="illegal_move") from None
    new = _changing(state)
    play = new["play"]
    _spend_time(new, seat, now)
    n = len(play["log"]) + 1
    public = {
        "n": n,
        "seat": seat,
        "name": seat_name(state, seat),  # who scouted, whoever holds the seat later
        "type": "scout",
        "piece": piece,
        "square": square,
        "squares": list(covered),
        "counted": [s for s in covered if s not in claimed],
    }
    note = {**public, "sum": total, "mines": mines}
    play["log"].append(public)
    play["notebooks"][str(seat)].append(note)
    play["used"][str(seat)]["scouted"].append(piece)
    play["turns"][seat] += 1
    outcome = next_turn(new, seat, now, kind="scouted", public={"board_no": new["board_no"]})
    outcome.public.update(public)
    outcome.private = {seat: {"scout": note}}
    return outcome


def claim_action(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    _check_turn(state, seat, "claim")
    check_clock(state, "turn", now, "your time bank ran out")
    if not may_claim_now(state, seat):
        scouts = state["settings"]["scout_turns"]
        raise ActionError(
            f"your first {scouts} turns on a board may only scout", code="scout_turns"
        )
    piece = _piece(action)
    start_square = _square(action, "start")
    end_square = _square(action, "end")
    if piece in used_pieces(state, seat)["claimed"]:
        raise ActionError(f"{piece} has already claimed on this board", code="piece_used")
    claimed = set(state["play"]["claimed"])
    board = board_in_play(state)
    try:
        result = engine.claim(
            board, piece, start_square, end_square, first_player(state, seat), claimed
        )
    except ValueError as error:
        raise ActionError(str(error), code="illegal_move") from None
    new = _changing(state)
    play = new["play"]
    _spend_time(new, seat, now)
    for square in result.squares:
        play["claimed"][square] = seat
        play["revealed"][square] = board[square]
    play["points"][seat] += result.points
    play["mines"][seat] += result.mines
    new["totals"]["points"][seat] += result.points
    new["totals"]["mines"][seat] += result.mines
    entry = {
        "n": len(play["log"]) + 1,
        "seat": seat,
        "name": seat_name(state, seat),
        "type": "claim",
        "piece": piece,
        "start": start_square,
        "end": end_square,
        "path": list(result.path),
        "squares": list(result.squares),
        "values": {s: board[s] for s in result.squares},
        "points": result.points,
        "mines": result.mines,
    }
    play["log"].append(entry)
    play["used"][str(seat)]["claimed"].append(piece)
    play["turns"][seat] += 1
    outcome = next_turn(new, seat, now, kind="claimed", public={"board_no": new["board_no"]})
    # The animation steps travel once, in the event; the log keeps what the claim did.
    outcome.public.update(entry, steps=result.steps)
    return outcome


def pass_action(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    _check_turn(state, seat, "pass")
    check_clock(state, "turn", now, "your time bank ran out")
    new = _changing(state)
    _spend_time(new, seat, now)
    return _pass(new, seat, now, reason="passed")


def _pass(state: State, seat: int, now: datetime, *, reason: str) -> Outcome:
    play = state["play"]
    play["passed"][seat] = True
    entry = {
        "n": len(play["log"]) + 1,
        "seat": seat,
        "name": seat_name(state, seat),
        "type": "pass",
        "reason": reason,
    }
    play["log"].append(entry)
    kind = "passed" if reason == "passed" else "bank_empty"
    outcome = next_turn(state, seat, now, kind=kind, public={"board_no": state["board_no"]})
    outcome.public.update(entry)
    return outcome


# --- clocks --------------------------------------------------------------------------------------


CLOCK_OF_PHASE = {"order": "order", "play": "turn"}


def _time_up(
    state: State, key: str, now: datetime, drafts: dict[int, dict[str, Any]] | None = None
) -> Outcome:
    """The phase's clock ran out: ``order`` draws the first player, ``turn`` empties the
    mover's bank (a pass)."""
    new = _changing(state)
    if key == "order":
        return _begin_board(new, draw(new, [0, 1]), now, chosen=False)
    seat = new["turn"]
    new["play"]["bank"][seat] = 0.0
    return _pass(new, seat, now, reason="time")


timeout = on_running_clock(CLOCK_OF_PHASE, _time_up)


def clean_draft(state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
    """Pointsweeper keeps no drafts, not even an empty one: a move is made when it is sent, and
    time running out is a pass, never a half-composed move."""
    raise ActionError("this game keeps no drafts; send the move itself", code="no_drafts")


# --- the host ------------------------------------------------------------------------------------


def adjudicate(state: State, award: dict[str, Any], now: datetime) -> Outcome:
    """The host settles the match: ``{"winner": seat}``."""
    new = match_awarded(state, award)
    winner = award["winner"]
    public: dict[str, Any] = {"winner": winner, "awarded": True}
    return finish_match(new, kind="adjudicated", public=public, winner=winner)


ACTIONS = {
    "choose_order": choose_order,
    "scout": scout_action,
    "claim": claim_action,
    "pass": pass_action,
}


act = dispatcher(ACTIONS)


# --- analysis after each board (run by the core outside any lock) -------------------------------


def analysis_job(state: State) -> dict[str, Any] | None:
    """The next finished board still waiting for its analysis, or None."""
    for record in state.get("history", []):
        if record.get("analysis") is None:
            return {
                "board_no": record["board_no"],
                "board": record["board"],
                "first": record["first"],
                "log": record["log"],
                "notebooks": record["notebooks"],
                "mines_before": record["mines_before"],
            }
    return None


def run_analysis(job: dict[str, Any]) -> dict[str, Any]:
    from games.pointsweeper.analysis import board_analysis

    return board_analysis(
        job["board"], job["first"], job["log"], job["notebooks"], job["mines_before"]
    )


def record_analysis(state: State, job: dict[str, Any], result: dict[str, Any]) -> Outcome:
    new = {
        **state,
        "history": [
            {**record, "analysis": result} if record["board_no"] == job["board_no"] else record
            for record in state["history"]
        ],
    }
    public = {"board_no": job["board_no"], "analysis": result}
    return Outcome(state=new, kind="analysis", public=public, informational=True)
