"""Bejeweled 2 over real websockets: a game started from its page, swaps acked for the player,
an illegal swap refused, and a spectator following every move without learning the seed; a whole
Classic game played by the greedy bot's choices to game over; an Action game whose clock the
worker's own scheduler runs out."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connections, transaction
from django.utils import timezone

from games.bejeweled2 import bot, flow, levels
from games.bejeweled2 import view as gate
from games.core.game.gamedef import SeatInfo, Viewer
from games.core.live.client import ArenaClient, MatchSocket, Refused
from games.core.match import seating
from games.core.models import Deadline, Match
from tests.live_server import in_db

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "pw-for-tests-1"


def start_from_the_page(url: str, mode: str = "endless") -> Match:
    player = ArenaClient(url)
    player.login("ada", PASSWORD)
    player.post_form("/play/bejeweled-2/", {"mode": mode})
    match = Match.objects.get(game_key="bejeweled-2")
    connections.close_all()
    return match


@pytest.fixture
def ada_account(make_user):
    return make_user("ada")


# --- helpers for whole games -------------------------------------------------------------------

GREEDY_MOVES = range(10, 101)
"""How many swaps the Classic game below may take: enough to be a game, few enough to be quick."""


def greedy_classic_game(seed: int, limit: int) -> tuple[list[tuple[str, str]], int] | None:
    """The swaps the greedy bot makes in a Classic game from ``seed`` (the pure flow, which the
    server runs too) and the final score, or None if the game is not over within ``limit``."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    state = flow.start({"mode": "classic"}, [SeatInfo(0, "", "ada")], seed, now).state
    moves: list[tuple[str, str]] = []
    while state["phase"] != "over":
        if len(moves) == limit:
            return None
        move = bot.choose_move(gate.view(state, Viewer(0)), "greedy")
        assert move is not None  # Classic ends as soon as no legal move is left
        moves.append(move)
        state = flow.act(state, 0, {"type": "swap", "a": move[0], "b": move[1]}, now).state
    return moves, state["score"]


def short_classic_seed() -> tuple[int, list[tuple[str, str]], int]:
    """The first seed whose greedy Classic game ends within GREEDY_MOVES swaps."""
    for seed in range(1, 500):
        game = greedy_classic_game(seed, GREEDY_MOVES.stop - 1)
        if game is not None and len(game[0]) in GREEDY_MOVES:
            return seed, *game
    raise AssertionError("no seed gives a short greedy Classic game")


def start_seeded(mode: str, seed: int) -> Match:
    """A game started as the core starts one when its one seat is taken, on a chosen seed."""
    from django.contrib.auth import get_user_model

    ada = get_user_model().objects.get(username="ada")
    match = seating.create_match(
        host=ada, game_key="bejeweled-2", title="solo", settings={"mode": mode}, roles=[""]
    )
    # Drawn from ``seed`` as a match made before server seeds draws (games/core/game/fairness.py):
    # the game greedy_classic_game played.
    Match.objects.filter(pk=match.pk).update(seed=seed, server_seed="")
    seating.take_seat(match, ada, match.seats.get().invite_token)
    match.refresh_from_db()
    return match


def run_out_the_clock(match_id: int) -> None:
    """The Action bar runs empty now (as it would after a minute or two of no points): the state's
    deadline and its Deadline row are moved together, and the worker's scheduler fires it as it
    fires every clock."""
    due = timezone.now() - timedelta(milliseconds=10)
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        state = match.state
        state["deadlines"][levels.CLOCK] = due.isoformat()
        Match.objects.filter(pk=match_id).update(state=state)
        rows = Deadline.objects.filter(
            match=match, key=levels.CLOCK, fired_at=None, cancelled=False
        )
        assert rows.update(due_at=due) == 1


def updates(socket_: MatchSocket) -> list[dict[str, Any]]:
    return [frame for frame in socket_.frames if frame.get("type") == "update"]


async def check_gap_free(match: Match, *sockets: MatchSocket) -> None:
    """The event log has every version from 1 to the match's, and each socket received, after
    its first full view, exactly the log's later events, in order."""
    events = await in_db(lambda: list(match.events.order_by("version").values("version", "kind")))
    assert [e["version"] for e in events] == list(range(1, match.version + 1))
    for socket_ in sockets:
        joined = next(f["version"] for f in socket_.frames if f.get("type") == "full")
        received = [(f["version"], f["event"]["kind"]) for f in updates(socket_)]
        logged = [(e["version"], e["kind"]) for e in events if e["version"] > joined]
        assert received == logged


async def test_swaps_over_websockets_reach_a_spectator(live_worker, ada_account):
    match = await asyncio.to_thread(start_from_the_page, live_worker.url)
    ada = ArenaClient(live_worker.url)
    await asyncio.to_thread(ada.login, "ada", PASSWORD)
    watcher_client = ArenaClient(live_worker.url)
    async with (
        ada.match_socket(match.public_id) as player,
        watcher_client.match_socket(match.public_id) as watcher,
    ):
        for socket_ in (player, watcher):
            await socket_.recv_until("full")
        with pytest.raises(Refused) as illegal:
            await player.act({"type": "swap", "a": "A1", "b": "A3"})
        assert illegal.value.code == "illegal_swap"
        for _ in range(3):
            view = player.latest_view()["game"]
            if view["over"]:
                break
            a, b = bot.choose_move(view, "greedy")
            version = await player.act({"type": "swap", "a": a, "b": b})
            frame = await watcher.wait_version(version)
            await player.wait_version(version)
            watched = watcher.latest_view()["game"]
            assert watched["score"] == player.latest_view()["game"]["score"] > 0
            assert not watched["you"]
            assert frame["type"] == "update" and frame["event"]["kind"] == "swapped"
            # The spectator's page animates the move from the event's steps, the last of
            # which shows the board the view holds (before any reshuffle).
            played = frame["event"]["data"]
            assert played["steps"][-1]["board"] == played["board"]
        version = await player.act({"type": "end"})
        await watcher.wait_version(version)
        final = watcher.latest_view()
        assert final["match"]["status"] == "finished"
        assert final["match"]["result"]["reason"] == "ended"
        seen = json.dumps(watcher.frames)
    await in_db(match.refresh_from_db)
    assert match.status == Match.Status.FINISHED
    assert f'"seed": {match.seed}' not in seen and str(match.seed) not in seen


async def test_a_whole_classic_game_is_played_to_game_over_over_websockets(
    live_worker, ada_account
):
    seed, expected_moves, expected_score = await asyncio.to_thread(short_classic_seed)
    match = await in_db(lambda: start_seeded("classic", seed))
    ada = ArenaClient(live_worker.url)
    await asyncio.to_thread(ada.login, "ada", PASSWORD)
    async with (
        ada.match_socket(match.public_id) as player,
        ArenaClient(live_worker.url).match_socket(match.public_id) as watcher,
    ):
        for socket_ in (player, watcher):
            await socket_.recv_until("full")
        played: list[tuple[str, str]] = []
        while not player.latest_view()["game"]["over"]:
            assert len(played) < GREEDY_MOVES.stop
            view = player.latest_view()["game"]
            a, b = bot.choose_move(view, "greedy")
            version = await player.act({"type": "swap", "a": a, "b": b}, timeout=20)
            played.append((a, b))
            await player.wait_version(version, timeout=20)
            await watcher.wait_version(version, timeout=20)
        final = watcher.latest_view()
        last = updates(watcher)[-1]["event"]
    assert played == expected_moves
    assert last["kind"] == "game_over"
    game = final["game"]
    assert game["over"] and game["reason"] == "no_moves" and game["actions"] == []
    assert game["score"] == expected_score > 0 and game["moves"] == len(played)
    result = final["match"]["result"]
    assert final["match"]["status"] == "finished"
    assert (result["reason"], result["score"], result["winner"]) == ("no_moves", expected_score, 0)
    await in_db(match.refresh_from_db)
    assert match.status == Match.Status.FINISHED and match.result == result
    await check_gap_free(match, player, watcher)


async def test_the_action_bar_is_run_empty_by_the_workers_scheduler(live_worker, ada_account):
    match = await asyncio.to_thread(start_from_the_page, live_worker.url, "action")
    ada = ArenaClient(live_worker.url)
    await asyncio.to_thread(ada.login, "ada", PASSWORD)
    async with (
        ada.match_socket(match.public_id) as player,
        ArenaClient(live_worker.url).match_socket(match.public_id) as watcher,
    ):
        for socket_ in (player, watcher):
            await socket_.recv_until("full")
        assert player.latest_view()["game"]["mode"] == "action"
        for _ in range(2):
            view = player.latest_view()["game"]
            a, b = bot.choose_move(view, "greedy")
            version = await player.act({"type": "swap", "a": a, "b": b}, timeout=20)
            await player.wait_version(version, timeout=20)
            await watcher.wait_version(version, timeout=20)
        swapped = player.latest_view()["game"]
        assert swapped["moves"] == 2 and swapped["deadline"] and not swapped["over"]
        before = player.version
        await in_db(lambda: run_out_the_clock(match.pk))
        # Nobody acts: only the scheduler can end the game now.
        frames = [await s.recv_until("update", timeout=20) for s in (player, watcher)]
        final = watcher.latest_view()
    for frame in frames:
        assert frame["version"] == before + 1
        assert frame["event"]["kind"] == "game_over"
        assert frame["event"]["seat"] is None and frame["event"]["data"]["reason"] == "time_up"
    game = final["game"]
    assert game["over"] and game["reason"] == "time_up" and game["bar"]["points"] == 0
    assert game["deadline"] is None and game["moves"] == 2
    assert final["match"]["status"] == "finished"
    assert final["match"]["result"]["reason"] == "time_up"
    assert final["match"]["result"]["mode"] == "action"
    await in_db(match.refresh_from_db)
    assert match.status == Match.Status.FINISHED and match.result["reason"] == "time_up"
    pending = await in_db(
        lambda: Deadline.objects.filter(match=match, fired_at=None, cancelled=False).count()
    )
    fired = await in_db(
        lambda: Deadline.objects.filter(
            match=match, key=levels.CLOCK, fired_at__isnull=False
        ).count()
    )
    assert (pending, fired) == (0, 1)
    await check_gap_free(match, player, watcher)
