"""The proof phase of a death match round: the higher claimant shows a proof using the powerups
offered, Refresh may grant a second use of the starter, and the turn is scored against the claim
(the round then ends: rounds.py ``end_round``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.bejeweled_dm import engine
from games.bejeweled_dm.rounds import end_round, opponent, target
from games.bejeweled_dm.steps import compact_steps
from games.bejeweled_dm.whose_move import check_open
from games.core.game.flowkit import check_clock, copy_json
from games.core.game.gamedef import ActionError, Outcome, State


def _check_offered(state: State, proof: engine.Proof) -> None:
    for kind, name in (("active", proof.active), ("passive", proof.passive)):
        _check_one_offered(state, kind, name)
    _check_one_offered(state, "starter", proof.starter)


def _check_one_offered(state: State, kind: str, name: str) -> None:
    offered = state["offer"][kind]
    if name not in offered:
        raise ActionError(
            f"{name} is not offered this round; the {kind} powerup must be {' or '.join(offered)}",
            code="not_offered",
        )


def proof(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    check_open(state, seat, "proof")
    check_clock(state, "proof", now, "the proof time is over")
    text = action.get("proof")
    if not isinstance(text, str) or not text.strip():
        raise ActionError("write the proof, e.g. 'Plus F4; Bend; Swap F4 F5'", code="illegal_proof")
    try:
        parsed = engine.parse_proof(text)
        _check_offered(state, parsed)
        resolution = engine.resolve(state["board"], parsed)
    except ActionError:
        raise
    except ValueError as error:
        raise ActionError(str(error), code="illegal_proof") from None
    refreshed = any(step["kind"] == "refresh" for step in resolution.steps)
    if refreshed and parsed.second is None:
        new = copy_json(state)
        new["phase"] = "second_starter"
        new["pending"] = {
            "proof": engine.format_proof(parsed),
            "starter": parsed.starter,
            "removed": resolution.removed,
            "board": engine.format_board(resolution.board),
            "steps": resolution.steps,
        }
        public = {
            "seat": seat,
            "proof": new["pending"]["proof"],
            "removed": resolution.removed,
            "starter": parsed.starter,
            "steps": compact_steps(state["board"], resolution.steps),
        }
        return Outcome(state=new, kind="refresh_activated", public=public)
    return _finish_turn(state, engine.format_proof(parsed), resolution, now)


def second_starter(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    check_open(state, seat, "second_starter")
    check_clock(state, "proof", now, "the proof time is over")
    pending = state["pending"]
    starter = pending["starter"]
    clause = action.get("clause")
    if not isinstance(clause, str) or not clause.strip():
        raise ActionError(
            f"name the cells of your second {starter}, e.g. '{starter} A1 A2'",
            code="illegal_proof",
        )
    words = clause.split()
    first = words[0].lower()
    if first in {name.lower() for name in engine.STARTERS + engine.ACTIVES + engine.PASSIVES}:
        if first != starter.lower():
            raise ActionError(
                f"the second starter use must be {starter} again, not {words[0]}",
                code="illegal_proof",
            )
    else:
        clause = f"{starter} {clause}"
    full = f"{pending['proof']}; {clause}"
    try:
        resolution = engine.resolve(state["board"], full)
    except ValueError as error:
        raise ActionError(str(error), code="illegal_proof") from None
    return _finish_turn(state, engine.format_proof(resolution.proof), resolution, now)


def skip_second_starter(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    check_open(state, seat, "skip_second_starter")
    check_clock(state, "proof", now, "the proof time is over")
    return finish_pending(state, now)


def finish_pending(state: State, now: datetime) -> Outcome:
    """The turn ends at the Refresh: the proof as made so far stands."""
    pending = state["pending"]
    turn = {
        "proof": pending["proof"],
        "removed": pending["removed"],
        "board": pending["board"],
        "steps": pending["steps"],
    }
    return _score_turn(state, turn, now)


def _finish_turn(
    state: State, proof_text: str, resolution: engine.Resolution, now: datetime
) -> Outcome:
    turn = {
        "proof": proof_text,
        "removed": resolution.removed,
        "board": engine.format_board(resolution.board),
        "steps": resolution.steps,
    }
    return _score_turn(state, turn, now)


def _score_turn(state: State, turn: dict[str, Any], now: datetime) -> Outcome:
    prover = state["prover"]
    claimed = target(state)
    assert claimed is not None  # a proof is scored only once a claim stands
    needed = claimed["count"]
    reached = turn["removed"] >= needed
    winner = prover if reached else opponent(prover)
    parsed = engine.parse_proof(turn["proof"])
    used = {"starter": parsed.starter, "passive": parsed.passive, "active": parsed.active}
    return end_round(
        state, winner, "proved" if reached else "fell_short", now, turn=turn, used=used
    )
