"""The phase machine of a Seven Gem Swap match, as pure functions over JSON state.

No Django and no IO: every function takes the state (never mutated), the acting seat and the time,
and returns an Outcome or raises ActionError. The lead wires these into a GameDefinition.

Phases (``state["phase"]``):

- ``bidding``: each seat sends a sealed bid (points, three ranked colours) before
  ``deadlines["bidding"]``; a bid may be replaced until all are in or the clock ends. Then the
  colours are allocated (``engine.allocate_colours``) and round 1 starts.
- ``round``: each seat sends a sealed submission (gem, moves, card from round 2, premove) before
  ``deadlines["round"]``; it may be replaced until all are in or the clock ends. Then the round
  resolves (``engine.resolve_round``), is scored, and the next round starts; after round 8 the
  match is over.
- ``over``: the result stands; the host may still name the Elimination Candidate when the lowest
  total is shared.

Secrets live in ``state["bids"]``, ``state["submissions"]``, ``state["premoves"]`` and each
history entry's ``"secret"`` part; ``view`` (view.py) is the only gate and shows them to their
own seat and to the host alone. What the page draws from a view is in page.py, what a sequence
would do alone (a draft's preview) in preview.py.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from games.core.game.contract import Setting, settled
from games.core.game.flowkit import (
    check_clock,
    copy_json,
    derived_seed,
    dispatcher,
    due,
    iso,
    on_running_clock,
    set_clock,
)
from games.core.game.gamedef import ActionError, Outcome, SeatInfo, State
from games.seven_gem_swap import engine
from games.seven_gem_swap.preview import sequence_preview

GAME = "seven-gem-swap"
ROUNDS = 8
MIN_SEATS = 2
MAX_SEATS = len(engine.COLOURS)
PREMOVE_FIRST_PRICE = 2
TOP_TOKENS = 2
MIN_SECONDS = 10
MAX_SECONDS = 30 * 86400

UNVERSIONED_ACTIONS: frozenset[str] = frozenset({"bid", "submit"})
# Sealed moves get receipts (games/core/game/fairness.py). No one else ever sees another player's
# bid or sequence, during or after the match (docs/rules/seven-gem-swap.md, the rulings): no
# event reveals them, and their receipts stay sealed for good (each player's page checks its
# own; the host's export replays the whole match).
SEALED_ACTIONS: dict[str, tuple[str, ...]] = {"bid": (), "submit": ()}
SEALED_FOR_GOOD = ("bid", "submit")

NO_CARD_SCORES = ("own_colour", "nothing")
CLOCK_OF_PHASE = {"bidding": "bidding", "round": "round"}
# What the host's "End the round" ends in each phase: its clock runs out now.
END_ROUND = {
    "bidding": "the bidding now, with the bids sent so far",
    "round": "round {round} now, with the sequences sent so far",
}


# --- settings ------------------------------------------------------------------------------------


def _pasted_grid(value: str) -> str:
    """The host's grid as kept ("" for a random grid), checked by the engine."""
    if not value.strip():
        return ""
    try:
        return engine.format_board(engine.check_standard(engine.parse_board(value)))
    except ValueError as error:
        raise ValueError(f"board: {error}") from None


SETTINGS = (
    Setting("bid_seconds", "Bidding clock (seconds)", 86400, low=MIN_SECONDS, high=MAX_SECONDS),
    Setting(
        "round_seconds", "Each round's clock (seconds)", 86400, low=MIN_SECONDS, high=MAX_SECONDS
    ),
    Setting(
        "no_card_scores",
        "A player who sends nothing in a round (from round 2) scores",
        "own_colour",
        choices=(
            ("own_colour", "their own colour's largest group (x1), keeping their cards"),
            ("nothing", "nothing that round"),
        ),
    ),
    Setting(
        "board",
        "Grid (optional)",
        "",
        lines=10,
        help="Paste 10 lines of 10 cells (R O Y G B I V, # for a rock): 10 gems of each colour "
        "and 30 rocks. Empty: a random grid.",
        check=_pasted_grid,
    ),
)
"""A match's settings (see docs/rules/seven-gem-swap.md): the form, defaults and checks."""


# --- small helpers -------------------------------------------------------------------------------


def _key(seat: int) -> str:
    return str(seat)


def _seat_keys(state: State) -> list[str]:
    return [_key(s["index"]) for s in state["seats"]]


def _name(state: State, seat: int | str) -> str:
    for entry in state["seats"]:
        if _key(entry["index"]) == str(seat):
            return entry["name"]
    return f"seat {seat}"


def _check_seat(state: State, seat: int) -> str:
    key = _key(seat) if isinstance(seat, int) and not isinstance(seat, bool) else None
    if key is None or key not in _seat_keys(state):
        raise ActionError("you are not seated in this match", code="not_seated")
    return key


def _phase(state: State, wanted: str, doing: str) -> None:
    phase = state["phase"]
    if phase == wanted:
        return
    reasons = {
        "bidding": "the players are still bidding for their colours",
        "round": f"round {state['round']} is being played",
        "over": "the match is over",
    }
    raise ActionError(f"you cannot {doing} now: {reasons[phase]}", code="wrong_phase")


def premove_price(used: int) -> int:
    """What a premove costs a player who has already used ``used`` of them in this match:
    2 garnets, doubling with each use (2, 4, 8, ...)."""
    return PREMOVE_FIRST_PRICE * 2**used


def _start_phase(state: State, phase: str, now: datetime) -> None:
    state["phase"] = phase
    state["phase_started"] = iso(now)
    clock = CLOCK_OF_PHASE[phase]
    state["deadlines"] = {}
    set_clock(state, clock, now, state["timers"][clock])


# --- the match's start ---------------------------------------------------------------------------


def start(settings: dict[str, Any], seats: list[SeatInfo], seed: int, now: datetime) -> Outcome:
    """A new match: the grid is revealed and the bidding for colours opens."""
    settings = settled(SETTINGS, settings)
    if not MIN_SEATS <= len(seats) <= MAX_SEATS:
        raise ValueError(f"Seven Gem Swap is played by {MIN_SEATS} to {MAX_SEATS} players")
    if settings["board"]:
        board = settings["board"]
    else:
        board = engine.format_board(engine.generate_board(derived_seed(seed, "board")))
    state: State = {
        "game": GAME,
        "seed": seed,
        "draws": 0,
        "seats": [{"index": s.index, "name": s.name, "is_bot": s.is_bot} for s in seats],
        "timers": {"bidding": settings["bid_seconds"], "round": settings["round_seconds"]},
        "no_card_scores": settings["no_card_scores"],
        "board_source": "host" if settings["board"] else "generated",
        "starting_board": board,
        "board": board,
        "phase": "bidding",
        "phase_started": iso(now),
        "round": 0,
        "bids": {},
        "allocation": None,
        "colours": {},
        "scores": {},
        "played": {},
        "submissions": {},
        "premoves": {},
        "history": [],
        "result": None,
        "elimination_candidate": None,
        "deadlines": {},
    }
    _start_phase(state, "bidding", now)
    public = {"board": board, "seats": len(seats), "deadline": state["deadlines"]["bidding"]}
    return Outcome(state=state, kind="started", public=public)


# --- bidding -------------------------------------------------------------------------------------


def bid(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """A sealed bid: ``{"type": "bid", "bid": -5, "colours": "RGB"}``; may be replaced."""
    key = _check_seat(state, seat)
    _phase(state, "bidding", "bid")
    check_clock(state, "bidding", now, "the bidding is closed")
    points = action.get("bid")
    if isinstance(points, str) and points.strip().lstrip("-").isdigit():
        points = int(points.strip())
    try:
        points, colours = engine.parse_bid(points, action.get("colours"))
    except ValueError as error:
        raise ActionError(str(error), code="bad_bid") from None
    new = copy_json(state)
    replaced = key in new["bids"]
    new["bids"][key] = {"bid": points, "colours": colours}
    if len(new["bids"]) == len(new["seats"]):
        return _allocate(new, now, kind="colours_allocated", last=seat)
    return Outcome(
        state=new,
        kind="bid_received",
        public={"seat": seat, "bids_in": sorted(int(k) for k in new["bids"])},
        private={seat: {"bid": new["bids"][key], "replaced": replaced}},
    )


def _allocate(state: State, now: datetime, *, kind: str, last: int | None = None) -> Outcome:
    """All bids are in or the clock ended (``state`` is already a private copy)."""
    bids = {k: (v["bid"], v["colours"]) for k, v in state["bids"].items()}
    absent = [k for k in _seat_keys(state) if k not in state["bids"]]
    details = engine.allocation_details(bids, derived_seed(state["seed"], "colours"), absent=absent)
    state["allocation"] = details
    state["colours"] = {k: details[k]["colour"] for k in _seat_keys(state)}
    state["scores"] = {k: details[k]["score"] for k in _seat_keys(state)}
    state["starting_scores"] = dict(state["scores"])
    state["played"] = {k: [] for k in _seat_keys(state)}
    state["premoves"] = {k: 0 for k in _seat_keys(state)}
    state["no_bid"] = absent
    state["round"] = 1
    state["submissions"] = {}
    _start_phase(state, "round", now)
    public: dict[str, Any] = {
        "colours": state["colours"],
        "starting_scores": state["starting_scores"],
        "no_bid": absent,
        "round": 1,
    }
    if last is not None:
        public["seat"] = last
    private = {
        int(k): {"bid": state["bids"].get(k), "by": details[k]["by"]} for k in _seat_keys(state)
    }
    return Outcome(state=state, kind=kind, public=public, private=private)


# --- rounds --------------------------------------------------------------------------------------


def _own_gem(state: State, key: str, gem_text: object) -> str:
    """The cell of one of the seat's own gems on the grid as the round starts, or ActionError."""
    own = state["colours"][key]
    try:
        gem = engine.parse_cell(gem_text)
    except ValueError as error:
        raise ActionError(str(error), code="bad_gem") from None
    name = engine.cell_name(gem)
    held = engine.parse_board(state["board"]).cells[gem]
    if held != own:
        what = "a rock" if held == engine.ROCK else f"a {engine.COLOUR_NAMES[held]} gem"
        raise ActionError(
            f"{name} holds {what}; control one of your {engine.COLOUR_NAMES[own]} gems",
            code="not_your_gem",
        )
    return name


def _clean_submission(state: State, key: str, action: dict[str, Any]) -> dict[str, Any]:
    """Check a submission against the rules; the cleaned one or ActionError."""
    name = _own_gem(state, key, action.get("gem"))
    try:
        moves = engine.parse_moves(action.get("moves", ""))
    except ValueError as error:
        raise ActionError(str(error), code="bad_moves") from None
    premove = action.get("premove", False)
    if premove is None:
        premove = False
    if not isinstance(premove, bool):
        raise ActionError("premove is true or false", code="bad_premove")
    card = action.get("card")
    if isinstance(card, str):
        card = card.strip().upper() or None
    if state["round"] == 1:
        if card is not None:
            raise ActionError("no colour card is played in round 1", code="no_card_yet")
    else:
        if card is None:
            raise ActionError(
                f"play a colour card this round (one of {' '.join(_cards_left(state, key))})",
                code="card_needed",
            )
        if not isinstance(card, str) or card not in engine.COLOURS or len(card) != 1:
            raise ActionError(f"{card!r} is not a colour card; use R O Y G B I V", code="bad_card")
        if card in state["played"][key]:
            raise ActionError(
                f"you already played your {engine.COLOUR_NAMES[card]} card", code="card_played"
            )
    return {"gem": name, "moves": moves, "card": card, "premove": premove}


def _cards_left(state: State, key: str) -> list[str]:
    return [c for c in engine.COLOURS if c not in state["played"].get(key, [])]


def submit(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """A sealed round submission: ``{"type": "submit", "gem": "C4", "moves": "UURD", "card": "R",
    "premove": false}`` (``card`` from round 2; an optional ``round`` must be the current one).
    May be replaced until everyone has submitted or the round clock ends."""
    key = _check_seat(state, seat)
    _phase(state, "round", "submit a sequence")
    check_clock(state, "round", now, f"round {state['round']} is closed")
    meant = action.get("round")
    if meant is not None and meant != state["round"]:
        raise ActionError(
            f"that submission was for round {meant}; round {state['round']} is being played now",
            code="wrong_round",
        )
    cleaned = _clean_submission(state, key, action)
    charge = _premove_charge(state, key, cleaned["premove"])
    new = copy_json(state)
    replaced = key in new["submissions"]
    new["submissions"][key] = cleaned
    if len(new["submissions"]) == len(new["seats"]):
        outcome = resolve(new, now, kind="round_resolved", last=seat)
        return _with_prize(outcome, seat, charge, state["round"])
    price = premove_price(new["premoves"][key]) if cleaned["premove"] else 0
    return Outcome(
        state=new,
        kind="submitted",
        public={"seat": seat, "submitted": sorted(int(k) for k in new["submissions"])},
        private={seat: {"submission": cleaned, "replaced": replaced, "premove_price": price}},
        prizes={seat: charge} if charge else {},
    )


# --- premoves and the season ledger ---------------------------------------------------------------
# A premove is paid when its sealed submission is accepted (the core checks the price against the
# player's season ledger under its lock, and refuses it if it does not fit), given back when a
# replacement drops it or when the round never runs; the round's resolution charges nothing. The
# charge is a prize of the submission's event: only the seat and the host learn of it.


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


def _premove_charge(state: State, key: str, premove: bool) -> dict[str, Any]:
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


def _with_prize(outcome: Outcome, seat: int, prize: dict[str, Any], round_number: int) -> Outcome:
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


def resolve(state: State, now: datetime, *, kind: str, last: int | None = None) -> Outcome:
    """Play and score the current round (``state`` is already a private copy)."""
    round_number = state["round"]
    before = state["board"]
    subs = state["submissions"]
    result = engine.resolve_round(
        before, {k: (v["gem"], v["moves"], v["premove"]) for k, v in subs.items()}
    )
    after = engine.format_board(result.board)
    cards: dict[str, str | None] = {}
    points: dict[str, dict[str, int]] = {}
    prices: dict[str, int] = {}
    for key in _seat_keys(state):
        sub = subs.get(key)
        card = sub["card"] if sub else None
        cards[key] = card
        failed = bool(result.failed.get(key, False))
        own = state["colours"][key]
        if card is None and round_number >= 2 and state["no_card_scores"] == "nothing":
            points[key] = {
                "group": 0,
                "multiplier": 0,
                "penalty": int(failed),
                "points": -int(failed),
            }
        else:
            points[key] = engine.round_points(result.board, round_number, own, card, failed)
        state["scores"][key] += points[key]["points"]
        if card is not None:
            state["played"][key].append(card)
        if sub and sub["premove"]:  # paid when the submission was accepted
            prices[key] = premove_price(state["premoves"][key])
            state["premoves"][key] += 1
    public = {
        "round": round_number,
        "board_before": before,
        "board_after": after,
        "changed": engine.changed_cells(before, after),
        "submitted": sorted(int(k) for k in subs),
        "cards": cards,
        "points": points,
        "groups": scoring_cells(after, state["colours"], cards, points),
    }
    secret = {
        "submissions": copy_json(subs),
        "steps": result.steps,
        "failed": {k: result.failed[k] for k in subs},
        "made": {k: result.made[k] for k in subs},
        "positions": {k: result.positions[k] for k in subs},
        "premove_prices": prices,
    }
    state["history"].append({"round": round_number, "public": public, "secret": secret})
    state["board"] = after
    state["submissions"] = {}
    # Each seat's fate is in the public part (its points, a failure's penalty) and its own view
    # (its rounds: the sequence, the moves made); its sequence was told in its submission's event,
    # and the host's view draws every one. This event goes to the host with every seat's part:
    # it says only what no earlier event told: the sequence of the seat whose submission closed
    # the round (this is that submission's event), and each premove's price.
    private: dict[int, dict[str, Any]] = {int(k): {"premove_price": p} for k, p in prices.items()}
    if last is not None and _key(last) in subs:
        private.setdefault(last, {})["submission"] = subs[_key(last)]
    out_public = dict(public)
    if last is not None:
        out_public["seat"] = last
    if round_number >= ROUNDS:
        return _finish(state, now, kind=kind, public=out_public, private=private)
    state["round"] = round_number + 1
    _start_phase(state, "round", now)
    out_public["next_round"] = state["round"]
    return Outcome(state=state, kind=kind, public=out_public, private=private)


# --- the end -------------------------------------------------------------------------------------


def scoring_cells(
    board: str,
    colours: dict[str, str],
    cards: dict[str, str | None],
    points: dict[str, dict[str, int]],
) -> dict[str, list[str]]:
    """Where each player's points of a round came from, for the page to light up: the cells of
    the group that scored (the largest of their colour and their card's on the grid after the
    round), by seat; a seat whose round scored no group is left out. Public: the grid, the
    colours and the cards are. Said once, in the round's event."""
    groups = {}
    for key, scored in points.items():
        own = colours.get(key)
        if not scored["multiplier"] or not own:
            continue
        cells = engine.largest_group_cells(board, own + (cards.get(key) or ""))
        if cells:
            groups[key] = cells
    return groups


def _finish(
    state: State,
    now: datetime,
    *,
    kind: str,
    public: dict[str, Any],
    private: dict[int, dict[str, Any]] | None = None,
    winner_by_host: str | None = None,
) -> Outcome:
    """The match is over (``state`` is already a private copy): place the players."""
    totals = dict(state["scores"])
    placing = engine.final_placing(totals)
    tokens = placing["tokens"]
    if winner_by_host is not None:
        tokens = {k: (TOP_TOKENS if k == winner_by_host else 0) for k in totals}
        winner: int | None = int(winner_by_host)
    else:
        winner = int(placing["top"][0]) if len(placing["top"]) == 1 else None
    ec = placing["elimination_candidate"]
    ec_tied = placing["ec_tied"]
    if winner_by_host is not None:
        # The host's winner is never the Elimination Candidate: the lowest of the others is.
        others = {k: v for k, v in totals.items() if k != winner_by_host}
        lowest = engine.final_placing(others)
        ec, ec_tied = lowest["elimination_candidate"], lowest["ec_tied"]
        placing = {**placing, "ec_tied": ec_tied}
    result = {
        "winner": winner,
        "top": [int(k) for k in placing["top"]],
        "totals": totals,
        "tokens": tokens,
        "garnets": placing["garnets"],
        "elimination_candidate": int(ec) if ec is not None else None,
        "ec_tied": [int(k) for k in ec_tied],
        "summary": _summary(state, placing, winner, tokens, ec, winner_by_host is not None),
    }
    prizes = {
        int(k): {"garnets": placing["garnets"][k], "tokens": tokens[k]} for k in _seat_keys(state)
    }
    state["phase"] = "over"
    state["phase_started"] = iso(now)
    state["deadlines"] = {}
    state["result"] = result
    state["elimination_candidate"] = result["elimination_candidate"]
    public = {**public, "result": result}
    return Outcome(
        state=state,
        kind=kind,
        public=public,
        private=private or {},
        result={"winner": winner, "summary": result["summary"]},
        prizes=prizes,
    )


def _summary(
    state: State,
    placing: dict[str, Any],
    winner: int | None,
    tokens: dict[str, int],
    ec: str | None,
    by_host: bool,
) -> str:
    totals = state["scores"]
    if by_host and winner is not None:
        first = f"The host awarded the match to {_name(state, winner)}."
    elif winner is not None:
        first = (
            f"{_name(state, winner)} wins with {totals[str(winner)]} points and takes "
            f"{TOP_TOKENS} Tokens of Life."
        )
    else:
        names = " and ".join(_name(state, k) for k in placing["top"])
        share = "each take a Token of Life" if tokens[placing["top"][0]] else "share the top"
        first = f"{names} tie on {totals[placing['top'][0]]} points and {share}."
    if ec is not None:
        second = f" {_name(state, ec)} is the Elimination Candidate."
    else:
        names = " and ".join(_name(state, k) for k in placing["ec_tied"])
        second = f" {names} share the lowest total; the host names the Elimination Candidate."
    return first + second


# --- clocks --------------------------------------------------------------------------------------


def _time_up(
    state: State, key: str, now: datetime, drafts: dict[int, dict[str, Any]] | None = None
) -> Outcome:
    """The phase's clock ran out. Drafts are not used: a round takes only what was submitted."""
    phase = state["phase"]
    new = copy_json(state)
    if phase == "bidding":
        return _allocate(new, now, kind="bidding_closed")
    return resolve(new, now, kind="round_time_up")


timeout = on_running_clock(CLOCK_OF_PHASE, _time_up)


def extend_deadline(state: State, seconds: int, now: datetime) -> Outcome:
    """The host gives the running clock (the bidding's or the round's) ``seconds`` more."""
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds <= 0:
        raise ActionError("extend the deadline by a whole number of seconds", code="bad_seconds")
    if seconds > MAX_SECONDS:
        raise ActionError("extend the deadline by at most 30 days", code="bad_seconds")
    clock = CLOCK_OF_PHASE.get(state["phase"])
    if clock is None:
        raise ActionError("the match is over; there is no deadline to extend", code="match_over")
    when = due(state, clock)
    if when is None:
        raise ActionError("no deadline is running", code="no_clock")
    new = copy_json(state)
    new["deadlines"][clock] = iso(when + timedelta(seconds=seconds))
    public = {"clock": clock, "deadline": new["deadlines"][clock], "seconds": seconds}
    if new["phase"] == "round":
        public["round"] = new["round"]
    return Outcome(state=new, kind="deadline_extended", public=public)


# --- the host ------------------------------------------------------------------------------------


def adjudicate(state: State, award: dict[str, Any], now: datetime) -> Outcome:
    """The host settles: ``{"elimination_candidate": seat}`` names the Elimination Candidate
    among those sharing the lowest total once the match is over; ``{"winner": seat}`` ends the
    match now and gives that seat the 2 Tokens of Life (garnets by the totals so far)."""
    seats = _seat_keys(state)
    if "elimination_candidate" in award:
        seat = award["elimination_candidate"]
        if state["phase"] != "over":
            raise ActionError(
                "the Elimination Candidate is named once the match is over", code="not_over"
            )
        tied = state["result"]["ec_tied"]
        if not tied:
            raise ActionError("the lowest total is not shared; nothing to settle", code="no_tie")
        if seat not in tied or isinstance(seat, bool):
            names = ", ".join(f"{s} ({_name(state, s)})" for s in tied)
            raise ActionError(f"choose one of the tied seats: {names}", code="bad_award")
        new = copy_json(state)
        new["result"]["elimination_candidate"] = seat
        new["result"]["ec_tied"] = []
        new["result"]["summary"] += f" The host named {_name(state, seat)}."
        new["elimination_candidate"] = seat
        return Outcome(
            state=new,
            kind="ec_named",
            public={"elimination_candidate": seat},
            result=new["result"],  # the finished match's result, now naming the EC
        )
    winner = award.get("winner")
    if isinstance(winner, bool) or not isinstance(winner, int) or str(winner) not in seats:
        raise ActionError("the winner is one of the seats", code="bad_award")
    if state["phase"] == "over":
        raise ActionError("the match is already over", code="match_over")
    new = copy_json(state)
    if not new["scores"]:
        new["scores"] = {k: 0 for k in seats}
    new["submissions"] = {}
    outcome = _finish(
        new, now, kind="adjudicated", public={"winner": winner}, winner_by_host=str(winner)
    )
    for seat, refund in refunds_on_abort(state).items():
        _with_prize(outcome, seat, refund, state["round"])
    return outcome


ACTIONS = {"bid": bid, "submit": submit}


act = dispatcher(ACTIONS)


DRAFT_FIELDS = ("round", "gem", "moves", "card", "premove")


def clean_draft(state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
    """A submission being composed, kept only for its seat: ``gem``, ``moves``, ``card``,
    ``premove`` and ``round`` (so that a page never restores last round's draft), at least one
    of them, each checked as the submission checks it (an empty ``gem``, ``moves`` or ``card``
    is one not chosen yet); anything else refuses the draft, and a refused draft changes
    nothing. Once a round's gem is chosen the draft also keeps its ``preview``
    (``sequence_preview``): what the sequence would do if no one else moved, for its seat's
    page (and the host, who sees every draft). A deadline never plays a draft: only a sent
    submission counts."""
    key = _check_seat(state, seat)
    if not isinstance(draft, dict):
        raise ActionError("a draft is an object", code="bad_draft")
    unknown = sorted(str(field) for field in set(draft) - set(DRAFT_FIELDS))
    if unknown or not draft:
        said = f"{unknown[0]!r} is not part of one" if unknown else "this one holds nothing"
        raise ActionError(f"a draft holds {', '.join(DRAFT_FIELDS)}; {said}", code="bad_draft")
    composing = state.get("phase") == "round"
    cleaned: dict[str, Any] = {}
    meant = draft.get("round")
    if "round" in draft:
        if not isinstance(meant, int) or isinstance(meant, bool):
            raise ActionError("a draft's round is a round number", code="bad_draft")
        if meant != state.get("round"):
            raise ActionError(
                f"that draft was for round {meant}; round {state.get('round')} is being played",
                code="wrong_round",
            )
        cleaned["round"] = meant
    gem = _chosen(draft, "gem", "a gem is a cell name like C4")
    if gem:
        if composing:
            cleaned["gem"] = _own_gem(state, key, gem)
        else:
            try:
                cleaned["gem"] = engine.cell_name(engine.parse_cell(gem))
            except ValueError as error:
                raise ActionError(str(error), code="bad_gem") from None
    if "moves" in draft:
        try:
            moves = engine.parse_moves(draft["moves"])
        except ValueError as error:
            raise ActionError(str(error), code="bad_moves") from None
        if moves:
            cleaned["moves"] = moves
    card = _chosen(draft, "card", "a colour card is one of R O Y G B I V")
    if card:
        card = card.upper()
        if composing and state.get("round") == 1:
            raise ActionError("no colour card is played in round 1", code="no_card_yet")
        if card not in engine.COLOURS or len(card) != 1:
            raise ActionError(f"{card!r} is not a colour card; use R O Y G B I V", code="bad_card")
        if state.get("played") and card in state["played"].get(key, []):
            raise ActionError("that card is already played", code="card_played")
        cleaned["card"] = card
    if "premove" in draft:
        premove = draft["premove"]
        if premove is not None and not isinstance(premove, bool):
            raise ActionError("premove is true or false", code="bad_premove")
        cleaned["premove"] = bool(premove)
    if composing and "gem" in cleaned:
        cleaned["preview"] = sequence_preview(
            state, key, cleaned["gem"], cleaned.get("moves", ""), cleaned.get("card")
        )
    return cleaned


def _chosen(draft: dict[str, Any], field: str, what: str) -> str:
    """A draft's text field, stripped ("" when absent, empty or None: not chosen yet)."""
    value = draft.get(field)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ActionError(f"{what}, not {value!r}", code="bad_draft")
    return value.strip()
