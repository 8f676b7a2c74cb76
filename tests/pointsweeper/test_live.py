"""A whole Pointsweeper match over real websockets: created on the new-match page, three boards
played to the end, with a scout's result reaching only the scouting seat."""

from __future__ import annotations

import asyncio
import json

import pytest

from games.core.live.client import Refused
from games.core.models import Match
from tests import live_server
from tests.live_server import in_db, step

pytestmark = pytest.mark.django_db(transaction=True)

EC, DMO = 0, 1


FORM = {
    "title": "Websocket sweep",
    "seat_count": "2",
    "auto_start": "on",
    "boards": "random",
    "move_seconds": "60",
    "bank_seconds": "120",
    "order_seconds": "60",
    "scout_turns": "3",
    "tie_to": "DMO",
}


def create_through_the_page(url: str) -> Match:
    return live_server.create_through_the_page(url, "pointsweeper", FORM)


async def test_a_complete_three_board_match_over_websockets(
    live_worker, three_accounts, seated_sockets
):
    match = await asyncio.to_thread(create_through_the_page, live_worker.url)
    async with seated_sockets(match) as seated:
        sockets, watcher = seated.sockets, seated.watcher
        ec_ws, dmo_ws = sockets[EC], sockets[DMO]
        for board_no, chooser in ((1, DMO), (2, EC), (3, DMO)):
            view = watcher.latest_view()["game"]
            assert view["board_no"] == board_no and view["phase"] == "order"
            assert view["chooser"] == chooser
            with pytest.raises(Refused) as not_chooser:
                await sockets[1 - chooser].act({"type": "choose_order", "first": True})
            assert not_chooser.value.code == "not_chooser"
            await step(
                sockets[chooser],
                {"type": "choose_order", "first": True},
                *sockets.values(),
                watcher,
            )
            if board_no == 1:
                await step(dmo_ws, {"type": "scout", "piece": "K", "square": "e4"}, ec_ws, watcher)
                assert dmo_ws.latest_view()["game"]["play"]["notebook"][0]["sum"] is not None
                for other in (ec_ws, watcher):
                    assert '"sum"' not in json.dumps(other.frames)
                    assert not other.latest_view()["game"]["play"]["notebook"]
                await step(ec_ws, {"type": "pass"}, dmo_ws, watcher)
                await step(dmo_ws, {"type": "pass"}, ec_ws, watcher)
            else:
                await step(sockets[chooser], {"type": "pass"}, *sockets.values(), watcher)
                await step(sockets[1 - chooser], {"type": "pass"}, *sockets.values(), watcher)
        final = watcher.latest_view()
        assert final["match"]["status"] == "finished"
        assert final["match"]["result"]["winner"] == DMO  # 0 to 0: a tie goes to the DMO
    await in_db(match.refresh_from_db)
    assert match.status == Match.Status.FINISHED
    versions = await in_db(lambda: list(match.events.values_list("version", flat=True)))
    # Gap-free from 1, and at least as far as the match had got: the scheduler may record the
    # after-match analysis as one more event meanwhile.
    assert versions == list(range(1, len(versions) + 1))
    assert versions[-1] >= match.version
