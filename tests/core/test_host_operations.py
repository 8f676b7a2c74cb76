"""The host's operations through the service layer: clocks that survive pauses, clock changes,
ending a round, awards, corrections, seat replacement, abort, each logged as an event."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest

from games.core.game.gamedef import ActionError, Viewer, state_deadlines
from games.core.match import deadlines, host_operations, seating, services
from games.core.match.replaying import describe, rebuild
from games.core.models import Deadline, Event, LedgerEntry, Match
from games.seven_gem_swap import engine as sgs_engine

pytestmark = pytest.mark.django_db


def pending(match: Match) -> dict[str, datetime]:
    rows = Deadline.objects.filter(match=match, fired_at=None, cancelled=False)
    return {row.key: row.due_at for row in rows}


def fresh(match: Match) -> Match:
    return Match.objects.with_seats().get(pk=match.pk)


@pytest.fixture
def seven(seated_match):
    """A Seven Gem Swap match of two players in round 1: (match, users, host)."""
    settings = {"bid_seconds": 120, "round_seconds": 120}
    match, users, host = seated_match("seven-gem-swap", "ada", "bob", settings=settings)
    for seat, user in enumerate(users):
        colours = sgs_engine.COLOURS[seat:] + sgs_engine.COLOURS[:seat]
        services.submit_action(match, user, {"type": "bid", "bid": -seat, "colours": colours[:3]})
    match = fresh(match)
    assert match.state["phase"] == "round"
    return match, users, host


@pytest.fixture
def sweeper(seated_match):
    """A Pointsweeper match in play, Ada to move: (match, ada, bob, host)."""
    match, (ada, bob), host = seated_match("pointsweeper", "ada", "bob")
    services.submit_action(match, bob, {"type": "choose_order", "first": False})
    match = fresh(match)
    assert match.state["turn"] == 0
    return match, ada, bob, host


# --- clocks and pauses ---------------------------------------------------------------------------


def test_a_clock_extended_during_a_pause_runs_on_after_the_resume(clock, seven):
    match, users, host = seven
    due = pending(match)["round"]
    clock.advance(30)
    host_operations.host_pause(match, host)
    clock.advance(200)  # the round's clock would have run out during the pause
    deadlines.fire_due_deadlines()
    host_operations.host_change_clock(match, host, "round", 60, reason="Bob's connection dropped")
    clock.advance(10)
    host_operations.host_resume(match, host)
    left = pending(fresh(match))["round"] - clock.current
    assert left == timedelta(seconds=90 + 60)
    assert due + timedelta(seconds=210 + 60) == pending(fresh(match))["round"]
    clock.advance(149)
    assert deadlines.fire_due_deadlines() == 0
    clock.advance(2)
    assert deadlines.fire_due_deadlines() == 1
    assert fresh(match).state["round"] == 2


def test_a_clock_change_is_an_event_players_read_with_its_reason(clock, seven):
    match, users, host = seven
    host_operations.host_change_clock(match, host, "round", 60, reason="Bob's connection dropped")
    event = fresh(match).events.last()
    assert (event.kind, event.actor) == ("clock_changed", host)
    assert event.public["host_reason"] == "Bob's connection dropped"
    assert event.public["seconds"] == 60
    words = describe(match.game, event.seen_by(Viewer(seat=0)), match.state)
    assert (
        words
        == "The host gave the round clock 1 minute more (3:00 left): Bob's connection dropped."
    )


def test_a_refused_clock_change_names_no_operation_the_game_lacks(clock, seated_match):
    match, _, host = seated_match("pointsweeper", "ada", "bob")  # no End the round
    assert match.game.end_round_label(match.state) is None
    with pytest.raises(ActionError) as refused:
        host_operations.host_change_clock(match, host, "order", -3600, reason="too far")
    assert refused.value.code == "bad_seconds"
    assert "end the round" not in str(refused.value).lower()
    assert "use Award or Abort" in str(refused.value)


def test_a_clock_can_be_shortened_but_not_below_five_seconds(clock, seven):
    match, users, host = seven
    host_operations.host_change_clock(match, host, "round", -100, reason="speed up")
    assert pending(fresh(match))["round"] - clock.current == timedelta(seconds=20)
    with pytest.raises(ActionError) as refused:
        host_operations.host_change_clock(match, host, "round", -16, reason="too far")
    assert refused.value.code == "bad_seconds"
    assert "use End the round" in str(refused.value)  # the operation this game offers now
    with pytest.raises(ActionError) as refused:
        host_operations.host_change_clock(match, host, "nope", 60, reason="")
    assert refused.value.code == "no_clock"


def test_a_submission_after_a_clock_ran_out_unseen_is_answered(clock, seven):
    """A state clock that is due with no Deadline row left (a row lost or replaced) is fired
    by the action that finds it, instead of failing the action."""
    match, users, host = seven
    Deadline.objects.filter(match=match).update(cancelled=True)
    clock.advance(121)
    gem = sgs_engine.cell_name(
        sgs_engine.parse_board(match.state["board"]).cells.index(match.state["colours"]["0"])
    )
    with pytest.raises(ActionError) as refused:  # judged by round 2's rules: a card is due
        services.submit_action(match, users[0], {"type": "submit", "gem": gem, "moves": ""})
    assert refused.value.code == "card_needed"
    assert fresh(match).state["round"] == 2
    assert fresh(match).events.filter(kind="round_time_up").count() == 1


def test_a_pause_is_not_charged_to_the_player_to_move(clock, sweeper):
    match, ada, bob, host = sweeper
    move_seconds = match.state["settings"]["move_seconds"]
    bank = match.state["play"]["bank"][0]
    clock.advance(move_seconds - 11)
    host_operations.host_pause(match, host)
    clock.advance(40)
    host_operations.host_resume(match, host)
    match = fresh(match)
    view = match.game.view(match.state, Viewer(seat=0))
    assert datetime.fromisoformat(view["move_deadline"]) - clock.current == timedelta(seconds=11)
    services.submit_action(match, ada, {"type": "scout", "piece": "K", "square": "e4"})
    assert fresh(match).state["play"]["bank"][0] == bank


def test_the_rules_run_at_the_paused_time_while_paused(clock, sweeper):
    """An award given during a pause starts its clocks at the pause's time, so the resume moves
    them like every other clock."""
    match, ada, bob, host = sweeper
    clock.advance(5)
    host_operations.host_pause(match, host)
    paused_at = clock.current
    clock.advance(300)
    host_operations.host_change_clock(match, host, "turn", 30, reason="")
    match = fresh(match)
    turn_due = datetime.fromisoformat(match.state["deadlines"]["turn"])
    started = datetime.fromisoformat(match.state["turn_started"])
    assert started - (paused_at - timedelta(seconds=5)) == timedelta(seconds=30)
    assert turn_due > paused_at


def test_only_the_host_may_operate(clock, seven, make_user):
    match, users, host = seven
    for actor in (users[0], make_user("eve")):
        for operation, args in (
            (host_operations.host_pause, ()),
            (host_operations.host_change_clock, ("round", 60)),
            (host_operations.host_end_round, ()),
            (host_operations.host_abort, ("x",)),
            (host_operations.host_replace_seat, (1, "club")),
        ):
            with pytest.raises(ActionError) as refused:
                operation(match, actor, *args)
            assert refused.value.code == "forbidden"
    assert fresh(match).status == Match.Status.LIVE
    assert not Event.objects.filter(match=match, kind__in=["paused", "aborted"]).exists()


@pytest.fixture
def paths(seated_match):
    """A Glittering Paths match in its first round: (match, ada, bob, host)."""
    match, (ada, bob), host = seated_match("glittering-paths", "ada", "bob")
    return match, ada, bob, host


def test_a_round_ended_during_a_pause_gets_its_whole_interval_after_the_resume(clock, paths):
    match, ada, bob, host = paths
    host_operations.host_pause(match, host)
    clock.advance(300)
    host_operations.host_end_round(match, host, reason="the board was dealt wrong")
    match = fresh(match)
    assert match.state["phase"] == "interval"
    wait = datetime.fromisoformat(match.state["deadlines"]["next_round"]) - match.paused_at
    clock.advance(50)
    host_operations.host_resume(match, host)
    assert pending(fresh(match))["next_round"] - clock.current == wait


def test_ending_a_round_keeps_the_games_words_and_adds_the_hosts_reason(clock, paths):
    match, ada, bob, host = paths
    host_operations.host_end_round(match, host, reason="the board was dealt wrong")
    event = fresh(match).events.last()
    words = describe(match.game, event.seen_by(Viewer.spectator()), fresh(match).state)
    assert "Round 1 is over: the host ended the round." in words
    assert words.endswith("The host's reason: the board was dealt wrong.")


def page_of(client, match: Match, user) -> str:
    client.force_login(user)
    return client.get(match.get_absolute_url()).content.decode()


def test_a_paused_pointsweeper_shows_the_move_time_it_keeps(client, clock, sweeper):
    match, ada, bob, host = sweeper
    clock.advance(match.state["settings"]["move_seconds"] - 11)
    host_operations.host_pause(match, host)
    clock.advance(40)
    page = page_of(client, match, ada)
    assert "Move time 0:11 left, stopped while the match is paused" in page


HIDDEN_ELEMENT = re.compile(r"<(\w+)\b[^>]*\shidden\b[^>]*>.*?</\1>", re.S)


def test_an_aborted_pointsweeper_asks_no_one_to_move(client, clock, sweeper):
    match, ada, bob, host = sweeper
    host_operations.host_abort(match, host, reason="the season was cancelled")
    page = page_of(client, match, ada)
    # The move forms and turn tags stay in the page, hidden, between turns: none is shown.
    shown = HIDDEN_ELEMENT.sub("", page)
    assert "Your move" not in shown and "to move" not in shown
    assert "The host aborted the match" in page
    assert not pending(fresh(match)) and fresh(match).state["deadlines"] == {}
    assert "The host's reason: the season was cancelled" in page


def test_a_pause_cancels_the_clock_rows_and_a_resume_writes_them_again(clock, seven):
    match, users, host = seven
    host_operations.host_pause(match, host)
    assert pending(fresh(match)) == {}
    host_operations.host_resume(match, host)  # a pause of no time at all
    match = fresh(match)
    assert pending(match) == state_deadlines(match.state) != {}


def balances(*users) -> list[tuple[int, int]]:
    return [tuple(LedgerEntry.balance(user).values()) for user in users]


def test_a_wrong_award_is_corrected_by_reversing_entries_and_writing_new_ones(clock, seven):
    match, (ada, bob), host = seven
    host_operations.host_adjudicate(match, host, {"winner": 0, "reason": "Bob left"})
    assert balances(ada, bob)[0][1] == 2 and balances(ada, bob)[1][1] == 0
    paid = list(LedgerEntry.objects.filter(match=match))
    host_operations.host_correct_result(
        match, host, {"winner": 1}, reason="I awarded the wrong player"
    )
    match = fresh(match)
    assert match.status == Match.Status.FINISHED
    assert match.result["winner"] == 1 and match.result["corrected"] is True
    assert balances(ada, bob)[0][1] == 0 and balances(ada, bob)[1][1] == 2
    for entry in paid:  # never edited, each reversed by a new entry that names it
        entry.refresh_from_db()
        assert entry.reversed_by.reason == "correction: I awarded the wrong player"
    event = match.events.last()
    assert (event.kind, event.actor) == ("result_corrected", host)
    words = describe(match.game, event.seen_by(Viewer.spectator()), match.state)
    summary = match.result["summary"]
    assert summary.endswith(".")
    assert words == (
        f"The host corrected the result: {summary} The host's reason: I awarded the wrong player."
    )


def test_a_correction_of_a_correction_reverses_only_what_stands(clock, seven):
    match, (ada, bob), host = seven
    host_operations.host_adjudicate(match, host, {"winner": 0})
    host_operations.host_correct_result(match, host, {"winner": 1}, reason="wrong player")
    host_operations.host_correct_result(match, host, {"winner": 0}, reason="it was right at first")
    assert balances(ada, bob)[0][1] == 2 and balances(ada, bob)[1][1] == 0
    assert fresh(match).result["winner"] == 0


def test_a_correction_needs_a_finished_match_and_a_reason(clock, seven):
    match, users, host = seven
    with pytest.raises(ActionError) as refused:
        host_operations.host_correct_result(match, host, {"winner": 1}, reason="x")
    assert refused.value.code == "not_finished"
    host_operations.host_adjudicate(match, host, {"winner": 0})
    with pytest.raises(ActionError) as refused:
        host_operations.host_correct_result(match, host, {"winner": 1}, reason="  ")
    assert refused.value.code == "reason_needed"


def test_a_seat_is_replaced_by_a_substitute_through_a_new_invite(clock, seven, make_user):
    match, (ada, bob), host = seven
    old_token = match.seats.get(index=1).invite_token
    host_operations.host_replace_seat(match, host, 1, reason="Bob left the season")
    seat = fresh(match).seats.get(index=1)
    assert seat.user is None and seat.invite_token != old_token
    with pytest.raises(ActionError):
        services.submit_action(match, bob, {"type": "submit", "gem": "A1", "moves": ""})
    carol = make_user("carol")
    with pytest.raises(ActionError):
        seating.take_seat(match, carol, old_token)
    # Until someone takes it, the game names the seat as the page's header does.
    assert seat_names(fresh(match).state) == ["Ada", "open seat"]
    assert rebuild(fresh(match), fresh(match).version) == fresh(match).state
    seating.take_seat(match, carol, seat.invite_token)
    match = fresh(match)
    assert match.seat_of(carol).index == 1 and match.status == Match.Status.LIVE
    kinds = list(match.events.order_by("-version").values_list("kind", flat=True)[:2])
    assert kinds == ["seat_taken", "seat_replaced"]
    # The game names Carol in Bob's seat (its table, its result), and a rebuild plays it again.
    assert seat_names(match.state) == ["Ada", "Carol"]
    assert rebuild(match, match.version) == match.state


def seat_names(state: dict) -> list[str]:
    return [seat["name"] for seat in state["seats"]]


def test_a_seat_is_replaced_by_a_bot_that_plays_on(clock, seven):
    match, (ada, bob), host = seven
    host_operations.host_replace_seat(match, host, 1, bot_level="club", reason="Bob left")
    match = fresh(match)
    assert match.seats.get(index=1).bot_level == "club"
    assert match.state["seats"][1] == {"index": 1, "name": "Club bot 2", "is_bot": True}
    assert rebuild(match, match.version) == match.state
    clock.advance(30)
    assert services.run_bots() >= 1
    # Awarded now, the result and the game's own summary name the same player.
    host_operations.host_adjudicate(match, host, {"winner": 1})
    assert fresh(match).result["summary"].startswith("The host awarded the match to Club bot 2.")


# --- the host's audit log ------------------------------------------------------------------------


def test_the_match_host_log_lists_every_operation_with_who_and_why(client, clock, seven):
    match, (ada, bob), host = seven
    host_operations.host_pause(match, host, reason="Bob's connection dropped")
    host_operations.host_change_clock(match, host, "round", 60, reason="Bob's connection dropped")
    host_operations.host_resume(match, host)
    client.force_login(host)
    page = client.get(f"/m/{match.public_id}/audit/").content.decode()
    assert page.count('data-kind="') == 3
    assert "The host gave the round clock 1 minute more" in page
    assert "The host paused the match; every clock stops: Bob&#x27;s connection dropped." in page
    client.force_login(ada)
    assert client.get(f"/m/{match.public_id}/audit/").status_code == 403


def test_the_season_host_log_lists_operations_and_ledger_entries(client, clock, make_user):
    from games.core.match import ledger
    from games.core.models import Season

    season = Season.objects.create(name="Season 9", is_current=True)
    host = make_user("boss", is_staff=True)
    ada, bob = make_user("ada"), make_user("bob")
    ledger.adjust(ada, season, 5, 0, "won the house vote", host)
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="Heat", settings={}, roles=["EC", "DMO"]
    )
    for user, seat in zip((ada, bob), match.seats.all(), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    host_operations.host_abort(match, host, reason="cast change")
    client.force_login(host)
    page = client.get(f"/seasons/{season.pk}/audit/").content.decode()
    assert "The host adjusted the ledger: Ada +5 garnets." in page
    assert "won the house vote" in page
    assert "The host aborted the match: cast change." in page
    client.force_login(ada)
    assert client.get(f"/seasons/{season.pk}/audit/").status_code == 403


def test_an_abort_gives_back_the_premoves_of_the_round_that_never_ran(clock, seven):
    from games.core.match import ledger

    match, (ada, bob), host = seven
    ledger.adjust(ada, None, 5, 0, "starting garnets", host)
    gem = sgs_engine.cell_name(
        sgs_engine.parse_board(match.state["board"]).cells.index(match.state["colours"]["0"])
    )
    submission = {"type": "submit", "gem": gem, "moves": "", "premove": True}
    services.submit_action(match, ada, submission)
    assert LedgerEntry.balance(ada)["garnets"] == 3
    host_operations.host_abort(match, host, reason="the season was cancelled")
    assert LedgerEntry.balance(ada)["garnets"] == 5


def test_a_tie_for_elimination_candidate_is_settled_from_the_page(client, clock, seated_match):
    match, _, host = seated_match("seven-gem-swap", "ada", "bob", "cy")
    host_operations.host_adjudicate(match, host, {"winner": 0})
    page = page_of(client, fresh(match), host)
    assert "Settle the result" in page
    assert "Seat 2: Bob is the Elimination Candidate" in page
    assert "Seat 1: Ada wins" not in page.split("Settle the result")[1].split("</details>")[0]
    url = f"/m/{match.public_id}/host/settle/"
    client.post(url, {"award": '{"elimination_candidate":2}', "reason": "the earlier bid"})
    match = fresh(match)
    assert match.result["elimination_candidate"] == 2
    assert match.result["host_reason"] == "the earlier bid"
    assert "Settle the result" not in page_of(client, match, host)


def test_the_console_offers_exactly_the_operations_that_run():
    from django.core.exceptions import ImproperlyConfigured

    from games.core.host import console, hosting

    hosting.check_operations(console.OPERATIONS, hosting.RUNS)  # as the module loads
    planted = {**console.OPERATIONS, "forfeit": console.OPERATIONS["abort"]}
    with pytest.raises(ImproperlyConfigured, match=r"offers but nothing runs: \['forfeit'\]"):
        hosting.check_operations(planted, hosting.RUNS)
    with pytest.raises(ImproperlyConfigured, match=r"never offered: \['pause'\]"):
        hosting.check_operations(
            {k: v for k, v in console.OPERATIONS.items() if k != "pause"}, hosting.RUNS
        )
