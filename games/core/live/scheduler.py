"""The loop that fires due deadlines (and lets bots move). Any number may run at once: each
deadline is claimed by one conditional UPDATE, so it fires exactly once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from channels.db import database_sync_to_async
from django.conf import settings

from games.core.game import registry
from games.core.live import broadcast
from games.core.match import clock, deadlines, services

log = logging.getLogger(__name__)

MIN_SLEEP_SECONDS = 0.02

# Clocks kept outside matches (a season's nomination clock): each is a step that fires what is
# due and returns when its next clock is due (None: none waiting). Apps register theirs in
# their AppConfig.ready(), so the core imports no app.
OTHER_CLOCKS: list[Callable[[], datetime | None]] = []
# Work of the apps that runs beside the clocks for as long as the scheduler does (the
# notifications' deliveries): each is given the scheduler's stop event. Registered likewise.
SERVICES: list[Callable[[asyncio.Event | None], Awaitable[None]]] = []


def register_clock(step: Callable[[], datetime | None]) -> None:
    if step not in OTHER_CLOCKS:
        OTHER_CLOCKS.append(step)


def register_service(run: Callable[[asyncio.Event | None], Awaitable[None]]) -> None:
    if run not in SERVICES:
        SERVICES.append(run)


def tick() -> float:
    """Fire what is due, send again what a dead worker never sent; return how long to sleep
    before the next tick."""
    deadlines.fire_due_deadlines()
    broadcast.heal_unsent()
    upcoming = [deadlines.next_deadline_at(), *_other_clocks()]
    poll = settings.SCHEDULER_POLL_SECONDS
    due = [when for when in upcoming if when is not None]
    if not due:
        return poll
    wait = (min(due) - clock.now()).total_seconds()
    return max(MIN_SLEEP_SECONDS, min(poll, wait))


def _other_clocks() -> list[datetime | None]:
    """Run every other clock's step; one that fails is logged and retried next tick."""
    upcoming = []
    for step in OTHER_CLOCKS:
        try:
            upcoming.append(step())
        except Exception:
            log.exception("clock step %s failed; retrying", step.__name__)
    return upcoming


def work() -> float:
    """Let bots act and run pending analysis (both may be slow, so they have their own loop)."""
    busy = services.run_bots() + services.run_analyses()
    return MIN_SLEEP_SECONDS if busy else settings.SCHEDULER_POLL_SECONDS


async def _loop(step, stop: asyncio.Event | None, *, thread_sensitive: bool) -> None:
    while stop is None or not stop.is_set():
        outbox = broadcast.Outbox()

        run = database_sync_to_async(_collecting, thread_sensitive=thread_sensitive)
        try:
            wait = await run(step, outbox)
        except Exception:
            log.exception("scheduler step %s failed; retrying", step.__name__)
            wait = settings.SCHEDULER_POLL_SECONDS
        finally:
            # What the step committed (a timeout, a bot's move) goes out in version order with
            # the frames of the players' actions this process sends: sent apart, a bot's move
            # could reach a page after the move that followed it.
            await broadcast.send(outbox)
        await asyncio.sleep(wait)


def _collecting(step: Callable[[], float], outbox: broadcast.Outbox) -> float:
    with broadcast.deferred(outbox):
        return step()


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
    a clock; the apps' services beside them (notifications delivered on a pool of their own, so
    a slow receiver delays neither)."""
    log.info("scheduler running")
    await asyncio.gather(
        _loop(tick, stop, thread_sensitive=True),
        _work_loop(stop),
        *(run(stop) for run in SERVICES),
    )
