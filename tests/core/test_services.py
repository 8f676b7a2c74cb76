from __future__ import annotations

import threading

import pytest
from django.db import connection

from games.core.live import broadcast
from games.core.match import deadlines, host_operations, seating, services
from games.core.models import Deadline, Event, Match

pytestmark = pytest.mark.django_db


def test_taking_every_seat_starts_the_match(clock, tally_match):
    match, ada, bob, host = tally_match
    assert match.status == Match.Status.LIVE
    assert [e.kind for e in match.events.all()] == ["seat_taken", "seat_taken", "started"]
    assert match.version == 3
    assert Deadline.objects.filter(match=match, key="turn", fired_at=None).count() == 1


def test_an_action_appends_one_event_with_the_next_version(clock, tally_match):
    match, ada, bob, host = tally_match
    accepted = services.submit_action(match, ada, {"type": "add", "amount": 2}, expected_version=3)
    match.refresh_from_db()
    assert accepted.version == 4 == match.version
    assert match.state["total"] == 2
    assert list(match.events.values_list("version", flat=True)) == [1, 2, 3, 4]


def test_a_move_out_of_turn_is_refused_and_changes_nothing(clock, tally_match):
    match, ada, bob, host = tally_match
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, bob, {"type": "add", "amount": 1})
    assert refused.value.code == "not_your_turn"
    match.refresh_from_db()
    assert match.version == 3 and match.state["total"] == 0


def test_a_stale_version_is_refused(clock, tally_match):
    match, ada, bob, host = tally_match
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, ada, {"type": "add", "amount": 1}, expected_version=2)
    assert refused.value.code == "stale_version"
    assert Event.objects.filter(match=match).count() == 3


def test_a_user_without_a_seat_cannot_act(clock, tally_match, make_user):
    match, *_ = tally_match
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, make_user("eve"), {"type": "add", "amount": 1})
    assert refused.value.code == "not_seated"


@pytest.mark.parametrize(
    "action", [None, "add", {"amount": 1}, {"type": 3}, {"type": "add", "amount": "1"}]
)
def test_malformed_actions_are_refused(clock, tally_match, action):
    match, ada, *_ = tally_match
    with pytest.raises(services.ActionError):
        services.submit_action(match, ada, action)
    match.refresh_from_db()
    assert match.version == 3


def test_a_duplicate_client_action_is_applied_once_and_acknowledged_again(clock, tally_match):
    match, ada, *_ = tally_match
    first = services.submit_action(match, ada, {"type": "add", "amount": 1}, client_action_id="a1")
    again = services.submit_action(match, ada, {"type": "add", "amount": 1}, client_action_id="a1")
    match.refresh_from_db()
    assert (first.version, first.duplicate) == (4, False)
    assert (again.version, again.duplicate) == (4, True)
    assert match.state["total"] == 1


def test_an_action_id_is_unique_per_seat_not_per_match(clock, tally_match):
    match, ada, bob, _ = tally_match
    services.submit_action(match, ada, {"type": "add", "amount": 1}, client_action_id="shared-X")
    bobs = services.submit_action(
        match, bob, {"type": "add", "amount": 1}, client_action_id="shared-X"
    )
    again = services.submit_action(
        match, bob, {"type": "add", "amount": 1}, client_action_id="shared-X"
    )
    assert (bobs.version, bobs.duplicate) == (5, False)
    assert (again.version, again.duplicate) == (5, True)


def test_a_resent_action_id_is_answered_with_the_senders_own_event(clock, tally_match):
    match, ada, bob, _ = tally_match
    services.submit_action(match, ada, {"type": "add", "amount": 1}, client_action_id="a")
    services.submit_action(match, bob, {"type": "add", "amount": 1}, client_action_id="shared-X")
    adas = services.submit_action(
        match, ada, {"type": "add", "amount": 1}, client_action_id="shared-X"
    )
    again = services.submit_action(
        match, ada, {"type": "add", "amount": 1}, client_action_id="shared-X"
    )
    assert (adas.version, adas.duplicate) == (6, False)
    assert (again.version, again.duplicate) == (6, True)


def test_a_due_deadline_fires_a_timeout_event(clock, tally_match):
    match, *_ = tally_match
    clock.advance(29)
    assert deadlines.fire_due_deadlines() == 0
    clock.advance(2)
    assert deadlines.fire_due_deadlines() == 1
    match.refresh_from_db()
    assert match.events.last().kind == "turn_skipped"
    assert match.state["turn"] == 1


def test_an_action_after_the_deadline_is_refused_even_before_the_scheduler_runs(clock, tally_match):
    match, ada, *_ = tally_match
    clock.advance(31)
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, ada, {"type": "add", "amount": 1})
    assert refused.value.code == "not_your_turn"
    match.refresh_from_db()
    assert [e.kind for e in match.events.all()][-1] == "turn_skipped"
    assert match.state["total"] == 0


def test_a_replaced_deadline_never_fires(clock, tally_match):
    match, ada, *_ = tally_match
    clock.advance(10)
    services.submit_action(match, ada, {"type": "add", "amount": 1})
    clock.advance(25)  # 35 s after the first clock, 25 s after the second
    assert deadlines.fire_due_deadlines() == 0
    assert Deadline.objects.filter(match=match, cancelled=True).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_deadline_fires_exactly_once_when_two_schedulers_run(clock, tally_match):
    match, *_ = tally_match
    clock.advance(31)
    barrier = threading.Barrier(2)
    fired: list[int] = []

    def scheduler() -> None:
        barrier.wait()
        try:
            fired.append(deadlines.fire_due_deadlines())
        finally:
            connection.close()

    threads = [threading.Thread(target=scheduler) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(fired) == [0, 1]
    assert Event.objects.filter(match=match, kind="turn_skipped").count() == 1


def test_pause_stops_actions_and_resume_pushes_clocks_back(clock, tally_match):
    match, ada, bob, host = tally_match
    due_before = Deadline.objects.get(match=match, fired_at=None, cancelled=False).due_at
    host_operations.host_pause(match, host)
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, ada, {"type": "add", "amount": 1})
    assert refused.value.code == "paused"
    clock.advance(100)
    assert deadlines.fire_due_deadlines() == 0
    host_operations.host_resume(match, host)
    due_after = Deadline.objects.get(match=match, fired_at=None, cancelled=False).due_at
    assert (due_after - due_before).total_seconds() == pytest.approx(100)


def test_reaching_the_target_finishes_the_match(clock, tally_match):
    match, ada, bob, host = tally_match
    for user in [ada, bob, ada, bob]:
        services.submit_action(match, user, {"type": "add", "amount": 3})
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result == {"winner": 1}
    assert not Deadline.objects.filter(match=match, fired_at=None, cancelled=False).exists()
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, ada, {"type": "add", "amount": 1})
    assert refused.value.code == "match_over"


def test_the_host_can_adjudicate_and_abort(clock, tally_match):
    match, ada, bob, host = tally_match
    host_operations.host_adjudicate(match, host, {"winner": 0, "scope": "match"})
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result == {"winner": 0}
    assert match.events.last().kind == "adjudicated"
    with pytest.raises(services.ActionError):
        host_operations.host_abort(match, host)


def test_a_seat_cannot_be_taken_twice(clock, make_user):
    host, ada, bob = make_user("h"), make_user("a"), make_user("b")
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="", settings={}, roles=["EC", "DMO"]
    )
    seat = match.seats.first()
    seating.take_seat(match, ada, seat.invite_token)
    with pytest.raises(services.ActionError) as refused:
        seating.take_seat(match, bob, seat.invite_token)
    assert refused.value.code == "seat_taken"
    with pytest.raises(services.ActionError) as refused:
        seating.take_seat(match, ada, "not-a-token")
    assert refused.value.code == "bad_invite"


def test_unknown_settings_are_refused(make_user):
    with pytest.raises(ValueError, match="unknown setting"):
        seating.create_match(
            host=make_user("h"),
            game_key="fixture-tally",
            title="",
            settings={"speed": 3},
            roles=["EC", "DMO"],
        )


def test_analysis_runs_once_after_the_match_and_is_logged_as_an_event(clock, tally_match):
    match, ada, bob, host = tally_match
    assert services.run_analyses() == 0
    for user in [ada, bob, ada, bob]:
        services.submit_action(match, user, {"type": "add", "amount": 3})
    match.refresh_from_db()
    assert match.analysis_pending
    assert services.run_analyses() == 1
    match.refresh_from_db()
    assert match.state["analysis"] == {"overshoot": 2}
    assert match.events.last().kind == "analysed"
    assert not match.analysis_pending
    assert services.run_analyses() == 0


def test_an_action_sent_before_an_analysis_event_is_not_stale(clock, tally_match):
    match, ada, bob, host = tally_match
    services.submit_action(match, ada, {"type": "add", "amount": 1})
    match.refresh_from_db()
    seen = match.version
    services.append(  # an informational event lands between seeing and acting
        match,
        services.Outcome(state=match.state, kind="analysed", informational=True),
        now=clock(),
    )
    accepted = services.submit_action(
        match, bob, {"type": "add", "amount": 1}, expected_version=seen
    )
    assert accepted.version == seen + 2


def test_a_finished_match_takes_only_what_its_game_still_offers_the_host(
    clock, tally_match, monkeypatch
):
    from games.core.game.gamedef import Outcome, award_value
    from tests.fixture_game import TALLY

    match, ada, bob, host = tally_match
    for user in [ada, bob, ada, bob]:
        services.submit_action(match, user, {"type": "add", "amount": 3})
    monkeypatch.setattr(
        TALLY, "award_choices", lambda state, seats: [(award_value({"last": 0}), "Ada is last")]
    )
    monkeypatch.setattr(
        TALLY,
        "adjudicate",
        lambda state, award, now: Outcome(
            state=state, kind="last_named", result={"winner": 1, "last": award["last"]}
        ),
    )
    with pytest.raises(services.ActionError) as refused:
        host_operations.host_adjudicate(match, host, {"last": 1})
    assert refused.value.code == "match_over"
    host_operations.host_adjudicate(match, host, {"last": 0, "reason": "a tie for last"})
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result == {"winner": 1, "last": 0, "host_reason": "a tie for last"}
    assert match.events.last().public == {"host_reason": "a tie for last"}


# --- actions that arrive together (services.submit_actions) -----------------------------------


@pytest.fixture
def locks_taken(monkeypatch):
    """How many times the match row was locked."""
    taken = []
    lock = services.lock

    def counted(*args, **kwargs):
        taken.append(args)
        return lock(*args, **kwargs)

    monkeypatch.setattr(services, "lock", counted)
    return taken


def add(user, amount, action_id=None, version=None):
    return services.SeatAction(user, {"type": "add", "amount": amount}, action_id, version)


def test_actions_that_arrive_together_take_one_hold_and_each_makes_its_own_event(
    clock, tally_match, locks_taken
):
    match, ada, bob, _ = tally_match
    answers = services.submit_actions(
        match.pk, [add(ada, 1, "a1", 3), add(bob, 2, "b1"), add(ada, 3, "a2")]
    )
    assert [(a.version, a.duplicate) for a in answers] == [(4, False), (5, False), (6, False)]
    assert len(locks_taken) == 1
    match.refresh_from_db()
    assert match.version == 6 and match.state["total"] == 6
    events = list(match.events.filter(version__gt=3).order_by("version"))
    assert [(e.seat, e.client_action_id, e.actor_id) for e in events] == [
        (0, "a1", ada.pk),
        (1, "b1", bob.pk),
        (0, "a2", ada.pk),
    ]
    # The same events as the actions one at a time would have made: each replays to its state.
    assert [e.action for e in events] == [{"type": "add", "amount": n} for n in (1, 2, 3)]


def test_actions_that_came_while_the_row_was_awaited_join_its_hold_after_the_others(
    clock, tally_match, locks_taken
):
    match, ada, bob, _ = tally_match
    asked_with_the_row_locked = []

    def joining():
        asked_with_the_row_locked.append(len(locks_taken))
        return [add(bob, 2, "b1"), services.SeatAction(ada, "add"), add(ada, 3, "a2")]

    answers = services.submit_actions(match.pk, [add(ada, 1, "a1")], joining)
    assert asked_with_the_row_locked == [1]
    assert (answers[0].version, answers[1].version, answers[3].version) == (4, 5, 6)
    assert answers[2].code == "malformed_action"
    assert len(locks_taken) == 1
    match.refresh_from_db()
    assert match.version == 6 and match.state["total"] == 6
    events = match.events.filter(version__gt=3).order_by("version")
    assert [(e.seat, e.client_action_id) for e in events] == [(0, "a1"), (1, "b1"), (0, "a2")]


def test_actions_joining_a_hold_undone_by_a_used_action_id_each_go_alone(clock, tally_match):
    match, ada, bob, _ = tally_match
    first = services.submit_action(match, ada, {"type": "add", "amount": 1}, client_action_id="x")
    answers = services.submit_actions(
        match.pk, [add(bob, 2, "y")], lambda: [add(ada, 1, "x"), add(ada, 3, "z")]
    )
    assert [(a.version, a.duplicate) for a in answers] == [(5, False), (4, True), (6, False)]
    assert first.version == 4
    match.refresh_from_db()
    assert match.version == 6 and match.state["total"] == 6


def test_a_refused_action_among_others_changes_nothing_and_the_others_go_on(
    clock, tally_match, locks_taken
):
    match, ada, bob, _ = tally_match
    answers = services.submit_actions(
        match.pk,
        [
            add(ada, 1),
            add(ada, 1),  # not ada's turn now
            services.SeatAction(bob, "add"),  # malformed
            add(bob, 2, version=3),  # ada's move came since version 3
            add(bob, 2, version=4),
        ],
    )
    assert answers[0].version == 4
    assert [answers[n].code for n in (1, 2, 3)] == [
        "not_your_turn",
        "malformed_action",
        "stale_version",
    ]
    assert answers[4].version == 5
    assert len(locks_taken) == 1
    match.refresh_from_db()
    assert match.version == 5 and match.state["total"] == 3


def test_an_action_id_used_before_sends_every_action_alone_and_it_gets_its_earlier_event(
    clock, tally_match
):
    match, ada, bob, _ = tally_match
    first = services.submit_action(match, ada, {"type": "add", "amount": 1}, client_action_id="x")
    answers = services.submit_actions(
        match.pk, [add(bob, 2, "y"), add(ada, 1, "x"), add(ada, 3, "z"), add(ada, 3, "z")]
    )
    assert first.version == 4
    assert [(a.version, a.duplicate) for a in answers[:2]] == [(5, False), (4, True)]
    assert (answers[2].version, answers[2].duplicate) == (6, False)
    assert (answers[3].version, answers[3].duplicate) == (6, True)
    match.refresh_from_db()
    assert match.version == 6 and match.state["total"] == 6


def test_an_action_that_finds_a_clock_run_out_goes_alone_after_the_clock_fires(
    clock, tally_match, locks_taken, monkeypatch
):
    match, ada, bob, _ = tally_match
    append = services.append
    appended = []

    def then_the_clock_runs(*args, **kwargs):  # bob's 30 s run out while ada's move is recorded
        event = append(*args, **kwargs)
        if not appended:
            clock.advance(31)
        appended.append(event.kind)
        return event

    monkeypatch.setattr(services, "append", then_the_clock_runs)
    answers = services.submit_actions(match.pk, [add(ada, 1), add(bob, 2)])
    assert answers[0].version == 4
    assert answers[1].code == "not_your_turn"  # judged after the timeout: ada's turn again
    match.refresh_from_db()
    assert [e.kind for e in match.events.filter(version__gt=3)] == ["added", "turn_skipped"]
    assert match.state["total"] == 1 and match.state["turn"] == 0
    assert len(locks_taken) == 4  # the two together; bob's alone, the clock's, bob's again


def test_each_event_of_actions_together_is_announced_with_the_match_as_it_made_it(
    clock, tally_match, django_capture_on_commit_callbacks
):
    match, ada, bob, _ = tally_match
    with broadcast.deferred() as outbox, django_capture_on_commit_callbacks(execute=True):
        services.submit_actions(match.pk, [add(ada, 3), add(bob, 3), add(ada, 3), add(bob, 3)])
    shown = [(a.event.version, a.match.version, a.match.status) for a in outbox.events]
    live, finished = Match.Status.LIVE, Match.Status.FINISHED
    assert shown == [(4, 4, live), (5, 5, live), (6, 6, live), (7, 7, finished)]
    assert [a.after["total"] for a in outbox.events] == [3, 6, 9, 12]
