"""Every version of a played match is rebuilt exactly: events keep moves, not states, and
``replaying.rebuild`` plays them again from the nearest snapshot. Every real game's match is
played through the services by its bots (tests/registered.py: a game is here by being
registered; the death match and Pointsweeper also to their end, with their analyses; the fixture
game by hand, with every host operation), the state the rules made at each version is recorded
as it is appended, and every version's rebuilt state must equal it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.core.match import deadlines, host_operations, replaying, seating, services
from games.core.models import Event, Match, Snapshot
from tests.registered import bot_seats, real_games

pytestmark = pytest.mark.django_db


@pytest.fixture
def made(monkeypatch) -> dict[tuple[int, int], dict[str, Any]]:
    """The state each appended event made, by (match pk, version), as its JSON column keeps it."""
    states: dict[tuple[int, int], dict[str, Any]] = {}
    append = services.append

    def recording(match, outcome, *args, **kwargs):
        event = append(match, outcome, *args, **kwargs)
        states[(match.pk, event.version)] = json.loads(json.dumps(outcome.state))
        return event

    monkeypatch.setattr(services, "append", recording)
    return states


def assert_every_version_rebuilt(match: Match, made: dict[tuple[int, int], dict]) -> None:
    match.refresh_from_db()
    assert match.version > replaying.SNAPSHOT_EVERY  # some versions start from a snapshot
    for version in range(1, match.version + 1):
        assert replaying.rebuild(match, version) == made[(match.pk, version)], version
    assert match.state == made[(match.pk, match.version)]
    assert replaying.state_at(match, 0) == {}


def snapshot_versions(match: Match) -> set[int]:
    return set(Snapshot.objects.filter(match=match).values_list("version", flat=True))


def every_k(match: Match) -> set[int]:
    return set(range(replaying.SNAPSHOT_EVERY, match.version + 1, replaying.SNAPSHOT_EVERY))


def bots_match(make_user, game_key: str, levels: list[str], settings: dict) -> Match:
    match = seating.create_match(
        host=make_user("bot-host"),
        game_key=game_key,
        title="bots",
        settings=settings,
        roles=[""] * len(levels),
    )
    Match.objects.filter(pk=match.pk).update(seed=20)  # the same match every run
    for index, level in enumerate(levels):
        seating.seat_bot(match, index, level)
    return match


def play_out(clock, match: Match, step_seconds: float, limit: int = 3000) -> None:
    """Bots act and due clocks fire until the match is over; then every analysis is done."""
    for _ in range(limit):
        clock.advance(step_seconds)
        deadlines.fire_due_deadlines()
        while services.run_bots():
            pass
        match.refresh_from_db()
        if match.is_over:
            break
    assert match.status == Match.Status.FINISHED
    while services.run_analyses():
        pass


@pytest.mark.parametrize("game_key", real_games())
def test_every_games_match_of_bots_is_rebuilt_at_every_version(clock, make_user, made, game_key):
    """Every real game, by being registered: its bots play its match from its fewest seats on
    its default settings for three snapshots' worth of versions (or to its end), the host
    aborts what is still going, and every version is rebuilt."""
    match = bots_match(make_user, game_key, list(bot_seats(game_key)), {})
    for _ in range(1000):
        match.refresh_from_db()
        if match.version >= 3 * replaying.SNAPSHOT_EVERY or match.is_over:
            break
        clock.advance(2)
        deadlines.fire_due_deadlines()
        services.run_bots()
    assert match.version >= 3 * replaying.SNAPSHOT_EVERY or match.is_over, "the bots stalled"
    if not match.is_over:
        host_operations.host_abort(match, match.host, "enough played")
    while services.run_analyses():
        pass
    assert_every_version_rebuilt(match, made)
    assert snapshot_versions(match) == every_k(match)


def test_a_death_match_of_bots_is_rebuilt_at_every_version(clock, make_user, made):
    match = bots_match(make_user, "bejeweled-dm", ["expert", "beginner"], {})
    play_out(clock, match, 2)
    assert_every_version_rebuilt(match, made)
    kinds = set(match.events.values_list("kind", flat=True))
    assert "optimum_found" in kinds  # analyses are played again from their recorded results
    assert snapshot_versions(match) == every_k(match)


def test_a_pointsweeper_match_of_bots_is_rebuilt_at_every_version(clock, make_user, made):
    settings = {"move_seconds": 20, "bank_seconds": 10, "order_seconds": 10}
    match = bots_match(make_user, "pointsweeper", ["club", "beginner"], settings)
    play_out(clock, match, 4)
    assert_every_version_rebuilt(match, made)
    kinds = set(match.events.values_list("kind", flat=True))
    assert {"scouted", "claimed", "analysis"} <= kinds
    assert snapshot_versions(match) == every_k(match)
    # Its state carries the boards played: snapshots keep patches of the one before, and a
    # whole state only now and then (under a quarter of them), a small part of what whole
    # snapshots would weigh.
    rows = Snapshot.objects.filter(match=match).values_list("version", "state", "patch")
    kept = sum(len(json.dumps(state if patch is None else patch)) for _, state, patch in rows)
    whole = sum(len(json.dumps(made[(match.pk, version)])) for version, _, _ in rows)
    assert sum(1 for _, _, patch in rows if patch is None) < len(rows) / 4
    assert kept < whole / 3


def test_every_host_operation_is_rebuilt_at_every_version(clock, seated_match, made):
    """Count to Ten (tests/fixture_flow.py) with drafts a clock plays, pauses, clock changes,
    a replaced seat, an award, a correction, a rematch and an abort."""
    settings = {"target": 100, "turn_seconds": 30, "play_drafts": True}
    match, (ada, bob), host = seated_match("fixture-count", "ada", "bob", settings=settings)
    players = [ada, bob]
    for turn in range(12):
        seat = turn % 2
        if turn % 3 == 2:  # the clock plays what the seat drafted
            services.save_draft(match, players[seat], {"amount": 2})
            clock.advance(31)
            assert deadlines.fire_due_deadlines() == 1
        else:
            services.submit_action(match, players[seat], {"type": "add", "amount": 1 + turn % 3})
        clock.advance(3)
    host_operations.host_pause(match, host, "a break")
    clock.advance(7.25)
    host_operations.host_change_clock(match, host, "turn", 40, "more time")
    clock.advance(60.5)
    host_operations.host_resume(match, host)
    host_operations.host_change_clock(match, host, "turn", -20)
    match.refresh_from_db()
    carol = host_operations.host_replace_seat(match, host, 1, reason="left")
    seating.take_seat(match, bob, carol.invite_token)
    match.refresh_from_db()
    turn_seat = match.state["turn"]
    services.submit_action(match, players[turn_seat], {"type": "add", "amount": 3})
    host_operations.host_pause(match, host)
    clock.advance(5)
    host_operations.host_adjudicate(match, host, {"scope": "match", "winner": 0, "reason": "ruled"})
    host_operations.host_correct_result(match, host, {"scope": "match", "winner": 1}, "misread")
    host_operations.rematch(match, host)
    assert_every_version_rebuilt(match, made)
    corrected = Event.objects.get(match=match, kind="result_corrected").version
    assert snapshot_versions(match) == every_k(match) | {corrected}

    other = seating.create_match(
        host=host, game_key="fixture-count", title="t", settings=settings, roles=["EC", "DMO"]
    )
    for user, seat in zip(players, other.seats.order_by("index"), strict=True):
        seating.take_seat(other, user, seat.invite_token)
    clock.advance(4)
    host_operations.host_abort(other, host, "storm")
    other.refresh_from_db()
    assert replaying.rebuild(other, other.version) == made[(other.pk, other.version)]
    assert other.state["deadlines"] == {}


def test_a_match_row_read_before_a_version_was_made_gets_that_version_rebuilt(clock, tally_match):
    match, ada, bob, host = tally_match
    read_before = Match.objects.get(pk=match.pk)
    services.submit_action(match, ada, {"type": "add", "amount": 2})
    match.refresh_from_db()
    assert match.version == read_before.version + 1
    assert replaying.state_at(read_before, match.version) == match.state
    assert match.state["total"] == read_before.state["total"] + 2
