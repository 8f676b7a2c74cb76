"""The loop that fires due deadlines (and lets bots move). Any number may run at once: each
deadline is claimed by one conditional UPDATE, so it fires exactly once."""

from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async
from django.conf import settings

from games.core import broadcast, clock, registry, services

log = logging.getLogger(__name__)

MIN_SLEEP_SECONDS = 0.02


def tick() -> float:
    """Fire what is due, send again what a dead worker never sent; return how long to sleep
    before the next tick."""
    services.fire_due_deadlines()
    broadcast.heal_unsent()
    poll = settings.SCHEDULER_POLL_SECONDS
    upcoming = services.next_deadline_at()
    if upcoming is None:
        return poll
    wait = (upcoming - clock.now()).total_seconds()
    return max(MIN_SLEEP_SECONDS, min(poll, wait))


def work() -> float:
    """Let bots act and run pending analysis (both may be slow, so they have their own loop)."""
    busy = services.run_bots() + services.run_analyses()
    return MIN_SLEEP_SECONDS if busy else settings.SCHEDULER_POLL_SECONDS


async def _loop(step, stop: asyncio.Event | None, *, thread_sensitive: bool) -> None:  # type: ignore[no-untyped-def]
    run = database_sync_to_async(step, thread_sensitive=thread_sensitive)
    while stop is None or not stop.is_set():
        try:
            wait = await run()
        except Exception:
            log.exception("scheduler step %s failed; retrying", step.__name__)
            wait = settings.SCHEDULER_POLL_SECONDS
        await asyncio.sleep(wait)


def warm_up_games() -> None:
    for game in registry.all_games():
        try:
            game.warm_up()
        except Exception:
            log.exception("warming up %s failed", game.key)


async def _work_loop(stop: asyncio.Event | None) -> None:
    await asyncio.to_thread(warm_up_games)
    await _loop(work, stop, thread_sensitive=False)


async def run_forever(stop: asyncio.Event | None = None) -> None:
    """Deadlines in one loop; bots and analysis in another thread, so a slow solve never delays
    a clock."""
    log.info("scheduler running")
    await asyncio.gather(_loop(tick, stop, thread_sensitive=True), _work_loop(stop))
