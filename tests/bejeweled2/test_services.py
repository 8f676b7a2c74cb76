"""Bejeweled 2 through the one action path (games.core.match.services) with the ``clock`` fixture:
whole games to their end, the Action clock run out by the scheduler, a bot, refusals."""

from __future__ import annotations

import pytest

from games.bejeweled2 import bot, solver, standings
from games.bejeweled2.puzzles import PUZZLES
from games.core.game.gamedef import ActionError, Viewer
from games.core.match import deadlines, seating, services
from games.core.models import Deadline, Event, LedgerEntry, Match

pytestmark = pytest.mark.django_db

QUICK_SEED = 2
"""A Classic board on which random legal moves reach a stuck board within a few moves."""


@pytest.fixture
def solo(make_user):
    """A started game for one player: (match, player)."""

    def make(seed: int = QUICK_SEED, **settings):
        ada = make_user("ada")
        match = seating.create_match(
            host=ada, game_key="bejeweled-2", title="solo", settings=settings, roles=[""]
        )
        Match.objects.filter(pk=match.pk).update(seed=seed)
        seating.take_seat(match, ada, match.seats.get().invite_token)
        match.refresh_from_db()
        return match, ada

    return make


def player_view(match: Match) -> dict:
    match.refresh_from_db()
    return match.game.view(match.state, Viewer(0))


def pending_deadlines(match: Match) -> list[Deadline]:
    return list(
        Deadline.objects.filter(match=match, fired_at=None, cancelled=False).order_by("key")
    )


def test_taking_the_one_seat_starts_the_game(clock, solo):
    match, _ = solo()
    assert match.status == Match.Status.LIVE
    assert match.state["phase"] == "playing" and match.state["mode"] == "classic"
    assert [deadline.key for deadline in pending_deadlines(match)] == ["idle"]


def test_a_whole_classic_game_is_played_to_game_over(clock, solo):
    match, ada = solo()
    moves = 0
    while match.status == Match.Status.LIVE:
        view = player_view(match)
        a, b = bot.choose_move(view, "random")
        services.submit_action(match, ada, {"type": "swap", "a": a, "b": b})
        clock.advance(1)
        match.refresh_from_db()
        moves += 1
        assert moves < 200
    assert match.status == Match.Status.FINISHED
    assert match.result["reason"] == "no_moves" and match.result["winner"] == 0
    assert match.result["score"] == match.state["score"] > 0
    assert match.result["moves"] == moves
    assert Event.objects.filter(match=match).last().kind == "game_over"
    assert not LedgerEntry.objects.filter(user=ada).exists()  # a solo game pays nothing


def test_the_action_bar_runs_empty_through_the_scheduler(clock, solo):
    match, ada = solo(mode="action")
    deadline = pending_deadlines(match)[0]
    assert [d.key for d in pending_deadlines(match)] == ["clock", "idle"]
    clock.advance(30)
    assert deadlines.fire_due_deadlines(now=clock()) == 0
    view = player_view(match)
    a, b = bot.choose_move(view, "greedy")
    services.submit_action(match, ada, {"type": "swap", "a": a, "b": b})
    later = Deadline.objects.get(match=match, key="clock", fired_at=None, cancelled=False)
    assert later.due_at > deadline.due_at  # the points scored filled the bar
    clock.advance(70)  # 350 points were left at 5 a second, and the move's points
    assert deadlines.fire_due_deadlines(now=clock()) == 0
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    clock.advance(100)
    assert deadlines.fire_due_deadlines(now=clock()) == 1
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result["reason"] == "time_up" and match.result["mode"] == "action"
    assert match.state["bar"]["points"] == 0
    assert pending_deadlines(match) == []


@pytest.mark.parametrize("mode", ["classic", "endless"])
def test_a_game_left_alone_ends_as_abandoned_through_the_scheduler(clock, solo, mode):
    match, ada = solo(mode=mode, idle_minutes=20)
    clock.advance(15 * 60)
    a, b = bot.choose_move(player_view(match), "greedy")
    services.submit_action(match, ada, {"type": "swap", "a": a, "b": b})  # the clock starts again
    clock.advance(19 * 60)
    assert deadlines.fire_due_deadlines(now=clock()) == 0
    assert standings.live_games()[0]["match"] == match
    clock.advance(61)
    assert deadlines.fire_due_deadlines(now=clock()) == 1
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result["reason"] == "abandoned" and match.result["winner"] is None
    assert "no one played it for too long" in match.result["summary"]
    assert standings.live_games() == [] and pending_deadlines(match) == []


def test_a_swap_after_the_clock_ran_out_is_refused_and_the_game_ends(clock, solo):
    match, ada = solo(mode="action")
    view = player_view(match)
    clock.advance(101)
    a, b = bot.choose_move(view, "greedy")
    with pytest.raises(ActionError) as refused:
        services.submit_action(match, ada, {"type": "swap", "a": a, "b": b})
    assert refused.value.code in ("time_up", "match_over")
    deadlines.fire_due_deadlines(now=clock())
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result["reason"] == "time_up"
    assert match.state["moves"] == 0


def test_a_refused_swap_changes_nothing(clock, solo):
    match, ada = solo()
    before = (match.version, match.state, Event.objects.filter(match=match).count())
    with pytest.raises(ActionError) as refused:
        services.submit_action(match, ada, {"type": "swap", "a": "A1", "b": "A3"})
    assert refused.value.code == "illegal_swap"
    match.refresh_from_db()
    assert (match.version, match.state, Event.objects.filter(match=match).count()) == before


def test_only_the_player_may_swap(clock, solo, make_user):
    match, _ = solo()
    view = player_view(match)
    a, b = bot.choose_move(view, "greedy")
    with pytest.raises(ActionError):
        services.submit_action(match, make_user("eve"), {"type": "swap", "a": a, "b": b})


def test_a_swap_sent_against_an_older_version_is_still_played(clock, solo):
    match, ada = solo(seed=5)
    seen = match.version
    for _ in range(2):
        view = player_view(match)
        a, b = bot.choose_move(view, "greedy")
        services.submit_action(match, ada, {"type": "swap", "a": a, "b": b}, expected_version=seen)
    match.refresh_from_db()
    assert match.state["moves"] == 2


def test_a_hint_is_recorded_and_shown(clock, solo):
    match, ada = solo(seed=5)
    services.submit_action(match, ada, {"type": "hint"})
    view = player_view(match)
    assert view["hint"] and view["hints"] == 1
    marked = [c["cell"] for row in view["grid"]["rows"] for c in row if c["marks"] == "hint"]
    assert marked == sorted([view["hint"]["a"], view["hint"]["b"]])


def test_a_puzzle_is_solved_by_its_solution(clock, solo):
    match, ada = solo(mode="puzzle", puzzle=1)
    for a, b in solver.solve(PUZZLES[1].board).moves:
        services.submit_action(match, ada, {"type": "swap", "a": a, "b": b})
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result["solved"] is True and match.result["next_puzzle"] == 2


def test_a_bot_plays_its_game(clock, make_user):
    host = make_user("hostess")
    match = seating.create_match(
        host=host, game_key="bejeweled-2", title="bot", settings={}, roles=[""]
    )
    seating.seat_bot(match, 0, "greedy")
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    assert services.run_bots() == 0  # it pauses like a person first
    clock.advance(2)
    assert services.run_bots() == 1
    match.refresh_from_db()
    assert match.state["moves"] == 1
