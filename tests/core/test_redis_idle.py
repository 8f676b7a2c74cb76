"""An idle websocket on the Redis channel layer stays open across many blocking reads."""

from __future__ import annotations

import asyncio
import os

import pytest
from channels_redis.core import RedisChannelLayer
from django.conf import settings

from games.core.live.client import ArenaClient
from tests.live_server import in_db, seat_ada_and_bob

PASSWORD = "pw-for-tests-1"
# channels-redis blocks 5 s per read of a worker's channel (RedisChannelLayer.brpop_timeout);
# staying idle this long spans several of those reads.
IDLE_SECONDS = 22

needs_redis = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"),
    reason="Redis: set REDIS_URL=redis://127.0.0.1:6379/0 (.ci/run does)",
)


def test_the_layers_sockets_outwait_its_blocking_read():
    blocking_read = RedisChannelLayer.brpop_timeout
    assert blocking_read == settings.REDIS_LAYER_BLOCKING_READ_SECONDS
    socket_timeout = settings.REDIS_SOCKET_TIMEOUT
    assert socket_timeout >= 3 * blocking_read


@pytest.mark.redis
@needs_redis
@pytest.mark.django_db(transaction=True)
async def test_an_idle_spectator_stays_connected_and_still_gets_updates(live_worker, slow_tally):
    match = slow_tally
    ada = await in_db(lambda: seat_ada_and_bob(live_worker.url, match))
    watchers = [ArenaClient(live_worker.url).match_socket(match.public_id) for _ in range(3)]
    async with watchers[0] as first, watchers[1] as second, watchers[2] as third:
        for watcher in (first, second, third):
            assert (await watcher.recv_until("full"))["version"] == 3
        await asyncio.sleep(IDLE_SECONDS)
        async with ada.match_socket(match.public_id) as ada_ws:
            await ada_ws.recv_until("full")
            await ada_ws.act({"type": "add", "amount": 2})
        for watcher in (first, second, third):
            await watcher.recv_until("update", version=4)
            assert watcher.latest_view()["game"]["total"] == 2
