"""The seats of a Seven Gem Swap match as its state keys them: a seat's key, every seat's key,
a player's name, and the check that whoever acts is seated. Pure; the flow, its parts and the
gate (view.py) share them."""

from __future__ import annotations

from games.core.game.gamedef import ActionError, State


def seat_key(seat: int) -> str:
    return str(seat)


def seat_keys(state: State) -> list[str]:
    return [seat_key(s["index"]) for s in state["seats"]]


def player_name(state: State, seat: int | str) -> str:
    for entry in state["seats"]:
        if seat_key(entry["index"]) == str(seat):
            return entry["name"]
    return f"seat {seat}"


def check_seat(state: State, seat: int) -> str:
    key = seat_key(seat) if isinstance(seat, int) and not isinstance(seat, bool) else None
    if key is None or key not in seat_keys(state):
        raise ActionError("you are not seated in this match", code="not_seated")
    return key
