"""Seven Gem Swap through the one action path (games.core.match.services) with the ``clock``
fixture: sealed bids and sequences from real users, deadlines fired by the scheduler's function,
bots moved by services.run_bots, premoves charged to the ledger, the host's clock extension."""

from __future__ import annotations

import pytest

from games.core.game.gamedef import ActionError, Viewer
from games.core.match import deadlines, host_operations, seating, services
from games.core.models import Deadline, Event, LedgerEntry, Match
from games.seven_gem_swap import engine

pytestmark = pytest.mark.django_db

SETTINGS = {"bid_seconds": 120, "round_seconds": 120}


@pytest.fixture
def sgs(make_user):
    """A started match of ``humans`` players and ``bots`` club bots: (match, users, host)."""

    def make(humans: int = 2, bots: int = 0, **settings):
        host = make_user("hostess")
        users = [make_user(f"player{i}") for i in range(humans)]
        match = seating.create_match(
            host=host,
            game_key="seven-gem-swap",
            title="Seven",
            settings={**SETTINGS, **settings},
            roles=[""] * (humans + bots),
        )
        seats = list(match.seats.order_by("index"))
        for index in range(humans, humans + bots):
            seating.seat_bot(match, index, "club")
        for user, seat in zip(users, seats, strict=False):
            seating.take_seat(match, user, seat.invite_token)
        match.refresh_from_db()
        return match, users, host

    return make


def state_of(match: Match) -> dict:
    match.refresh_from_db()
    return match.state


def pending(match: Match) -> dict[str, object]:
    rows = Deadline.objects.filter(match=match, fired_at=None, cancelled=False)
    return {row.key: row.due_at for row in rows}


def own_gem(state: dict, seat: int) -> str:
    colour = state["colours"][str(seat)]
    return engine.cell_name(engine.parse_board(state["board"]).cells.index(colour))


def bid_all(match, users):
    for seat, user in enumerate(users):
        colours = engine.COLOURS[seat:] + engine.COLOURS[:seat]
        services.submit_action(match, user, {"type": "bid", "bid": -seat, "colours": colours[:3]})


def play_bots(clock, rounds_left=100) -> None:
    """Let time pass in bot-sized steps: bots act, due deadlines fire."""
    for _ in range(rounds_left):
        clock.advance(11)
        while services.run_bots():
            pass
        deadlines.fire_due_deadlines()


def test_it_starts_live_with_the_bidding_clock_as_a_deadline_row(clock, sgs):
    match, *_ = sgs()
    assert match.status == Match.Status.LIVE
    assert match.state["phase"] == "bidding"
    assert list(pending(match)) == ["bidding"]


def test_the_last_bid_allocates_the_colours_and_starts_round_one(clock, sgs):
    match, users, _ = sgs()
    bid_all(match, users)
    state = state_of(match)
    assert state["phase"] == "round" and state["round"] == 1
    assert state["colours"] == {"0": "R", "1": "O"}
    assert list(pending(match)) == ["round"]
    assert Event.objects.filter(match=match, kind="colours_allocated").count() == 1


def test_the_bidding_clock_gives_a_missing_bidder_a_random_colour(clock, sgs):
    match, users, _ = sgs()
    services.submit_action(match, users[0], {"type": "bid", "bid": -4, "colours": "RGB"})
    clock.advance(121)
    assert deadlines.fire_due_deadlines() == 1
    state = state_of(match)
    assert state["phase"] == "round" and state["no_bid"] == ["1"]
    assert state["scores"]["0"] == -4


def test_a_submission_may_be_replaced_until_the_round_resolves(clock, sgs):
    match, users, _ = sgs()
    bid_all(match, users)
    state = state_of(match)
    gem = own_gem(state, 0)
    services.submit_action(match, users[0], {"type": "submit", "gem": gem, "moves": "U"})
    services.submit_action(match, users[0], {"type": "submit", "gem": gem, "moves": "D"})
    state = state_of(match)
    assert state["submissions"]["0"]["moves"] == "D"
    services.submit_action(
        match, users[1], {"type": "submit", "gem": own_gem(state, 1), "moves": "", "round": 1}
    )
    state = state_of(match)
    assert state["round"] == 2 and state["history"][0]["secret"]["submissions"]["0"]["moves"] == "D"


def test_a_refused_submission_changes_nothing(clock, sgs):
    match, users, _ = sgs()
    bid_all(match, users)
    version = state_of(match) and match.version
    events = Event.objects.filter(match=match).count()
    with pytest.raises(ActionError) as refusal:
        services.submit_action(match, users[0], {"type": "submit", "gem": "Z9", "moves": "U"})
    assert refusal.value.code == "bad_gem"
    with pytest.raises(ActionError) as refusal:
        services.submit_action(
            match, users[0], {"type": "submit", "gem": own_gem(match.state, 0), "card": "R"}
        )
    assert refusal.value.code == "no_card_yet"
    match.refresh_from_db()
    assert match.version == version
    assert Event.objects.filter(match=match).count() == events


def test_a_submission_is_judged_on_the_current_state_whatever_version_was_seen(clock, sgs):
    match, users, _ = sgs()
    bid_all(match, users)
    state = state_of(match)
    services.submit_action(
        match,
        users[0],
        {"type": "submit", "gem": own_gem(state, 0), "moves": "U"},
        expected_version=1,
    )
    assert "0" in state_of(match)["submissions"]


def test_the_round_clock_resolves_with_what_was_submitted(clock, sgs):
    match, users, _ = sgs()
    bid_all(match, users)
    state = state_of(match)
    services.submit_action(match, users[0], {"type": "submit", "gem": own_gem(state, 0)})
    clock.advance(121)
    assert deadlines.fire_due_deadlines() == 1
    state = state_of(match)
    assert state["round"] == 2
    assert state["history"][0]["public"]["submitted"] == [0]


def give_garnets(user, match, garnets: int) -> None:
    LedgerEntry.objects.create(
        user=user, season=match.season, garnets=garnets, reason="granted by the host"
    )


def test_a_premove_the_ledger_cannot_pay_is_refused(clock, sgs):
    match, users, _ = sgs()
    give_garnets(users[0], match, 1)
    bid_all(match, users)
    version = state_of(match) and match.version
    action = {"type": "submit", "gem": own_gem(match.state, 0), "premove": True}
    with pytest.raises(ActionError) as refusal:
        services.submit_action(match, users[0], action)
    assert refusal.value.code == "cannot_afford"
    assert "costs 2 garnets and you hold 1" in refusal.value.message
    match.refresh_from_db()
    assert match.version == version
    services.submit_action(match, users[0], {**action, "premove": False})


def test_the_host_extends_the_round_deadline_and_it_is_logged(clock, sgs):
    match, users, host = sgs()
    bid_all(match, users)
    before = pending(match)["round"]
    host_operations.host_change_clock(match, host, "round", 600, reason="a player is travelling")
    after = pending(match)["round"]
    assert (after - before).total_seconds() == 600
    event = Event.objects.filter(match=match).order_by("-version").first()
    assert event.kind == "clock_changed" and event.actor == host
    clock.advance(121)
    assert deadlines.fire_due_deadlines() == 0
    clock.advance(600)
    assert deadlines.fire_due_deadlines() == 1


def test_a_draft_is_kept_for_the_seat_and_cleared_by_its_submission(clock, sgs):
    match, users, _ = sgs()
    bid_all(match, users)
    gem = own_gem(state_of(match), 0)
    kept = services.save_draft(match, users[0], {"round": 1, "gem": gem, "moves": "ur"})
    assert {k: v for k, v in kept.items() if k != "preview"} == {
        "round": 1,
        "gem": gem,
        "moves": "UR",
    }
    assert kept["preview"]["path"][0] == gem
    assert match.seats.get(index=0).draft == kept
    services.submit_action(match, users[0], {"type": "submit", "gem": gem, "moves": "UR"})
    assert match.seats.get(index=0).draft is None


def test_a_whole_seven_seat_match_of_bots_plays_to_the_end(clock, sgs):
    match, _, host = sgs(humans=0, bots=7)
    assert match.status == Match.Status.LIVE
    play_bots(clock)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    state = match.state
    assert state["phase"] == "over" and len(state["history"]) == 8
    assert sorted(state["colours"].values()) == sorted(engine.COLOURS)
    assert match.result["summary"] == state["result"]["summary"]
    assert not LedgerEntry.objects.exists()  # bots hold no ledger


def test_a_seven_seat_match_with_two_players_and_five_bots_pays_the_players(clock, sgs):
    match, users, _ = sgs(humans=2, bots=5)
    bid_all(match, users)
    for _ in range(200):  # player 1 never submits: the round clock resolves each round
        state = state_of(match)
        if state["phase"] == "over":
            break
        if state["phase"] == "round" and "0" not in state["submissions"]:
            card = engine.COLOURS[state["round"] - 2] if state["round"] >= 2 else None
            action = {"type": "submit", "gem": own_gem(state, 0), "moves": "", "card": card}
            services.submit_action(match, users[0], action)
        play_bots(clock, rounds_left=1)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    garnets = match.state["result"]["garnets"]
    for seat, user in enumerate(users):
        paid = sum(e.garnets for e in LedgerEntry.objects.filter(user=user))
        assert paid == garnets[str(seat)]


def test_two_bots_of_one_level_are_told_apart(clock, sgs):
    match, _, _ = sgs(humans=1, bots=2)
    view = match.game.view(match.state, Viewer.spectator())
    names = [p["name"] for p in view["players"]]
    assert names[1:] == ["Club bot 2", "Club bot 3"]


# Drafts that are not what the page composes (issue 34, item 12): each is refused and leaves the
# seat's draft as it was. The page always sends {round, gem, moves, premove} and, from round 2,
# the card chosen.
JUNK_DRAFTS = [
    {},
    {"pad": "x" * 200},
    {"gem": 0, "moves": []},
    {"premove": "no"},
    {"round": 1, "gem": "{gem}", "moves": "ur", "pad": 1},
    {"round": "1", "gem": "{gem}"},
    {"round": True, "gem": "{gem}"},
    {"round": 1, "gem": "{gem}", "moves": 5},
    {"round": 1, "gem": ["{gem}"]},
    {"round": 1, "gem": "{gem}", "premove": 1},
    {"round": 1, "gem": "{gem}", "card": "R"},  # no card is played in round 1
    {"round": 1, "gem": "{gem}", "card": 7},
]


@pytest.mark.parametrize("junk", JUNK_DRAFTS, ids=lambda junk: repr(junk)[:40])
def test_a_junk_draft_is_refused_and_the_draft_kept_stays(clock, sgs, junk):
    match, users, _ = sgs()
    bid_all(match, users)
    gem = own_gem(state_of(match), 0)
    draft = {"round": 1, "gem": gem, "moves": "ur", "premove": True}
    kept = services.save_draft(match, users[0], draft)
    junk = {k: (gem if v == "{gem}" else [gem] if v == ["{gem}"] else v) for k, v in junk.items()}

    with pytest.raises(ActionError) as refused:
        services.save_draft(match, users[0], junk)

    assert refused.value.code in {
        "bad_draft",
        "bad_moves",
        "bad_premove",
        "bad_card",
        "no_card_yet",
    }
    assert refused.value.message
    assert match.seats.get(index=0).draft == kept
    assert kept["premove"] is True and kept["moves"] == "UR"


def test_a_draft_being_composed_may_leave_the_gem_and_moves_empty(clock, sgs):
    """What the page sends before the player chose anything is a draft, not junk."""
    match, users, _ = sgs()
    bid_all(match, users)
    kept = services.save_draft(
        match, users[0], {"round": 1, "gem": "", "moves": "", "premove": False}
    )
    assert kept == {"round": 1, "premove": False}
