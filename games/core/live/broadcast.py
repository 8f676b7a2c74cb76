"""The one route by which viewers are told of a change: events, chat lines and drafts alike.

Whatever a change wants to tell is queued inside its transaction (:func:`announce_event` for an
appended event, rendered per audience; :func:`publish` for layer messages ready to go, a chat
line or a draft) and leaves only when the transaction commits: a change rolled back tells no
one. Inside ``deferred()`` (the websocket consumer's paths) the committed messages are collected
in an :class:`Outbox` instead, so the consumer answers its sender first and sends them afterwards
with :func:`send`, off the thread that applies actions; elsewhere (the scheduler, host actions,
tests) they go at once. An event whose frames never left is sent again by the scheduler
(:func:`heal_unsent`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from weakref import WeakKeyDictionary

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from django.db import router, transaction

from games.core.game.gamedef import State, Viewer
from games.core.live import tracing
from games.core.match import clock
from games.core.models import Event, Match, mark_events_sent
from games.core.render.frame import Frame
from games.core.render.panelcache import Keeping
from games.core.render.rendering import Announcement, audiences, frames_drawn

log = logging.getLogger(__name__)

LayerMessage = tuple[str, dict[str, Any]]
_collecting = threading.local()


@dataclass
class Outbox:
    """What the changes run inside ``deferred()`` committed, waiting to be sent."""

    events: list[Announcement] = field(default_factory=list)
    messages: list[LayerMessage] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.events or self.messages)


def group_name(match_pk: int, viewer: Viewer) -> str:
    return f"match.{match_pk}.{viewer.audience}"


def user_group_name(user_pk: int) -> str:
    """Every socket a signed-in user holds, in any match (closed when they log out)."""
    return f"user.{user_pk}"


def draft_messages(
    match_pk: int, seat: int, draft: dict[str, Any], *, sent_as: str | None = None
) -> list[LayerMessage]:
    """A seat's draft goes to that seat's sockets and the host's, no one else's; ``sent_as``
    (the id of the message that sent it) goes with it."""
    message: dict[str, Any] = {"type": "match.draft", "seat": seat, "draft": draft}
    if sent_as:
        message["id"] = sent_as
    return [
        (group_name(match_pk, viewer), message) for viewer in (Viewer(seat=seat), Viewer.host())
    ]


@contextmanager
def deferred(outbox: Outbox | None = None) -> Iterator[Outbox]:
    """Collect what commits in this thread into ``outbox`` instead of sending it."""
    collected = outbox if outbox is not None else Outbox()
    _collecting.outbox = collected
    try:
        yield collected
    finally:
        _collecting.outbox = None


def _outbox() -> Outbox | None:
    return getattr(_collecting, "outbox", None)


def announce_event(match: Match, event: Event, before: State) -> None:
    """Tell every audience of ``event`` once the transaction that appended it commits; ``before``
    is the state it changed, the match's state now the one it made."""
    announcement = Announcement(match, event, before, match.state)
    transaction.on_commit(lambda: announce(announcement))


def publish(messages: list[LayerMessage]) -> None:
    """Send these layer messages once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: _deliver(list(messages)))


def announce(announcement: Announcement) -> None:
    """An event committed: collect its frames for the consumer, or render and send them now."""
    match_pk, version = announcement.match.pk, announcement.event.version
    outbox = _outbox()
    if outbox is not None:
        outbox.events.append(announcement)
        _hold(match_pk, version)
        return
    try:
        _send_now(render([announcement]), match_pk, {version})
    except Exception:  # a lost broadcast is sent again by the scheduler (heal_unsent)
        log.exception("broadcast of match %s v%s failed", match_pk, version)


def _deliver(messages: list[LayerMessage]) -> None:
    outbox = _outbox()
    if outbox is not None:
        outbox.messages.extend(messages)
        return
    try:
        _send_now(messages)
    except Exception:  # a chat line or a draft lost: the page shows it on its next load
        log.exception("%s layer messages lost", len(messages))


def _send_now(
    messages: list[LayerMessage], match_pk: int | None = None, versions: set[int] | None = None
) -> None:
    """Send from synchronous code; events' versions are marked sent once they reached the
    layer. Called inside an event loop's thread, the send is handed to that loop."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        if async_to_sync(send_messages)(messages) and match_pk is not None and versions:
            mark_sent(match_pk, versions)
    else:
        loop.create_task(_send_and_mark(match_pk, versions or set(), messages))


async def _send_and_mark(
    match_pk: int | None, versions: set[int], messages: list[LayerMessage]
) -> None:
    if await send_messages(messages) and match_pk is not None and versions:
        _mark_soon(match_pk, versions)


def mark_sent(match_pk: int, versions: set[int]) -> None:
    """The frames of these versions reached the channel layer: nothing left to heal."""
    mark_all_sent({match_pk: versions})


def mark_all_sent(sent: dict[int, set[int]]) -> None:
    """``mark_sent`` for several matches' versions (by match), in one statement."""
    mark_events_sent(router.db_for_write(Event), sent, clock.now())


# A worker's sent versions are marked together, once every MARK_SECONDS at most: a cast moving
# at once sends a dozen versions a second, each a statement and a trip to a thread of its own
# before. Well inside the heal's delay (HEAL_AFTER), so nothing is sent twice for it; a worker
# that dies before its marks are written has its versions sent again by the heal (a page drops
# a version it holds).
MARK_SECONDS = 0.2


@dataclass
class _Marks:
    pending: dict[int, set[int]] = field(default_factory=dict)
    writing: asyncio.Task[None] | None = None


# Each event loop's (a worker's, a test's) marks waiting to be written.
_marks: WeakKeyDictionary[asyncio.AbstractEventLoop, _Marks] = WeakKeyDictionary()


def _mark_soon(match_pk: int, versions: set[int]) -> None:
    """Mark ``versions`` sent with the others sent within MARK_SECONDS."""
    loop = asyncio.get_running_loop()
    marks = _marks.setdefault(loop, _Marks())
    marks.pending.setdefault(match_pk, set()).update(versions)
    if marks.writing is None:
        marks.writing = loop.create_task(_write_marks(marks))


async def _write_marks(marks: _Marks) -> None:
    await asyncio.sleep(MARK_SECONDS)
    sent, marks.pending, marks.writing = marks.pending, {}, None
    try:
        await database_sync_to_async(mark_all_sent, thread_sensitive=False)(sent)
    except Exception:  # the heal sends them again
        log.exception("%s sent versions not marked", sum(len(v) for v in sent.values()))


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
        announcements = [Announcement.stored(match, event) for event in events]
        if async_to_sync(send_messages)(render(announcements)):
            mark_sent(match.pk, {event.version for event in events})
            healed += len(events)
    if healed:
        log.info("sent again %s events their workers had not sent in %s", healed, HEAL_AFTER)
    return healed


def render(announcements: list[Announcement]) -> list[LayerMessage]:
    """The layer messages for ``announcements``: (group, message), rendered from memory, for
    every audience (the heal, and changes sent outside an event loop: a host's operation; the
    consumer's path draws only the audiences listened to, ``_Drawing``)."""
    return [
        _message(announcement, viewer, frame)
        for announcement in announcements
        for viewer, frame in frames_drawn(announcement)
    ]


# Versions this process committed and has not sent yet, per match, so that frames rendered in
# parallel still go out in version order (a viewer that sees a gap resyncs, but need not). Events
# are committed in the threads that apply actions and sent from the event loop: hence the lock.
# An event's frames go in two lanes, each in version order: the table's, the seats' and the
# spectators' (``_table_unsent``: the versions whose table frames are not sent yet), and then the
# host's (``_unsent``: the versions not wholly sent). A socket takes a version only after the one
# before, so a seat's own move waits for every earlier version's seat frames, and a spectator
# for every earlier spectators' frame: never for the host's, which reads the whole match (its
# console) and costs more than the rest of a race's version. The host's frames are drawn while
# no table lane of the match waits.
_unsent: dict[int, set[int]] = {}
_table_unsent: dict[int, set[int]] = {}
# The first of the table's lanes: the versions whose movers' frames (``_Drawing.movers_first``)
# are not sent yet. A later version's movers' frames wait only for these, not for the rest of
# the earlier versions' tables: the seats about to move are drawn first in those (``_coming``),
# so a player's own move reaches them while the earlier versions' other frames are still drawn.
_movers_unsent: dict[int, set[int]] = {}
_unsent_lock = threading.Lock()
_in_order: dict[int, asyncio.Condition] = {}
# The sends of each match whose table frames are not sent yet (in the event loop only): the
# host's frames of earlier versions wait while there are any.
_table_lanes: dict[int, int] = {}
ORDER_WAIT_SECONDS = 2.0


def _hold(match_pk: int, version: int) -> None:
    with _unsent_lock:
        _unsent.setdefault(match_pk, set()).add(version)
        _table_unsent.setdefault(match_pk, set()).add(version)
        _movers_unsent.setdefault(match_pk, set()).add(version)


def _earliest_unsent(lane: dict[int, set[int]], match_pk: int) -> int | None:
    with _unsent_lock:
        unsent = lane.get(match_pk)
        return min(unsent) if unsent else None


def _release_from(lane: dict[int, set[int]], match_pk: int, versions: set[int]) -> None:
    with _unsent_lock:
        unsent = lane.get(match_pk)
        if unsent is not None:
            unsent.difference_update(versions)
            if not unsent:
                del lane[match_pk]


def _release(match_pk: int, versions: set[int]) -> bool:
    """``versions`` hold nothing back any more; returns whether others of the match still do."""
    _release_from(_movers_unsent, match_pk, versions)
    _release_from(_table_unsent, match_pk, versions)
    _release_from(_unsent, match_pk, versions)
    with _unsent_lock:
        return match_pk in _unsent or match_pk in _table_unsent or match_pk in _movers_unsent


async def send(outbox: Outbox) -> None:
    """Send what ``outbox`` collected: the events' frames (rendered in a worker thread, not the
    one that applies actions, and sent after the frames of any earlier version this process
    committed), then the other messages. Never raises: a frame that cannot be rendered or sent
    is logged, and its viewers heal through their pings. Whatever happens (a failure, the
    connection's task cancelled), these versions stop holding back later ones."""
    if outbox.events:
        await _send_events(outbox.events)
    if outbox.messages:
        try:
            await send_messages(outbox.messages)
        except Exception:
            log.exception("%s layer messages lost", len(outbox.messages))


# The sends under way apart from the connection that committed them (``send_apart``).
_sending: set[asyncio.Task[None]] = set()


def send_apart(outbox: Outbox) -> None:
    """Send ``outbox`` in a task of its own: the connection whose action committed it goes on
    handling its messages (its own update among them) while the event's frames are drawn. The
    send outlives the connection: a player who closes the tab right after acting still tells
    everyone else."""
    if not outbox:
        return
    task = asyncio.get_running_loop().create_task(send(outbox))
    _sending.add(task)
    task.add_done_callback(_sending.discard)


async def _send_events(announcements: list[Announcement]) -> None:
    """Each match's events in its own version order: a scheduler step (bots, clocks) commits
    events of several matches into one outbox, and each match's versions are waited for,
    marked sent and released apart (taken as one match's, the others' were never released:
    their next send waited ORDER_WAIT_SECONDS and the heal sent them again)."""
    by_match: dict[int, list[Announcement]] = {}
    for announcement in announcements:
        by_match.setdefault(announcement.match.pk, []).append(announcement)
    for match_pk, of_match in by_match.items():
        await _send_match_events(match_pk, of_match)


class _Drawing:
    """One announcement's frames as they are drawn, in the order of ``rendering.audiences``:
    the table's first (the acting seat's, the other seats', the spectators'), then the host's,
    each only if a socket listens to it (``_listened``). ``next`` draws in a worker thread;
    ``keeping`` gets what every audience drawn was sent."""

    def __init__(self, announcement: Announcement, next_movers: Sequence[int] = ()) -> None:
        self.announcement = announcement
        self.next_movers = next_movers
        self.keeping = Keeping()
        self.frames: Iterator[tuple[Viewer, Frame]] | None = None
        self.table_left = 0  # counted in the drawing thread (reads the seats and Redis)
        self._movers_first = 0

    def _begin(self) -> Iterator[tuple[Viewer, Frame]]:
        """Which audiences are drawn, asked once the version committed: a socket that joins
        its audience later reads the match after it joined, at this version or a later one,
        so it misses no frame left undrawn here."""
        if self.frames is None:
            match, acting = self.announcement.match, self.announcement.event.seat
            every = audiences(match, acting)
            listened = _listened(match.pk, every)
            unwatched = frozenset(v.audience for v in every if v not in listened)
            self.table_left = sum(1 for v in listened if not v.is_host)
            # The acting seat's frame and the next movers' come first (``rendering.audiences``).
            movers = {acting, *self.next_movers} - {None}
            self._movers_first = sum(1 for v in listened if v.seat in movers)
            self.frames = frames_drawn(
                self.announcement,
                keeping=self.keeping,
                next_movers=self.next_movers,
                unwatched=unwatched,
            )
        return self.frames

    @property
    def movers_first(self) -> int:
        """How many of the first frames are the movers' (the acting seat's, the next movers')."""
        self._begin()
        return self._movers_first

    def next(self, table_only: bool) -> tuple[Viewer, Frame] | None:
        """The next frame drawn, or None when there is none (with ``table_only``: no frame of
        the table's left)."""
        frames = self._begin()
        if table_only and self.table_left <= 0:
            return None
        try:
            drawn = next(frames)
        except StopIteration:
            return None
        self.table_left -= 1
        return drawn


def _listened(match_pk: int, viewers: list[Viewer]) -> list[Viewer]:
    """Those of ``viewers`` whose audience a socket listens to now, on any worker (the layer
    asked; every one where it cannot tell): a frame no socket would take is not drawn."""
    groups = {group_name(match_pk, viewer): viewer for viewer in viewers}
    layer = get_channel_layer()
    try:
        if isinstance(layer, InMemoryChannelLayer):
            heard = {group for group in groups if layer.groups.get(group)}
        elif getattr(layer, "publishes_from_threads", False):
            heard = layer.listened(list(groups))
        else:
            return viewers
    except Exception:
        log.warning(
            "could not ask which audiences are listened to; drawing every one", exc_info=True
        )
        return viewers
    return [viewer for group, viewer in groups.items() if group in heard]


async def _send_match_events(match_pk: int, announcements: list[Announcement]) -> None:
    """Each frame goes as soon as it is drawn (in a worker thread), in the order of
    ``rendering.audiences``: the acting seat's first. The table's frames (the seats' and the
    spectators') go once every earlier version's did, published from the drawing thread where
    the layer can (``_table_published``); the host's once every earlier version's
    did, and only while no later version's table frames wait. Once the frames are out, the later
    versions go on while these are marked sent (a write to the database)."""
    mine = {announcement.event.version for announcement in announcements}
    next_messages = database_sync_to_async(_next_messages, thread_sensitive=False)
    released = False
    turn = _in_order.setdefault(match_pk, asyncio.Condition())
    _table_lanes[match_pk] = _table_lanes.get(match_pk, 0) + 1
    table_lane = True
    try:
        drawings = [
            _Drawing(announcement, _movers_after(announcements, index))
            for index, announcement in enumerate(announcements)
        ]
        sent = True
        publish = _publisher()
        if publish is not None:
            # Each part drawn and published in one trip to a thread: no turn of the loop
            # between frames. The movers' once the earlier versions' movers' are out, the rest
            # once the earlier versions' tables are.
            async with turn:
                await _wait_for_earlier(turn, _movers_unsent, match_pk, min(mine))
            published = database_sync_to_async(_table_published, thread_sensitive=False)
            unpublished = await published(drawings, publish, movers=True)
            if unpublished:
                sent = await send_messages(unpublished) and sent
            await _movers_sent(turn, match_pk, mine)
            async with turn:
                await _wait_for_earlier(turn, _table_unsent, match_pk, min(mine))
            unpublished = await published(drawings, publish, movers=False)
            if unpublished:
                sent = await send_messages(unpublished) and sent
        else:
            async with turn:
                await _wait_for_earlier(turn, _table_unsent, match_pk, min(mine))
            for drawing in drawings:
                first = True  # the acting seat's frame goes alone: its player waits for it
                while messages := await next_messages(drawing, first, table_only=True):
                    sent = await send_messages(messages) and sent
                    first = False
        await _table_sent(turn, match_pk, mine)
        table_lane = False
        async with turn:
            await _wait_for_earlier(turn, _unsent, match_pk, min(mine))
        for drawing in drawings:
            while True:
                if _table_lanes.get(match_pk):
                    async with turn:
                        await _no_table_lane(turn, match_pk)
                messages = await next_messages(drawing)
                if not messages:
                    break
                sent = await send_messages(messages) and sent
        released = True
        await _sent(match_pk, mine)
        keepings = [drawing.keeping for drawing in drawings]
        await database_sync_to_async(_write_kept, thread_sensitive=False)(keepings)
        if sent:
            _mark_soon(match_pk, mine)
    except Exception:
        log.exception("broadcast of match %s v%s failed", match_pk, sorted(mine))
    finally:
        if table_lane:
            _table_lanes_done(match_pk)
        if not released:
            await _sent(match_pk, mine)


# How long a worker's gallery of a match's spectators holds what came while the worker draws the
# match's table frames (``table_drawn``).
SPECTATORS_WAIT_SECONDS = 0.05


async def table_drawn(match_pk: int, at_most: float = SPECTATORS_WAIT_SECONDS) -> None:
    """Return once this worker draws none of the match's table frames (the seats' and the
    spectators'), or after ``at_most`` seconds. The spectators' gallery waits for it before
    handing out what came: a cast moving at once makes a version every few milliseconds, each
    worker draws its own, and each seat's next frame waits for the lanes before it; handing
    each frame to a hundred spectators meanwhile took the interpreter from the drawing, and
    what came while the lanes were drawn goes to each spectator together."""
    if not _table_lanes.get(match_pk):
        return
    turn = _in_order.setdefault(match_pk, asyncio.Condition())
    try:
        async with turn:
            await asyncio.wait_for(turn.wait_for(lambda: not _table_lanes.get(match_pk)), at_most)
    except TimeoutError:
        pass


def _table_lanes_done(match_pk: int) -> None:
    left = _table_lanes.pop(match_pk, 1) - 1
    if left:
        _table_lanes[match_pk] = left


async def _movers_sent(turn: asyncio.Condition, match_pk: int, versions: set[int]) -> None:
    """The movers' frames of ``versions`` were sent: the next versions' movers' may go."""
    _release_from(_movers_unsent, match_pk, versions)
    async with turn:
        turn.notify_all()


async def _table_sent(turn: asyncio.Condition, match_pk: int, versions: set[int]) -> None:
    """The table's frames of ``versions`` were sent: the next versions' may go, and the host's
    when no table lane is left."""
    _release_from(_movers_unsent, match_pk, versions)
    _release_from(_table_unsent, match_pk, versions)
    _table_lanes_done(match_pk)
    async with turn:
        turn.notify_all()


def _write_kept(keepings: list[Keeping]) -> None:
    """What the audiences were sent, to the shared cache: written once the next version may go
    (the other worker's next frames are drawn from it, or drawn again without it)."""
    for keeping in keepings:
        keeping.write()


# How long one trip to a drawing thread draws frames before the ones drawn are sent: a frame
# that takes long goes alone (the acting seat's, first), the many drawn from nothing go together.
DRAWING_SLICE_SECONDS = 0.002


class _Actions:
    """The actions this worker is applying now that hold their match's row (locked, until the
    change is over): a thread drawing that match's frames waits for them, before each frame,
    at most DRAWING_YIELDS_MS, so that the interpreter goes to the thread that holds the row
    rather than to the drawing (a cast moving at once queues on that row: each swap's hold is
    every later swap's wait). An action still waiting for the row (held by the other worker)
    is not waited for: it holds nothing up, and in a burst one nearly always is (drawing
    threads that waited for those too took 50-100 ms over twelve quiet seats' frames). Another
    match's actions are not waited for: a worker playing many matches would keep its drawing
    threads, and the work queued behind them, waiting."""

    def __init__(self) -> None:
        self.done = threading.Condition()
        self.holding: dict[int, int] = {}  # by match: this worker's actions holding its row
        self.here = threading.local()  # the match of the change this thread applies, if any
        # The users whose actions on a match this worker has taken in and not applied yet, in
        # the order they came: told by games/core/live/acting.py (which sends through here).
        self.coming: Callable[[int], list[Any]] = lambda match_pk: []

    @contextmanager
    def applying(self, match_pk: int) -> Iterator[None]:
        """The change this thread applies to the match; ``row_locked`` inside it says that it
        holds the row from then until it is over."""
        self.here.match_pk, self.here.holds = match_pk, False
        began = time.perf_counter()
        try:
            yield
        finally:
            locked_at = getattr(self.here, "locked_at", None)
            if tracing.enabled() and self.here.holds and locked_at is not None:
                held_since, cpu_since = locked_at
                tracing.mark(
                    "trip",
                    match_pk,
                    f"{(time.perf_counter() - began) * 1000:.2f}",
                    f"{(time.perf_counter() - held_since) * 1000:.2f}",
                    f"{(time.thread_time() - cpu_since) * 1000:.2f}",
                )
            if self.here.holds:
                with self.done:
                    left = self.holding.pop(match_pk) - 1
                    if left:
                        self.holding[match_pk] = left
                    else:
                        self.done.notify_all()
            self.here.match_pk, self.here.holds = None, False

    def row_locked(self, match_pk: int) -> None:
        """This thread locked the match's row (services.lock): inside ``applying`` that match,
        the drawing threads wait for it from now until the change is over."""
        if getattr(self.here, "match_pk", None) != match_pk or self.here.holds:
            return
        self.here.holds = True
        # Read only when traced: a lock is on every action's path.
        self.here.locked_at = (
            (time.perf_counter(), time.thread_time()) if tracing.enabled() else None
        )
        with self.done:
            self.holding[match_pk] = self.holding.get(match_pk, 0) + 1

    def awaited(self, match_pk: int, at_most: float) -> None:
        """Return once no action of the match holds its row here, or after ``at_most`` s."""
        if match_pk in self.holding:
            with self.done:
                self.done.wait_for(lambda: match_pk not in self.holding, timeout=at_most)


actions = _Actions()


def _next_messages(
    drawing: _Drawing, alone: bool = False, *, table_only: bool = False
) -> list[LayerMessage]:
    """The layer messages of the next frames ``drawing`` draws (``table_only``: of the table's
    frames): one if ``alone``, else as many as are drawn within DRAWING_SLICE_SECONDS (at least
    one); none once every one is drawn."""
    announcement = drawing.announcement
    messages: list[LayerMessage] = []
    until = time.monotonic() + DRAWING_SLICE_SECONDS
    while True:
        if settings.DRAWING_YIELDS_MS:
            actions.awaited(announcement.match.pk, settings.DRAWING_YIELDS_MS / 1000)
        drawn = drawing.next(table_only)
        if drawn is None:
            break
        messages.append(_message(announcement, *drawn))
        if alone or time.monotonic() >= until:
            break
    return messages


Publish = Callable[[list[LayerMessage]], None]


def _publisher() -> Publish | None:
    """The layer's way to send from the thread that draws (games/core/live/layer.py
    ``publish_now``), if it has one: a layer in this process (tests, ``make run``) has none."""
    layer = get_channel_layer()
    return layer.publish_now if getattr(layer, "publishes_from_threads", False) else None


def _movers_after(announcements: list[Announcement], index: int) -> list[int]:
    """The seats whose moves make the versions after ``announcements[index]`` in this send."""
    later = announcements[index + 1 :]
    return [a.event.seat for a in later if a.event.seat is not None]


def _coming(match: Match) -> list[int]:
    """The seats of ``match`` whose actions this worker has taken in and not applied yet, in
    the order they came: their players' own frames of the next versions wait for these."""
    seats = []
    for user in actions.coming(match.pk):
        seat = match.seat_of(user)
        if seat is not None and seat.index not in seats:
            seats.append(seat.index)
    return seats


def _table_published(
    drawings: list[_Drawing], publish: Publish, *, movers: bool
) -> list[LayerMessage]:
    """Draw the table's frames of ``drawings`` (the seats' and the spectators') and publish
    them from this thread as they are drawn: with ``movers``, every version's movers' frames
    (its acting seat's alone and first, then those of the seats acting in the versions after
    it, here or in actions this worker has yet to apply, whose own frames wait for them);
    else the rest of each version's, as many as are drawn within DRAWING_SLICE_SECONDS at a
    time. Each audience still gets its frames in version order: a seat drawn early is drawn
    early in every version up to its own move. The event loop hands out the versions before
    to a worker's spectators meanwhile; a frame drawn here waits for none of its turns.
    Returns what could not be published (Redis failed), in order, from the first frame that
    failed on: the caller sends it through the loop, which retries."""
    unpublished: list[LayerMessage] = []

    def published(messages: list[LayerMessage]) -> None:
        if tracing.enabled():
            for group, message in messages:
                tracing.mark("published", group, message["version"], "movers" if movers else "rest")
        if not unpublished:
            try:
                publish(messages)
                return
            except Exception:
                log.warning(
                    "%s frames not published from the drawing thread; through the loop",
                    len(messages),
                    exc_info=True,
                )
        unpublished.extend(messages)

    if movers:
        coming = _coming(drawings[-1].announcement.match)
        for drawing in drawings:
            drawing.next_movers = [*drawing.next_movers, *coming]
            for _ in range(drawing.movers_first):
                if messages := _next_messages(drawing, True, table_only=True):
                    published(messages)
        return unpublished
    for drawing in drawings:
        while messages := _next_messages(drawing, table_only=True):
            published(messages)
    _kept_early(drawings[-1])  # the versions before it here: this worker drew the next
    return unpublished


def _kept_early(drawing: _Drawing) -> None:
    """Write what the table's audiences were sent at the drawing's version, as soon as their
    frames are out: the other worker, drawing the next version at the same moment (a cast
    moving at once), draws each audience's frame from it instead of drawing the version
    before again (twice the work: benchmarks/reports/cast_together.md). Written after the
    host's frames, it came 31 ms after the table's at the median, and 163 of 390 versions
    of the race at a swap every 1.5 s were drawn without it. The host's audience, drawn
    later, is written again with the rest (``_write_kept``)."""
    try:
        drawing.keeping.write()
    except Exception:  # written again with the host's; the other worker draws it again
        log.warning("v%s not kept early", drawing.keeping.version, exc_info=True)


def _message(announcement: Announcement, viewer: Viewer, frame: Frame) -> LayerMessage:
    group = group_name(announcement.match.pk, viewer)
    return group, {"type": "match.frame", **frame.as_message()}


async def _wait_for_earlier(
    turn: asyncio.Condition, lane: dict[int, set[int]], match_pk: int, first: int
) -> None:
    """Wait (holding ``turn``) until this process has sent ``lane``'s frames of every version
    before ``first``, at most ORDER_WAIT_SECONDS. An earlier version still unsent by then is
    given up on for good: its viewers see the gap and resync, and no later send waits for it
    again."""

    def earlier_sent() -> bool:
        earliest = _earliest_unsent(lane, match_pk)
        return earliest is None or earliest >= first

    try:
        await asyncio.wait_for(turn.wait_for(earlier_sent), ORDER_WAIT_SECONDS)
    except TimeoutError:
        with _unsent_lock:
            given_up = sorted(v for v in lane.get(match_pk, ()) if v < first)
        _release_from(lane, match_pk, set(given_up))
        log.warning("match %s: v%s never sent; v%s goes out without it", match_pk, given_up, first)


async def _no_table_lane(turn: asyncio.Condition, match_pk: int) -> None:
    """Wait (holding ``turn``) until no send of the match has table frames left, at most
    ORDER_WAIT_SECONDS (then the host's go anyway)."""
    try:
        await asyncio.wait_for(
            turn.wait_for(lambda: not _table_lanes.get(match_pk)), ORDER_WAIT_SECONDS
        )
    except TimeoutError:
        log.warning("match %s: the table's frames held the host's back too long", match_pk)


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


async def send_messages(messages: list[LayerMessage]) -> bool:
    """Send each frame to its group, retrying a send the layer failed (a lost Redis connection
    is reopened on the next try); whether every frame went. A frame still lost is healed by
    the scheduler's heal_unsent and the viewers' pings, whose pongs carry the version.

    Frames go in one round trip where the layer can (games/core/live/layer.py); should that
    fail, they go one by one, the ones that went already again: a connection sends a version
    once however often it comes. Other messages (a chat line, a draft) go one by one."""
    layer = get_channel_layer()
    if layer is None:
        return True
    together = getattr(layer, "group_send_many", None)
    if together is not None and len(messages) > 1 and _frames_only(messages):
        try:
            await together(messages)
            return True
        except Exception:
            log.warning("%s frames not sent together; one by one", len(messages), exc_info=True)
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


def _frames_only(messages: list[LayerMessage]) -> bool:
    return all(message.get("type") == "match.frame" for _, message in messages)
