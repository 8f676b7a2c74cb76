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

The flow's parts, each pure: what a submission or a draft may hold (submissions.py), what
premoves cost and give back (premoves.py), the end of the match (ending.py) and the seats
(seats.py). The declarations the core reads (games/core/game/flowcontract.py) are all found here.
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
from games.seven_gem_swap.ending import finish
from games.seven_gem_swap.premoves import action_cost as action_cost
from games.seven_gem_swap.premoves import (
    premove_charge,
    premove_price,
    refunds_on_abort,
    with_prize,
)
from games.seven_gem_swap.seats import check_seat, player_name, seat_key, seat_keys
from games.seven_gem_swap.submissions import clean_draft as clean_draft
from games.seven_gem_swap.submissions import clean_submission

GAME = "seven-gem-swap"
ROUNDS = 8
MIN_SEATS = 2
MAX_SEATS = len(engine.COLOURS)
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
    key = check_seat(state, seat)
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
    absent = [k for k in seat_keys(state) if k not in state["bids"]]
    details = engine.allocation_details(bids, derived_seed(state["seed"], "colours"), absent=absent)
    state["allocation"] = details
    state["colours"] = {k: details[k]["colour"] for k in seat_keys(state)}
    state["scores"] = {k: details[k]["score"] for k in seat_keys(state)}
    state["starting_scores"] = dict(state["scores"])
    state["played"] = {k: [] for k in seat_keys(state)}
    state["premoves"] = {k: 0 for k in seat_keys(state)}
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
        int(k): {"bid": state["bids"].get(k), "by": details[k]["by"]} for k in seat_keys(state)
    }
    return Outcome(state=state, kind=kind, public=public, private=private)


# --- rounds --------------------------------------------------------------------------------------


def submit(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    """A sealed round submission: ``{"type": "submit", "gem": "C4", "moves": "UURD", "card": "R",
    "premove": false}`` (``card`` from round 2; an optional ``round`` must be the current one).
    May be replaced until everyone has submitted or the round clock ends."""
    key = check_seat(state, seat)
    _phase(state, "round", "submit a sequence")
    check_clock(state, "round", now, f"round {state['round']} is closed")
    meant = action.get("round")
    if meant is not None and meant != state["round"]:
        raise ActionError(
            f"that submission was for round {meant}; round {state['round']} is being played now",
            code="wrong_round",
        )
    cleaned = clean_submission(state, key, action)
    charge = premove_charge(state, key, cleaned["premove"])
    new = copy_json(state)
    replaced = key in new["submissions"]
    new["submissions"][key] = cleaned
    if len(new["submissions"]) == len(new["seats"]):
        outcome = resolve(new, now, kind="round_resolved", last=seat)
        return with_prize(outcome, seat, charge, state["round"])
    price = premove_price(new["premoves"][key]) if cleaned["premove"] else 0
    return Outcome(
        state=new,
        kind="submitted",
        public={"seat": seat, "submitted": sorted(int(k) for k in new["submissions"])},
        private={seat: {"submission": cleaned, "replaced": replaced, "premove_price": price}},
        prizes={seat: charge} if charge else {},
    )


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
    for key in seat_keys(state):
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
    if last is not None and seat_key(last) in subs:
        private.setdefault(last, {})["submission"] = subs[seat_key(last)]
    out_public = dict(public)
    if last is not None:
        out_public["seat"] = last
    if round_number >= ROUNDS:
        return finish(state, now, kind=kind, public=out_public, private=private)
    state["round"] = round_number + 1
    _start_phase(state, "round", now)
    out_public["next_round"] = state["round"]
    return Outcome(state=state, kind=kind, public=out_public, private=private)


# --- a round's groups ---------------------------------------------------------------------------


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
    seats = seat_keys(state)
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
            names = ", ".join(f"{s} ({player_name(state, s)})" for s in tied)
            raise ActionError(f"choose one of the tied seats: {names}", code="bad_award")
        new = copy_json(state)
        new["result"]["elimination_candidate"] = seat
        new["result"]["ec_tied"] = []
        new["result"]["summary"] += f" The host named {player_name(state, seat)}."
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
    outcome = finish(
        new, now, kind="adjudicated", public={"winner": winner}, winner_by_host=str(winner)
    )
    for seat, refund in refunds_on_abort(state).items():
        with_prize(outcome, seat, refund, state["round"])
    return outcome


ACTIONS = {"bid": bid, "submit": submit}


act = dispatcher(ACTIONS)
