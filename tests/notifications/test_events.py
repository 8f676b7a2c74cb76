"""What match events tell whom, through the match core's one path (games/core/match/services.py)."""

from __future__ import annotations

import pytest

from games.core.game.gamedef import Viewer
from games.core.match import deadlines, host_operations, seating, services
from games.core.match.replaying import state_at
from games.core.models import Match, Season
from games.notifications import kinds
from games.notifications.models import Delivery, Notification, SeasonWebhook
from tests.bot_matches import TABLES, play

pytestmark = pytest.mark.django_db


def told(kind: str) -> list[str]:
    rows = Notification.objects.filter(kind=kind).order_by("user__username")
    return list(rows.values_list("user__username", flat=True))


@pytest.fixture
def tally(make_user, clock):
    """A fixture-game match with 10-minute turns (slow enough to be told), started."""
    host = make_user("hostess", email="host@example.org")
    ada = make_user("ada", email="ada@example.org")
    bob = make_user("bob", email="bob@example.org")
    match = seating.create_match(
        host=host,
        game_key="fixture-tally",
        title="Tally",
        settings={"turn_seconds": 600},
        roles=["EC", "DMO"],
    )
    for user, seat in zip([ada, bob], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    return Match.objects.get(pk=match.pk), ada, bob, host


def test_the_start_tells_both_players_once(tally):
    assert told(kinds.MATCH_STARTED) == ["ada", "bob"]
    assert Notification.objects.count() == 2  # no "your move" on top of the start


def test_a_move_tells_the_next_player_it_is_their_move(tally):
    match, ada, bob, _ = tally
    services.submit_action(match, ada, {"type": "add", "amount": 2})

    assert told(kinds.YOUR_TURN) == ["bob"]
    note = Notification.objects.get(kind=kinds.YOUR_TURN)
    assert note.url == match.get_absolute_url()
    assert Delivery.objects.filter(notification=note, destination="bob@example.org").exists()


def test_quick_turns_tell_no_one_whose_move_it_is(seated_match):
    match, (ada, _bob), _ = seated_match(
        "fixture-tally", "ada", "bob", settings={"turn_seconds": 30}
    )
    services.submit_action(match, ada, {"type": "add", "amount": 1})
    assert told(kinds.YOUR_TURN) == []


def test_a_clock_run_out_tells_the_late_player_and_the_host(tally, clock):
    clock.advance(601)
    assert deadlines.fire_due_deadlines() == 1

    assert told(kinds.SUBMISSION_MISSING) == ["ada"]
    assert told(kinds.SUBMISSIONS_MISSED) == ["hostess"]
    assert told(kinds.YOUR_TURN) == ["bob"]


def test_the_result_reaches_the_players_and_the_seasons_webhook_in_public_words(tally):
    match, ada, bob, host = tally
    season = Season.objects.create(name="S1")
    Match.objects.filter(pk=match.pk).update(season=season)
    SeasonWebhook.objects.create(
        season=season, url="http://chat.example/hook", kinds=[kinds.ROUND_RESULT]
    )
    host_operations.host_adjudicate(match, host, {"scope": "match", "winner": 1})

    assert told(kinds.ROUND_RESULT) == ["ada", "bob"]
    (post,) = Delivery.objects.filter(channel=Delivery.Channel.WEBHOOK)
    assert post.public_text.startswith("Tally is over.")


def test_a_sealed_bid_is_in_no_one_elses_notification_or_the_webhook(make_user, clock):
    host = make_user("hostess")
    users = [make_user(f"p{i}", email=f"p{i}@example.org") for i in range(3)]
    season = Season.objects.create(name="S2", is_current=True)
    SeasonWebhook.objects.create(
        season=season, url="http://chat.example/h", kinds=list(kinds.KINDS)
    )
    match = seating.create_match(
        host=host,
        game_key="seven-gem-swap",
        title="Seven",
        settings={"bid_seconds": 7200, "round_seconds": 7200},
        roles=[""] * 3,
    )
    for user, seat in zip(users, match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    services.submit_action(match, users[0], {"type": "bid", "bid": -17, "colours": "RGB"})
    services.submit_action(match, users[1], {"type": "bid", "bid": -3, "colours": "RGB"})
    words = [*Notification.objects.values_list("text", flat=True)]
    words += [*Delivery.objects.filter(channel="webhook").values_list("public_text", flat=True)]
    assert len(words) == 4 and not any("17" in text or "3" in text for text in words)

    clock.advance(7201)
    deadlines.fire_due_deadlines()  # the bids are revealed to everyone now

    assert told(kinds.SUBMISSION_MISSING) == ["p2"]
    assert told(kinds.SUBMISSIONS_MISSED) == ["hostess"]


def test_a_tie_for_elimination_candidate_asks_the_host_once(make_user, clock):
    host = make_user("hostess")
    users = [make_user(f"p{i}") for i in range(3)]
    match = seating.create_match(
        host=host, game_key="seven-gem-swap", title="Main", settings={}, roles=[""] * 3
    )
    for user, seat in zip(users, match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    host_operations.host_adjudicate(
        match, host, {"winner": 0, "reason": "test"}
    )  # 1 and 2 tie at 0

    (note,) = Notification.objects.filter(kind=kinds.TIE_TO_SETTLE)
    assert note.user == host and "Elimination Candidate" in note.text
    tied = Match.objects.get(pk=match.pk).state["result"]["ec_tied"]
    host_operations.host_adjudicate(match, host, {"elimination_candidate": tied[0]})
    assert Notification.objects.filter(kind=kinds.TIE_TO_SETTLE).count() == 1


def test_a_quick_clock_that_ran_out_tells_no_one(seated_match, clock):
    seated_match("fixture-tally", "ada", "bob", settings={"turn_seconds": 30})
    clock.advance(31)
    assert deadlines.fire_due_deadlines() == 1
    assert told(kinds.SUBMISSION_MISSING) == told(kinds.SUBMISSIONS_MISSED) == []


@pytest.mark.parametrize("game_key", sorted(TABLES))
def test_notifications_read_the_same_facts_as_the_page_without_drawing_it(
    game_key, clock, make_user, django_capture_on_commit_callbacks
):
    """Whose move it is, the phase and the round are read from the flow's view alone (the
    page's grids and labels are not drawn for a notification): the same facts the whole view
    gives, at every version of a played match of every game."""
    host = make_user("hostess")
    played = play(
        game_key, host, clock.advance, events=25, commits=django_capture_on_commit_callbacks
    )
    match = played.match
    facts = ("to_move", "turn", "phase", "bids_in", "submitted", "round")
    for version in range(1, match.version + 1):
        state = state_at(match, version)
        seen = match.game.seen(state, Viewer.spectator())
        view = match.game.view(state, Viewer.spectator())
        assert {k: seen.get(k) for k in facts} == {k: view.get(k) for k in facts}, version


@pytest.fixture
def sgs_bidding(make_user, clock):
    """A Seven Gem Swap match of three (p0, p1, p2, with addresses) with two-hour clocks,
    bidding: (match, users, host)."""
    host = make_user("hostess")
    users = [make_user(f"p{i}", email=f"p{i}@example.org") for i in range(3)]
    match = seating.create_match(
        host=host,
        game_key="seven-gem-swap",
        title="Seven",
        settings={"bid_seconds": 7200, "round_seconds": 7200},
        roles=[""] * 3,
    )
    for user, seat in zip(users, match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    return Match.objects.get(pk=match.pk), users, host


@pytest.fixture
def sgs_round(sgs_bidding):
    """``sgs_bidding`` in round 1, where p0 and p1 have submitted and p2 has not."""
    from tests.seven_gem_swap.test_services import bid_all, own_gem

    match, users, host = sgs_bidding
    bid_all(match, users)
    match.refresh_from_db()
    for seat in (0, 1):
        action = {"type": "submit", "gem": own_gem(match.state, seat)}
        services.submit_action(match, users[seat], action)
    return Match.objects.get(pk=match.pk), users, host


def test_a_round_the_host_ends_tells_who_sent_nothing_and_the_other_hosts(sgs_round, make_user):
    match, _users, host = sgs_round
    cohost = make_user("cohost")
    season = Season.objects.create(name="S3")
    Match.objects.filter(pk=match.pk).update(season=season)
    from games.seasons.models import SeasonFormat

    SeasonFormat.objects.create(season=season).cohosts.add(cohost)
    host_operations.host_end_round(Match.objects.get(pk=match.pk), host, "late")

    (note,) = Notification.objects.filter(kind=kinds.SUBMISSION_MISSING)
    assert note.user.username == "p2"
    assert note.text.startswith("Seven: the host ended the round before your move or submission.")
    # The host who ended it knows; the co-host is told who sent nothing.
    (missed,) = Notification.objects.filter(kind=kinds.SUBMISSIONS_MISSED)
    assert missed.user == cohost and missed.text == (
        "Seven: the host ended the round with nothing from P2."
    )


def test_a_round_clock_the_host_shortened_to_its_end_still_tells_who_sent_nothing(sgs_round, clock):
    match, _users, host = sgs_round
    clock.advance(7200 - 300)
    host_operations.host_change_clock(match, host, "round", -240)  # one minute left of two hours
    clock.advance(61)
    assert deadlines.fire_due_deadlines() == 1

    assert told(kinds.SUBMISSION_MISSING) == ["p2"]
    assert told(kinds.SUBMISSIONS_MISSED) == ["hostess"]


def test_a_round_clock_that_ran_on_after_a_pause_still_tells_who_sent_nothing(sgs_round, clock):
    match, _users, host = sgs_round
    clock.advance(7200 - 120)
    host_operations.host_pause(match, host)
    clock.advance(600)
    host_operations.host_resume(Match.objects.get(pk=match.pk), host)
    clock.advance(121)
    assert deadlines.fire_due_deadlines() == 1

    assert told(kinds.SUBMISSION_MISSING) == ["p2"]


def turn_off(user, kind: str) -> None:
    from games.notifications.models import OptOut

    for channel in (kinds.SITE, kinds.EMAIL):
        OptOut.objects.create(user=user, kind=kind, channel=channel)


def test_the_first_round_starting_is_a_round_start_not_a_result(sgs_bidding):
    from tests.seven_gem_swap.test_services import bid_all

    match, users, _ = sgs_bidding
    turn_off(users[2], kinds.ROUND_RESULT)  # results off: the start still comes
    turn_off(users[1], kinds.ROUND_STARTED)
    bid_all(match, users)

    assert told(kinds.ROUND_RESULT) == []
    assert told(kinds.ROUND_STARTED) == ["p0", "p1", "p2"]
    note = Notification.objects.get(kind=kinds.ROUND_STARTED, user=users[2])
    assert note.in_site and note.text.count("Round 1") == 1, note.text
    assert not Notification.objects.get(kind=kinds.ROUND_STARTED, user=users[1]).in_site
    mailed = Delivery.objects.filter(channel="email", kind=kinds.ROUND_STARTED)
    assert sorted(mailed.values_list("destination", flat=True)) == [
        "p0@example.org",
        "p2@example.org",
    ]


def test_a_result_that_starts_the_next_round_tells_the_start_to_who_turned_results_off(
    sgs_round, clock
):
    match, users, _ = sgs_round
    season = Season.objects.create(name="S4")
    Match.objects.filter(pk=match.pk).update(season=season)
    SeasonWebhook.objects.create(
        season=season, url="http://chat.example/h", kinds=[kinds.ROUND_STARTED]
    )
    turn_off(users[0], kinds.ROUND_STARTED)  # starts off: the result still comes
    turn_off(users[2], kinds.ROUND_RESULT)
    Notification.objects.all().delete()
    clock.advance(7201)
    deadlines.fire_due_deadlines()

    assert told(kinds.ROUND_RESULT) == ["p0", "p1", "p2"]
    result = Notification.objects.get(kind=kinds.ROUND_RESULT, user=users[0])
    assert result.in_site and "Round 1 resolved" in result.text and "Round 2" in result.text
    assert not Notification.objects.get(kind=kinds.ROUND_RESULT, user=users[2]).in_site
    (start,) = Notification.objects.filter(kind=kinds.ROUND_STARTED)
    assert start.user == users[2] and start.in_site and start.text == "Seven: Round 2 has started."
    mails = Delivery.objects.filter(channel="email").order_by("destination")
    assert [(m.destination, m.kind) for m in mails if m.kind != kinds.SUBMISSION_MISSING] == [
        ("p0@example.org", kinds.ROUND_RESULT),
        ("p1@example.org", kinds.ROUND_RESULT),
        ("p2@example.org", kinds.ROUND_STARTED),
    ]
    (post,) = Delivery.objects.filter(channel="webhook")
    assert (post.kind, post.public_text) == (kinds.ROUND_STARTED, "Seven: Round 2 has started.")
