"""The drawing check over the match consumer in process (channels' WebsocketCommunicator): the
server's verdict on a path being drawn reaches the drafting seat and the host, and no frame, view
or reload of the other seat or a spectator."""

from __future__ import annotations

import json

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from games.core.match import seating
from gemsite.routing import websocket_urlpatterns
from tests.frames import with_views

pytestmark = pytest.mark.django_db(transaction=True)

TINY = "RSG\nLRS"
# Rita's path so far: starts on her ruby, then jumps; its verdict names both cells.
DRAWN = ["B2", "A1"]
VERDICT = "B2 and A1 are not side by side"


@pytest.fixture
def paths_match(make_user):
    host, rita, sam = make_user("hostess", is_staff=True), make_user("rita"), make_user("sam")
    match = seating.create_match(
        host=host,
        game_key="glittering-paths",
        title="Drawing check",
        settings={"boards": "\n\n".join([TINY] * 3)},
        roles=["EC", "DMO"],
    )
    for user, seat in zip([rita, sam], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    match.refresh_from_db()
    return match, rita, sam, host


async def connect(match, user) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/m/{match.public_id}/")
    socket.scope["user"] = user or AnonymousUser()
    connected, _ = await socket.connect(timeout=30)
    assert connected
    return socket


async def receive(socket: WebsocketCommunicator) -> dict:
    return json.loads(await socket.receive_from(timeout=30))


async def frames_until_update(socket: WebsocketCommunicator) -> list[dict]:
    frames = [await receive(socket)]
    while frames[-1]["type"] != "update":
        frames.append(await receive(socket))
    return frames


async def test_the_drawing_check_reaches_the_drafting_seat_and_the_host_only(paths_match):
    match, rita, sam, host = paths_match
    sockets = [await connect(match, user) for user in (rita, sam, None, host)]
    rita_ws, sam_ws, watcher, host_ws = sockets
    fulls = {socket: await receive(socket) for socket in sockets}
    assert all(full["type"] == "full" for full in fulls.values())

    def held(socket: WebsocketCommunicator, frames: list[dict]) -> dict:
        """The view ``socket``'s page holds after ``frames``."""
        return with_views([fulls[socket], *frames])[-1]["view"]

    await rita_ws.send_json_to({"type": "draft", "draft": {"cells": DRAWN}})
    checked = await receive(rita_ws)
    assert checked["type"] == "draft" and "seat" not in checked
    assert checked["draft"]["cells"] == DRAWN and not checked["draft"]["complete"]
    assert VERDICT in checked["draft"]["verdict"]
    hosted = await receive(host_ws)
    assert hosted == {"type": "draft", "draft": checked["draft"], "seat": 0}

    # Sam's offer to end the round reaches everyone: what came to Sam and the spectator before
    # it, and the frame itself, hold nothing of Rita's path or its check.
    await sam_ws.send_json_to(
        {"type": "action", "id": "a1", "version": match.version, "action": {"type": "agree_end"}}
    )
    seen = {"sam": await frames_until_update(sam_ws), "watcher": await frames_until_update(watcher)}
    for frames in seen.values():
        assert all(frame["type"] != "draft" for frame in frames)
        assert all(VERDICT not in json.dumps(frame, ensure_ascii=False) for frame in frames)
    assert held(sam_ws, seen["sam"])["draft"] is None
    assert not {"draft", "drafts"} & set(held(watcher, seen["watcher"]))
    mine = held(rita_ws, await frames_until_update(rita_ws))["draft"]
    assert mine == checked["draft"]
    hosted = held(host_ws, await frames_until_update(host_ws))
    assert hosted["drafts"] == {"0": checked["draft"]}

    # Reloads: Rita gets her path and its check back; Sam and a spectator never get them.
    again = [await connect(match, user) for user in (rita, sam, None)]
    rita_again, sam_again, watcher_again = [await receive(socket) for socket in again]
    assert rita_again["view"]["draft"] == checked["draft"]
    assert VERDICT in rita_again["html"]
    for frame in (sam_again, watcher_again):
        text = json.dumps(frame, ensure_ascii=False)
        assert VERDICT not in text and "B2 → A1" not in text
    for socket in (*sockets, *again):
        await socket.disconnect()
