"""The production topology end to end: nginx in front of two Daphne workers and a scheduler, on
PostgreSQL and Redis (gemsite/topology.py, the same docker/nginx.conf the compose file uses)."""

from __future__ import annotations

import os

import pytest

from games.core.live.client import ArenaClient
from gemsite.topology import SITE_CONF, Topology, find_nginx, site_config
from tests.live_server import PASSWORD, in_db, step, worker_environment

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_site_config_points_the_upstream_at_local_workers():
    local = site_config(SITE_CONF.read_text(), 8123, [9001, 9002])
    assert "listen 127.0.0.1:8123;" in local and "listen 80;" not in local
    assert "server 127.0.0.1:9001;\n    server 127.0.0.1:9002;" in local
    assert "worker-1" not in local
    # Everything else (websocket upgrade, the headers the site trusts) is kept as it is.
    assert "proxy_set_header Upgrade $http_upgrade;" in local
    assert "proxy_set_header X-Real-IP $remote_addr;" in local
    with pytest.raises(ValueError, match="one upstream block"):
        site_config("server { listen 81; }", 8123, [9001])


@pytest.mark.redis
@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"),
    reason="Redis: set REDIS_URL=redis://127.0.0.1:6379/0 (.ci/run does)",
)
@pytest.mark.skipif(find_nginx() is None, reason="nginx: apt-get install nginx")
async def test_a_match_plays_through_nginx_with_a_spectator_on_the_other_worker(make_user):
    host = await in_db(lambda: make_user("hostess", is_staff=True))
    await in_db(lambda: (make_user("ada"), make_user("bob")))
    topology = await in_db(lambda: Topology(workers=2, env=worker_environment()).start())
    try:
        from games.core.match import seating

        def open_match():
            match = seating.create_match(
                host=host,
                game_key="fixture-tally",
                title="Through nginx",
                settings={},
                roles=["EC", "DMO"],
            )
            players = []
            for username, seat in zip(("ada", "bob"), match.seats.order_by("index"), strict=True):
                client = ArenaClient(topology.url)
                client.login(username, PASSWORD)
                client.post_form(seat.get_invite_url(), {})
                players.append(client)
            return match, players

        match, (ada, bob) = await in_db(open_match)
        lobby = ArenaClient(topology.url).get("/")
        assert "Through nginx" in lobby
        # nginx runs one process and sends each new connection to the next worker in turn, so
        # of two sockets opened one after the other, each is served by a different worker.
        async with ada.match_socket(match.public_id) as ada_ws:
            await ada_ws.recv_until("full")
            async with (
                ArenaClient(topology.url).match_socket(match.public_id) as watcher,
                bob.match_socket(match.public_id) as bob_ws,
            ):
                await watcher.recv_until("full")
                await bob_ws.recv_until("full")
                turns = [(ada_ws, 3), (bob_ws, 3), (ada_ws, 3), (bob_ws, 1)]
                for socket_, amount in turns:
                    await step(socket_, {"type": "add", "amount": amount}, ada_ws, bob_ws, watcher)
                assert watcher.latest_view()["match"]["status"] == "finished"
                assert watcher.latest_view()["match"]["result"] == {"winner": 1}
        sockets = [
            upstream for _, upstream, request in topology.requests_served() if "/ws/m/" in request
        ]
        # In the order they were opened: ada's, the spectator's, bob's.
        assert len(sockets) == 3
        assert sockets[1] != sockets[0], "the spectator was served by ada's worker"
        assert set(sockets) == {f"127.0.0.1:{port}" for port in topology.worker_ports}
    finally:
        topology.stop()
        for name in ("nginx", "worker-1", "worker-2", "scheduler"):
            print(f"--- {name} ---\n{topology.log(name)[-3000:]}")
