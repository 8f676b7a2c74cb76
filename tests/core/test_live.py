"""The match core over real websockets, against real Daphne workers."""

from __future__ import annotations

import asyncio
import json
import os
import re

import pytest
import websockets
from django.conf import settings

from games.core.live.client import ArenaClient, Refused
from games.core.match import seating
from games.core.models import Event, Match
from tests.live_server import Worker, in_db

PASSWORD = "pw-for-tests-1"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def open_tally(make_user):
    host = make_user("hostess", is_staff=True)
    make_user("ada")
    make_user("bob")
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="Live tally", settings={}, roles=["EC", "DMO"]
    )
    return match


def logged_in(worker: Worker, username: str) -> ArenaClient:
    client = ArenaClient(worker.url)
    client.login(username, PASSWORD)
    return client


def join_all(worker: Worker, match: Match) -> tuple[ArenaClient, ArenaClient]:
    ada, bob = logged_in(worker, "ada"), logged_in(worker, "bob")
    seats = list(match.seats.order_by("index"))
    ada.post_form(seats[0].get_invite_url(), {})
    bob.post_form(seats[1].get_invite_url(), {})
    return ada, bob


async def test_a_match_runs_from_lobby_to_result_over_websockets(live_worker, open_tally):
    match = open_tally
    lobby = ArenaClient(live_worker.url).get("/")
    assert "Live tally" in lobby and "Waiting for players" in lobby
    ada, bob = await in_db(lambda: join_all(live_worker, match))
    async with (
        ada.match_socket(match.public_id) as ada_ws,
        bob.match_socket(match.public_id) as bob_ws,
        ArenaClient(live_worker.url).match_socket(match.public_id) as watcher,
    ):
        for socket_ in (ada_ws, bob_ws, watcher):
            first = await socket_.recv()
            assert first["type"] == "full" and first["version"] == 3
        turns = [(ada_ws, 3), (bob_ws, 3), (ada_ws, 3), (bob_ws, 1)]
        for version, (socket_, amount) in enumerate(turns, start=3):
            await socket_.wait_version(version)
            await socket_.act({"type": "add", "amount": amount})
        final = await watcher.wait_version(7)
        assert final["event"]["kind"] == "added"
        assert watcher.latest_view()["match"]["status"] == "finished"
        assert watcher.latest_view()["match"]["result"] == {"winner": 1}
    finished_lobby = ArenaClient(live_worker.url).get("/")
    assert "Replay" in finished_lobby
    replay = ArenaClient(live_worker.url).get(f"/m/{match.public_id}/replay/?v=5")
    # 7 events, and an 8th once the scheduler has recorded the fixture's after-match analysis.
    assert re.search(r"Event <b>5</b> of [78]", replay)


async def test_a_reconnecting_client_gets_exactly_the_missed_updates(live_worker, open_tally):
    match = open_tally
    ada, bob = await in_db(lambda: join_all(live_worker, match))
    async with (
        ada.match_socket(match.public_id) as ada_ws,
        bob.match_socket(match.public_id) as bob_ws,
    ):
        await ada_ws.recv_until("full")
        await bob_ws.recv_until("full")
        await ada_ws.act({"type": "add", "amount": 1})
        await bob_ws.wait_version(4)
        await bob_ws.act({"type": "add", "amount": 1})
        await ada_ws.wait_version(5)
        await ada_ws.act({"type": "add", "amount": 1})
    async with bob.match_socket(match.public_id, since=4) as again:
        frames = [await again.recv(), await again.recv()]
        assert [f["type"] for f in frames] == ["update", "update"]
        assert [f["version"] for f in frames] == [5, 6]
        # Nothing more comes: the answer to a ping is the next frame (the consumer answers its
        # socket's messages in order, after anything it sent for the reconnection).
        await again.send({"type": "ping"})
        assert (await again.recv())["type"] == "pong"
        await again.resync(5)
        assert (await again.recv())["version"] == 6


async def test_no_one_else_ever_receives_a_seats_private_information(live_worker, open_tally):
    match = open_tally
    ada, bob = await in_db(lambda: join_all(live_worker, match))
    await in_db(match.refresh_from_db)
    ada_secret = match.state["secrets"]["0"]
    html_watcher = ArenaClient(live_worker.url).match_socket(match.public_id, json_only=False)
    async with (
        ada.match_socket(match.public_id, json_only=False) as ada_ws,
        bob.match_socket(match.public_id, json_only=False) as bob_ws,
        html_watcher as watcher,
    ):
        for socket_ in (ada_ws, bob_ws, watcher):
            await socket_.recv_until("full")
        await ada_ws.act({"type": "add", "amount": 2})
        await bob_ws.wait_version(4)
        await bob_ws.act({"type": "add", "amount": 2})
        await watcher.wait_version(5)
        await ada_ws.wait_version(5)
    async with bob.match_socket(match.public_id, since=0, json_only=False) as replayed:
        await replayed.wait_version(5)
    assert any(ada_secret in json.dumps(f) for f in ada_ws.frames)
    for socket_ in (bob_ws, watcher, replayed):
        assert socket_.frames
        assert all(ada_secret not in json.dumps(frame) for frame in socket_.frames)
    spectator_export = ArenaClient(live_worker.url).get(f"/m/{match.public_id}/export.json")
    assert ada_secret not in spectator_export


async def test_bad_input_gets_a_clear_error_and_changes_nothing(live_worker, open_tally):
    match = open_tally
    ada, bob = await in_db(lambda: join_all(live_worker, match))
    async with ada.match_socket(match.public_id) as ada_ws:
        await ada_ws.recv_until("full")
        cases = [
            ("{not json", "bad_json"),
            ("[1, 2]", "bad_message"),
            (json.dumps({"type": "teleport"}), "unknown_type"),
            ("x" * 9000, "frame_too_large"),
            (
                json.dumps(
                    {
                        "type": "action",
                        "id": "f1",
                        "seat": 1,
                        "action": {"type": "add", "amount": 1},
                    }
                ),
                "forged_seat",
            ),
        ]
        for text, code in cases:
            await ada_ws.send_raw(text)
            error = await ada_ws.recv_until("error")
            assert error["code"] == code, text[:40]
            assert error["message"]
        with pytest.raises(Refused) as stale:
            await ada_ws.act({"type": "add", "amount": 1}, version=1)
        assert stale.value.code == "stale_version"
        with pytest.raises(Refused) as illegal:
            await ada_ws.act({"type": "add", "amount": 7})
        assert illegal.value.code == "illegal_action"
    async with bob.match_socket(match.public_id) as bob_ws:
        await bob_ws.recv_until("full")
        with pytest.raises(Refused) as out_of_turn:
            await bob_ws.act({"type": "add", "amount": 1})
        assert out_of_turn.value.code == "not_your_turn"
    async with ArenaClient(live_worker.url).match_socket(match.public_id) as guest:
        await guest.recv_until("full")
        with pytest.raises(Refused) as not_seated:
            await guest.act({"type": "add", "amount": 1})
        assert not_seated.value.code == "not_seated"
    await in_db(match.refresh_from_db)
    assert match.version == 3 and match.state["total"] == 0


async def test_a_foreign_origin_is_refused_at_the_handshake(live_worker, open_tally):
    url = f"ws://127.0.0.1:{live_worker.port}/ws/m/{open_tally.public_id}/"
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with websockets.connect(url, origin="http://evil.example"):
            pass
    assert refused.value.response.status_code == 403


async def test_an_unknown_match_gets_an_error_and_a_close(live_worker):
    async with ArenaClient(live_worker.url).match_socket("no-such-match") as socket_:
        error = await socket_.recv()
        assert error == {
            "type": "error",
            "code": "unknown_match",
            "message": "there is no match 'no-such-match'",
        }


@pytest.fixture
def fast_clock_tally(make_user):
    host = make_user("h2")
    make_user("ada")
    make_user("bob")
    return seating.create_match(
        host=host,
        game_key="fixture-tally",
        title="restart",
        settings={"turn_seconds": 2},
        roles=["EC", "DMO"],
    )


async def test_a_worker_restart_loses_no_event_and_still_fires_clocks(
    live_worker, fast_clock_tally
):
    match = fast_clock_tally
    ada, _bob = await in_db(lambda: join_all(live_worker, match))
    async with ada.match_socket(match.public_id) as ada_ws:
        await ada_ws.recv_until("full")
        await ada_ws.act({"type": "add", "amount": 2})
    await asyncio.to_thread(live_worker.restart)
    async with ada.match_socket(match.public_id, since=0) as again:
        await again.wait_version(4)
        # The 2 s turn clock set before the restart fires in the new worker.
        skipped = await again.recv_until("update", timeout=10)
        assert skipped["event"]["kind"] == "turn_skipped"
    kinds = await in_db(
        lambda: list(Event.objects.filter(match=match).values_list("version", "kind"))
    )
    assert [version for version, _ in kinds] == list(range(1, len(kinds) + 1))
    assert [kind for _, kind in kinds][:5] == [
        "seat_taken",
        "seat_taken",
        "started",
        "added",
        "turn_skipped",
    ]


@pytest.mark.redis
@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"),
    reason="Redis: set REDIS_URL=redis://127.0.0.1:6379/0 (.ci/run does)",
)
async def test_two_workers_on_redis_deliver_a_move_to_a_spectator_on_the_other(open_tally):
    first, second = Worker().start(), Worker(scheduler=False).start()
    try:
        match = open_tally
        ada, _bob = await in_db(lambda: join_all(first, match))
        async with ArenaClient(second.url).match_socket(match.public_id) as watcher:
            await watcher.recv_until("full")
            async with ada.match_socket(match.public_id) as ada_ws:
                await ada_ws.recv_until("full")
                await ada_ws.act({"type": "add", "amount": 3})
            await watcher.recv_until("update", version=4)
            assert watcher.latest_view()["game"]["total"] == 3
    finally:
        first.stop()
        second.stop()


async def test_a_flood_of_messages_is_rate_limited_with_a_clear_error(live_worker, open_tally):
    async with ArenaClient(live_worker.url).match_socket(open_tally.public_id) as socket_:
        await socket_.recv_until("full")
        for _ in range(30):
            await socket_.send({"type": "ping"})
        limited = await socket_.recv_until("error", code="rate_limited")
        assert limited["message"] == "too many messages; slow down"
        pongs = [f for f in socket_.frames if f["type"] == "pong"]
    # The burst passes at once; past it, only what the bucket gained while the pings were
    # answered (a loaded machine answers them more slowly, so a few more get through).
    answering = (pongs[-1]["server_time"] - pongs[0]["server_time"]) / 1000
    refilled = settings.WS_RATE_PER_SECOND * answering
    assert settings.WS_RATE_BURST <= len(pongs) <= settings.WS_RATE_BURST + refilled + 1
    assert len(pongs) < 30


async def test_a_draft_survives_a_worker_restart_and_reaches_no_one_else(live_worker, open_tally):
    match = open_tally
    ada, bob = await in_db(lambda: join_all(live_worker, match))
    async with ada.match_socket(match.public_id) as ada_ws:
        await ada_ws.recv_until("full")
        await ada_ws.send({"type": "draft", "draft": {"amount": 3}})
        kept = await ada_ws.recv_until("draft")
        assert kept["draft"] == {"amount": 3}
    await asyncio.to_thread(live_worker.restart)
    async with (
        ada.match_socket(match.public_id) as ada_ws,
        bob.match_socket(match.public_id) as bob_ws,
        ArenaClient(live_worker.url).match_socket(match.public_id) as watcher,
    ):
        assert (await ada_ws.recv_until("full"))["view"]["draft"] == {"amount": 3}
        bob_full = await bob_ws.recv_until("full")
        assert bob_full["view"]["draft"] is None
        watcher_full = await watcher.recv_until("full")
        for frame in (bob_full, watcher_full):
            assert '"amount": 3' not in json.dumps(frame) and '"amount":3' not in json.dumps(frame)
