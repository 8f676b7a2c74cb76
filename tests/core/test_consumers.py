"""The match consumer in process (channels' WebsocketCommunicator): no real socket needed."""

from __future__ import annotations

import asyncio
import json
import threading
import zlib
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django import db
from django.contrib.auth.models import AnonymousUser
from django.db import transaction

from games.core.live import acting
from games.core.match import host_operations, seating, services
from games.core.models import Match
from gemsite.routing import websocket_urlpatterns
from tests.sockets import PATIENCE_SECONDS, frames_before, pong_comes_next, receive, version_is

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def tally(make_user):
    host = make_user("hostess", is_staff=True)
    ada, bob = make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="t", settings={}, roles=["EC", "DMO"]
    )
    seats = list(match.seats.all())
    seating.take_seat(match, ada, seats[0].invite_token)
    seating.take_seat(match, bob, seats[1].invite_token)
    match.refresh_from_db()
    return match, ada, bob, host


async def connect(match, user, query: str = "") -> WebsocketCommunicator:
    socket = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/m/{match.public_id}/?{query}"
    )
    socket.scope["user"] = user or AnonymousUser()
    connected, _ = await socket.connect(timeout=30)
    assert connected
    return socket


def is_chat_line(frame: dict) -> bool:
    return frame["type"] == "chat" and "message" in frame


async def test_a_draft_reaches_its_seat_and_the_host_and_no_one_else(tally):
    match, ada, bob, host = tally
    sockets = [await connect(match, user) for user in (ada, bob, None, host)]
    ada_ws, bob_ws, watcher, host_ws = sockets
    fulls = [await receive(socket) for socket in sockets]
    assert [full["type"] for full in fulls] == ["full"] * 4
    await ada_ws.send_json_to({"type": "draft", "draft": {"amount": 2}})
    assert await receive(ada_ws) == {"type": "draft", "draft": {"amount": 2}}
    assert await receive(host_ws) == {"type": "draft", "draft": {"amount": 2}, "seat": 0}
    again = await connect(match, ada)  # a reload
    assert (await receive(again))["view"]["draft"] == {"amount": 2}
    spectator_again = await connect(match, None)
    assert "amount" not in json.dumps(await receive(spectator_again))
    # Ada's next move reaches bob and the spectator after anything sent to them before it.
    await sync_to_async(services.submit_action)(match, ada, {"type": "add", "amount": 1})
    for socket in (bob_ws, watcher):
        assert await frames_before(socket, version_is(fulls[0]["version"] + 1)) == []
    for socket in (*sockets, again, spectator_again):
        await socket.disconnect()


async def test_a_draft_reaches_every_tab_of_its_seat_with_the_id_that_sent_it(tally):
    match, ada, _, _ = tally
    first, second = await connect(match, ada), await connect(match, ada)  # two tabs
    for socket in (first, second):
        assert (await receive(socket))["type"] == "full"
    await first.send_json_to({"type": "draft", "id": "tab-1-draft-1", "draft": {"amount": 3}})
    told = {"type": "draft", "draft": {"amount": 3}, "id": "tab-1-draft-1"}
    assert await receive(first) == told  # its own, known by its id
    assert await receive(second) == told  # the other tab's, shown there too
    # A refused draft says which one it was.
    await second.send_json_to({"type": "draft", "id": "tab-2-draft-1", "draft": {"x": "y" * 5000}})
    refusal = await receive(second)
    assert (refusal["type"], refusal["code"], refusal["id"]) == (
        "error",
        "draft_too_large",
        "tab-2-draft-1",
    )
    for socket in (first, second):
        await socket.disconnect()


@pytest.fixture
def locks(monkeypatch) -> list[tuple]:
    """The match rows locked (``services.lock``), in order."""
    taken: list[tuple] = []
    lock = services.lock
    monkeypatch.setattr(services, "lock", lambda *a, **kw: taken.append(a) or lock(*a, **kw))
    return taken


async def ada_bob_and_a_watcher(tally) -> tuple[list[WebsocketCommunicator], int]:
    """Ada's, Bob's and a spectator's sockets, their first frames read, and the version."""
    match, ada, bob, _ = tally
    sockets = [await connect(match, user) for user in (ada, bob, None)]
    return sockets, [(await receive(socket))["version"] for socket in sockets][0]


async def answered_under_one_hold(
    sockets: list[WebsocketCommunicator], version: int, locks: list[tuple]
) -> None:
    """Ada's "a1" made the next version and Bob's "b1" the one after, under one lock of the
    row, and the spectator got each version."""
    ada_ws, bob_ws, watcher = sockets
    for socket, action_id, made in ((ada_ws, "a1", version + 1), (bob_ws, "b1", version + 2)):
        ack = next(f for f in [await receive(socket) for _ in range(3)] if f["type"] == "ack")
        assert (ack["id"], ack["version"], ack["duplicate"]) == (action_id, made, False)
    assert len(locks) == 1
    assert [f["version"] for f in await frames_before(watcher, version_is(version + 2))] == [
        version + 1
    ]
    for socket in sockets:
        await socket.disconnect()


async def test_actions_waiting_together_go_under_one_hold_and_every_viewer_gets_each_version(
    tally, locks
):
    match = tally[0]
    sockets, version = await ada_bob_and_a_watcher(tally)
    ada_ws, bob_ws, _ = sockets
    acting._applying.acquire()  # the thread that applies changes is busy until both wait
    try:
        # One at a time: the game takes turns, and the two consumers run side by side, so Bob's
        # action sent at once could be queued before Ada's (and refused: not his turn).
        for queued, (socket, action_id) in enumerate(((ada_ws, "a1"), (bob_ws, "b1")), 1):
            action = {"type": "add", "amount": 2}
            await socket.send_json_to({"type": "action", "id": action_id, "action": action})
            await asyncio.wait_for(waiting(match.pk, queued), PATIENCE_SECONDS)
    finally:
        acting._applying.release()
    await answered_under_one_hold(sockets, version, locks)


async def test_an_action_that_comes_while_the_row_is_awaited_joins_that_hold(tally, locks):
    match = tally[0]
    sockets, version = await ada_bob_and_a_watcher(tally)
    ada_ws, bob_ws, _ = sockets
    row_held, let_go = threading.Event(), threading.Event()
    holder = threading.Thread(target=hold_the_row, args=(match.pk, row_held, let_go))
    holder.start()  # another worker's hold: Ada's action waits for the row
    try:
        assert await asyncio.to_thread(row_held.wait, PATIENCE_SECONDS)
        add = {"type": "add", "amount": 2}
        await ada_ws.send_json_to({"type": "action", "id": "a1", "action": add})
        await asyncio.wait_for(awaiting_the_row(match.pk), PATIENCE_SECONDS)
        await bob_ws.send_json_to({"type": "action", "id": "b1", "action": add})
        await asyncio.wait_for(waiting(match.pk, 1), PATIENCE_SECONDS)
    finally:
        let_go.set()
        await asyncio.to_thread(holder.join, PATIENCE_SECONDS)
    await answered_under_one_hold(sockets, version, locks)


def hold_the_row(match_pk: int, held: threading.Event, let_go: threading.Event) -> None:
    try:
        with transaction.atomic():
            Match.objects.select_for_update().get(pk=match_pk)
            held.set()
            let_go.wait(PATIENCE_SECONDS)
    finally:
        db.connection.close()


async def awaiting_the_row(match_pk: int) -> None:
    """Until the thread that applies changes has taken the match's waiting actions (and waits
    for its row)."""
    while not acting._applying.locked() or acting._waiting.get(match_pk):
        await asyncio.sleep(0.01)


async def waiting(match_pk: int, count: int) -> None:
    """Until ``count`` actions of the match wait for the thread that applies changes."""
    while len(acting._waiting.get(match_pk, [])) < count:
        await asyncio.sleep(0.01)


async def test_an_update_carries_only_the_panels_that_changed(tally):
    match, ada, bob, _ = tally
    ada_ws = await connect(match, ada)
    full = await receive(ada_ws)
    assert 'id="match-status"' in full["html"]
    await ada_ws.send_json_to(
        {
            "type": "action",
            "id": "x1",
            "version": full["version"],
            "action": {"type": "add", "amount": 1},
        }
    )
    frames = [await receive(ada_ws), await receive(ada_ws)]
    ack = next(f for f in frames if f["type"] == "ack")
    update = next(f for f in frames if f["type"] == "update")
    assert ack["version"] == update["version"] == full["version"] + 1
    assert 'id="match-status"' not in update["html"]  # still "Live": not sent again
    patched = [panel_id for panel_id, _ops in update.get("html_patch", [])]
    assert 'id="match-version"' in update["html"] or "match-version" in patched
    assert ["s", ["game", "total"], 1] in update["patch"]  # what changed, not the whole view
    assert "view" not in update
    await ada_ws.disconnect()


async def test_a_clock_fired_on_the_way_to_a_refusal_reaches_every_viewer(clock, tally):
    match, ada, *_ = tally
    ada_ws, watcher = await connect(match, ada), await connect(match, None)
    full = await receive(ada_ws)
    await receive(watcher)
    clock.advance(60)  # ada's turn clock is due and no scheduler runs
    await ada_ws.send_json_to(
        {"type": "action", "id": "late", "version": full["version"], "action": {"type": "add"}}
    )
    # Her move meets the clock first (it fires in the action's path), then the version it saw.
    frames = [await receive(ada_ws), await receive(ada_ws)]
    assert [f["type"] for f in frames] == ["error", "update"]
    assert frames[0]["code"] == "stale_version"
    skipped = await receive(watcher)
    assert skipped["version"] == full["version"] + 1
    assert skipped["event"]["kind"] == "turn_skipped"
    for socket in (ada_ws, watcher):
        await socket.disconnect()


async def test_an_update_older_than_the_full_frame_is_not_sent(tally):
    match, ada, *_ = tally
    from games.core.live import broadcast
    from games.core.models import Event, Match
    from games.core.render.rendering import Announcement

    watcher = await connect(match, None)
    full = await receive(watcher)

    def old_messages():
        current = Match.objects.with_seats().get(pk=match.pk)
        event = Event.objects.get(match=current, version=full["version"])
        return broadcast.render([Announcement.stored(current, event)])

    for group, message in await sync_to_async(old_messages)():
        if group.endswith("spectators"):
            await watcher.send_input(message)
    await pong_comes_next(watcher)
    await watcher.disconnect()


@pytest.mark.parametrize(
    "text",
    [
        "[" * 2000 + "]" * 2000,
        '{"type": {}}',
        '{"type": []}',
        '{"type": "action", "id": "a\\u0000b", "action": {"type": "add", "amount": 1}}',
        '{"type": "action", "id": "\\ud800", "action": {"type": "add", "amount": 1}}',
        '{"type": "draft", "draft": []}',
    ],
)
async def test_a_hostile_frame_gets_an_error_and_keeps_the_connection(tally, text):
    match, ada, *_ = tally
    socket = await connect(match, ada)
    await receive(socket)
    await socket.send_to(text_data=text)
    error = await receive(socket)
    assert error["type"] == "error" and error["message"]
    await socket.send_json_to({"type": "ping"})
    assert (await receive(socket))["type"] == "pong"
    await socket.disconnect()


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "action", "id": "n1", "action": {"type": "add", "amount": 1, "note": NaN}}',
        '{"type": "action", "id": "n2", "action": {"type": "add", "amount": 1, "x": "\\u0000"}}',
        '{"type": "action", "id": "n3", "action": {"type": "add", "amount": 1, "x": "\\ud800"}}',
        '{"type": "draft", "draft": {"amount": 2, "x": "\\u0000"}}',
        '{"type": "chat", "id": "chat-n", "channel": "players", "text": "gg\\u0000"}',
    ],
)
async def test_characters_the_database_cannot_keep_are_refused_as_a_bad_message(tally, text):
    match, ada, *_ = tally
    socket = await connect(match, ada)
    full = await receive(socket)
    await socket.send_to(text_data=text)
    error = await receive(socket)
    assert error["code"] == "bad_message", error  # not "unavailable": the database is fine
    await pong_comes_next(socket)
    await sync_to_async(match.refresh_from_db)()
    assert match.version == full["version"]
    await socket.disconnect()


async def test_a_glittering_paths_draft_with_a_nul_is_refused_and_kept_nowhere(make_user):
    from games.core.models import Seat

    host, rita, sam = [await sync_to_async(make_user)(name) for name in ("boss", "rita", "sam")]

    def start():
        match = seating.create_match(
            host=host, game_key="glittering-paths", title="p", settings={}, roles=["EC", "DMO"]
        )
        for seat, user in zip(match.seats.order_by("index"), (rita, sam), strict=True):
            seating.take_seat(match, user, seat.invite_token)
        return match

    match = await sync_to_async(start)()
    rita_ws, host_ws = await connect(match, rita), await connect(match, host)
    for socket in (rita_ws, host_ws):
        await receive(socket)
    await rita_ws.send_to(text_data='{"type": "draft", "draft": {"cells": ["A1\\u0000"]}}')
    assert (await receive(rita_ws))["code"] == "bad_message"
    drafts = Seat.objects.filter(match=match).exclude(draft=None)
    assert not await sync_to_async(drafts.exists)()
    await host_ws.send_json_to({"type": "chat", "id": "c1", "channel": "players", "text": "ok"})
    assert not [f for f in await frames_before(host_ws, is_chat_line) if f["type"] == "draft"]
    for socket in (rita_ws, host_ws):
        await socket.disconnect()


async def test_a_game_that_keeps_no_drafts_refuses_even_an_empty_one(make_user):
    from games.core.models import Seat

    host, ada, bob = [await sync_to_async(make_user)(name) for name in ("boss", "ada", "bob")]

    def start():
        match = seating.create_match(
            host=host, game_key="pointsweeper", title="p", settings={}, roles=["EC", "DMO"]
        )
        for seat, user in zip(match.seats.order_by("index"), (ada, bob), strict=True):
            seating.take_seat(match, user, seat.invite_token)
        return match

    match = await sync_to_async(start)()
    ada_ws, host_ws = await connect(match, ada), await connect(match, host)
    for socket in (ada_ws, host_ws):
        await receive(socket)
    await ada_ws.send_json_to({"type": "draft", "draft": {}})
    assert (await receive(ada_ws))["code"] == "no_drafts"
    drafts = Seat.objects.filter(match=match).exclude(draft=None)
    assert not await sync_to_async(drafts.exists)()
    await host_ws.send_json_to({"type": "chat", "id": "c1", "channel": "players", "text": "ok"})
    assert not [f for f in await frames_before(host_ws, is_chat_line) if f["type"] == "draft"]
    for socket in (ada_ws, host_ws):
        await socket.disconnect()


async def test_a_since_that_is_not_plain_digits_gets_a_full_frame(tally):
    match, ada, *_ = tally
    socket = await connect(match, ada, "since=%C2%B2")
    assert (await receive(socket))["type"] == "full"
    await socket.disconnect()


async def test_a_pong_tells_a_client_that_missed_a_frame_the_current_version(tally):
    match, ada, bob, _ = tally
    watcher = await connect(match, None)
    full = await receive(watcher)
    await sync_to_async(services.submit_action)(match, ada, {"type": "add", "amount": 2})
    await receive(watcher)  # the update; pretend it was lost on the way
    await watcher.send_json_to({"type": "ping"})
    pong = await receive(watcher)
    assert pong["type"] == "pong" and pong["version"] == full["version"] + 1
    await watcher.disconnect()


async def add(socket, version: int, action_id: str) -> None:
    await socket.send_json_to(
        {
            "type": "action",
            "id": action_id,
            "version": version,
            "action": {"type": "add", "amount": 1},
        }
    )


async def test_no_frame_is_drawn_for_an_audience_with_no_page_open_and_a_late_one_misses_none(
    tally, monkeypatch
):
    """Bob and the host have no page open when Ada moves: only her seat's frame is drawn. They
    open theirs after (each its whole view), and Bob's move reaches each page as an update of
    the version it holds, not as a resync."""
    from games.core.live import broadcast

    match, ada, bob, host = tally
    drawn: list[tuple[int, str]] = []
    frames_drawn = broadcast.frames_drawn

    def recorded(told, **kwargs):
        for viewer, frame in frames_drawn(told, **kwargs):
            drawn.append((told.event.version, viewer.audience))
            yield viewer, frame

    monkeypatch.setattr(broadcast, "frames_drawn", recorded)
    ada_ws = await connect(match, ada)
    version = (await receive(ada_ws))["version"]
    await add(ada_ws, version, "a1")
    await frames_before(ada_ws, version_is(version + 1))
    bob_ws, host_ws = await connect(match, bob), await connect(match, host)
    for socket in (bob_ws, host_ws):
        assert (await receive(socket))["version"] == version + 1
    await add(bob_ws, version + 1, "b1")
    for socket in (ada_ws, bob_ws, host_ws):  # each page's next update, no resync before it
        before = await frames_before(socket, version_is(version + 2))
        assert [frame["type"] for frame in before] in ([], ["ack"])
    assert [audience for made, audience in drawn if made == version + 1] == ["seat-0"]
    assert [audience for made, audience in drawn if made == version + 2] == [
        "seat-1",
        "seat-0",
        "host",
    ]
    for socket in (ada_ws, bob_ws, host_ws):
        await socket.disconnect()


async def test_a_viewer_only_behind_is_sent_only_what_its_connection_has_not_sent(tally):
    match, ada, *_ = tally
    socket = await connect(match, ada)
    full = await receive(socket)
    await add(socket, full["version"], "b1")
    ack, update = await receive(socket), await receive(socket)
    assert (ack["type"], update["type"]) == ("ack", "update")
    # The ack named a version the page did not hold yet, so it asked (dropping nothing) while
    # the update was on its way: the update is not sent again.
    await socket.send_json_to({"type": "resync", "since": full["version"], "behind": True})
    await pong_comes_next(socket)
    await socket.disconnect()


async def test_a_viewer_behind_a_lost_broadcast_gets_it_when_it_asks(tally, monkeypatch):
    from games.core.live import broadcast

    match, ada, *_ = tally
    socket = await connect(match, ada)
    full = await receive(socket)

    async def lost(announcements):
        return None

    monkeypatch.setattr(broadcast, "send", lost)
    await add(socket, full["version"], "b2")
    ack = await receive(socket)
    await pong_comes_next(socket)  # the update was lost
    await socket.send_json_to({"type": "resync", "since": full["version"], "behind": True})
    update = await receive(socket)
    assert update["type"] == "update" and update["version"] == ack["version"]
    # The version and the game's panel changed: sent as patches of the ones the page holds.
    assert [panel_id for panel_id, _ in update["html_patch"]] == ["match-version", "game-state"]
    await socket.disconnect()


async def test_a_frame_the_layer_fails_to_send_is_sent_again(monkeypatch):
    from games.core.live import broadcast

    sent = []

    class FlakyLayer:
        async def group_send(self, group, message):
            sent.append(group)
            if len(sent) == 1:
                raise ConnectionError("the Redis connection was closed")

    monkeypatch.setattr(broadcast, "get_channel_layer", FlakyLayer)
    await broadcast.send_messages([("match.1.spectators", {"version": 7})])
    assert sent == ["match.1.spectators", "match.1.spectators"]


async def test_every_frame_names_the_panels_the_page_should_hold(tally):
    match, ada, *_ = tally
    socket = await connect(match, ada)
    full = await receive(socket)
    assert "match-status" in full["panel_ids"] and "game-state" in full["panel_ids"]
    await socket.send_json_to(
        {
            "type": "action",
            "id": "p1",
            "version": full["version"],
            "action": {"type": "add", "amount": 1},
        }
    )
    frames = [await receive(socket), await receive(socket)]
    update = next(f for f in frames if f["type"] == "update")
    assert update["panel_ids"] == full["panel_ids"]  # named even when not sent again
    assert 'id="match-status"' not in update["html"]
    await socket.disconnect()


async def test_an_action_while_the_database_is_down_gets_a_clear_error(tally, monkeypatch):
    from django.db import OperationalError

    match, ada, *_ = tally
    socket = await connect(match, ada)
    full = await receive(socket)

    def down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(services, "submit_actions", down)
    await socket.send_json_to(
        {"type": "action", "id": "d1", "version": full["version"], "action": {"type": "add"}}
    )
    error = await receive(socket)
    assert error["code"] == "unavailable" and error["id"] == "d1"
    assert "nothing changed" in error["message"]
    await socket.send_json_to({"type": "ping"})
    assert (await receive(socket))["type"] == "pong"  # the connection stays
    await socket.disconnect()


async def test_a_connect_while_the_database_is_down_is_closed_with_4503(tally, monkeypatch):
    from django.db import OperationalError

    from games.core.live.consumers import MatchConsumer

    match, ada, *_ = tally

    def down(self, public_id):
        raise OperationalError("connection refused")

    monkeypatch.setattr(MatchConsumer, "_load", down)
    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/m/{match.public_id}/")
    socket.scope["user"] = ada
    connected, _ = await socket.connect(timeout=30)
    assert connected
    assert (await receive(socket))["code"] == "unavailable"
    closed = await socket.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": 4503}


def test_a_connection_holds_its_match_by_key_and_no_copy_of_its_state(tally):
    """A thousand spectators of a long match must not each hold its state (worker memory, and
    the collector's pauses going over it): a connection keeps the match's key, and the seat's
    actions still reach the match as it is."""
    from games.core.live.consumers import MatchConsumer

    match, ada, _bob, _host = tally
    assert match.state, "the fixture's match has a state to hold"
    consumer = MatchConsumer()
    consumer.scope = {"user": ada}
    assert consumer._load(match.public_id)
    assert consumer.viewer.seat == 0
    assert consumer.match.pk == match.pk and consumer.match.public_id == match.public_id
    assert consumer.match.state != match.state
    accepted = services.submit_action(consumer.match, ada, {"type": "add", "amount": 1})
    assert accepted.version == match.version + 1


async def test_a_frame_reaches_the_spectators_without_a_hop_to_the_database_thread(
    tally, monkeypatch
):
    """Channels closes stale database connections in the thread that applies changes before
    every message it dispatches: a round trip through that one thread per frame per socket. The
    match's sockets skip it (their database calls close stale connections themselves), so a
    frame to many spectators never queues behind the others' hops or the actions."""
    match, ada, _bob, _host = tally
    hops = []

    async def counted() -> None:
        hops.append(1)

    monkeypatch.setattr("channels.consumer.aclose_old_connections", counted)
    ada_ws = await connect(match, ada)
    watchers = [await connect(match, None) for _ in range(3)]
    for socket in (ada_ws, *watchers):
        assert (await receive(socket))["type"] == "full"
    await add(ada_ws, match.version, "w1")
    for socket in watchers:
        update = await receive(socket)
        assert (update["type"], update["version"]) == ("update", match.version + 1)
    assert {(await receive(ada_ws))["type"] for _ in range(2)} == {"ack", "update"}
    assert hops == []
    for socket in (ada_ws, *watchers):
        await socket.disconnect()


def committed_unsent(match, users) -> list[int]:
    """Each of ``users`` adds 1 in turn; their events are committed and never broadcast (as if
    another worker committed them and its frames were still on their way): their versions."""
    from unittest import mock

    from games.core.live import broadcast

    with mock.patch.object(broadcast, "announce", lambda announcement: None):
        return [
            services.submit_action(match, user, {"type": "add", "amount": 1}).version
            for user in users
        ]


def seat_messages(match, seat: int, versions: list[int]) -> dict[int, dict]:
    """The layer message of each version's frame for ``seat``, as the broadcast draws it."""
    from games.core.game.gamedef import Viewer

    return audience_messages(match, Viewer(seat=seat), versions)


def audience_messages(match, viewer, versions: list[int]) -> dict[int, dict]:
    """The layer message of each version's frame for ``viewer``'s audience, as the broadcast
    draws it."""
    from games.core.live import broadcast
    from games.core.models import Event, Match
    from games.core.render.rendering import Announcement

    current = Match.objects.with_seats().get(pk=match.pk)
    group = broadcast.group_name(match.pk, viewer)
    messages = {}
    for version in versions:
        event = Event.objects.get(match=current, version=version)
        for to, message in broadcast.render([Announcement.stored(current, event)]):
            if to == group:
                messages[version] = message
    return messages


async def test_a_frame_that_skips_a_version_waits_for_it_and_goes_after_it(tally):
    """Two workers committed versions 5 and 6; 6's frame arrives first: the socket sends 5,
    then 6, each once (issue 40)."""
    match, ada, bob, _ = tally
    socket = await connect(match, ada)
    await receive(socket)
    versions = await sync_to_async(committed_unsent)(match, [ada, bob])
    messages = await sync_to_async(seat_messages)(match, 0, versions)
    for version in reversed(versions):
        await socket.send_input(messages[version])
    assert [(await receive(socket))["version"] for _ in versions] == versions
    await socket.send_input(messages[versions[0]])  # a late copy: already sent
    # The consumer handles what reaches it (layer messages and the socket's frames) one at a
    # time, in order: the answer to a ping sent after the copy comes next.
    await pong_comes_next(socket)
    await socket.disconnect()


async def test_a_version_that_never_comes_is_drawn_again_before_the_one_after_it(
    tally, monkeypatch
):
    """The frame of version 5 is lost (its worker died after committing it): the socket that
    got 6 draws 5 again from the event log, then sends 6; the viewer needs no resync."""
    from games.core.live import broadcast, consumers

    monkeypatch.setattr(consumers, "HOLD_SECONDS", 0.05)
    monkeypatch.setattr(broadcast, "HEAL_AFTER", timedelta(0))  # its worker is taken for dead
    match, ada, bob, _ = tally
    socket = await connect(match, ada)
    await receive(socket)
    versions = await sync_to_async(committed_unsent)(match, [ada, bob])
    messages = await sync_to_async(seat_messages)(match, 0, versions)
    await socket.send_input(messages[versions[1]])
    frames = [await receive(socket) for _ in versions]
    assert [(f["type"], f["version"]) for f in frames] == [("update", v) for v in versions]
    assert frames[0]["event"]["seat"] == 0
    await socket.disconnect()


async def test_a_new_seat_holder_gets_the_seats_whole_view_before_any_update_of_it(
    tally, make_user, monkeypatch
):
    """Cy watches, then takes Bob's freed seat. While the socket decides Cy's viewer again
    (the spectators' frame of that version said the seats changed hands), the seat's own frame
    of the same version arrives on the other path: it patches the seat's view, which the page
    does not hold yet, so it waits for the whole view and is not sent after it (it is no
    newer). Before: it went out first, a seat's patch applied to a spectator's view."""
    from games.core.game.gamedef import Viewer
    from games.core.live.consumers import MatchConsumer

    match, _, _, host = tally
    cy = await sync_to_async(make_user)("cy")
    await sync_to_async(host_operations.host_replace_seat)(match, host, 1, "", "left")
    socket = await connect(match, cy)
    watching = await receive(socket)
    assert watching["view"]["viewer"]["audience"] == "spectators"

    def take_the_seat() -> int:
        from unittest import mock

        from games.core.live import broadcast

        invite = match.seats.get(index=1).invite_token
        with mock.patch.object(broadcast, "announce", lambda announcement: None):
            seating.take_seat(match, cy, invite)
        match.refresh_from_db()
        return match.version

    version = await sync_to_async(take_the_seat)()
    as_seat = (await sync_to_async(audience_messages)(match, Viewer(seat=1), [version]))[version]
    as_spectator = await sync_to_async(audience_messages)(match, Viewer.spectator(), [version])
    catch_up = MatchConsumer._catch_up

    async def seat_frame_meanwhile(self, since):
        if self.viewer.seat == 1 and since is None:
            await self.match_frame(as_seat)
        await catch_up(self, since)

    monkeypatch.setattr(MatchConsumer, "_catch_up", seat_frame_meanwhile)
    await socket.send_input(as_spectator[version])
    first = await receive(socket)
    assert (first["type"], first["version"]) == ("full", version)
    assert first["view"]["viewer"]["audience"] == "seat-1"
    await pong_comes_next(socket)  # and no update of that version after it
    await socket.disconnect()


async def test_a_frame_lacking_a_panel_the_page_needs_whole_is_drawn_whole_here(tally):
    """The layer carries a panel whole only where a page holding its audience's version before
    needs it (new, or changed with no patch): a connection that does not hold one it needs (it
    never should) is sent the version drawn on its own worker, the frame a page in step gets."""
    match, ada, _, _ = tally
    lacking_tab, in_step_tab = await connect(match, ada), await connect(match, ada)
    for socket in (lacking_tab, in_step_tab):
        await receive(socket)
    [version] = await sync_to_async(committed_unsent)(match, [ada])
    message = (await sync_to_async(seat_messages)(match, 0, [version]))[version]
    packed = json.loads(zlib.decompress(message["frame"]))
    unchanged = next(panel for panel in packed[2] if not panel[2] and not panel[4])
    unchanged[1] = "not-what-the-page-holds"
    text = json.dumps(packed, separators=(",", ":"))  # as it came: the head's length the same
    lacking = {**message, "frame": zlib.compress(text.encode()), "digest": "lacking"}
    await lacking_tab.send_input(lacking)
    await in_step_tab.send_input(message)
    drawn_here, carried = await receive(lacking_tab), await receive(in_step_tab)
    assert (drawn_here["type"], drawn_here["version"]) == ("update", version)
    drawn_here.pop("server_time"), carried.pop("server_time")
    assert drawn_here == carried
    for socket in (lacking_tab, in_step_tab):
        await socket.disconnect()
