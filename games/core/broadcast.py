"""Sending committed events to the viewers of a match, each audience its own frame.

``announce`` runs when a transaction that appended an event commits. Inside ``deferred()`` (the
websocket consumer's action path) it only collects the events, so the consumer can acknowledge
the action first and send the frames afterwards, off the thread that applies actions; elsewhere
(the scheduler, host actions, tests) it sends them at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games.core.gamedef import Viewer
from games.core.models import Event, Match
from games.core.rendering import audience_frames

log = logging.getLogger(__name__)

Announcement = tuple[Match, Event]
_collecting = threading.local()


def group_name(match_pk: int, viewer: Viewer) -> str:
    return f"match.{match_pk}.{viewer.audience}"


def user_group_name(user_pk: int) -> str:
    """Every socket a signed-in user holds, in any match (closed when they log out)."""
    return f"user.{user_pk}"


@contextmanager
def deferred() -> Iterator[list[Announcement]]:
    """Collect the events announced in this thread instead of sending them."""
    pending: list[Announcement] = []
    _collecting.pending = pending
    try:
        yield pending
    finally:
        _collecting.pending = None


def announce(match: Match, event: Event) -> None:
    pending = getattr(_collecting, "pending", None)
    if pending is not None:
        pending.append((match, event))
        _unsent.setdefault(match.pk, set()).add(event.version)
        return
    try:
        messages = render([(match, event)])
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            async_to_sync(send_messages)(messages)
        else:  # called from code running inside an event loop's thread: hand it to that loop
            loop.create_task(send_messages(messages))
    except Exception:  # a lost broadcast is healed by the viewers' pings
        log.exception("broadcast of match %s v%s failed", match.pk, event.version)


def render(announcements: list[Announcement]) -> list[tuple[str, dict]]:
    """The layer messages for ``announcements``: (group, message), rendered from memory."""
    messages = []
    for match, event in announcements:
        for viewer, frame in audience_frames(match, event):
            messages.append(
                (group_name(match.pk, viewer), {"type": "match.frame", **frame.as_message()})
            )
    return messages


# Versions this process committed and has not sent yet, per match, so that frames rendered in
# parallel still go out in version order (a viewer that sees a gap resyncs, but need not).
_unsent: dict[int, set[int]] = {}
_in_order: dict[int, asyncio.Condition] = {}
ORDER_WAIT_SECONDS = 2.0


async def send(announcements: list[Announcement]) -> None:
    """Render (in a worker thread, not the one that applies actions) and send the frames, after
    the frames of any earlier version this process committed."""
    if not announcements:
        return
    render_off_thread = database_sync_to_async(render, thread_sensitive=False)
    messages = await render_off_thread(announcements)
    match_pk = announcements[0][0].pk
    mine = {event.version for _, event in announcements}
    first = min(mine)
    turn = _in_order.setdefault(match_pk, asyncio.Condition())
    async with turn:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                turn.wait_for(lambda: all(v >= first for v in _unsent.get(match_pk, ()))),
                ORDER_WAIT_SECONDS,
            )
        try:
            await send_messages(messages)
        finally:
            _unsent.get(match_pk, set()).difference_update(mine)
            turn.notify_all()


SEND_ATTEMPTS = 3


async def send_messages(messages: list[tuple[str, dict]]) -> None:
    """Send each frame to its group, retrying a send the layer failed (a lost Redis connection
    is reopened on the next try). A frame still lost is healed by the viewers' pings, whose
    pongs carry the current version."""
    layer = get_channel_layer()
    if layer is None:
        return
    for group, message in messages:
        for attempt in range(1, SEND_ATTEMPTS + 1):
            try:
                await layer.group_send(group, message)
                break
            except Exception:
                if attempt == SEND_ATTEMPTS:
                    log.exception("frame v%s to %s lost", message.get("version"), group)
                else:
                    await asyncio.sleep(0.05 * attempt)
