"""Checks that nothing arrives at an in-process socket (channels' WebsocketCommunicator), made
without a time window: each waits for a frame that must come after the one that must not.

- ``pong_comes_next``: for what the socket's own consumer would send in answer to what it was
  just sent (an error, a resend). The consumer handles its socket's messages one at a time, so
  its answer to a ping comes after anything it sent for the messages before it.
- ``frames_before``: for what another connection's action would send to this one. The frames
  of one kind reach a connection by one way, in the order the site sent them
  (games/core/live/broadcast.py), so a frame of that kind the test makes the site send afterwards
  arrives after anything of that kind sent before it: the next version for the match's frames,
  a chat line for chat. (Not across kinds: a spectator's match frames come through its worker's
  gallery, its chat through its own layer channel; a version can overtake a chat line.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from channels.testing import WebsocketCommunicator

PATIENCE_SECONDS = 30  # a frame that must come: how long a loaded machine may take to send it


async def receive(socket: WebsocketCommunicator) -> dict[str, Any]:
    return json.loads(await socket.receive_from(timeout=PATIENCE_SECONDS))


async def pong_comes_next(socket: WebsocketCommunicator) -> None:
    """The socket's next frame is the answer to a ping sent now: nothing came before it."""
    await socket.send_json_to({"type": "ping"})
    frame = await receive(socket)
    assert frame["type"] == "pong", f"a frame came before the pong: {frame}"


async def frames_before(
    socket: WebsocketCommunicator, last: Callable[[dict[str, Any]], bool]
) -> list[dict[str, Any]]:
    """The frames that reach ``socket`` before the first one ``last`` accepts (which must come
    within PATIENCE_SECONDS), in order."""
    got = []
    while not last(frame := await receive(socket)):
        got.append(frame)
    return got


def version_is(version: int) -> Callable[[dict[str, Any]], bool]:
    """Accepts the update frame of ``version``."""
    return lambda frame: frame.get("type") == "update" and frame.get("version") == version
