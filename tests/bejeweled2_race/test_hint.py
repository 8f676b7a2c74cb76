"""The idle hint over the match socket: searched when a seat's idle page asks, from what the
gate shows the asker as the seats stand now (docs/protocol.md, ``hint``)."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games.bejeweled2 import engine
from games.core.match import host_operations
from games.core.models import Match
from tests.core.test_consumers import connect
from tests.sockets import receive

pytestmark = pytest.mark.django_db(transaction=True)


def is_hint(frame: dict) -> bool:
    return frame["type"] == "hint"


async def test_a_seat_is_hinted_its_own_best_swap_and_no_one_else_is_hinted(seated_match):
    match, (ada, bob), host = await sync_to_async(seated_match)(
        "bejeweled-2-race", "ada", "bob", settings={"mode": "classic_moves", "moves": 3}
    )
    ada_ws, bob_ws, watcher, host_ws = [await connect(match, u) for u in (ada, bob, None, host)]
    for socket in (ada_ws, bob_ws, watcher, host_ws):
        assert (await receive(socket))["type"] == "full"
    own_board = match.state["boards"]["0"]["board"]
    await ada_ws.send_json_to({"type": "hint"})
    assert await receive(ada_ws) == {
        "type": "hint",
        "version": match.version,
        "move": list(engine.best_move(own_board)),
    }
    for socket in (watcher, host_ws):
        await socket.send_json_to({"type": "hint"})
        assert await receive(socket) == {"type": "hint", "version": match.version, "move": None}

    # Bob's seat goes to a substitute: whether or not his socket heard it yet, his board is
    # no longer his to be hinted.
    await sync_to_async(host_operations.host_replace_seat)(match, host, 1, reason="left")
    replaced = await sync_to_async(Match.objects.get)(pk=match.pk)
    await bob_ws.send_json_to({"type": "hint"})
    while not is_hint(hinted := await receive(bob_ws)):
        pass
    assert hinted == {"type": "hint", "version": replaced.version, "move": None}
    for socket in (ada_ws, bob_ws, watcher, host_ws):
        await socket.disconnect()
