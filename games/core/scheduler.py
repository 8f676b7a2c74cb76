"""The loop that fires due deadlines (and lets bots move). Any number may run at once: each
deadline is claimed by one conditional UPDATE, so it fires exactly once."""

from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async
from django.conf import settings

from games.core import clock, services

log = logging.getLogger(__name__)

MIN_SLEEP_SECONDS = 0.02


def tick() -> float:
    """Fire what is due and let bots act; return how long to sleep before the next tick."""
    services.fire_due_deadlines()
    services.run_bots()
    poll = settings.SCHEDULER_POLL_SECONDS
    upcoming = services.next_deadline_at()
    if upcoming is None:
        return poll
    wait = (upcoming - clock.now()).total_seconds()
    return max(MIN_SLEEP_SECONDS, min(poll, wait))


async def run_forever(stop: asyncio.Event | None = None) -> None:
    log.info("scheduler running")
    while stop is None or not stop.is_set():
        try:
            wait = await database_sync_to_async(tick)()
        except Exception:
            log.exception("scheduler tick failed; retrying")
            wait = settings.SCHEDULER_POLL_SECONDS
        await asyncio.sleep(wait)
