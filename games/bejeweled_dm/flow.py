"""The phase machine of a Bejeweled death match, as pure functions over JSON state.

No Django and no IO: every function takes the state (never mutated), the acting seat and the time,
and returns an Outcome or raises ActionError. What each viewer may see is decided in view.py
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
from games.bejeweled_dm.steps import compact_steps
from games.core.game.contract import Setting, settled
from games.core.game.flowkit import (
    check_clock,
    copy_json,
    derived_seed,
    dispatcher,
    dmo_seat,
    draw,
    on_running_clock,
    seats_kept,
    set_clock,
)
from games.core.game.gamedef import ActionError, Outcome, SeatInfo, State

WINS_NEEDED = 4
MAX_ROUNDS = 2 * WINS_NEEDED - 1
GARNETS = 5
MAX_CLAIM = engine.SIZE

TYPES = ("starter", "passive", "active")
CHOICES = {"starter": engine.STARTERS, "passive": engine.PASSIVES, "active": engine.ACTIVES}
TYPE_LABELS = {"starter": "Starter", "passive": "Passive", "active": "Active"}

TIMERS = {"round": 600, "claim_window": 30, "proof": 120, "pick": 60}
# A claim race is decided by arrival, and a late counterclaim or pass is answered by the rules
# ("Bob already claimed 31", "the window has closed"), never by a version number; picks are
# independent sealed choices.
UNVERSIONED_ACTIONS: frozenset[str] = frozenset({"claim", "counterclaim", "pass", "pick"})
# A pick is sealed (a receipt each: games/core/game/fairness.py) until both are in, or the picking
# time ends: the events that reveal them.
SEALED_ACTIONS: dict[str, tuple[str, ...]] = {"pick": ("round_started", "pick_time_up")}
CLOCK_OF_PHASE = {
    "claim": "round",
    "counterclaim": "claim_window",
    "proof": "proof",
    "second_starter": "proof",
    "pick": "pick",
}
ROUND_PHASES = ("claim", "counterclaim", "proof", "second_starter")

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


# --- small helpers -----------------------------------------------------------------------------


def _start_clock(state: State, key: str, now: datetime, *, after_ms: int = 0) -> None:
    """Run the phase's one clock ``key`` for its setting, starting ``after_ms`` from ``now``;
    the clock of the phase before stops."""
    state["deadlines"] = {}
    set_clock(state, key, now, state["timers"][key] + after_ms / 1000)


def _name(state: State, seat: int) -> str:
    return state["seats"][seat]["name"]


def _other(seat: int) -> int:
    return 1 - seat


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


# --- who may do what: the one place; the view and every refusal read it ------------------------


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


def _check_open(state: State, seat: int, kind: str) -> None:
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
                f"{_name(state, standing['seat'])} already claimed {standing['count']}; "
                "counterclaim a higher number or pass"
            )
        raise ActionError(message, code="claim_exists")
    if kind in ("counterclaim", "pass") and phase == "counterclaim":
        raise ActionError(
            f"you made the claim; only your opponent may {DOING[kind]}", code="own_claim"
        )
    if kind in ("claim", "counterclaim", "pass") and phase in ("proof", "second_starter"):
        prover = _name(state, state["prover"])
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
            raise ActionError(
                f"only {_name(state, state['prover'])}, who claimed {holder['count']}, shows proof",
                code="not_prover",
            )
        if kind == "proof":
            raise ActionError(
                "Refresh went off: send only the second starter use (or end the turn)",
                code="wrong_phase",
            )
    raise ActionError(f"you cannot {DOING[kind]} now: {PHASE_REASONS[phase]}", code="wrong_phase")


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


def target(state: State) -> dict[str, int] | None:
    """The claim the proof must reach: the counterclaim if there is one, else the claim."""
    return state.get("counterclaim") or state.get("claim")


def allowed_picks(used: dict[str, str] | None) -> dict[str, list[str]]:
    """Per type, the powerups a player may pick: any not used in the proof just made."""
    return {
        kind: [name for name in CHOICES[kind] if not used or name != used[kind]] for kind in TYPES
    }


# --- the match's start -------------------------------------------------------------------------


# --- settings ------------------------------------------------------------------------------------


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


def start(settings: dict[str, Any], seats: list[SeatInfo], seed: int, now: datetime) -> Outcome:
    settings = settled(SETTINGS, settings, check_settings)
    dmo = dmo_seat(seats)
    ec = _other(dmo)
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
    _start_clock(state, "round", now)
    public = {"round": 1, "offer": state["offer"], "board": state["board"]}
    return Outcome(state=state, kind="started", public=public)


# --- claims ------------------------------------------------------------------------------------


def claim(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    _check_open(state, seat, "claim")
    _optional_round(state, action)
    check_clock(state, "round", now, "the round clock ran out before your claim")
    count = _whole_number(action, "count")
    new = copy_json(state)
    new["claim"] = {"seat": seat, "count": count, "name": _name(state, seat)}
    new["phase"] = "counterclaim"
    _start_clock(new, "claim_window", now)
    return Outcome(state=new, kind="claimed", public={"seat": seat, "count": count})


def counterclaim(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    _check_open(state, seat, "counterclaim")
    _optional_round(state, action)
    standing = state["claim"]
    check_clock(state, "claim_window", now, "the 30 seconds to counterclaim are over")
    count = _whole_number(action, "count")
    if count <= standing["count"]:
        raise ActionError(
            f"a counterclaim must be higher than {standing['count']}", code="not_higher"
        )
    new = copy_json(state)
    new["counterclaim"] = {"seat": seat, "count": count, "name": _name(state, seat)}
    new["prover"] = seat
    new["phase"] = "proof"
    _start_clock(new, "proof", now)
    return Outcome(
        state=new, kind="counterclaimed", public={"seat": seat, "count": count, "prover": seat}
    )


def pass_(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    _check_open(state, seat, "pass")
    _optional_round(state, action)
    check_clock(state, "claim_window", now, "the counterclaim window already closed")
    new = _to_proof(state, now)
    return Outcome(state=new, kind="passed", public={"seat": seat, "prover": new["prover"]})


def _to_proof(state: State, now: datetime) -> State:
    new = copy_json(state)
    new["prover"] = state["claim"]["seat"]
    new["phase"] = "proof"
    _start_clock(new, "proof", now)
    return new


# --- proofs ------------------------------------------------------------------------------------


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
    _check_open(state, seat, "proof")
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
    _check_open(state, seat, "second_starter")
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
    _check_open(state, seat, "skip_second_starter")
    check_clock(state, "proof", now, "the proof time is over")
    return _finish_pending(state, now)


def _finish_pending(state: State, now: datetime) -> Outcome:
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
    winner = prover if reached else _other(prover)
    parsed = engine.parse_proof(turn["proof"])
    used = {"starter": parsed.starter, "passive": parsed.passive, "active": parsed.active}
    return end_round(
        state, winner, "proved" if reached else "fell_short", now, turn=turn, used=used
    )


# --- the end of a round and the picks ------------------------------------------------------------

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
        _start_clock(new, "pick", now, after_ms=animation_ms(new["last"]["steps"]))
    prizes = {winner: {"garnets": GARNETS}} if result is not None else {}
    return Outcome(state=new, kind=kind, public=public, result=result, prizes=prizes)


def pick(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    _check_open(state, seat, "pick")
    check_clock(state, "pick", now, "the picking time is over")
    chosen: dict[str, str] = {}
    for kind in TYPES:
        name = action.get(kind)
        allowed = state["allowed"][kind]
        if not isinstance(name, str) or name not in allowed:
            shown = "nothing" if name in (None, "") else repr(name)
            raise ActionError(
                f"pick a {kind} powerup from {', '.join(allowed)} (you sent {shown})",
                code="bad_pick",
            )
        chosen[kind] = name
    new = copy_json(state)
    # A changed pick is its seat's and the host's to know (games/core: Event.kept_from).
    replaced = bool(new["picks"].get(str(seat)))
    new["picks"][str(seat)] = chosen
    if all(new["picks"].values()):
        return start_next_round(new, now, kind="round_started", seat=seat)
    return Outcome(
        state=new,
        kind="picked",
        public={"seat": seat, "picked": True},
        private={seat: {"pick": chosen, "replaced": replaced}},
    )


def complete_pick(state: State, chosen: Any) -> dict[str, str] | None:
    """``chosen`` as a pick if it names an allowed powerup of every type, else None."""
    if not isinstance(chosen, dict):
        return None
    if all(chosen.get(kind) in state["allowed"][kind] for kind in TYPES):
        return {kind: chosen[kind] for kind in TYPES}
    return None


def clean_draft(state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
    """The powerups a seat has ticked but not sent, ``{"pick": {type: name}}`` (any types so
    far), kept as ``{"round": n, "pick": {...}}``; a draft naming another round is refused (it
    would be sealed as this round's pick). Only the pick phase has drafts."""
    if state.get("phase") != "pick":
        raise ActionError("only powerup picks are kept as drafts", code="no_draft")
    if set(draft) - {"round", "pick"} or not isinstance(draft.get("pick"), dict):
        raise ActionError("a draft is {'pick': {type: powerup}}", code="bad_draft")
    if "round" in draft:
        meant = draft["round"]
        if not isinstance(meant, int) or isinstance(meant, bool):
            raise ActionError("a draft's round is a round number", code="bad_draft")
        if meant != state["round"]:
            raise ActionError(
                f"that pick was for round {meant}; round {state['round']} is being picked",
                code="wrong_round",
            )
    ticked = draft["pick"]
    if set(ticked) - set(TYPES):
        raise ActionError(f"the powerup types are {', '.join(TYPES)}", code="bad_draft")
    for kind, name in ticked.items():
        if name not in state["allowed"][kind]:
            raise ActionError(
                f"pick a {kind} powerup from {', '.join(state['allowed'][kind])}",
                code="bad_pick",
            )
    return {"round": state["round"], "pick": {k: ticked[k] for k in TYPES if k in ticked}}


def seal_picks(
    state: State, drafts: dict[int, dict[str, Any]]
) -> tuple[State, dict[str, dict[str, str]], list[int]]:
    """At the end of the picking time, every missing pick is the seat's draft when the draft
    names a powerup of every type for this round (sealed as sent), else a random allowed one.
    Returns the new state, the random picks drawn and the seats whose drafts were sealed."""
    new = copy_json(state)
    drawn: dict[str, dict[str, str]] = {}
    sealed: list[int] = []
    for key, chosen in new["picks"].items():
        if chosen is not None:
            continue
        draft = drafts.get(int(key)) or {}
        drafted = None
        if draft.get("round") == new["round"]:
            drafted = complete_pick(new, draft.get("pick"))
        if drafted is not None:
            new["picks"][key] = drafted
            sealed.append(int(key))
        else:
            new["picks"][key] = {kind: draw(new, new["allowed"][kind]) for kind in TYPES}
            drawn[key] = new["picks"][key]
    return new, drawn, sealed


def start_next_round(
    state: State,
    now: datetime,
    *,
    kind: str,
    seat: int | None = None,
    drawn: dict[str, dict[str, str]] | None = None,
) -> Outcome:
    """Both picks are in (``state`` is already a private copy): make the offer, refill the
    rocks of the carried-over board, start the round clock."""
    picks = state["picks"]
    offer = {
        kind_: [name for name in CHOICES[kind_] if name in {p[kind_] for p in picks.values()}]
        for kind_ in TYPES
    }
    state["history"][-1]["picks"] = picks
    if drawn:
        state["history"][-1]["random_picks"] = sorted(drawn)
    state["round"] += 1
    carried = engine.parse_board(state["carry"])
    refilled = engine.refill_rocks(carried, derived_seed(state["seed"], "refill", state["round"]))
    state.update(
        board=engine.format_board(refilled),
        offer=offer,
        phase="claim",
        claim=None,
        counterclaim=None,
        prover=None,
        pending=None,
        picks=None,
        allowed=None,
        carry=None,
    )
    _start_clock(state, "round", now)
    public: dict[str, Any] = {
        "round": state["round"],
        "picks": picks,
        "offer": offer,
        "board": state["board"],
    }
    if seat is not None:
        public["seat"] = seat
    if drawn:
        public["random_picks"] = {key: value for key, value in drawn.items()}
    return Outcome(state=state, kind=kind, public=public)


# --- clocks ------------------------------------------------------------------------------------


def _time_up(
    state: State, key: str, now: datetime, drafts: dict[int, dict[str, Any]] | None = None
) -> Outcome:
    phase = state["phase"]
    if phase == "claim":
        return end_round(state, state["no_claim_to"], "no_claim", now, kind="round_over")
    if phase == "counterclaim":
        new = _to_proof(state, now)
        return Outcome(state=new, kind="claim_window_closed", public={"prover": new["prover"]})
    if phase == "proof":
        return end_round(state, _other(state["prover"]), "no_proof", now)
    if phase == "second_starter":
        return _finish_pending(state, now)
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
