"""What each viewer of a Bejeweled death match may see: ``view(state, viewer)``, pure, the only
place that decides it (the privacy gate). All of a round is public; what stays hidden is a pick
made in the pick phase (its own seat and the host see it until both are in) and the match seed.
Pages, frames, replays, exports and the bots all read a match through it."""

from __future__ import annotations

from typing import Any, cast

from games.bejeweled_dm.flow import CLOCK_OF_PHASE
from games.bejeweled_dm.rounds import (
    GARNETS,
    MAX_ROUNDS,
    REASONS,
    STEP_MS,
    WINS_NEEDED,
    player_name,
    target,
)
from games.bejeweled_dm.steps import compact_steps
from games.bejeweled_dm.whose_move import open_actions, to_move
from games.core.game.gamedef import State, Viewer

# --- what each viewer sees: the one gate -------------------------------------------------------


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """Everything ``viewer`` may see, as JSON-ready data: the only gate. All of a round is public
    (the board, the offer, claims, proofs and their steps); what stays hidden is a pick made in
    the pick phase, seen only by its own seat and the host until both are in, and the match
    seed, from which later boards could be worked out."""
    if not state or "phase" not in state:
        return {}
    you = viewer.seat if viewer.seat in (0, 1) else None
    phase = state["phase"]
    clock_key = CLOCK_OF_PHASE.get(phase)
    clock_due = state.get("deadlines", {}).get(clock_key) if clock_key else None
    return {
        "round": state["round"],
        "max_rounds": MAX_ROUNDS,
        "wins_needed": WINS_NEEDED,
        "score": list(state["score"]),
        "phase": phase,
        "seats": [
            {**seat, "wins": state["score"][seat["index"]], "is_you": seat["index"] == you}
            for seat in state["seats"]
        ],
        "you": you,
        "is_player": you is not None,
        "no_claim_to": state["no_claim_to"],
        "to_move": to_move(state),
        "actions": open_actions(state, you),
        "board": _shown_board(state),
        "offer": state["offer"],
        "claim": _claim_view(state, state["claim"]),
        "counterclaim": _claim_view(state, state["counterclaim"]),
        "target": _claim_view(state, target(state)),
        "prover": state["prover"],
        "prover_name": _name_of(state, state["prover"]),
        "clock": {"key": clock_key, "due": clock_due} if clock_due else None,
        "deadlines": dict(state.get("deadlines", {})),
        "timers": dict(state["timers"]),
        "pending": _pending_view(state),
        "last_round": _last_round_view(state),
        **_animation_view(state),
        "history": [_round_view(state, entry) for entry in state["history"]],
        "picks": _picks_view(state, you, viewer.is_host),
        "winner": state["winner"],
        "winner_name": _name_of(state, state["winner"]),
        "awarded": bool(state.get("awarded")),
        "garnets": GARNETS if state["winner"] is not None else 0,
        "step_ms": dict(STEP_MS),
    }


def _name_of(state: State, seat: int | None) -> str:
    return player_name(state, seat) if seat is not None else ""


def _shown_board(state: State) -> str:
    """The board the page shows: after Refresh the board so far, between rounds (and at the
    end) the board the round left, else the round's board."""
    if state["phase"] == "second_starter":
        return state["pending"]["board"]
    if state["phase"] in ("pick", "over"):
        return state["carry"] or state["board"]
    return state["board"]


def _claim_view(state: State, claim: dict[str, Any] | None) -> dict[str, Any] | None:
    """A claim named for who made it (a claim made before names were kept: the seat's holder
    now)."""
    if claim is None:
        return None
    return {**claim, "name": claim.get("name") or player_name(state, claim["seat"])}


def _pending_view(state: State) -> dict[str, Any] | None:
    """The turn so far after Refresh went off (its steps are the view's ``steps``)."""
    pending = state["pending"]
    if pending is None:
        return None
    return {key: pending[key] for key in ("proof", "starter", "removed")}


def _animation_view(state: State) -> dict[str, Any]:
    """What the page animates: ``steps`` from the board ``steps_from`` (the turn so far after
    Refresh, else the last round's proof) and the last round's optimum's ``optimum_steps``;
    None where there are none. They sit at the top of the view as the very lists the event that
    made them carries, so an update frame sends a reference to the event's copy, not them again
    (None, not an empty list, before them: a list growing from empty would go as an append)."""
    pending, last = state["pending"], state["last"] or {}
    optimum = last.get("optimum") or {}
    if pending is not None:
        steps = compact_steps(state["board"], pending["steps"])
        return {"steps": steps, "steps_from": state["board"], "optimum_steps": None}
    start = cast(str, last.get("start_board"))  # there whenever the last round has steps
    return {
        "steps": compact_steps(start, last["steps"]) if last.get("steps") else None,
        "steps_from": start,
        "optimum_steps": compact_steps(start, optimum["steps"]) if optimum.get("steps") else None,
    }


def _round_view(state: State, entry: dict[str, Any]) -> dict[str, Any]:
    """A finished round. Its picks are in the history only once both are public."""
    shown = {
        key: entry.get(key)
        for key in ("round", "winner", "reason", "prover", "target", "proof", "removed")
    }
    picks = entry.get("picks")
    if entry.get("names"):  # the seats as they were held then
        state = {**state, "seats": [{"name": name} for name in entry["names"]]}
    shown.update(
        winner_name=_name_of(state, entry["winner"]),
        prover_name=_name_of(state, entry["prover"]),
        reason_text=REASONS[entry["reason"]],
        claim=_claim_view(state, entry["claim"]),
        counterclaim=_claim_view(state, entry["counterclaim"]),
        score=list(entry["score"]),
        picks=[
            {"seat": int(key), "name": player_name(state, int(key)), **chosen}
            for key, chosen in picks.items()
        ]
        if picks
        else None,
        random_picks=[int(key) for key in entry.get("random_picks", [])],
        optimum=entry.get("optimum"),
    )
    return shown


def _last_round_view(state: State) -> dict[str, Any] | None:
    """The round just played (its proof's steps are the view's ``steps``)."""
    last = state["last"]
    if last is None:
        return None
    shown = _round_view(state, last)
    if shown["optimum"]:  # its steps are the view's ``optimum_steps``
        shown["optimum"] = {key: shown["optimum"][key] for key in ("count", "proof")}
    return shown


def _picks_view(state: State, you: int | None, is_host: bool) -> dict[str, Any] | None:
    """The pick phase: who has picked (public), the powerups allowed, the viewer's own pick, and
    for the host (not seated) both picks. No one else sees a pick before both are in."""
    if state["phase"] != "pick":
        return None
    picks = state["picks"]
    shown: dict[str, Any] = {
        "picked": [picks["0"] is not None, picks["1"] is not None],
        "allowed": state["allowed"],
        "mine": picks[str(you)] if you is not None else None,
    }
    if is_host and you is None:
        shown["all"] = picks
    return shown
