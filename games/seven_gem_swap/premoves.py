"""Premoves and the season ledger in Seven Gem Swap: what a premove costs, what a submission
charges or gives back for one, and what an aborted round refunds. Pure.

A premove is paid when its sealed submission is accepted (the core checks the price against the
player's season ledger under its lock, and refuses it if it does not fit), given back when a
replacement drops it or when the round never runs; the round's resolution charges nothing. The
charge is a prize of the submission's event: only the seat and the host learn of it.
"""

from __future__ import annotations

from typing import Any

from games.core.game.gamedef import Outcome, State

PREMOVE_FIRST_PRICE = 2


def premove_price(used: int) -> int:
    """What a premove costs a player who has already used ``used`` of them in this match:
    2 garnets, doubling with each use (2, 4, 8, ...)."""
    return PREMOVE_FIRST_PRICE * 2**used


def action_cost(state: State, seat: int, action: dict[str, Any]) -> dict[str, int]:
    """What a submission adds to the seat's charges: a premove's price, unless the seat's
    submission of this round already paid for one (a replacement that keeps it)."""
    if action.get("type") != "submit" or action.get("premove") is not True:
        return {}
    key = str(seat)
    if _pending_premove(state, key) or key not in state.get("premoves", {}):
        return {}
    return {"garnets": premove_price(state["premoves"][key])}


def _pending_premove(state: State, key: str) -> bool:
    """Has this seat a submission of the running round that paid for a premove?"""
    sub = state.get("submissions", {}).get(key) if state.get("phase") == "round" else None
    return bool(sub and sub["premove"])


def premove_charge(state: State, key: str, premove: bool) -> dict[str, Any]:
    """The prize of a submission that asks (or no longer asks) for a premove."""
    paid = _pending_premove(state, key)
    if premove == paid:
        return {}
    price = premove_price(state["premoves"][key])
    if premove:
        return {"garnets": -price, "reason": f"premove in round {state['round']}"}
    return {"garnets": price, "reason": f"premove in round {state['round']} withdrawn"}


def refunds_on_abort(state: State) -> dict[int, dict[str, Any]]:
    """The premoves paid for a round that will never run (the match ends before it resolves):
    a prize per seat giving each back."""
    if state.get("phase") != "round":
        return {}
    return {
        int(key): {
            "garnets": premove_price(state["premoves"][key]),
            "reason": f"premove in round {state['round']} given back: it never ran",
        }
        for key in state["submissions"]
        if _pending_premove(state, key)
    }


def with_prize(outcome: Outcome, seat: int, prize: dict[str, Any], round_number: int) -> Outcome:
    """``outcome`` paying ``seat`` a premove's ``prize`` too: one entry per seat and event, its
    reason saying what the premove took or gave back beside the result."""
    if not prize:
        return outcome
    if seat not in outcome.prizes:
        outcome.prizes[seat] = prize
        return outcome
    merged: dict[str, Any] = dict(outcome.prizes[seat])
    merged["garnets"] = merged.get("garnets", 0) + prize["garnets"]
    amount = abs(prize["garnets"])
    if prize["garnets"] < 0:
        merged["reason"] = (
            f"the result, less {amount} garnets for the premove in round {round_number}"
        )
    else:
        merged["reason"] = (
            f"the result, and {amount} garnets back for the premove in round {round_number}"
        )
    outcome.prizes[seat] = merged
    return outcome
