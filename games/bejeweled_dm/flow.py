"""The phase machine of a Bejeweled death match, as pure functions over JSON state.

No Django and no IO: every function takes the state (never mutated), the acting seat and the time,
and returns an Outcome or raises ActionError. This module declares the match to the core (its
settings, its start, its actions, its clocks, the host's award and the analysis after a round)
and runs the phases, each in its own module: the claim race in claims.py, the proof in
proving.py, the picks between rounds in picks.py; whose move it is in whose_move.py, the end of a
round in rounds.py, the powerups in powerups.py. What each viewer may see is decided in view.py
(``view``, the one gate), what the page draws from that in page.py (``page``), and a proof's
steps are packed as they travel in steps.py. ``game.py`` wires these into the core.

A round runs through these phases (``state["phase"]``):

- ``claim``: both players study the board and the offer; either may claim a number. The round
  clock (``deadlines["round"]``) runs; when it ends, the round goes to the no-claim seat (the DMO).
- ``counterclaim``: a claim stands; the opponent may counterclaim a higher number once, or pass,
  before ``deadlines["claim_window"]``.
- ``proof``: the higher claimant (``state["prover"]``) submits a proof before
  ``deadlines["proof"]``.
- ``second_starter``: Refresh went off in the proof; the prover sends the second starter use (or
  ends the turn) within the same proof clock. ``state["pending"]`` holds the turn so far.
- ``pick``: the round is over; each player picks one powerup per type for the next round before
  ``deadlines["pick"]``. Picks stay private until both have picked or the clock ends.
- ``over``: someone has 4 round wins.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.bejeweled_dm import bot, engine
from games.bejeweled_dm.claims import claim, counterclaim, pass_, to_proof
from games.bejeweled_dm.picks import clean_draft as clean_draft  # declared to the core here
from games.bejeweled_dm.picks import draft_move as draft_move  # declared to the core here
from games.bejeweled_dm.picks import pick, seal_picks, start_next_round
from games.bejeweled_dm.powerups import CHOICES, TYPES
from games.bejeweled_dm.proving import finish_pending, proof, second_starter, skip_second_starter
from games.bejeweled_dm.rounds import GARNETS, end_round, opponent, start_clock
from games.bejeweled_dm.steps import compact_steps
from games.core.game.contract import Setting, settled
from games.core.game.flowkit import (
    copy_json,
    derived_seed,
    dispatcher,
    dmo_seat,
    draw,
    on_running_clock,
    seats_kept,
)
from games.core.game.gamedef import ActionError, Outcome, SeatInfo, State

TIMERS = {"round": 600, "claim_window": 30, "proof": 120, "pick": 60}
# A claim race is decided by arrival, and a late counterclaim or pass is answered by the rules
# ("Bob already claimed 31", "the window has closed"), never by a version number; picks are
# independent sealed choices.
UNVERSIONED_ACTIONS: frozenset[str] = frozenset({"claim", "counterclaim", "pass", "pick"})
# A pick is sealed (a receipt each: games/core/game/fairness.py) until both are in, or the picking
# time ends: the events that reveal them. A draft the picking time would seal (``draft_move``)
# gets its receipt when it is kept, revealed with the pick the clock made of it.
SEALED_ACTIONS: dict[str, tuple[str, ...]] = {"pick": ("round_started", "pick_time_up")}
CLOCK_OF_PHASE = {
    "claim": "round",
    "counterclaim": "claim_window",
    "proof": "proof",
    "second_starter": "proof",
    "pick": "pick",
}
ROUND_PHASES = ("claim", "counterclaim", "proof", "second_starter")


# --- settings ----------------------------------------------------------------------------------


DAY = 86400  # an online season's rounds may last a day


def _offered(kind: str) -> Setting:
    return Setting(
        f"offered_{kind}s",
        f"Round 1 {kind}s (when you choose)",
        [],
        choices=tuple((name, name) for name in CHOICES[kind]),
    )


SETTINGS = (
    Setting(
        "first_offer",
        "Round 1 powerups",
        "random",
        choices=(
            ("random", "One of each type, drawn at random"),
            ("chosen", "I choose the set offered for each type"),
        ),
    ),
    *(_offered(kind) for kind in TYPES),
    Setting("claim_window_seconds", "Counterclaim window (seconds)", 30, low=5, high=DAY),
    Setting("proof_seconds", "Proof time (seconds)", 120, low=10, high=DAY),
    Setting(
        "round_seconds",
        "Round clock (seconds)",
        600,
        low=30,
        high=7 * DAY,
        help="No claim before it runs out: the round goes to the player chosen below.",
    ),
    Setting(
        "pick_seconds",
        "Powerup picking time (seconds)",
        60,
        low=10,
        high=DAY,
        help="A player who has not picked in time gets a random allowed powerup.",
    ),
    Setting(
        "no_claim_round_to",
        "A round with no claim goes to",
        "DMO",
        choices=(("DMO", "the DMO (Death Match Opponent)"), ("EC", "the EC")),
    ),
)
"""A match's settings (see docs/rules/bejeweled-death-match.md): the form, defaults, checks."""


def check_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """A host who chooses round 1's powerups offers at least one of each type."""
    if settings["first_offer"] == "chosen":
        for kind in TYPES:
            if not settings[f"offered_{kind}s"]:
                raise ValueError(
                    f"offered_{kind}s: choose at least one {kind} for round 1, or let round 1 "
                    "be drawn at random"
                )
    return settings


def first_offer(settings: dict[str, Any], state: State) -> dict[str, list[str]]:
    """Round 1's offer: one random powerup of each type, or the host's chosen sets."""
    if settings["first_offer"] == "chosen":
        return {
            kind: [name for name in CHOICES[kind] if name in settings[f"offered_{kind}s"]]
            for kind in TYPES
        }
    return {kind: [draw(state, CHOICES[kind])] for kind in TYPES}


# --- the match's start -------------------------------------------------------------------------


def start(settings: dict[str, Any], seats: list[SeatInfo], seed: int, now: datetime) -> Outcome:
    settings = settled(SETTINGS, settings, check_settings)
    dmo = dmo_seat(seats)
    ec = opponent(dmo)
    no_claim_to = ec if settings["no_claim_round_to"] == "EC" else dmo
    state: State = {
        "seed": seed,
        "draws": 0,
        "seats": seats_kept(seats),
        "dmo": dmo,
        "no_claim_to": no_claim_to,
        "timers": {key: int(settings[f"{key}_seconds"]) for key in TIMERS},
        "round": 1,
        "score": [0, 0],
        "phase": "claim",
        "board": engine.format_board(engine.generate_board(derived_seed(seed, "board", 1))),
        "offer": {},
        "claim": None,
        "counterclaim": None,
        "prover": None,
        "pending": None,
        "last": None,
        "history": [],
        "picks": None,
        "allowed": None,
        "carry": None,
        "winner": None,
        "deadlines": {},
    }
    state["offer"] = first_offer(settings, state)
    start_clock(state, "round", now)
    public = {"round": 1, "offer": state["offer"], "board": state["board"]}
    return Outcome(state=state, kind="started", public=public)


# --- clocks ------------------------------------------------------------------------------------


def _time_up(
    state: State, key: str, now: datetime, drafts: dict[int, dict[str, Any]] | None = None
) -> Outcome:
    phase = state["phase"]
    if phase == "claim":
        return end_round(state, state["no_claim_to"], "no_claim", now, kind="round_over")
    if phase == "counterclaim":
        new = to_proof(state, now)
        return Outcome(state=new, kind="claim_window_closed", public={"prover": new["prover"]})
    if phase == "proof":
        return end_round(state, opponent(state["prover"]), "no_proof", now)
    if phase == "second_starter":
        return finish_pending(state, now)
    new, drawn, sealed = seal_picks(state, drafts or {})
    outcome = start_next_round(new, now, kind="pick_time_up", drawn=drawn)
    outcome.drafts_sealed = tuple(sealed)
    if sealed:
        outcome.public["sealed_drafts"] = sealed
    return outcome


timeout = on_running_clock(CLOCK_OF_PHASE, _time_up)


# --- the host ----------------------------------------------------------------------------------


def adjudicate(state: State, award: dict[str, Any], now: datetime) -> Outcome:
    winner = award.get("winner")
    scope = award.get("scope", "match")
    if winner not in (0, 1) or isinstance(winner, bool):
        raise ActionError("the winner is seat 0 or seat 1", code="bad_award")
    if scope not in ("round", "match"):
        raise ActionError("the scope is 'round' or 'match'", code="bad_award")
    if state["phase"] == "over":
        raise ActionError("the match is already over", code="match_over")
    if scope == "match":
        new = copy_json(state)
        new["phase"] = "over"
        new["winner"] = winner
        new["deadlines"] = {}
        new["pending"] = None
        new["carry"] = state["carry"] or state["board"]
        new["awarded"] = True
        result = {"winner": winner, "score": list(new["score"]), "garnets": GARNETS}
        public = {"scope": "match", "winner": winner, "score": list(new["score"])}
        prizes = {winner: {"garnets": GARNETS}}
        return Outcome(state=new, kind="adjudicated", public=public, result=result, prizes=prizes)
    if state["phase"] not in ROUND_PHASES:
        raise ActionError(
            "no round is being played (the players are picking powerups); award the next "
            "round once it starts, or award the match",
            code="no_round",
        )
    outcome = end_round(state, winner, "adjudicated", now, kind="adjudicated")
    outcome.public["scope"] = "round"
    return outcome


# --- the optimum of each played round, found by the exact solver after the round --------------


def analysis_job(state: State) -> dict[str, Any] | None:
    """The first played round whose optimum is not yet known: its board and offer."""
    for entry in state.get("history", []):
        if "optimum" not in entry and "start_board" in entry:
            return {"round": entry["round"], "board": entry["start_board"], "offer": entry["offer"]}
    return None


def run_analysis(job: dict[str, Any]) -> dict[str, Any]:
    """The round's best count and a proof of it, with its steps to animate (slow: the solver)."""
    return bot.analysed_round(job["board"], job["offer"])


def record_analysis(state: State, job: dict[str, Any], result: dict[str, Any]) -> Outcome:
    """The optimum kept with its round (and the last round's animation), public to all."""
    new = copy_json(state)
    for entry in new["history"]:
        if entry["round"] == job["round"]:
            entry["optimum"] = {"count": result["count"], "proof": result["proof"]}
    public = {"round": job["round"], "count": result["count"], "proof": result["proof"]}
    if new.get("last") and new["last"]["round"] == job["round"]:
        new["last"]["optimum"] = result
        # The view's optimum_steps refer to these.
        public["steps"] = compact_steps(new["last"]["start_board"], result["steps"])
    return Outcome(state=new, kind="optimum_found", public=public)


ACTIONS = {
    "claim": claim,
    "counterclaim": counterclaim,
    "pass": pass_,
    "proof": proof,
    "second_starter": second_starter,
    "skip_second_starter": skip_second_starter,
    "pick": pick,
}


act = dispatcher(ACTIONS)
