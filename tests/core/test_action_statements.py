"""The statements an action runs while it holds the match row locked (issues 39, 40): the lock
reads the seats, the snapshots and the stale check in one statement, and every write of the
event goes in one more on PostgreSQL (one at a time on SQLite, in process). Each is a round
trip every other action on the match waits for."""

from __future__ import annotations

from datetime import datetime

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games.core.match import deadlines, host_operations, replaying, services
from games.core.match.replaying import SNAPSHOT_EVERY
from games.core.models import Deadline, Event, Match, Seat, Snapshot

pytestmark = pytest.mark.django_db

# The statements of an action of the fixture game (its turn clock moves with every action):
# the lock, then on PostgreSQL one write; on SQLite the event, the clock's row cancelled and
# written again, the match row (and the snapshot, every SNAPSHOT_EVERY events).
STATEMENTS = {"postgresql": 2, "sqlite": 5}
WITH_SNAPSHOT = {"postgresql": 2, "sqlite": 6}


def _add(match: Match, user, amount: int = 1) -> int:
    """``user`` adds ``amount`` against the current version; the statements it ran."""
    match.refresh_from_db()
    with CaptureQueriesContext(connection) as queries:
        services.submit_action(
            match,
            user,
            {"type": "add", "amount": amount},
            client_action_id=f"add-{match.version}",
            expected_version=match.version,
        )
    match.refresh_from_db()
    # The test runs inside a transaction: the action's own shows as a savepoint.
    return len([q for q in queries if "SAVEPOINT" not in q["sql"]])


def _players_in_turn(match: Match, ada, bob):
    match.refresh_from_db()
    return (ada, bob) if match.state["turn"] == 0 else (bob, ada)


def test_an_action_without_a_snapshot_runs_its_few_statements(tally_match):
    match, ada, bob, _ = tally_match
    if (match.version + 1) % SNAPSHOT_EVERY == 0:
        _add(match, _players_in_turn(match, ada, bob)[0])
    mover, _ = _players_in_turn(match, ada, bob)
    assert _add(match, mover) <= STATEMENTS[connection.vendor]
    assert not Snapshot.objects.filter(match=match, version=match.version).exists()


def test_an_action_keeping_a_snapshot_runs_one_write_more_at_most(tally_match):
    match, ada, bob, _ = tally_match
    while (match.version + 1) % SNAPSHOT_EVERY:
        mover, _ = _players_in_turn(match, ada, bob)
        _add(match, mover)
    mover, _ = _players_in_turn(match, ada, bob)
    assert _add(match, mover) <= WITH_SNAPSHOT[connection.vendor]
    match.refresh_from_db()
    kept = Snapshot.objects.get(match=match, version=match.version)
    assert replaying.rebuild(match, match.version) == match.state
    assert kept.state == match.state or kept.patch is not None


def test_an_action_that_uses_a_draft_up_clears_it_with_its_other_writes(tally_match):
    match, ada, bob, _ = tally_match
    mover, _ = _players_in_turn(match, ada, bob)
    services.save_draft(match, mover, {"amount": 2})
    statements = _add(match, mover, 2)
    assert Seat.objects.get(match=match, user=mover).draft is None
    assert statements <= WITH_SNAPSHOT[connection.vendor] + 1


def test_the_lock_reads_every_seat_field_as_the_queryset_does(tally_match):
    match, ada, bob, _ = tally_match
    mover, _ = _players_in_turn(match, ada, bob)
    services.save_draft(match, mover, {"amount": 3})
    expected = list(Match.objects.with_seats().get(pk=match.pk).seats.all())
    with transaction.atomic():
        locked = list(Match.objects.locked(match.pk).seats.all())
    assert [s.index for s in locked] == sorted(s.index for s in expected)
    for seat, want in zip(locked, expected, strict=True):
        for field in Seat._meta.concrete_fields:
            assert getattr(seat, field.attname) == getattr(want, field.attname), field.name
        assert seat.user == want.user and seat.player_name == want.player_name
    assert any(seat.draft == {"amount": 3} for seat in locked)
    assert all(seat.joined_at is not None for seat in locked if seat.user_id)


def test_the_lock_reads_the_snapshots_the_next_one_is_made_from(tally_match):
    match, ada, bob, _ = tally_match
    snapshots_seen = []
    while not match.is_over and len(snapshots_seen) < 2:
        with transaction.atomic():
            locked = Match.objects.locked(match.pk, snapshot_every=SNAPSHOT_EVERY)
        if (locked.version + 1) % SNAPSHOT_EVERY == 0:
            assert locked.snapshot_rows == replaying._snapshot_rows(match.pk, locked.version)
            snapshots_seen.append(locked.version)
        else:
            assert locked.snapshot_rows is None
        mover, _ = _players_in_turn(match, ada, bob)
        _add(match, mover)
    assert snapshots_seen and Snapshot.objects.filter(match=match).exists()


def test_the_lock_says_whether_the_match_moved_on_since_a_version(tally_match):
    match, ada, bob, _ = tally_match
    seen = match.version
    mover, other = _players_in_turn(match, ada, bob)
    _add(match, mover)
    with transaction.atomic():
        assert Match.objects.locked(match.pk, since=seen).moved_on is True
        assert Match.objects.locked(match.pk, since=seen + 1).moved_on is False
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, other, {"type": "add", "amount": 1}, expected_version=seen)
    assert refused.value.code == "stale_version"


def test_an_action_id_sent_twice_is_one_event_written_together(tally_match):
    match, ada, bob, _ = tally_match
    mover, _ = _players_in_turn(match, ada, bob)
    match.refresh_from_db()
    first = services.submit_action(
        match, mover, {"type": "add", "amount": 1}, client_action_id="once"
    )
    again = services.submit_action(
        match, mover, {"type": "add", "amount": 1}, client_action_id="once"
    )
    assert again.duplicate and again.version == first.version
    event = Event.objects.get(match=match, client_action_id="once")
    assert event.version == first.version and event.pk is not None


def test_a_clock_run_out_is_fired_once_and_set_again_without_cancelling_it(clock, tally_match):
    match, *_ = tally_match
    match.refresh_from_db()
    turn = match.state["turn"]
    clock.advance(match.state["turn_seconds"] + 1)
    assert deadlines.fire_due_deadlines(match_id=match.pk) == 1
    match.refresh_from_db()
    assert match.state["turn"] == 1 - turn
    rows = Deadline.objects.filter(match=match, key="turn").order_by("pk")
    *earlier, fired, pending = rows
    assert fired.fired_at == clock() and not fired.cancelled
    assert pending.fired_at is None and not pending.cancelled
    assert pending.set_at_version == match.version
    assert pending.due_at == datetime.fromisoformat(match.state["deadlines"]["turn"])
    assert all(row.cancelled or row.fired_at for row in earlier)
    assert deadlines.fire_due_deadlines(match_id=match.pk) == 0


def test_the_lock_says_whether_the_host_ever_operated_on_the_match(tally_match):
    match, ada, bob, host = tally_match
    with transaction.atomic():
        assert Match.objects.locked(match.pk).host_has_spoken is False
    host_operations.host_pause(match, host, reason="a moment")
    with transaction.atomic():
        assert Match.objects.locked(match.pk).host_has_spoken is True
