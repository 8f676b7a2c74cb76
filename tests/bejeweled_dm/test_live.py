"""A whole death match over real websockets: created on the new-match page, played to the end."""

from __future__ import annotations

import asyncio

import pytest

from games.core.live.client import Refused
from games.core.models import Match
from tests import live_server
from tests.live_server import in_db, step

pytestmark = pytest.mark.django_db(transaction=True)


SIMPLE_CLAUSES = {
    "Column": "Column H1",
    "Plus": "Plus H1",
    "Refresh": "Refresh H1",
    "Recolor": "Recolor R B",
    "Chain": "Chain R",
    "Bend": "Bend",
    "Swap": "Swap A7 B7",
    "Rotate": "Rotate A6",
    "Pick": "Pick A7",
}


def a_legal_proof(game_view: dict) -> str:
    """One clause per type, each the first offered powerup, on cells that always hold gems."""
    return "; ".join(SIMPLE_CLAUSES[kind["options"][0]["name"]] for kind in game_view["offer"])


FORM = {
    "title": "Websocket death match",
    "seat_count": "2",
    "auto_start": "on",
    "first_offer": "random",
    "claim_window_seconds": "30",
    "proof_seconds": "120",
    "round_seconds": "600",
    "pick_seconds": "60",
    "no_claim_round_to": "DMO",
}


def received(watcher, player) -> list:  # type: ignore[no-untyped-def]
    """What the watcher's last frames were, beside the player's view: for a failure's message."""
    frames = [
        (frame.get("type"), frame.get("version"), str(frame.get("patch", frame.get("view")))[:300])
        for frame in watcher.frames[-6:]
    ]
    return [watcher.version, player.version, player.latest_view()["game"]["score"], frames]


def create_through_the_page(url: str) -> Match:
    return live_server.create_through_the_page(url, "bejeweled-dm", FORM)


async def test_a_complete_four_round_match_over_websockets(
    live_worker, three_accounts, seated_sockets
):
    match = await asyncio.to_thread(create_through_the_page, live_worker.url)
    async with seated_sockets(match) as seated:
        (ec_ws, dmo_ws), watcher = seated.sockets.values(), seated.watcher
        for round_number in range(1, 5):
            view = ec_ws.latest_view()["game"]
            assert view["round"] == round_number and view["phase"] == "claim"
            # The EC claims every gem, the DMO lets it stand, and the proof falls short.
            await step(ec_ws, {"type": "claim", "count": 56}, dmo_ws, watcher)
            with pytest.raises(Refused) as not_higher:
                await dmo_ws.act({"type": "counterclaim", "count": 56})
            assert not_higher.value.code == "not_higher"
            await step(dmo_ws, {"type": "pass"}, ec_ws, watcher)
            with pytest.raises(Refused) as not_prover:
                await dmo_ws.act({"type": "proof", "proof": a_legal_proof(view)})
            assert not_prover.value.code == "not_prover"
            await step(ec_ws, {"type": "proof", "proof": a_legal_proof(view)}, dmo_ws, watcher)
            if ec_ws.latest_view()["game"]["phase"] == "second_starter":
                # The offer's Refresh went off (the offer is drawn at random): the EC ends the
                # turn without a second starter use.
                await step(ec_ws, {"type": "skip_second_starter"}, dmo_ws, watcher)
            watched = watcher.latest_view()["game"]
            assert watched["score"] == [0, round_number], received(watcher, ec_ws)
            assert watched["steps"], "the resolution steps reach spectators"
            if round_number == 4:
                break
            for socket_ in (ec_ws, dmo_ws):
                allowed = socket_.latest_view()["game"]["picks"]["allowed"]
                pick = {kind: names[0] for kind, names in allowed.items()}
                others = [s for s in (ec_ws, dmo_ws, watcher) if s is not socket_]
                await step(socket_, {"type": "pick", **pick}, *others)
        final = watcher.latest_view()
        assert final["match"]["status"] == "finished"
        assert final["match"]["result"]["winner"] == 1
        assert final["match"]["result"]["garnets"] == 5
    await in_db(match.refresh_from_db)
    assert match.status == Match.Status.FINISHED
    versions = await in_db(lambda: list(match.events.values_list("version", flat=True)))
    # Gap-free from 1, and at least as far as the match had got: the scheduler may record the
    # after-match analysis as one more event meanwhile.
    assert versions == list(range(1, len(versions) + 1))
    assert versions[-1] >= match.version
