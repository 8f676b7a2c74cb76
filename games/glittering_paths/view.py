"""What each viewer of a Glittering Paths match may see: ``view(state, viewer)``, pure, the only
place that decides it (the privacy gate). Nothing is secret between the players; what stays
hidden from everyone is what could reveal a later round's board before it starts. Pages, frames,
replays, exports and the bots all read a match through it."""

from __future__ import annotations

from typing import Any

from games.core.game.gamedef import State, Viewer
from games.glittering_paths import engine
from games.glittering_paths.flow import CLOCK_OF_PHASE, GAME
from games.glittering_paths.players import seat_colour, seat_named
from games.glittering_paths.rounds import ROUNDS

PHASE_LABELS = {
    "race": "Race for the first move",
    "turns": "Turns",
    "interval": "Between rounds",
    "over": "Match over",
}
REASONS = {
    "skips": "each player skipped or passed twice in a row",
    "no_paths": "neither player has a legal path left",
    "agreed": "both players agreed to end the round",
    "host": "the host ended the round",
}


# --- what a viewer sees --------------------------------------------------------------------------


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """Everything ``viewer`` may see, as JSON-ready data: the only gate. Nothing in this game is
    secret between the players; what stays hidden from everyone is what could reveal a later
    round's board (the match seed and the host's pasted boards)."""
    if not state or "phase" not in state:
        return {}
    you = viewer.seat if viewer.seat in (0, 1) else None
    phase = state["phase"]
    clock_key = CLOCK_OF_PHASE.get(phase)
    due = state.get("deadlines", {}).get(clock_key) if clock_key else None
    board = engine.parse_board(state["board"])
    return {
        "game": GAME,
        "round": state["round"],
        "rounds": ROUNDS,
        "phase": phase,
        "phase_label": PHASE_LABELS[phase],
        "you": you,
        "your_colour": seat_colour(you) if you is not None else None,
        "is_host": viewer.is_host,
        "seats": [
            {
                **seat,
                "total": state["totals"][i],
                "is_you": i == you,
                "is_dmo": i == state["dmo"],
            }
            for i, seat in enumerate(state["seats"])
        ],
        "board": state["board"],
        "shape": board.shape,
        "start_board": state["start_board"],
        "turn": state["turn"],
        "turn_number": state["turn_number"],
        "turn_started": state["turn_started"],
        "first": state["first"],
        "start_kind": state["start_kind"],
        "to_move": _to_move(state),
        "actions": _actions(state, you),
        "prompt": _prompt(state, you),
        "clock": {"key": clock_key, "due": due} if due else None,
        "deadlines": dict(state.get("deadlines", {})),
        "timers": dict(state["timers"]),
        "totals": list(state["totals"]),
        "streak": list(state["streak"]),
        "agreed": list(state["agreed"]),
        "moves": [_move_view(m) for m in state["moves"]],
        "last_move": state["last_move"],
        "history": [_round_view(entry) for entry in state["history"]],
        "tie_to": state["tie_to"],
        "winner": state["winner"],
        "result": state["result"],
    }


def _move_view(move: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in move.items() if k != "board_before"}


def _round_view(entry: dict[str, Any]) -> dict[str, Any]:
    """A finished round; each analysed turn comes with the board it was played on (``"board"``),
    so a page draws either path on it as it stood."""
    shown = {
        **{k: v for k, v in entry.items() if k not in ("moves", "analysis")},
        "reason_text": REASONS[entry["reason"]],
        "moves": [_move_view(m) for m in entry["moves"]],
        "analysis": None,
    }
    if entry["analysis"] is not None:
        boards = {move["turn"]: move["board_before"] for move in entry["moves"]}
        shown["analysis"] = [{**row, "board": boards[row["turn"]]} for row in entry["analysis"]]
    return shown


def _to_move(state: State) -> list[int]:
    if state["phase"] == "race":
        return [0, 1]
    if state["phase"] == "turns":
        return [state["turn"]]
    return []


def _actions(state: State, you: int | None) -> list[str]:
    if you is None:
        return []
    phase = state["phase"]
    end = ["withdraw_end"] if state["agreed"][you] else ["agree_end"]
    if phase == "race":
        return ["path", *end]
    if phase == "turns":
        mine = ["path", "pass"] if state["turn"] == you else []
        return [*mine, *end]
    return []


def _prompt(state: State, you: int | None) -> str:
    phase = state["phase"]
    if phase == "race":
        if you is None:
            return "The board is revealed: the first legal path either player submits is made."
        first, second, third = _gem_names(you)
        return (
            f"Race: the first legal path submitted is made and its player moves first. You play "
            f"{seat_colour(you)}: start your path on a {first}, {second} or {third}."
        )
    if phase == "turns":
        mover = state["turn"]
        if you == mover:
            return "Your turn: draw a path, or pass. No move in time is a skip."
        return f"{seat_named(state, mover)} is moving."
    if phase == "interval":
        return f"Round {state['round']} is over; round {state['round'] + 1} starts shortly."
    result = state["result"] or {}
    return result.get("summary", "The match is over.")


def _gem_names(seat: int) -> list[str]:
    return [engine.GEM_NAMES[g] for g in engine.GEMS_OF[seat_colour(seat)]]
