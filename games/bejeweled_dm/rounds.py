"""What every phase of a death match round stands on, and how a round ends: the match's length
and prize, the round's clock, the claim a proof must reach, and ``end_round`` (the score, the
match won or the picking that follows, the round kept in the history). The phases themselves are
in claims.py, proving.py and picks.py; flow.py runs them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.bejeweled_dm.powerups import allowed_picks
from games.bejeweled_dm.steps import compact_steps
from games.core.game.flowkit import copy_json, set_clock
from games.core.game.gamedef import Outcome, State

WINS_NEEDED = 4
MAX_ROUNDS = 2 * WINS_NEEDED - 1
GARNETS = 5

# How long the page shows each step of a resolution (ms at normal speed): the page's animation
# reads this table from the view, and the pick clock starts only once the round's animation has
# played (``animation_ms``), so watching the proof never eats into the picking time.
STEP_MS = {
    "start": 500,
    "place": 600,
    "starter": 600,
    "remove": 800,
    "activate": 650,
    "recolor": 700,
    "fall": 500,
    "refresh": 800,
}


def animation_ms(steps: list[dict[str, Any]]) -> int:
    """How long the page's animation of ``steps`` runs at normal speed (0 when there are none)."""
    if not steps:
        return 0
    return STEP_MS["start"] + sum(STEP_MS.get(step["kind"], 0) for step in steps)


def start_clock(state: State, key: str, now: datetime, *, after_ms: int = 0) -> None:
    """Run the phase's one clock ``key`` for its setting, starting ``after_ms`` from ``now``;
    the clock of the phase before stops."""
    state["deadlines"] = {}
    set_clock(state, key, now, state["timers"][key] + after_ms / 1000)


def player_name(state: State, seat: int) -> str:
    return state["seats"][seat]["name"]


def opponent(seat: int) -> int:
    return 1 - seat


def target(state: State) -> dict[str, int] | None:
    """The claim the proof must reach: the counterclaim if there is one, else the claim."""
    return state.get("counterclaim") or state.get("claim")


REASONS = {
    "proved": "the proof reached the claim",
    "fell_short": "the proof fell short of the claim",
    "no_proof": "no valid proof in time",
    "no_claim": "no one claimed within the round clock",
    "adjudicated": "the host awarded the round",
}


def end_round(
    state: State,
    winner: int,
    reason: str,
    now: datetime,
    *,
    turn: dict[str, Any] | None = None,
    used: dict[str, str] | None = None,
    kind: str = "round_over",
) -> Outcome:
    """The round goes to ``winner`` for ``reason`` (a key of ``REASONS``), with the proof's
    ``turn`` if one was shown: the match is won, or the players pick powerups for the next round
    (powerups ``used`` in the proof may not be picked again)."""
    new = copy_json(state)
    new["score"][winner] += 1
    holder = target(state)
    carry = turn["board"] if turn else state["board"]
    summary = {
        "round": state["round"],
        "winner": winner,
        "reason": reason,
        "claim": state["claim"],
        "counterclaim": state["counterclaim"],
        "prover": state["prover"],
        "target": holder["count"] if holder else None,
        "proof": turn["proof"] if turn else None,
        "removed": turn["removed"] if turn else None,
        "offer": state["offer"],
        "start_board": state["board"],
        "score": list(new["score"]),
        # Who held each seat when the round ended: the history names them, not whoever holds
        # the seat later.
        "names": [seat["name"] for seat in state["seats"]],
    }
    new["history"].append(summary)
    new["last"] = {
        **summary,
        "start_board": state["board"],
        "end_board": carry,
        "steps": turn["steps"] if turn else [],
    }
    new["pending"] = None
    new["carry"] = carry
    # The turn's steps travel once, in the event: the view's copy of them (``steps``) is sent
    # as a reference to the event's.
    public = dict(summary)
    if turn:
        public["steps"] = compact_steps(state["board"], turn["steps"])
    result = None
    if new["score"][winner] >= WINS_NEEDED:
        new["phase"] = "over"
        new["winner"] = winner
        new["deadlines"] = {}
        result = {"winner": winner, "score": list(new["score"]), "garnets": GARNETS}
        public["match_winner"] = winner
    else:
        new["phase"] = "pick"
        new["picks"] = {"0": None, "1": None}
        new["allowed"] = allowed_picks(used)
        start_clock(new, "pick", now, after_ms=animation_ms(new["last"]["steps"]))
    prizes = {winner: {"garnets": GARNETS}} if result is not None else {}
    return Outcome(state=new, kind=kind, public=public, result=result, prizes=prizes)
