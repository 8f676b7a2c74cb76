"""Whose move it is in a death match: the action types each seat may send in each phase, the
seats the match waits for, and the refusal, in words, of anything else (a lost claim race is
answered with the claim that won it). The one place that says it: the view and every action read
it."""

from __future__ import annotations

from typing import Any

from games.bejeweled_dm.rounds import player_name, target
from games.core.game.gamedef import ActionError, State

PHASE_REASONS = {
    "claim": "no claim stands yet",
    "counterclaim": "a claim stands and the counterclaim window is open",
    "proof": "the proof is being shown",
    "second_starter": "Refresh went off and the prover is choosing the second starter use",
    "pick": "the round is over and the players are picking powerups",
    "over": "the match is over",
}
DOING = {
    "claim": "claim",
    "counterclaim": "counterclaim",
    "pass": "pass",
    "proof": "show a proof",
    "second_starter": "use a second starter",
    "skip_second_starter": "end the turn",
    "pick": "pick powerups",
}


def open_actions(state: State, seat: int | None) -> list[str]:
    """The action types ``seat`` may send now (none for a spectator or the host)."""
    phase = state["phase"]
    if seat not in (0, 1):
        return []
    if phase == "claim":
        return ["claim"]
    if phase == "counterclaim" and seat != state["claim"]["seat"]:
        return ["counterclaim", "pass"]
    if phase == "proof" and seat == state["prover"]:
        return ["proof"]
    if phase == "second_starter" and seat == state["prover"]:
        return ["second_starter", "skip_second_starter"]
    if phase == "pick":
        return ["pick"]  # a pick may be changed until both are in
    return []


def to_move(state: State) -> list[int]:
    """The seats the match is waiting for: in the pick phase those still to pick."""
    if state["phase"] == "pick":
        return [int(key) for key, chosen in state["picks"].items() if chosen is None]
    return [seat for seat in (0, 1) if open_actions(state, seat)]


def check_open(state: State, seat: int, kind: str) -> None:
    """Refuse ``kind`` unless it is open to ``seat``, saying what happened instead (a lost claim
    race is answered with the claim that won it, not with a version number)."""
    if kind in open_actions(state, seat):
        return
    phase = state["phase"]
    # Read only where a claim stands (each phase after ``claim``).
    standing: Any = state.get("claim")
    holder: Any = target(state)
    if phase == "over":
        raise ActionError("the match is over", code="match_over")
    if kind == "claim" and phase == "counterclaim":
        if standing["seat"] == seat:
            message = f"you already claimed {standing['count']}; wait for your opponent"
        else:
            message = (
                f"{player_name(state, standing['seat'])} already claimed {standing['count']}; "
                "counterclaim a higher number or pass"
            )
        raise ActionError(message, code="claim_exists")
    if kind in ("counterclaim", "pass") and phase == "counterclaim":
        raise ActionError(
            f"you made the claim; only your opponent may {DOING[kind]}", code="own_claim"
        )
    if kind in ("claim", "counterclaim", "pass") and phase in ("proof", "second_starter"):
        prover = player_name(state, state["prover"])
        if state["counterclaim"] is not None and kind == "counterclaim":
            reason = f"there is only one counterclaim; {prover} is proving {holder['count']}"
        elif seat != standing["seat"] and state["counterclaim"] is None:
            reason = f"the counterclaim window has closed; {prover} is proving {holder['count']}"
        else:
            reason = f"{prover} is proving {holder['count']}"
        raise ActionError(f"you cannot {DOING[kind]} now: {reason}", code="wrong_phase")
    if kind in ("proof", "second_starter", "skip_second_starter") and phase in (
        "proof",
        "second_starter",
    ):
        if seat != state["prover"]:
            prover = player_name(state, state["prover"])
            raise ActionError(
                f"only {prover}, who claimed {holder['count']}, shows proof",
                code="not_prover",
            )
        if kind == "proof":
            raise ActionError(
                "Refresh went off: send only the second starter use (or end the turn)",
                code="wrong_phase",
            )
    raise ActionError(f"you cannot {DOING[kind]} now: {PHASE_REASONS[phase]}", code="wrong_phase")
