"""A whole Glittering Paths match over real websockets (a real Daphne worker): created on the
new-match page, three rounds played to the result, with every frame, page, replay and export the
opponent and a spectator receive recorded and searched for the other seat's private draft."""

from __future__ import annotations

import asyncio
import json

import pytest

from games.core.live.client import Refused
from games.core.models import Match
from games.glittering_paths import engine, players, rounds
from tests import live_server
from tests.live_server import in_db, step

pytestmark = pytest.mark.django_db(transaction=True)

# Seat 0's draft: a path no board, grid or list on any page shows in this order.
SECRET_DRAFT = ["D4", "A1", "D1", "A4", "B3"]


FORM = {
    "title": "Websocket paths",
    "seat_count": "2",
    "auto_start": "on",
    "race_seconds": "120",
    "turn_seconds": "60",
    "interval_seconds": "0",
    "board_area": "36",
    "boards": "",
    "tie_to": "DMO",
}


def create_through_the_page(url: str) -> Match:
    return live_server.create_through_the_page(url, "glittering-paths", FORM)


def best(game: dict, seat: int) -> list[str]:
    return engine.best_path(game["board"], players.COLOURS[seat])[1]


def secret_shown(text: str) -> bool:
    compact = text.replace(" ", "")
    return (
        json.dumps(SECRET_DRAFT).replace(" ", "") in compact
        or " ".join(SECRET_DRAFT) in text
        or " → ".join(SECRET_DRAFT[:2]) in text
        or "\\u2192".join(SECRET_DRAFT[:2]) in compact
    )


async def test_a_complete_match_over_websockets_keeps_each_seats_draft_private(
    live_worker, three_accounts, seated_sockets
):
    match = await asyncio.to_thread(create_through_the_page, live_worker.url)
    later_boards = [engine.format_board(rounds.round_board(match.state, r)) for r in (2, 3)]
    async with seated_sockets(match, json_only=False) as seated:
        sockets, watcher, everyone = seated.sockets, seated.watcher, seated.everyone
        ec_ws, dmo_ws = sockets[0], sockets[1]
        dmo, guest = seated.clients["dmo"], seated.clients["guest"]

        # Round 1's race: the EC draws (a draft only the EC and the host see), the DMO's
        # straight line is refused with the rule it breaks.
        await ec_ws.send({"type": "draft", "draft": {"cells": SECRET_DRAFT}})
        kept = (await ec_ws.recv_until("draft"))["draft"]
        assert kept["cells"] == SECRET_DRAFT and kept["problem"]
        pages_during = [
            await asyncio.to_thread(client.get, f"/m/{match.public_id}/") for client in (dmo, guest)
        ]
        with pytest.raises(Refused) as illegal:
            await dmo_ws.act({"type": "path", "cells": ["A1", "A2", "A3"], "turn": 1})
        assert illegal.value.code == "illegal_path"

        for round_number in (1, 2, 3):
            game = watcher.latest_view()["game"]
            assert (game["round"], game["phase"]) == (round_number, "race")
            # The EC wins the race; the DMO's path for the same turn comes too late.
            await step(ec_ws, {"type": "path", "cells": best(game, 0), "turn": 1}, dmo_ws, watcher)
            if dmo_ws.latest_view()["game"]["phase"] == "turns":
                with pytest.raises(Refused) as lost:
                    await dmo_ws.act({"type": "path", "cells": best(game, 1), "turn": 1})
                assert lost.value.code == "race_lost"
            turns = 0
            while watcher.latest_view()["game"]["round"] == round_number:
                game = watcher.latest_view()["game"]
                if game["phase"] == "over":
                    break
                mover = game["turn"]
                turns += 1
                if round_number == 3 and turns == 3:
                    await step(ec_ws, {"type": "agree_end"}, dmo_ws, watcher)
                    await step(dmo_ws, {"type": "agree_end"}, ec_ws, watcher)
                    break
                cells = best(game, mover)
                action = (
                    {"type": "path", "cells": cells, "turn": game["turn_number"]}
                    if cells
                    else {"type": "pass", "turn": game["turn_number"]}
                )
                others = [s for s in everyone if s is not sockets[mover]]
                await step(sockets[mover], action, *others)
            watched = watcher.latest_view()["game"]
            assert len(watched["history"]) == round_number
            assert watched["history"][-1]["totals"] == watched["totals"]

        final = watcher.latest_view()
        assert final["match"]["status"] == "finished"
        result = final["match"]["result"]
        totals = [float(t) for t in result["totals"]]
        expected = 1 if totals[0] == totals[1] else totals.index(max(totals))
        assert result["winner"] == expected and result["garnets"] == 5

        # The analysis of every round is told to the spectators as it is recorded; a round's
        # analysis itself is drawn when the round is opened, never pushed in the panels.
        def analysed() -> list[dict]:
            return [f for f in watcher.frames if (f.get("event") or {}).get("kind") == "analysis"]

        for _ in range(50):
            if len(analysed()) == 3:
                break
            await watcher.recv(timeout=10)
        assert sorted(f["event"]["data"]["round"] for f in analysed()) == [1, 2, 3]
        for frame in analysed():
            patched = [panel_id for panel_id, _ in frame.get("html_patch", [])]
            assert "gp-history" not in frame.get("html", "") and "gp-history" not in patched
        for round_number in (1, 2, 3):
            url = f"/m/{match.public_id}/glittering-paths/round/{round_number}/"
            text = await asyncio.to_thread(guest.get, url)
            assert "gp-analysis-table" in text and f'data-grid="analysis-{round_number}"' in text

    await in_db(match.refresh_from_db)
    assert match.status == Match.Status.FINISHED
    versions = await in_db(lambda: list(match.events.values_list("version", flat=True)))
    assert versions == list(range(1, match.version + 1))

    # What the EC drew stayed with the EC; no one else saw a later board before its round.
    assert any(secret_shown(json.dumps(frame, ensure_ascii=False)) for frame in ec_ws.frames)
    afterwards = []
    for client in (dmo, guest):
        afterwards.append(await asyncio.to_thread(client.get, f"/m/{match.public_id}/"))
        afterwards.append(await asyncio.to_thread(client.get, f"/m/{match.public_id}/export.json"))
        for round_number in (1, 2, 3):
            url = f"/m/{match.public_id}/glittering-paths/round/{round_number}/"
            afterwards.append(await asyncio.to_thread(client.get, url))
        for version in range(1, match.version + 1, 7):
            afterwards.append(
                await asyncio.to_thread(client.get, f"/m/{match.public_id}/replay/?v={version}")
            )
    for socket_ in (dmo_ws, watcher):
        assert socket_.frames
        for frame in socket_.frames:
            text = json.dumps(frame, ensure_ascii=False)
            assert not secret_shown(text)
            assert kept["problem"] not in text
            assert '"seed"' not in text and "pasted" not in text
            game = (frame.get("view") or {}).get("game") or {}
            if game.get("round") == 1:
                assert all(b.replace("\n", "\\n") not in text for b in later_boards)
    for frame in watcher.frames:
        assert not {"draft", "drafts"} & set(frame.get("view") or {})
    for page in [*pages_during, *afterwards]:
        assert not secret_shown(page)
        assert "Paths being drawn" not in page
