"""The claim race of a death match round: the first claim holds, the opponent may counterclaim a
higher number once or pass, and the higher claimant goes on to prove it (proving.py). A claim is
judged by arrival, not by a version: a late one is refused with the claim that won the race."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.bejeweled_dm import engine
from games.bejeweled_dm.rounds import player_name, start_clock
from games.bejeweled_dm.whose_move import check_open
from games.core.game.flowkit import check_clock, copy_json
from games.core.game.gamedef import ActionError, Outcome, State

MAX_CLAIM = engine.SIZE


def _optional_round(state: State, action: dict[str, Any]) -> None:
    """A claim may say which round it was made in; one made for a finished round is refused."""
    sent = action.get("round")
    if sent is None or sent == "":
        return
    if str(sent).strip() != str(state["round"]):
        raise ActionError(
            f"that was sent for round {sent}; round {state['round']} is being played now",
            code="stale_round",
        )


def _whole_number(action: dict[str, Any], field: str) -> int:
    value = action.get(field)
    if isinstance(value, str):
        text = value.strip()
        if text and text.isdigit() and not text.isascii():
            raise ActionError(
                f"write the {field} with the digits 0-9 (you sent {text!r})", code="bad_number"
            )
        if text.isascii() and text.isdigit():
            value = int(text)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ActionError(f"{field} must be a whole number", code="bad_number")
    if not 1 <= value <= MAX_CLAIM:
        raise ActionError(
            f"claim a whole number from 1 to {MAX_CLAIM} (the board has {MAX_CLAIM} cells)",
            code="bad_number",
        )
    return value


def claim(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    check_open(state, seat, "claim")
    _optional_round(state, action)
    check_clock(state, "round", now, "the round clock ran out before your claim")
    count = _whole_number(action, "count")
    new = copy_json(state)
    new["claim"] = {"seat": seat, "count": count, "name": player_name(state, seat)}
    new["phase"] = "counterclaim"
    start_clock(new, "claim_window", now)
    return Outcome(state=new, kind="claimed", public={"seat": seat, "count": count})


def counterclaim(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    check_open(state, seat, "counterclaim")
    _optional_round(state, action)
    standing = state["claim"]
    check_clock(state, "claim_window", now, "the 30 seconds to counterclaim are over")
    count = _whole_number(action, "count")
    if count <= standing["count"]:
        raise ActionError(
            f"a counterclaim must be higher than {standing['count']}", code="not_higher"
        )
    new = copy_json(state)
    new["counterclaim"] = {"seat": seat, "count": count, "name": player_name(state, seat)}
    new["prover"] = seat
    new["phase"] = "proof"
    start_clock(new, "proof", now)
    return Outcome(
        state=new, kind="counterclaimed", public={"seat": seat, "count": count, "prover": seat}
    )


def pass_(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    check_open(state, seat, "pass")
    _optional_round(state, action)
    check_clock(state, "claim_window", now, "the counterclaim window already closed")
    new = to_proof(state, now)
    return Outcome(state=new, kind="passed", public={"seat": seat, "prover": new["prover"]})


def to_proof(state: State, now: datetime) -> State:
    """No counterclaim came: the claimant proves the claim."""
    new = copy_json(state)
    new["prover"] = state["claim"]["seat"]
    new["phase"] = "proof"
    start_clock(new, "proof", now)
    return new
