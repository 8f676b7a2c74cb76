"""A whole seven-seat Seven Gem Swap match over real websockets: six players' clients and one
practice bot, a spectator and the host, from the new-match page to the result."""

from __future__ import annotations

import pytest

from games.core.models import LedgerEntry, Match
from games.seven_gem_swap import engine
from tests.live_server import in_db
from tests.seven_gem_swap.live_play import HOST, play_match, player_name

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def accounts(make_user):
    for name in [HOST, *(player_name(seat) for seat in range(7))]:
        make_user(name)


async def test_a_seven_seat_match_with_a_bot_is_played_over_websockets(live_worker, accounts):
    played = await play_match(live_worker.url, bot_seats=(6,))
    match = played.match
    assert match.status == Match.Status.FINISHED
    assert len(match.state["history"]) == 8
    assert sorted(match.state["colours"].values()) == sorted(engine.COLOURS)
    bot_rounds = [entry["secret"]["submissions"].get("6") for entry in match.state["history"]]
    assert all(bot_rounds), "the bot submitted every round"
    for audience, socket in played.sockets.items():
        final = socket.latest_view()
        assert final["match"]["status"] == "finished", audience
        # The page's view keeps the result and the grid (the scores are drawn in the panels).
        assert final["game"]["result"]["totals"] == match.state["scores"], audience
        assert final["game"]["board"] == match.state["board"], audience
        versions = [f["version"] for f in socket.frames if f.get("type") == "update"]
        assert versions == sorted(set(versions)), f"{audience} got every update once, in order"
    versions = await in_db(lambda: list(match.events.values_list("version", flat=True)))
    assert versions == list(range(1, match.version + 1))
    # Seat 0 premoved in round 2: 2 garnets charged; every player is paid by their total.
    entries = await in_db(
        lambda: list(
            LedgerEntry.objects.filter(match=match).values_list("user__username", "garnets")
        )
    )
    assert (player_name(0), -2) in entries
    result = match.state["result"]
    for seat in range(6):
        paid = sum(g for name, g in entries if name == player_name(seat) and g > 0)
        assert paid == result["garnets"][str(seat)]
