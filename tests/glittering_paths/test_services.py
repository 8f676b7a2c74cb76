"""Glittering Paths through the one action path (games.core.match.services) with the ``clock``
fixture: clocks become deadline rows fired by the scheduler, racing paths are ordered by the
database, drafts stay with their seat, the analysis is recorded after each round, and bots play
whole matches."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games.core.game.gamedef import Viewer
from games.core.match import deadlines, host_operations, seating, services
from games.core.models import Deadline, Event, LedgerEntry, Match
from games.core.render.rendering import view_of
from games.glittering_paths import engine, players

pytestmark = pytest.mark.django_db

TINY = "RSG\nLRS"  # red: A1 B1 B2 (2 points); blue: C2 B2 B1 (2 points); either ends the round
TINY_BOARDS = "\n\n".join([TINY] * 3)
RED_PATH = ["A1", "B1", "B2"]
BLUE_PATH = ["C2", "B2", "B1"]


@pytest.fixture
def gp(make_user):
    """A started match: (match, Rita the EC in seat 0 (red), Sam the DMO (blue), the host)."""

    def make(**settings):
        host, rita, sam = make_user("hostess"), make_user("rita"), make_user("sam")
        match = seating.create_match(
            host=host,
            game_key="glittering-paths",
            title="paths",
            settings=settings,
            roles=["EC", "DMO"],
        )
        seats = list(match.seats.all())
        seating.take_seat(match, rita, seats[0].invite_token)
        seating.take_seat(match, sam, seats[1].invite_token)
        match.refresh_from_db()
        return match, rita, sam, host

    return make


def pending_deadlines(match: Match) -> list[str]:
    return sorted(
        Deadline.objects.filter(match=match, fired_at=None, cancelled=False).values_list(
            "key", flat=True
        )
    )


def state_of(match: Match) -> dict:
    match.refresh_from_db()
    return match.state


def path(match: Match, user, cells: list[str], **extra) -> services.Accepted:
    turn = state_of(match)["turn_number"]
    return services.submit_action(
        match, user, {"type": "path", "cells": cells, "turn": turn, **extra}
    )


def best(match: Match, seat: int) -> list[str]:
    return engine.best_path(state_of(match)["board"], players.COLOURS[seat])[1]


def test_it_starts_live_in_the_race_with_its_clock_as_a_deadline_row(clock, gp):
    match, *_ = gp()
    assert match.status == Match.Status.LIVE
    assert match.state["phase"] == "race" and match.state["round"] == 1
    assert pending_deadlines(match) == ["race"]


def test_the_first_legal_race_path_is_made_and_the_turn_clock_replaces_the_race(clock, gp):
    match, rita, sam, _ = gp()
    clock.advance(10)
    path(match, sam, best(match, 1))
    state = state_of(match)
    assert (state["phase"], state["first"], state["turn"]) == ("turns", 1, 0)
    assert match.events.last().kind == "race_won"
    assert pending_deadlines(match) == ["turn"]


def test_no_path_in_the_race_starts_a_random_player_when_the_scheduler_fires(clock, gp):
    match, *_ = gp()
    clock.advance(119)
    assert deadlines.fire_due_deadlines() == 0
    clock.advance(2)
    assert deadlines.fire_due_deadlines() == 1
    state = state_of(match)
    assert state["start_kind"] == "random" and state["turn"] in (0, 1)
    assert match.events.last().kind == "random_start"
    assert pending_deadlines(match) == ["turn"]


def test_no_move_in_the_minute_is_a_skip(clock, gp):
    match, rita, sam, _ = gp()
    path(match, rita, best(match, 0))
    clock.advance(61)
    assert deadlines.fire_due_deadlines() == 1
    state = state_of(match)
    assert state["moves"][-1]["kind"] == "skip" and state["moves"][-1]["seat"] == 1
    assert state["turn"] == 0 and state["streak"] == [0, 1]


def test_a_late_move_meets_the_skip_first_even_before_the_scheduler_runs(clock, gp):
    match, rita, sam, _ = gp()
    path(match, rita, best(match, 0))
    clock.advance(61)
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, sam, {"type": "pass", "turn": 2})
    assert refused.value.code == "stale_turn"
    assert state_of(match)["moves"][-1]["kind"] == "skip"


def test_a_refused_path_changes_nothing(clock, gp):
    match, rita, *_ = gp(boards=TINY_BOARDS)
    version, state = match.version, state_of(match)
    events = Event.objects.count()
    with pytest.raises(services.ActionError) as refused:
        path(match, rita, ["A1", "B1", "C1"])
    assert refused.value.code == "illegal_path"
    assert "right angle" in refused.value.message
    match.refresh_from_db()
    assert match.version == version and match.state == state
    assert Event.objects.count() == events


def test_a_race_path_sent_from_an_older_version_is_judged_on_the_current_state(clock, gp):
    match, rita, sam, _ = gp()
    seen = match.version
    clock.advance(3)
    services.submit_action(match, rita, {"type": "agree_end"})
    # The path is unversioned: an older version is no refusal in itself.
    services.submit_action(
        match, sam, {"type": "path", "cells": best(match, 1), "turn": 1}, expected_version=seen
    )
    assert state_of(match)["first"] == 1


def test_a_pass_from_an_older_version_is_refused_as_stale(clock, gp):
    match, rita, sam, _ = gp()
    path(match, rita, best(match, 0))
    match.refresh_from_db()
    seen = match.version
    services.submit_action(match, rita, {"type": "agree_end"})
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, sam, {"type": "pass", "turn": 2}, expected_version=seen)
    assert refused.value.code == "stale_version"


@pytest.mark.django_db(transaction=True)
def test_of_two_race_paths_at_once_exactly_one_stands_and_the_other_learns_why(clock, gp):
    match, rita, sam, _ = gp()
    cells = {rita.username: best(match, 0), sam.username: best(match, 1)}
    barrier = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def race(user) -> None:
        barrier.wait()
        try:
            action = {"type": "path", "cells": cells[user.username], "turn": 1}
            services.submit_action(match, user, action, expected_version=match.version)
            outcomes[user.username] = "made"
        except services.ActionError as refusal:
            outcomes[user.username] = refusal.code
        finally:
            connection.close()

    threads = [threading.Thread(target=race, args=(user,)) for user in (rita, sam)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes.values()) == ["made", "race_lost"]
    assert Event.objects.filter(match=match, kind="race_won").count() == 1
    winner = next(name for name, result in outcomes.items() if result == "made")
    assert state_of(match)["first"] == (0 if winner == "rita" else 1)


def test_a_draft_stays_with_its_seat_and_the_host(clock, gp):
    match, rita, sam, _ = gp(boards=TINY_BOARDS)
    kept = services.save_draft(match, rita, {"cells": ["A1", "B1"]})
    assert kept["cells"] == ["A1", "B1"] and kept["problem"] is None and not kept["complete"]
    assert kept["verdict"].startswith("No rule broken so far")
    broken = services.save_draft(match, sam, {"cells": ["B2"]})
    assert "blue" in broken["problem"]
    match.refresh_from_db()
    assert view_of(match, Viewer(seat=0))["draft"] == kept
    assert view_of(match, Viewer(seat=1))["draft"] == broken
    assert view_of(match, Viewer.host())["drafts"] == {"0": kept, "1": broken}
    assert "draft" not in view_of(match, Viewer.spectator())
    assert "drafts" not in view_of(match, Viewer.spectator())


def test_a_seats_own_path_uses_up_its_draft(clock, gp):
    match, rita, sam, _ = gp(boards=TINY_BOARDS, interval_seconds=30)
    services.save_draft(match, rita, {"cells": RED_PATH})
    services.save_draft(match, sam, {"cells": ["C2"]})
    path(match, rita, RED_PATH)
    match.refresh_from_db()
    assert view_of(match, Viewer(seat=0))["draft"] is None
    assert view_of(match, Viewer(seat=1))["draft"]["cells"] == ["C2"]


def test_a_malformed_draft_is_refused(clock, gp):
    match, rita, *_ = gp()
    with pytest.raises(services.ActionError) as refused:
        services.save_draft(match, rita, {"path": "A1"})
    assert refused.value.code == "bad_draft"


def test_the_analysis_is_recorded_after_the_round_without_making_actions_stale(clock, gp):
    match, rita, sam, _ = gp(boards=TINY_BOARDS, interval_seconds=0)
    path(match, rita, RED_PATH)
    match.refresh_from_db()
    seen = match.version
    assert match.analysis_pending
    assert services.run_analyses() == 1
    match.refresh_from_db()
    event = match.events.last()
    assert event.kind == "analysis" and event.informational
    row = match.state["history"][0]["analysis"][0]
    assert (row["played_cells"], row["best_cells"], row["best_score"]) == (RED_PATH, RED_PATH, "2")
    assert not match.analysis_pending
    # Round 2's race is on; an action against the version before the analysis is not stale.
    services.submit_action(match, sam, {"type": "agree_end"}, expected_version=seen)
    assert state_of(match)["agreed"] == [False, True]


def test_a_complete_match_through_services(clock, gp):
    match, rita, sam, host = gp(boards=TINY_BOARDS, interval_seconds=10)
    # Round 1: Rita wins the race; her path leaves no path for anyone.
    clock.advance(5)
    path(match, rita, RED_PATH)
    state = state_of(match)
    assert state["phase"] == "interval" and state["totals"] == ["2.00", "0.00"]
    assert state["history"][0]["reason"] == "no_paths"
    clock.advance(10)
    assert deadlines.fire_due_deadlines() == 1
    # Round 2: Sam wins the race.
    assert state_of(match)["phase"] == "race" and state_of(match)["round"] == 2
    path(match, sam, BLUE_PATH)
    assert state_of(match)["totals"] == ["2.00", "2.00"]
    clock.advance(10)
    deadlines.fire_due_deadlines()
    # Round 3: no one races; the random start's player passes, the other agrees to end ...
    clock.advance(120)
    deadlines.fire_due_deadlines()
    state = state_of(match)
    mover = state["turn"]
    users = {0: rita, 1: sam}
    services.submit_action(match, users[mover], {"type": "pass", "turn": state["turn_number"]})
    services.submit_action(match, users[mover], {"type": "agree_end"})
    services.submit_action(match, users[1 - mover], {"type": "agree_end"})
    match.refresh_from_db()
    # ... so the totals are level and the tie goes to the DMO (Sam).
    assert match.status == Match.Status.FINISHED
    assert match.result["winner"] == 1 and match.result["totals"] == ["2.00", "2.00"]
    assert "tie goes to the DMO" in match.result["summary"]
    assert LedgerEntry.balance(sam) == {"garnets": 5, "tokens_of_life": 0}
    assert LedgerEntry.balance(rita) == {"garnets": 0, "tokens_of_life": 0}
    assert pending_deadlines(match) == []
    while services.run_analyses():
        pass
    match.refresh_from_db()
    assert all(entry["analysis"] is not None for entry in match.state["history"])
    versions = list(match.events.values_list("version", flat=True))
    assert versions == list(range(1, match.version + 1))
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, rita, {"type": "agree_end"})
    assert refused.value.code == "match_over"


def test_the_host_ends_the_round_then_awards_the_match(clock, gp):
    match, rita, sam, host = gp(interval_seconds=30)
    host_operations.host_adjudicate(match, host, {"end_round": True})
    state = state_of(match)
    assert state["phase"] == "interval" and state["history"][0]["reason"] == "host"
    host_operations.host_adjudicate(match, host, {"winner": 0})
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result["winner"] == 0
    assert LedgerEntry.balance(rita)["garnets"] == 5
    with pytest.raises(services.ActionError):
        host_operations.host_adjudicate(match, host, {"winner": 1})


def test_a_pause_stops_the_race_clock_and_a_resume_gives_the_time_back(clock, gp):
    match, rita, sam, host = gp()
    clock.advance(100)
    host_operations.host_pause(match, host)
    clock.advance(600)
    assert deadlines.fire_due_deadlines() == 0
    host_operations.host_resume(match, host)
    clock.advance(19)
    assert deadlines.fire_due_deadlines() == 0
    path(match, rita, best(match, 0))
    assert state_of(match)["first"] == 0


def test_two_bots_play_a_complete_match_and_every_round_gets_its_analysis(clock, make_user):
    match = seating.create_match(
        host=make_user("bot-host"),
        game_key="glittering-paths",
        title="bots",
        settings={"board_area": 36, "interval_seconds": 5},
        roles=["EC", "DMO"],
    )
    seating.seat_bot(match, 0, "best")
    seating.seat_bot(match, 1, "casual")
    for _ in range(3000):
        if not services.run_bots():
            clock.advance(1)
            deadlines.fire_due_deadlines()
        match.refresh_from_db()
        if match.is_over:
            break
    assert match.status == Match.Status.FINISHED
    assert len(match.state["history"]) == 3
    while services.run_analyses():
        pass
    match.refresh_from_db()
    for entry in match.state["history"]:
        assert entry["analysis"] is not None
        for row, move in zip(entry["analysis"], entry["moves"], strict=True):
            assert row["best_score"] == str(
                engine.best_path(move["board_before"], move["player"])[0]
            )
    kinds = list(match.events.values_list("kind", flat=True))
    assert kinds.count("analysis") == 3
    assert "race_won" in kinds or "random_start" in kinds
    assert not LedgerEntry.objects.exists()  # bots earn no garnets
