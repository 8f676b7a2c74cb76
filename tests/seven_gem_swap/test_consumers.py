"""Seven Gem Swap's preview over the match socket in process: a seat's draft comes back with
what its sequence would do, to that seat and the host only; a sent sequence's preview is in the
seat's own view only."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from games.core.match import host_operations, seating, services
from games.core.models import Match
from games.seven_gem_swap import engine
from tests.core.test_consumers import connect, receive
from tests.frames import with_views
from tests.sockets import frames_before, version_is

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def round_one(make_user):
    """A match in round 1: ada (seat 0) plays red, bob (seat 1) green; (match, ada, bob, host)."""
    host, ada, bob = make_user("hostess"), make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host,
        game_key="seven-gem-swap",
        title="Seven",
        settings={"bid_seconds": 600, "round_seconds": 600},
        roles=["", ""],
    )
    for user, seat in zip([ada, bob], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    services.submit_action(match, ada, {"type": "bid", "bid": -3, "colours": "RGB"})
    services.submit_action(match, bob, {"type": "bid", "bid": 0, "colours": "GBR"})
    match.refresh_from_db()
    return match, ada, bob, host


def a_red_gem_with_room(board: str) -> tuple[str, str]:
    """A red gem and a move that takes it onto something else (so the grid changes)."""
    cells = engine.parse_board(board).cells
    return next(
        (engine.cell_name(index), move)
        for index, gem in enumerate(cells)
        if gem == "R"
        for move, cell in engine.neighbours(engine.cell_name(index)).items()
        if cells[engine.parse_cell(cell)] != "R"
    )


def previews_in(data: object) -> list[object]:
    """Every preview in a frame (a seat's own empty one, None, left out)."""
    if isinstance(data, dict):
        found = [v for k, v in data.items() if k == "preview" and v is not None]
        return found + [p for value in data.values() for p in previews_in(value)]
    if isinstance(data, list):
        return [p for value in data for p in previews_in(value)]
    return []


async def test_a_draft_comes_back_with_its_preview_to_its_seat_and_the_host_only(round_one):
    match, ada, bob, host = round_one
    gem, move = a_red_gem_with_room(match.state["board"])
    sockets = [await connect(match, user) for user in (ada, bob, None, host)]
    ada_ws, bob_ws, watcher, host_ws = sockets
    fulls = [await receive(socket) for socket in sockets]
    assert [full["type"] for full in fulls] == ["full"] * 4

    await ada_ws.send_json_to({"type": "draft", "draft": {"round": 1, "gem": gem, "moves": move}})
    answer = await receive(ada_ws)
    preview = answer["draft"]["preview"]
    assert answer["type"] == "draft" and "seat" not in answer
    assert preview["path"] == [gem, engine.neighbours(gem)[move]]
    assert preview["text"].startswith(f"Path: {gem} → ")
    assert preview["board"] != match.state["board"]
    to_host = await receive(host_ws)
    assert to_host["seat"] == 0 and to_host["draft"]["preview"] == preview

    # A reload brings it back to ada; bob's and a spectator's pages never hold it.
    reloads = {user: await connect(match, user) for user in (ada, bob, None)}
    fulls = {user: await receive(socket) for user, socket in reloads.items()}
    assert fulls[ada]["view"]["draft"]["preview"] == preview
    for user in (bob, None):
        assert previews_in(fulls[user]) == []
        assert preview["board"] not in json.dumps(fulls[user])
    # The host's pause reaches bob and the spectator after anything sent to them before it.
    await sync_to_async(host_operations.host_pause)(match, host, reason="a break")
    for socket in (bob_ws, watcher):
        assert await frames_before(socket, version_is(match.version + 1)) == []
    for socket in (*sockets, *reloads.values()):
        await socket.disconnect()


async def test_a_sent_sequence_keeps_its_preview_in_the_seats_own_view_only(round_one):
    match, ada, bob, host = round_one
    gem, move = a_red_gem_with_room(match.state["board"])
    sockets = [await connect(match, user) for user in (ada, bob, None, host)]
    fulls = [await receive(socket) for socket in sockets]
    assert all(full["type"] == "full" for full in fulls)
    action = {"type": "submit", "gem": gem, "moves": move}
    await sync_to_async(services.submit_action)(match, ada, action)
    updates = [await receive(socket) for socket in sockets]
    ada_update, *others = updates
    preview = with_views([fulls[0], ada_update])[-1]["view"]["game"]["me"]["preview"]
    assert preview["path"] == [gem, engine.neighbours(gem)[move]]
    for update in others:
        assert update["type"] == "update"
        assert previews_in(update) == [] and preview["board"] not in json.dumps(update)
    await sync_to_async(match.refresh_from_db)()
    assert match.status == Match.Status.LIVE
    for socket in sockets:
        await socket.disconnect()
