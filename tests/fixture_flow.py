"""Count to Ten: the smallest game written in the contract's shape (DEVELOPERS.md, "Adding a
game"), as a sixth game would be. Never listed. Pure, like every flow.

Two seats take turns adding 1-3 to a shared count; whoever reaches the target wins. Each seat
has a secret lucky number only it (and the host) sees; a turn clock skips a seat that waits.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.core.game.contract import Setting, settled
from games.core.game.flowkit import (
    copy_json,
    derived_seed,
    dispatcher,
    on_running_clock,
    set_clock,
    stop_clock,
)
from games.core.game.gamedef import ActionError, Outcome, SeatInfo, State, Viewer

SETTINGS = (
    Setting("target", "Count to", 10, low=3, high=100),
    Setting("turn_seconds", "Each turn (seconds)", 30, low=1, high=86400),
    Setting("play_drafts", "A turn's clock plays the amount its player drafted", False),
)
CLOCK_OF_PHASE = {"turns": "turn"}


def start(settings: dict[str, Any], seats: list[SeatInfo], seed: int, now: datetime) -> Outcome:
    settings = settled(SETTINGS, settings)
    state: State = {
        "phase": "turns",
        "count": 0,
        "target": settings["target"],
        "turn_seconds": settings["turn_seconds"],
        "play_drafts": settings["play_drafts"],
        "turn": 0,
        "lucky": {str(s.index): derived_seed(seed, "lucky", s.index) % 3 + 1 for s in seats},
        "winner": None,
        "deadlines": {},
    }
    set_clock(state, "turn", now, settings["turn_seconds"])
    return Outcome(state=state, kind="started", public={"target": settings["target"]})


def add(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    if seat != state["turn"]:
        raise ActionError("it is not your turn", code="not_your_turn")
    amount = action.get("amount")
    if not isinstance(amount, int) or isinstance(amount, bool) or not 1 <= amount <= 3:
        raise ActionError("add 1, 2 or 3", code="bad_amount")
    new = copy_json(state)
    new["count"] += amount
    if new["count"] >= new["target"]:
        return _finish(new, seat, kind="added")
    new["turn"] = 1 - seat
    set_clock(new, "turn", now, new["turn_seconds"])
    return Outcome(state=new, kind="added", public={"seat": seat, "amount": amount})


ACTIONS = {"add": add}
act = dispatcher(ACTIONS)


def _time_up(state: State, key: str, now: datetime, drafts: dict | None = None) -> Outcome:
    drafted = (drafts or {}).get(state["turn"], {}).get("amount")
    if state["play_drafts"] and drafted:
        outcome = add(state, state["turn"], {"type": "add", "amount": drafted}, now)
        outcome.drafts_sealed = (state["turn"],)
        return outcome
    new = copy_json(state)
    skipped = new["turn"]
    new["turn"] = 1 - skipped
    set_clock(new, "turn", now, new["turn_seconds"])
    return Outcome(state=new, kind="skipped", public={"seat": skipped})


timeout = on_running_clock(CLOCK_OF_PHASE, _time_up)


def clean_draft(state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
    """Checked as strictly as the ``add`` it prepares: anything else refuses it."""
    amount = draft.get("amount")
    if set(draft) != {"amount"}:
        raise ActionError("a draft is {'amount': 1, 2 or 3}", code="bad_draft")
    if not isinstance(amount, int) or isinstance(amount, bool) or not 1 <= amount <= 3:
        raise ActionError("a drafted amount is 1, 2 or 3", code="bad_draft")
    return {"amount": amount}


def adjudicate(state: State, award: dict[str, Any], now: datetime) -> Outcome:
    winner = award.get("winner")
    if award.get("scope", "match") != "match" or winner not in (0, 1) or winner is True:
        raise ActionError("award the match to seat 0 or 1", code="bad_award")
    if state["phase"] == "over":
        raise ActionError("the match is already over", code="match_over")
    return _finish(copy_json(state), winner, kind="adjudicated")


def _finish(new: State, winner: int, *, kind: str) -> Outcome:
    new.update(phase="over", winner=winner)
    stop_clock(new, "turn")
    result = {"winner": winner, "summary": f"Seat {winner + 1} reached the count."}
    return Outcome(state=new, kind=kind, public={"winner": winner}, result=result)


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """All but the lucky numbers is public; a seat sees its own, the host both."""
    if not state:
        return {}
    shown = {key: state[key] for key in ("phase", "count", "target", "turn", "winner")}
    shown["deadlines"] = dict(state["deadlines"])
    shown["actions"] = ["add"] if state["phase"] == "turns" and viewer.seat == state["turn"] else []
    if viewer.is_host:
        shown["lucky"] = dict(state["lucky"])
    elif viewer.seat is not None:
        shown["my_lucky"] = state["lucky"][str(viewer.seat)]
    return shown
