"""The end of a turn on a Pointsweeper board: the next player to move; or the board over (as
the seed lists, a-d), recorded and shown whole, and the next board's order to choose; or, after
the third board, the match's result (pure, like the flow)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.core.game.flowkit import iso, set_clock, stop_clock
from games.core.game.gamedef import Outcome, State
from games.pointsweeper import engine
from games.pointsweeper.players import can_move, other, out_of_pieces, player_name

BOARDS = 3
GARNETS = 5


def board_in_play(state: State) -> engine.Board:
    """The board being played, with every tile and mine (the state's secret)."""
    return engine.parse_board(state["boards"][state["board_no"] - 1])


def chooser_of(state: State, board_no: int) -> int:
    """Who chooses the order of ``board_no``: the DMO on boards 1 and 3, the EC on board 2."""
    return state["ec"] if board_no == 2 else state["dmo"]


def start_turn(state: State, seat: int, now: datetime) -> None:
    """``seat`` moves now (``state`` is a private copy): the move's time plus their bank."""
    state["turn"] = seat
    state["turn_started"] = iso(now)
    seconds = state["settings"]["move_seconds"] + state["play"]["bank"][seat]
    set_clock(state, "turn", now, seconds)


def _board_end_reason(state: State) -> str | None:
    """Why the board in play is over (the seed's a-d), or None while it goes on."""
    revealed = state["play"]["revealed"].values()
    mines = sum(1 for v in revealed if v == engine.MINE)
    board = board_in_play(state)
    if len(revealed) - mines == 64 - board.count_mines():
        return "all_tiles"
    if mines == board.count_mines():
        return "all_mines"
    if not can_move(state, 0) and not can_move(state, 1):
        if out_of_pieces(state, 0) and out_of_pieces(state, 1):
            return "out_of_pieces"
        return "passed"
    return None


def next_turn(
    state: State, seat: int, now: datetime, *, kind: str, public: dict[str, Any]
) -> Outcome:
    """After ``seat``'s turn (``state`` is a private copy): the other player moves if they still
    can, else ``seat`` again, else the board is over."""
    reason = _board_end_reason(state)
    if reason is None:
        for nxt in (other(seat), seat):
            if can_move(state, nxt):
                start_turn(state, nxt, now)
                public["turn"] = nxt
                return Outcome(state=state, kind=kind, public=public)
        reason = "passed"
    return _end_board(state, reason, now, kind=kind, public=public)


BOARD_END_REASONS = {
    "all_tiles": "all 54 tiles are claimed",
    "all_mines": "all 10 mines are claimed",
    "out_of_pieces": "both players are out of pieces",
    "passed": "both players have passed",
}


def _end_board(
    state: State, reason: str, now: datetime, *, kind: str, public: dict[str, Any]
) -> Outcome:
    play = state["play"]
    record = {
        "board_no": state["board_no"],
        "board": state["boards"][state["board_no"] - 1],
        "first": state["first"],
        "chooser": state["chooser"],
        "reason": reason,
        "log": play["log"],
        "notebooks": play["notebooks"],
        "points": list(play["points"]),
        "mines": list(play["mines"]),
        "mines_before": [state["totals"]["mines"][s] - play["mines"][s] for s in (0, 1)],
        "analysis": None,
    }
    state["history"].append(record)
    state["turn"] = None
    state["turn_started"] = None
    state["play"] = None
    stop_clock(state, "turn")
    public["board_over"] = {
        key: record[key]
        for key in ("board_no", "board", "first", "reason", "notebooks", "points", "mines")
    }
    if state["board_no"] < BOARDS:
        state["board_no"] += 1
        state["phase"] = "order"
        state["chooser"] = chooser_of(state, state["board_no"])
        state["first"] = None
        set_clock(state, "order", now, state["settings"]["order_seconds"])
        public["next_board"] = {"board_no": state["board_no"], "chooser": state["chooser"]}
        return Outcome(state=state, kind=kind, public=public)
    return finish_match(state, kind=kind, public=public)


def totals(state: State) -> dict[str, list[int]]:
    """Each seat's points, mines, penalty and total so far."""
    points = state["totals"]["points"]
    mines = state["totals"]["mines"]
    return {
        "points": list(points),
        "mines": list(mines),
        "penalty": [engine.triangular(m) for m in mines],
        "total": [engine.final_total(p, m) for p, m in zip(points, mines, strict=True)],
    }


def finish_match(
    state: State, *, kind: str, public: dict[str, Any], winner: int | None = None
) -> Outcome:
    """End the match (``state`` is a private copy): the higher total wins, a tie goes to the side
    the settings name, a host's award stands; the winner's garnets are its prize."""
    final = totals(state)
    if winner is None:
        a, b = final["total"]
        if a != b:
            winner = 0 if a > b else 1
        else:
            winner = state["dmo"] if state["settings"]["tie_to"] == "DMO" else state["ec"]
    loser = other(winner)
    tie = final["total"][0] == final["total"][1]
    summary = (
        f"{player_name(state, winner)} wins {final['total'][winner]} to {final['total'][loser]}"
        + (f" (a tie goes to the {state['settings']['tie_to']})" if tie else "")
    )
    state["phase"] = "over"
    state["winner"] = winner
    state["final"] = final
    state["turn"] = None
    state["deadlines"] = {}
    prizes = {winner: {"garnets": GARNETS, "tokens": 0}}
    result = {
        "winner": winner,
        "summary": summary,
        "totals": final,
        "prizes": {str(k): v for k, v in prizes.items()},
    }
    public["match_over"] = {"winner": winner, "totals": final, "summary": summary}
    return Outcome(state=state, kind=kind, public=public, result=result, prizes=prizes)
