"""Sending committed events to the viewers of a match, each audience its own frame.

``announce`` runs when a transaction that appended an event commits. Inside ``deferred()`` (the
websocket consumer's action path) it only collects the events, so the consumer can acknowledge
the action first and send the frames afterwards, off the thread that applies actions; elsewhere
(the scheduler, host actions, tests) it sends them at once.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games.core import clock
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
        _hold(match.pk, event.version)
        return
    try:
        messages = render([(match, event)])
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            if async_to_sync(send_messages)(messages):
                mark_sent(match.pk, {event.version})
        else:  # called from code running inside an event loop's thread: hand it to that loop
            loop.create_task(_send_and_mark(match.pk, {event.version}, messages))
    except Exception:  # a lost broadcast is sent again by the scheduler (heal_unsent)
        log.exception("broadcast of match %s v%s failed", match.pk, event.version)


async def _send_and_mark(match_pk: int, versions: set[int], messages: list) -> None:
    if await send_messages(messages):
        await database_sync_to_async(mark_sent, thread_sensitive=False)(match_pk, versions)


def mark_sent(match_pk: int, versions: set[int]) -> None:
    """The frames of these versions reached the channel layer: nothing left to heal."""
    unsent = Event.objects.filter(match_id=match_pk, version__in=sorted(versions), sent_at=None)
    unsent.update(sent_at=clock.now())


HEAL_AFTER = timedelta(seconds=2)
HEAL_WITHIN = timedelta(minutes=10)
HEAL_BATCH = 50


def heal_unsent(now: datetime | None = None) -> int:
    """Send again the events committed but never sent (their worker died right after the ack,
    or the layer was down): a viewer on another worker would otherwise wait for its next ping
    or the next event. Run by the scheduler; returns how many events it sent. A viewer that
    holds a version already ignores it, so a second send does no harm."""
    now = now or clock.now()
    due = Event.objects.filter(
        sent_at=None, created_at__lte=now - HEAL_AFTER, created_at__gte=now - HEAL_WITHIN
    ).order_by("match_id", "version")[:HEAL_BATCH]
    by_match: dict[int, list[Event]] = {}
    for event in due:
        by_match.setdefault(event.match_id, []).append(event)
    healed = 0
    for match in Match.objects.filter(pk__in=list(by_match)).with_seats():
        events = by_match[match.pk]
        if async_to_sync(send_messages)(render([(match, event) for event in events])):
            mark_sent(match.pk, {event.version for event in events})
            healed += len(events)
    return healed


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
# parallel still go out in version order (a viewer that sees a gap resyncs, but need not). Events
# are committed in the threads that apply actions and sent from the event loop: hence the lock.
_unsent: dict[int, set[int]] = {}
_unsent_lock = threading.Lock()
_in_order: dict[int, asyncio.Condition] = {}
ORDER_WAIT_SECONDS = 2.0


def _hold(match_pk: int, version: int) -> None:
    with _unsent_lock:
        _unsent.setdefault(match_pk, set()).add(version)


def _earliest_unsent(match_pk: int) -> int | None:
    with _unsent_lock:
        unsent = _unsent.get(match_pk)
        return min(unsent) if unsent else None


def _release(match_pk: int, versions: set[int]) -> bool:
    """``versions`` hold nothing back any more; returns whether others of the match still do."""
    with _unsent_lock:
        unsent = _unsent.get(match_pk)
        if unsent is not None:
            unsent.difference_update(versions)
            if not unsent:
                del _unsent[match_pk]
        return match_pk in _unsent


async def send(announcements: list[Announcement]) -> None:
    """Render (in a worker thread, not the one that applies actions) and send the frames, after
    the frames of any earlier version this process committed. Never raises: a frame that cannot
    be rendered or sent is logged, and its viewers heal through their pings. Whatever happens
    (a failure, the connection's task cancelled), these versions stop holding back later ones."""
    if not announcements:
        return
    match_pk = announcements[0][0].pk
    mine = {event.version for _, event in announcements}
    try:
        render_off_thread = database_sync_to_async(render, thread_sensitive=False)
        messages = await render_off_thread(announcements)
        turn = _in_order.setdefault(match_pk, asyncio.Condition())
        async with turn:
            await _wait_for_earlier(turn, match_pk, min(mine))
            sent = await send_messages(messages)
        if sent:
            await database_sync_to_async(mark_sent, thread_sensitive=False)(match_pk, mine)
    except Exception:
        log.exception("broadcast of match %s v%s failed", match_pk, sorted(mine))
    finally:
        await _sent(match_pk, mine)


async def _wait_for_earlier(turn: asyncio.Condition, match_pk: int, first: int) -> None:
    """Wait (holding ``turn``) until this process has sent every version before ``first``, at
    most ORDER_WAIT_SECONDS. An earlier version still unsent by then is given up on for good:
    its viewers see the gap and resync, and no later send waits for it again."""

    def earlier_sent() -> bool:
        earliest = _earliest_unsent(match_pk)
        return earliest is None or earliest >= first

    try:
        await asyncio.wait_for(turn.wait_for(earlier_sent), ORDER_WAIT_SECONDS)
    except TimeoutError:
        with _unsent_lock:
            given_up = sorted(v for v in _unsent.get(match_pk, ()) if v < first)
        _release(match_pk, set(given_up))
        log.warning("match %s: v%s never sent; v%s goes out without it", match_pk, given_up, first)


async def _sent(match_pk: int, versions: set[int]) -> None:
    """``versions`` were sent (or lost for good): wake the sends waiting for them."""
    if not _release(match_pk, versions):
        _in_order.pop(match_pk, None)  # nothing of this match is unsent, so no one waits
        return
    turn = _in_order.get(match_pk)
    if turn is not None:
        async with turn:
            turn.notify_all()


SEND_ATTEMPTS = 3


async def send_messages(messages: list[tuple[str, dict]]) -> bool:
    """Send each frame to its group, retrying a send the layer failed (a lost Redis connection
    is reopened on the next try); whether every frame went. A frame still lost is healed by
    the scheduler's heal_unsent and the viewers' pings, whose pongs carry the version."""
    layer = get_channel_layer()
    if layer is None:
        return True
    all_sent = True
    for group, message in messages:
        for attempt in range(1, SEND_ATTEMPTS + 1):
            try:
                await layer.group_send(group, message)
                break
            except Exception:
                if attempt == SEND_ATTEMPTS:
                    all_sent = False
                    log.exception("frame v%s to %s lost", message.get("version"), group)
                else:
                    await asyncio.sleep(0.05 * attempt)
    return all_sent
