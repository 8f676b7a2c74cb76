"""Premoves and the season ledger, through games.core.match.services with the ``clock`` fixture: a
premove is paid when its sealed submission is accepted (checked against the balance under the
player's ledger lock), given back when a replacement drops it, never charged unchecked when the
round resolves; its price stays between the seat and the host while the match is live. A seeded
random mix of premoves, host deductions, rounds, awards and corrections never leaves a balance
below zero, and the public standings are always the finished matches' entries plus the host's
adjustments."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from games.core.game.gamedef import ActionError, Viewer
from games.core.match import deadlines, host_operations, ledger, seating, services
from games.core.models import Event, LedgerEntry, Match, Season
from games.core.render.rendering import view_of
from games.seven_gem_swap import engine

pytestmark = pytest.mark.django_db

SETTINGS = {"bid_seconds": 120, "round_seconds": 120}


@pytest.fixture
def season():
    return Season.objects.create(name="Season 3", is_current=True)


@pytest.fixture
def host(make_user):
    return make_user("hostess")


def start_match(host, users) -> Match:
    """A Seven Gem Swap match of ``users`` in the current season, bids in, round 1 running."""
    match = seating.create_match(
        host=host, game_key="seven-gem-swap", title="Seven", settings=SETTINGS, roles=[""] * 2
    )
    for user, seat in zip(users, match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    for seat, user in enumerate(users):
        colours = engine.COLOURS[seat:] + engine.COLOURS[:seat]
        services.submit_action(match, user, {"type": "bid", "bid": 0, "colours": colours[:3]})
    return Match.objects.get(pk=match.pk)


@pytest.fixture
def ada_and_bob(make_user, host, season):
    """Ada (seat 0, holding 2 garnets) and Bob in round 1 of a live match."""
    ada, bob = make_user("ada"), make_user("bob")
    ledger.adjust(ada, season, garnets=2, tokens=0, reason="a start", actor=host)
    return start_match(host, [ada, bob]), ada, bob


def submission(match: Match, seat: int, premove: bool = False, moves: str = "") -> dict:
    match.refresh_from_db()
    state = match.state
    colour = state["colours"][str(seat)]
    gem = engine.cell_name(engine.parse_board(state["board"]).cells.index(colour))
    played = state["played"][str(seat)]
    card = None if state["round"] == 1 else next(c for c in engine.COLOURS if c not in played)
    return {"type": "submit", "gem": gem, "moves": moves, "card": card, "premove": premove}


def garnets(user, season) -> int:
    return LedgerEntry.balance(user, season)["garnets"]


def test_a_premove_is_paid_when_its_submission_is_accepted(ada_and_bob, season):
    match, ada, bob = ada_and_bob
    services.submit_action(match, ada, submission(match, 0, premove=True))
    charge = LedgerEntry.objects.get(user=ada, match=match)
    assert (charge.garnets, charge.reason, charge.made_by) == (-2, "premove in round 1", None)
    services.submit_action(match, bob, submission(match, 1))
    match.refresh_from_db()
    assert match.state["round"] == 2
    assert LedgerEntry.objects.filter(match=match).count() == 1  # the round charged nothing
    assert garnets(ada, season) == 0


def test_a_host_deduction_after_a_premove_cannot_take_the_player_below_zero(
    ada_and_bob, host, season, clock
):
    match, ada, _ = ada_and_bob
    services.submit_action(match, ada, submission(match, 0, premove=True))
    with pytest.raises(ActionError) as refused:
        ledger.adjust(ada, season, garnets=-1, tokens=0, reason="late fee", actor=host)
    assert refused.value.code == "below_zero"
    clock.advance(121)
    assert deadlines.fire_due_deadlines() == 1  # the round resolves with the premove
    assert garnets(ada, season) == 0
    assert all(row["garnets"] >= 0 for row in season.standings())


def test_a_premove_that_no_longer_fits_is_refused_with_the_price_and_the_balance(
    ada_and_bob, host, season, make_user
):
    match, ada, bob = ada_and_bob
    other = start_match(host, [ada, make_user("cy")])
    services.submit_action(other, ada, submission(other, 0, premove=True))
    version = Match.objects.get(pk=match.pk).version
    with pytest.raises(ActionError) as refused:
        services.submit_action(match, ada, submission(match, 0, premove=True))
    assert refused.value.code == "cannot_afford"
    assert refused.value.message == "that costs 2 garnets and you hold 0 in Season 3"
    assert Match.objects.get(pk=match.pk).version == version
    assert garnets(ada, season) == 0


def test_a_replacement_that_drops_the_premove_gives_it_back(ada_and_bob, season):
    match, ada, _ = ada_and_bob
    ledger.adjust(ada, season, garnets=2, tokens=0, reason="more", actor=match.host)
    services.submit_action(match, ada, submission(match, 0, premove=True, moves="D"))
    services.submit_action(match, ada, submission(match, 0, premove=True, moves="DD"))
    assert garnets(ada, season) == 2  # kept: charged once
    services.submit_action(match, ada, submission(match, 0, moves="D"))
    assert garnets(ada, season) == 4
    reasons = (
        LedgerEntry.objects.filter(match=match).order_by("pk").values_list("reason", "garnets")
    )
    assert list(reasons) == [("premove in round 1", -2), ("premove in round 1 withdrawn", 2)]


def test_a_replacement_that_keeps_a_paid_premove_needs_no_more_garnets(ada_and_bob, season):
    match, ada, _ = ada_and_bob
    services.submit_action(match, ada, submission(match, 0, premove=True, moves="D"))
    services.submit_action(match, ada, submission(match, 0, premove=True, moves="DD"))
    match.refresh_from_db()
    assert match.state["submissions"]["0"]["moves"] == "DD"
    assert garnets(ada, season) == 0


def test_the_premove_charge_stays_between_the_seat_and_the_host_while_the_match_is_live(
    ada_and_bob, client, season
):
    match, ada, bob = ada_and_bob
    others = (Viewer.spectator(), Viewer(seat=1))

    def what_others_see() -> list:
        match.refresh_from_db()
        event = Event.objects.filter(match=match).order_by("-version").first()
        return [event.public, *(view_of(match, viewer)["game"] for viewer in others)]

    services.submit_action(match, ada, submission(match, 0, premove=True))
    with_premove = what_others_see()
    assert view_of(match, Viewer(seat=0))["game"]["me"]["submission"]["premove"] is True
    assert view_of(match, Viewer.host())["game"]["host"]["submissions"]["0"]["premove"] is True
    standings = {row["name"]: row["garnets"] for row in season.standings()}
    assert standings == {"Ada": 2}  # the live match's charge is not public yet
    client.force_login(bob)
    assert "premove" not in client.get(season.get_absolute_url()).content.decode()
    services.submit_action(match, ada, submission(match, 0, premove=False))
    assert what_others_see() == with_premove  # with or without: the same to everyone else


# --- a seeded random season ---------------------------------------------------------------------


class SeasonRun:
    """Three players in two Seven Gem Swap matches at a time (Bea plays in both), a host who
    adjusts, awards and corrects, and a clock that resolves rounds."""

    def __init__(self, rng: random.Random, host, users, season, clock) -> None:
        self.rng, self.host, self.users, self.season, self.clock = rng, host, users, season, clock
        self.matches = [start_match(host, users[:2]), start_match(host, users[1:])]
        self.last_submitter = users[0]

    def step(self) -> str:
        operation = self.rng.choices(
            ["submit", "deduct", "give", "time", "award", "correct"], [12, 5, 4, 3, 1, 1]
        )[0]
        try:
            getattr(self, operation)()
        except ActionError as refusal:
            assert refusal.code in {"cannot_afford", "below_zero", "match_live", "match_over"}, (
                refusal.message
            )
        return operation

    def live(self) -> list[Match]:
        for match in self.matches:
            match.refresh_from_db()
        return [m for m in self.matches if m.status == Match.Status.LIVE]

    def submit(self) -> None:
        live = self.live()
        if not live:
            return self.new_match()
        match = self.rng.choice(live)
        seat = self.rng.randrange(2)
        player = match.seats.get(index=seat).user
        moves = "".join(self.rng.choice("UDLR") for _ in range(self.rng.randrange(3)))
        action = submission(match, seat, premove=self.rng.random() < 0.5, moves=moves)
        services.submit_action(match, player, action)
        self.last_submitter = player
        return None

    def deduct(self) -> None:
        """Up to everything the player holds now, or one more (refused); often from the player
        who submitted last (a premove may be waiting for its round)."""
        user = self.last_submitter if self.rng.random() < 0.5 else self.rng.choice(self.users)
        holds = LedgerEntry.balance(user, self.season)["garnets"]
        amount = -self.rng.randint(1, holds + 1)
        ledger.adjust(user, self.season, amount, 0, "fine", self.host)

    def give(self) -> None:
        amount = self.rng.randint(2, 6)
        ledger.adjust(self.rng.choice(self.users), self.season, amount, 0, "gift", self.host)

    def time(self) -> None:
        self.clock.advance(121)
        deadlines.fire_due_deadlines()

    def award(self) -> None:
        live = self.live()
        if live:
            host_operations.host_adjudicate(self.rng.choice(live), self.host, {"winner": 0})

    def correct(self) -> None:
        ended = [m for m in self.matches if m.is_over]
        if ended:
            ledger.reverse_match_entries(self.rng.choice(ended), self.host, "replayed")

    def new_match(self) -> None:
        players = self.rng.sample(self.users, 2)
        self.matches = [*self.matches[-1:], start_match(self.host, players)]

    def check(self) -> None:
        """No balance below zero, counting every entry (live ones too); the public standings
        are the entries of ended matches and the host's adjustments, summed here by hand."""
        held: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        public: dict[int, list[int]] = defaultdict(lambda: [0, 0])
        for entry in LedgerEntry.objects.filter(season=self.season).select_related("match"):
            for totals in [held] + ([public] if self.is_public(entry) else []):
                totals[entry.user_id][0] += entry.garnets
                totals[entry.user_id][1] += entry.tokens_of_life
        assert all(g >= 0 and t >= 0 for g, t in held.values()), dict(held)
        shown = {row["user_id"]: [row["garnets"], row["tokens_of_life"]] for row in self.rows()}
        assert shown == dict(public)

    @staticmethod
    def is_public(entry: LedgerEntry) -> bool:
        return entry.match is None or entry.match.is_over

    def rows(self) -> list[dict]:
        return self.season.standings()


@pytest.mark.parametrize("seed", range(8))
def test_the_ledger_holds_through_a_random_season(seed, make_user, host, season, clock):
    users = [make_user(name) for name in ("ann", "bea", "cal")]
    for user in users:
        ledger.adjust(user, season, garnets=3, tokens=0, reason="a start", actor=host)
    run = SeasonRun(random.Random(seed), host, users, season, clock)
    done = defaultdict(int)
    for _ in range(100):
        done[run.step()] += 1
        run.check()
    assert done["submit"] > 30 and LedgerEntry.objects.filter(reason__startswith="premove").exists()
