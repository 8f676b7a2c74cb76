"""games.core.live.client keeps itself current: it reconnects after a drop and resyncs after a
gap."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets

from games.core.live import broadcast
from games.core.live.client import ArenaClient, MatchSocket
from games.core.match import services
from games.core.models import Event
from tests.live_server import in_db, seat_ada_and_bob

PASSWORD = "pw-for-tests-1"

pytestmark = pytest.mark.django_db(transaction=True)


def add_for(match, username: str, action_id: str) -> int:  # type: ignore[no-untyped-def]
    """One move made away from the websockets (as the scheduler or another worker would)."""
    user = match.seats.get(user__username=username).user
    accepted = services.submit_action(
        match, user, {"type": "add", "amount": 1}, client_action_id=action_id
    )
    return accepted.version


def update_versions(socket_) -> list[int]:  # type: ignore[no-untyped-def]
    return [frame["version"] for frame in socket_.frames if frame.get("type") == "update"]


async def event_versions(match) -> list[int]:  # type: ignore[no-untyped-def]
    return await in_db(
        lambda: list(Event.objects.filter(match=match).values_list("version", flat=True))
    )


async def test_a_killed_worker_is_reconnected_to_and_every_missed_event_arrives(
    live_worker, slow_tally
):
    match = slow_tally
    ada = await in_db(lambda: seat_ada_and_bob(live_worker.url, match))
    async with (
        ArenaClient(live_worker.url).match_socket(match.public_id) as watcher,
        ada.match_socket(match.public_id) as ada_ws,
    ):
        for socket_ in (watcher, ada_ws):
            assert (await socket_.recv_until("full"))["version"] == 3
        assert await ada_ws.act({"type": "add", "amount": 1}) == 4
        await watcher.wait_version(4)
        await asyncio.to_thread(live_worker.kill)
        # While no worker runs, the match moves on: the sockets miss version 5.
        assert await in_db(lambda: add_for(match, "bob", "bob-1")) == 5
        await asyncio.to_thread(live_worker.start)
        await watcher.wait_version(5, timeout=30)
        await ada_ws.wait_version(5, timeout=30)
        # Ada's socket reconnected too, and acts on it.
        assert await ada_ws.act({"type": "add", "amount": 2}) == 6
        await watcher.wait_version(6)
        assert watcher.reconnects == 1 and ada_ws.reconnects == 1
    assert update_versions(watcher) == [4, 5, 6]
    assert update_versions(watcher) == (await event_versions(match))[3:]


async def test_an_action_sent_on_a_dropped_connection_is_sent_again_once_reconnected(
    live_worker, slow_tally
):
    match = slow_tally
    ada = await in_db(lambda: seat_ada_and_bob(live_worker.url, match))
    async with ada.match_socket(match.public_id) as ada_ws:
        await ada_ws.recv_until("full")
        await asyncio.to_thread(live_worker.restart)
        # Nothing was read since the kill: the send meets the dead connection (or the ack is
        # lost with it); either way the action is applied once and acknowledged.
        assert await ada_ws.act({"type": "add", "amount": 3}, timeout=30) == 4
        assert ada_ws.reconnects == 1
    assert await event_versions(match) == [1, 2, 3, 4]


async def test_a_lost_broadcast_reaches_the_watcher_before_the_next_update(
    live_worker, slow_tally, monkeypatch
):
    """Version 5's frames are never sent: the watcher's connection holds version 6's frame
    until 5 is sent again (the scheduler's heal, or the connection drawing it): the watcher
    gets 5 then 6 and never sees a gap (issue 40)."""
    match = slow_tally
    ada = await in_db(lambda: seat_ada_and_bob(live_worker.url, match))
    async with (
        ArenaClient(live_worker.url).match_socket(match.public_id) as watcher,
        ada.match_socket(match.public_id) as ada_ws,
    ):
        await watcher.recv_until("full")
        await ada_ws.recv_until("full")
        assert await ada_ws.act({"type": "add", "amount": 1}) == 4
        with monkeypatch.context() as lost:
            lost.setattr(broadcast, "announce", lambda *args: None)
            assert await in_db(lambda: add_for(match, "bob", "bob-1")) == 5
        await ada_ws.wait_version(4)
        assert await ada_ws.act({"type": "add", "amount": 1}, version=5) == 6
        await watcher.wait_version(6)
        await ada_ws.wait_version(6)
    assert update_versions(watcher) == [4, 5, 6]


async def test_an_update_that_skips_a_version_makes_the_client_resync_from_its_own():
    """A frame that skips a version (the last resort: a server that lost track) is dropped and
    the client asks for everything after the version it holds, then holds every version."""
    asked: list[dict] = []

    def update(version: int) -> str:
        event = {"version": version, "kind": "added", "seat": 0, "data": {}}
        return json.dumps({"type": "update", "version": version, "event": event, "patch": []})

    async def server(connection) -> None:  # type: ignore[no-untyped-def]
        await connection.send(json.dumps({"type": "full", "version": 3, "view": {}}))
        await connection.send(update(4))
        await connection.send(update(6))
        async for text in connection:
            message = json.loads(text)
            asked.append(message)
            if message == {"type": "resync", "since": 4}:
                await connection.send(update(5))
                await connection.send(update(6))

    async with websockets.serve(server, "127.0.0.1", 0) as fake:
        port = fake.sockets[0].getsockname()[1]
        url = f"ws://127.0.0.1:{port}/ws/m/m1/?format=json"
        async with MatchSocket(url, origin="http://127.0.0.1", cookie=None) as socket_:
            await socket_.recv_until("full")
            await socket_.wait_version(6)
            assert update_versions(socket_) == [4, 6, 5, 6]
    assert asked == [{"type": "resync", "since": 4}]


async def test_frames_that_come_together_are_read_one_by_one_in_order():
    """A message may carry several frames (a JSON array, docs/protocol.md): the client asks for
    that with together=1, and reads them one by one, each patching the view in turn."""
    urls: list[str] = []

    def update(version: int, count: int) -> dict:
        event = {"version": version, "kind": "added", "seat": 0, "data": {}}
        patch = [["s", ["count"], count]]
        return {"type": "update", "version": version, "event": event, "patch": patch}

    async def server(connection) -> None:  # type: ignore[no-untyped-def]
        urls.append(connection.request.path)
        await connection.send(json.dumps({"type": "full", "version": 3, "view": {"count": 0}}))
        await connection.send(json.dumps([update(4, 1), update(5, 3), update(6, 6)]))
        await connection.send(json.dumps(update(7, 10)))
        async for _ in connection:  # until the client closes
            pass

    async with websockets.serve(server, "127.0.0.1", 0) as fake:
        port = fake.sockets[0].getsockname()[1]
        client = ArenaClient(f"http://127.0.0.1:{port}")
        async with client.match_socket("m1") as socket_:
            await socket_.recv_until("full")
            await socket_.wait_version(7)
            assert update_versions(socket_) == [4, 5, 6, 7]
            assert socket_.view == {"count": 10}
    assert "together=1" in urls[0]


async def test_an_ack_whose_update_never_comes_makes_the_client_ask_for_it():
    """The update of an acknowledged action never comes (its broadcast was lost, say its worker
    died right after the ack): the ack itself shows the client it is behind, and it asks (after
    a second's grace, not at its next ping)."""
    asked: list[dict] = []

    async def server(connection) -> None:  # type: ignore[no-untyped-def]
        await connection.send(json.dumps({"type": "full", "version": 3, "view": {}}))
        async for text in connection:
            message = json.loads(text)
            asked.append(message)
            if message["type"] == "action":
                ack = {"type": "ack", "id": message["id"], "version": 4, "duplicate": False}
                await connection.send(json.dumps(ack))
            elif message["type"] == "resync" and message["since"] == 3:
                event = {"version": 4, "kind": "added", "seat": 0, "data": {}}
                update = {"type": "update", "version": 4, "event": event, "patch": []}
                await connection.send(json.dumps(update))

    async with websockets.serve(server, "127.0.0.1", 0) as fake:
        port = fake.sockets[0].getsockname()[1]
        url = f"ws://127.0.0.1:{port}/ws/m/m1/?format=json"
        async with MatchSocket(url, origin="http://127.0.0.1", cookie=None) as socket_:
            await socket_.recv_until("full")
            assert await socket_.act({"type": "add", "amount": 1}) == 4
            await socket_.wait_version(4)
    assert asked[1] == {"type": "resync", "since": 3, "behind": True}
