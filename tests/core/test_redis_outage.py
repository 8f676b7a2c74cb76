"""A new websocket while Redis cannot be reached (issue 34, item 10): refused cleanly with the
close code the page reconnects on (4503), never an HTTP 500, and the worker says so in one log
line for the whole outage, not a traceback per attempt."""

from __future__ import annotations

import asyncio

import pytest
import websockets

from games.core.live import protocol
from games.core.match import seating
from games.core.models import Match
from tests.live_server import Worker, free_port, in_db

pytestmark = pytest.mark.django_db(transaction=True)

ATTEMPTS = 3


async def close_code_of(url: str, origin: str) -> int:
    """Open the match's socket as the page does; the code it is closed with."""
    async with websockets.connect(url, origin=origin, open_timeout=30) as socket_:
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(socket_.recv(), 30)  # a bound, not a window: it is closed
    assert closed.value.rcvd is not None, "the server closed without a close frame"
    return closed.value.rcvd.code


async def test_a_new_socket_during_a_redis_outage_is_refused_with_a_code_the_page_retries_on(
    make_user, monkeypatch
):
    # Nothing listens on this port: Redis is down for the worker's whole life.
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{free_port()}/0")
    monkeypatch.setenv("CHANNEL_PREFIX", "outage")
    host = await in_db(lambda: make_user("hostess"))
    match: Match = await in_db(
        lambda: seating.create_match(
            host=host,
            game_key="fixture-tally",
            title="outage",
            settings={"turn_seconds": 3600},
            roles=["EC", "DMO"],
        )
    )
    worker = await asyncio.to_thread(Worker(scheduler=False).start)
    try:
        url = worker.url.replace("http://", "ws://") + f"/ws/m/{match.public_id}/?format=json"
        codes = [await close_code_of(url, worker.url) for _ in range(ATTEMPTS)]
    finally:
        await asyncio.to_thread(worker.stop)
    log = worker.log()
    assert codes == [protocol.CLOSE_UNAVAILABLE] * ATTEMPTS, log[-3000:]
    assert "Traceback" not in log, log[-3000:]
    # One line for the outage, and nothing else.
    said = [line for line in log.splitlines() if line.strip()]
    assert len(said) == 1 and "Redis (the channel layer) cannot be reached" in said[0], said
