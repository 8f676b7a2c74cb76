"""The live channel of one match. Thin: it authenticates, rate-limits, parses frames and hands
everything to services and rendering. The seat always comes from the session, never the frame."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any, TypeVar
from urllib.parse import parse_qs

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import DatabaseError
from django.db.models import Q

from games.core.game.gamedef import ActionError, Viewer
from games.core.live import acting, broadcast, gallery, outage, protocol, tracing
from games.core.live.broadcast import group_name, user_group_name
from games.core.match import authority, chat, clock, services
from games.core.match.replaying import state_at
from games.core.models import Event, Match
from games.core.render.frame import Frame
from games.core.render.rendering import Announcement, full_frame, update_frames

RESYNC_LIMIT = 200
# How long a frame that skips a version waits for the one missing before the connection draws
# that version again from the event log. Frames of one match come from every worker that
# commits its events, so the next version may arrive second (from the other worker, mostly
# within tens of milliseconds): it is waited for, never dropped (docs/protocol.md, "Order").
HOLD_SECONDS = 1.0
# The gallery's messages a spectator's socket keeps while it handles something else; past this,
# the oldest are dropped, as the layer drops them from a full channel (the viewer sees the
# version gap and resyncs).
BACKLOG_LIMIT = 100
T = TypeVar("T")
log = logging.getLogger(__name__)


# Versions being drawn again for the spectators of this worker (one drawing for all of them):
# (match, audience, with html, since, until) -> the frames (None: still on their way).
_drawing_again: dict[tuple[int, str, bool, int, int], asyncio.Future[list[Frame] | None]] = {}


@dataclass(frozen=True)
class _Handed:
    """What a spectator's socket sent for a hand-out, and its state after."""

    texts: list[str]
    sent_version: int
    panels_sent: dict[str, str]


class TokenBucket:
    """Per-connection rate limit: ``burst`` frames at once, ``rate`` per second on average."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.capacity = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def _version_param(value: str | None) -> int | None:
    """``?since=`` as a version, or None (a full frame) for anything but plain ASCII digits."""
    if value and value.isascii() and value.isdigit() and len(value) <= 12:
        return int(value)
    return None


async def dispatch_without_hop(consumer: AsyncWebsocketConsumer, message: dict[str, Any]) -> None:
    """Channels' dispatch, without its hop to the thread that applies changes before every
    message (``aclose_old_connections``): every database call here goes through
    ``database_sync_to_async``, which closes stale connections itself, while the hop cost each
    frame a round trip through that one thread per socket, 500 of them queued behind each other
    (and behind the actions) for a match with 500 spectators on a worker."""
    handler = getattr(consumer, get_handler_name(message), None)
    if handler is None:
        raise ValueError(f"No handler for message type {message['type']}")
    await handler(message)


class MatchConsumer(AsyncWebsocketConsumer):
    match: Match
    viewer: Viewer
    groups_joined: tuple[str, ...] = ()
    seat_in: gallery.Gallery | None = None  # a spectator's gallery on this worker
    version_read_at = float("-inf")
    version_seen = 0
    closing = False  # the connection closed under us: nothing more is sent on it
    user_pk: int | None = None  # the signed-in user's, from the session
    busy = False  # handling a message: what the gallery hands over meanwhile waits its turn
    gap_waits = 0  # frames held for an earlier version (each sent once it came)
    expected = 0  # a version the viewer was told of (an ack, a pong) and awaits
    gap_fills = 0  # versions that never came within HOLD_SECONDS, drawn again here
    drawn_whole = 0  # frames from the layer lacking a panel this connection needs whole
    # The client takes several frames in one websocket message (a JSON array of them): what the
    # gallery hands over together goes as one (docs/protocol.md, "Frames together").
    together = False
    gathered: list[str] | None = None  # the texts of a gallery's turn, sent once it is over
    recorded: list[str] | None = None  # what a gallery's turn sent, for others in this state

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Channels' consumer; a socket whose channel the layer cannot open (Redis is down:
        the layer subscribes each new channel) is refused with CLOSE_UNAVAILABLE, which the
        page reconnects on, rather than failing before its handshake (an HTTP 500 and a
        traceback per attempt); the outage is logged once (games/core/live/outage.py)."""
        try:
            await super().__call__(scope, receive, send)
        except Exception as error:
            if hasattr(self, "channel_name"):
                raise  # the layer gave the socket its channel: any later fault is not this
            outage.CHANNEL_LAYER.failed(error)
            await outage.refuse(receive, send, protocol.CLOSE_UNAVAILABLE)

    async def connect(self) -> None:
        public_id = self.scope["url_route"]["kwargs"]["public_id"]
        query = parse_qs(self.scope.get("query_string", b"").decode(errors="replace"))
        self.with_html = query.get("format", ["html"])[0] != "json"
        self.together = query.get("together", ["0"])[0] == "1"
        self.bucket = TokenBucket(settings.WS_RATE_PER_SECOND, settings.WS_RATE_BURST)
        self.strikes = 0
        # The newest version this connection has sent, and the panels (id -> hash) the viewer
        # holds: an update is sent only if newer, with only the panels that changed.
        self.sent_version = -1
        self.panels_sent: dict[str, str] = {}
        # Frames that came before a version this connection has not sent yet, by version, and
        # what sends them in order: one frame at a time, whoever sends it.
        self.held: dict[int, Frame] = {}
        self.ordering = asyncio.Lock()
        # Until the connection has sent its viewer a whole view (a full frame, or a catch-up
        # from a version the page holds), an update has nothing to patch: it is held.
        self.awaiting_view = True
        # One decision at a time: a frame from the gallery and one from the channel may both
        # find that the seats changed hands.
        self.deciding = asyncio.Lock()
        self.gap_timer: asyncio.TimerHandle | None = None
        self.gap_filling: asyncio.Task[None] | None = None
        try:
            found = await database_sync_to_async(self._load, thread_sensitive=False)(public_id)
        except DatabaseError:
            await self.accept()
            await self._unavailable(None)
            await self.close(code=protocol.CLOSE_UNAVAILABLE)
            return
        if not found:
            await self.accept()
            await self._send_error(
                ActionError(f"there is no match {public_id[:40]!r}", "unknown_match")
            )
            await self.close(code=protocol.CLOSE_UNKNOWN_MATCH)
            return
        await self._join_audience()
        await self.accept()
        try:
            await self._catch_up(_version_param(query.get("since", [None])[0]))
        except DatabaseError:
            await self._unavailable(None)
            await self.close(code=protocol.CLOSE_UNAVAILABLE)

    async def _join_audience(self) -> None:
        """Join the groups of this connection's viewer: its audience's frames (a spectator's
        through the gallery), the chat channels it may read, and its user's sockets."""
        groups = chat.groups_for(self.match.pk, self.viewer)
        if self.viewer.is_spectator:
            self.backlog: deque[dict[str, Any]] = deque(maxlen=BACKLOG_LIMIT)
            await self._enter_gallery()
        else:
            groups.insert(0, group_name(self.match.pk, self.viewer))
        if self.user_pk is not None:
            groups.append(user_group_name(self.user_pk))
        for group in groups:
            try:
                await self.channel_layer.group_add(group, self.channel_name)
            except Exception:  # the layer is recovering: serve anyway; pongs carry the version
                log.warning("could not join %s; the client heals through pings", group)
        self.groups_joined = tuple(groups)

    async def _leave_audience(self) -> None:
        """Leave every group ``_join_audience`` joined (the gallery too)."""
        if self.seat_in is not None:
            seat_in, self.seat_in = self.seat_in, None
            await gallery.leave(seat_in, self)
        for group in self.groups_joined:
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:  # the group expires by itself
                log.warning("could not leave %s", group)
        self.groups_joined = ()

    async def _decide_again(self) -> None:
        """The seats changed hands (a frame said so, or a catch-up found it): who this
        connection's user is in the match is decided again from the database, and if it
        changed (a replaced player is a spectator now, a substitute or a host who sat down is
        their seat), the connection leaves its old audience, joins the new one and sends the
        new viewer's whole view, before anything else."""
        async with self.deciding:
            load = database_sync_to_async(self._viewer_now, thread_sensitive=False)
            viewer = await load()
            if viewer == self.viewer:
                return
            await self._leave_audience()
            async with self.ordering:  # what was held for the old viewer is not theirs to see
                self.held.clear()
                self.expected = 0
                self._stop_waiting_for_gap()
                if self.gap_filling is not None:
                    self.gap_filling.cancel()  # it draws the old viewer's frames
                self.viewer = viewer
                self.panels_sent = {}
                # The page holds the old viewer's view: the new viewer's updates (its
                # audience's frames arrive from now on) wait for the whole view below.
                self.awaiting_view = True
            await self._join_audience()
            await self._catch_up(None)

    def _viewer_now(self) -> Viewer:
        match = Match.objects.filter(pk=self.match.pk).with_seats().get()
        return match.viewer_for(self.scope.get("user"))

    async def _unavailable(self, message_id: str | None) -> None:
        """The database cannot be reached: nothing changed; the client tries again later."""
        log.warning("database unavailable for match %s", getattr(self, "match", None))
        error = ActionError(
            "the server cannot reach its database right now; nothing changed, try again in a "
            "moment",
            "unavailable",
        )
        await self._send_error(error, message_id)

    async def _enter_gallery(self) -> None:
        """A spectator hears the match through its worker's gallery (games/core/live/gallery.py)."""
        group = group_name(self.match.pk, self.viewer)
        try:
            self.seat_in = await gallery.enter(
                group, self, self.channel_layer, partial(broadcast.table_drawn, self.match.pk)
            )
        except Exception:  # the layer is recovering: serve anyway; pongs carry the version
            log.warning("could not join %s; the client heals through pings", group)

    async def _rejoin_groups(self) -> None:
        """A restarted Redis forgets group members (the core layer): join again."""
        if self.viewer.is_spectator:
            if self.seat_in is None:
                await self._enter_gallery()
            else:
                try:
                    await self.seat_in.rejoin()
                except Exception:
                    log.warning("could not join %s again", self.seat_in.group)
        for group in self.groups_joined:
            try:
                await self.channel_layer.group_add(group, self.channel_name)
            except Exception:
                log.warning("could not join %s again", group)

    async def _version_now(self, *, fresh: bool = False) -> int:
        """The match's current version, read at most once a second per connection (unless
        ``fresh``)."""
        now = time.monotonic()
        if fresh or now - self.version_read_at > 1.0:
            read = database_sync_to_async(self._current_version, thread_sensitive=False)
            self.version_seen = await read()
            self.version_read_at = now
        return self.version_seen

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Handle one message, then what the gallery handed over meanwhile (a spectator)."""
        self.busy = True
        try:
            await dispatch_without_hop(self, message)
        finally:
            self.busy = False
        if self.seat_in is not None:
            while self.backlog and not self.busy:
                await self.dispatch(self.backlog.popleft())

    async def from_gallery(
        self, messages: list[dict[str, Any]], handed: gallery.Handed | None = None
    ) -> None:
        """Messages of the spectators' group, from this worker's gallery: handled now, or,
        while this socket is handling something else (connecting, catching up, answering a
        ping), right after it, as messages on its own channel would have been. What they make
        it send goes as one websocket message where the client takes frames together.

        ``handed``: what the hand-out's earlier members were sent, by their state then
        (``_handed_key``). In the state of an earlier member, this socket sends what that one
        sent and takes its state after; the first in each state works the frames out and
        leaves what it sent there for the rest."""
        if self.busy:
            self.backlog.extend(messages)  # the oldest go first past BACKLOG_LIMIT
            return
        key = self._handed_key(messages) if handed is not None else None
        if key is not None and handed is not None:
            if key in handed:
                earlier = handed[key]
                if earlier is not None:
                    await self._send_as_handed(earlier)
                    return
                key = None  # that state's frames are this socket's own to work out
            else:
                self.recorded = []
        try:
            await self._from_gallery(messages)
        finally:
            if key is not None and handed is not None:
                recorded, self.recorded = self.recorded, None
                # Shared only if it left nothing pending (held, a gap, a new viewer).
                handed[key] = (
                    _Handed(recorded or [], self.sent_version, dict(self.panels_sent))
                    if self._handed_key(messages) is not None and self.viewer.audience == key[0]
                    else None
                )

    def _handed_key(self, messages: list[dict[str, Any]]) -> tuple[Any, ...] | None:
        """The state ``messages`` are handed to, where what this socket sends for them is
        what any socket of its audience in the same state sends: frames only, this viewer
        still the one each was drawn for, nothing held, awaited, being drawn again or
        handled. None otherwise (worked out by this socket alone)."""
        if not all(message.get("type") == "match.frame" for message in messages):
            return None
        if (
            self.closing
            or self.busy
            or self.backlog
            or self.held
            or self.awaiting_view
            or self.gap_timer is not None
            or self.gap_filling is not None
            or self.expected > self.sent_version
            or self.ordering.locked()
        ):
            return None
        for message in messages:
            frame = Frame.from_message(message)
            if not authority.still_right(self.viewer, self.user_pk, frame.holders):
                return None
        return (
            self.viewer.audience,
            self.with_html,
            self.together,
            self.sent_version,
            frozenset(self.panels_sent.items()),
        )

    async def _send_as_handed(self, earlier: _Handed) -> None:
        """Send what a socket of this audience in this state was sent, and take its state."""
        self.sent_version = earlier.sent_version
        self.panels_sent = dict(earlier.panels_sent)
        for text in earlier.texts:
            await self.send(text_data=text)

    async def _from_gallery(self, messages: list[dict[str, Any]]) -> None:
        if not self.together or len(messages) == 1:
            for message in messages:
                await self.dispatch(message)
            return
        self.gathered = []
        try:
            for message in messages:
                await self.dispatch(message)
        finally:
            gathered, self.gathered = self.gathered, None
            if len(gathered) == 1:
                await self.send(text_data=gathered[0])
            elif gathered:
                await self.send(text_data=f"[{','.join(gathered)}]")

    def _current_version(self) -> int:
        return Match.objects.filter(pk=self.match.pk).values_list("version", flat=True).first() or 0

    def _load(self, public_id: str) -> bool:
        match = Match.objects.filter(public_id=public_id).with_seats().first()
        if match is None:
            return False
        user = self.scope.get("user")
        self.user_pk = user.pk if getattr(user, "is_authenticated", False) else None
        self.viewer = match.viewer_for(user)
        self._hold_key_of(match)
        return True

    def _hold_key_of(self, match: Match) -> None:
        """Keep the match by its key alone: whatever the connection does reads the match again
        (an action locks it), and a thousand spectators of a long match must not each hold a
        copy of its state (a worker's memory, and its collector's pauses, grew with them)."""
        self.match = Match(pk=match.pk, public_id=match.public_id)

    async def disconnect(self, code: int) -> None:
        self._stop_waiting_for_gap()
        if self.gap_filling is not None:
            self.gap_filling.cancel()
        await self._leave_audience()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closing:
            return
        size = (
            len(text_data.encode(errors="replace"))
            if text_data is not None
            else len(bytes_data or b"")
        )
        if not self.bucket.take():
            self.strikes += 1
            await self._send_error(ActionError("too many messages; slow down", "rate_limited"))
            if self.strikes >= protocol.MAX_RATE_STRIKES:
                await self.close(code=protocol.CLOSE_RATE_LIMITED)
            return
        if size > settings.WS_MAX_FRAME_BYTES:
            limit = settings.WS_MAX_FRAME_BYTES
            await self._send_error(
                ActionError(f"a message may hold at most {limit} bytes", "frame_too_large")
            )
            return
        try:
            message = protocol.parse_client_message(text_data, bytes_data)
        except protocol.ProtocolError as error:
            await self._send_error(error, error.message_id)
            return
        try:
            await self._handle(message)
        except DatabaseError:
            message_id = message.get("id")
            await self._unavailable(message_id if isinstance(message_id, str) else None)

    async def _handle(self, message: dict[str, Any]) -> None:
        if message["type"] == "ping":
            # The current version in every pong: a client that missed a broadcast (the layer
            # lost it) sees it is behind and resyncs, even if no later event comes.
            version = await self._version_now()
            if version > self.sent_version:
                await self._rejoin_groups()
            await self._send(
                {"type": "pong", "server_time": int(time.time() * 1000), "version": version}
            )
        elif message["type"] == "resync":
            await self._resync(message["since"], behind=message.get("behind") is True)
        elif message["type"] == "draft":
            await self._draft(message["draft"], protocol.draft_id(message))
        elif message["type"] == "action":
            await self._act(message)
        elif message["type"] == "chat":
            await self._chat(message)
        elif message["type"] == "hint":
            await self._send(await database_sync_to_async(self._idle_hint)())

    def _idle_hint(self) -> dict[str, Any]:
        """The move the idle page of this connection's user hints, at the match's version now:
        from what the game's gate lets them see as the seats stand now (a player replaced a
        moment ago, whose connection has not heard it yet, is a spectator here; a spectator's
        or the host's hint is none)."""
        match = Match.objects.filter(pk=self.match.pk).with_seats().get()
        viewer = match.viewer_for(self.scope.get("user"))
        move = match.game.idle_hint(match.state, viewer) if match.state else None
        return {"type": "hint", "version": match.version, "move": move}

    async def _act(self, message: dict[str, Any]) -> None:
        # What the action's path committed is sent whatever the answer: a clock it found due
        # fires on the way, and its event stands even when the action is then refused.
        outbox = broadcast.Outbox()
        try:
            given = services.SeatAction(
                self.scope.get("user"),
                message["action"],
                client_action_id=message["id"],
                expected_version=message.get("version"),
            )
            accepted = await acting.act(self.match.pk, given, outbox)
        except ActionError as refusal:
            await self._send_error(refusal, message["id"])
        else:
            tracing.mark("ack", self.match.pk, self.viewer.seat, accepted.version)
            await self._send(
                {
                    "type": "ack",
                    "id": message["id"],
                    "version": accepted.version,
                    "duplicate": accepted.duplicate,
                }
            )
        finally:
            # Sent apart from this socket's own messages: while the event's frames are drawn,
            # this socket goes on handling what comes to it, its own update first of all (the
            # acting seat's frame is drawn first).
            broadcast.send_apart(outbox)

    async def _change(self, outbox: broadcast.Outbox, change: Callable[..., T], *args, **kw) -> T:
        """Run ``change`` in the thread that applies changes; what it commits waits in
        ``outbox`` for the caller to send once it has answered its sender."""

        def collected() -> T:
            with broadcast.actions.applying(self.match.pk), broadcast.deferred(outbox):
                return change(*args, **kw)

        return await database_sync_to_async(collected)()

    async def _draft(self, draft: dict[str, Any], draft_id: str | None) -> None:
        outbox = broadcast.Outbox()
        try:
            await self._change(
                outbox,
                services.save_draft,
                self.match,
                self.scope.get("user"),
                draft,
                sent_as=draft_id,
            )
        except ActionError as refusal:
            await self._send_error(refusal, draft_id)
        finally:
            await broadcast.send(outbox)

    async def _chat(self, message: dict[str, Any]) -> None:
        outbox = broadcast.Outbox()
        try:
            reply = await self._change(
                outbox, chat.handle, self.match.pk, self.scope.get("user"), message
            )
        except ActionError as refusal:
            await self._send_error(refusal, message["id"])
            return
        # The line is on its way to every reader before its writer hears "sent": whatever the
        # site sends after that answer reaches each reader after the line.
        await broadcast.send(outbox)
        await self._send(reply.frame)

    async def _resync(self, since: int, *, behind: bool) -> None:
        if behind:
            # The viewer dropped nothing; a frame (an ack, a pong) named a version it does not
            # hold yet. What this connection sent is on its way: send only what came after it
            # (nothing, unless a broadcast was lost).
            # A version still on its way (its worker is drawing it, a frame held here waits
            # for it) is waited for like a gap, not drawn twice.
            held = max(since, self.sent_version)
            now = await self._version_now(fresh=True)
            if now > held:
                missing = await self._frames_missing(held, now)
                if missing is None:
                    self.expected = max(self.expected, now)
                    self._wait_for_gap()
                    return
                async with self.ordering:
                    self.sent_version = max(self.sent_version, held)  # the viewer holds it
                    for frame in missing:
                        await self._in_order(frame)
            return
        # The viewer says what it holds (it may have dropped frames): send from there, with
        # every panel again.
        async with self.ordering:
            self.panels_sent = {}
            self.sent_version = since
            self.awaiting_view = not since
        await self._catch_up(since)

    async def _catch_up(self, since: int | None) -> None:
        frames = await database_sync_to_async(self._frames_since, thread_sensitive=False)(since)
        if frames is None:  # the seats changed hands: this viewer is no longer right
            await self._decide_again()
            return
        async with self.ordering:
            if since is not None and not (frames and frames[0].full):
                self.sent_version = max(self.sent_version, since)  # the viewer holds ``since``
                self.awaiting_view = False
            for frame in frames:
                await self._in_order(frame)

    def _frames_since(self, since: int | None, until: int | None = None) -> list[Frame] | None:
        """What a viewer holding ``since`` lacks (up to version ``until``, else all): an update
        frame per event after it (each a patch of the view before it), or the full frame when
        ``since`` is nothing to patch (None or 0: the viewer holds no view), newer than the
        match or too far behind. None when the connection's viewer is no longer its user's (the
        seats changed hands)."""
        match = Match.objects.with_seats().get(pk=self.match.pk)
        if match.viewer_for(self.scope.get("user")) != self.viewer:
            return None
        missed = match.version - since if since else None
        if missed is None or missed < 0 or missed > RESYNC_LIMIT:
            return [full_frame(match, self.viewer, with_html=self.with_html)]
        frames = []
        before = state_at(match, since)
        events = match.events.filter(version__gt=since)
        if until is not None:
            events = events.filter(version__lte=until)
        for event in events.order_by("version"):
            after = state_at(match, event.version)
            announcement = Announcement(match, event, before, after)
            frames.extend(
                frame
                for _, frame in update_frames(announcement, [self.viewer], with_html=self.with_html)
            )
            before = after
        return frames

    async def match_frame(self, message: dict[str, Any]) -> None:
        """A frame of an audience this connection was in: sent (in version order) only if it is
        for this connection's viewer as the seats stand now (``authority.still_right``); a frame
        that says the seats changed hands decides the viewer again first."""
        frame = Frame.from_message(message)
        if self.viewer.seat is not None:
            tracing.mark("came", self.match.pk, self.viewer.seat, frame.version)
        if not authority.still_right(self.viewer, self.user_pk, frame.holders):
            await self._decide_again()
        if frame.audience != self.viewer.audience:
            return  # another audience's frame, left in this channel before it moved
        async with self.ordering:
            await self._in_order(frame)

    async def match_draft(self, message: dict[str, Any]) -> None:
        if not (self.viewer.is_host or self.viewer.seat == message["seat"]):
            return  # the seat's, sent before this connection's viewer moved
        frame = {"type": "draft", "draft": message["draft"]}
        if message.get("id"):
            frame["id"] = message["id"]  # the page that sent it knows its own draft
        if self.viewer.is_host:
            frame["seat"] = message["seat"]
        await self._send(frame)

    async def chat_message(self, message: dict[str, Any]) -> None:
        if chat.may_receive(self.viewer, message):
            await self._send(message["frame"])

    async def session_ended(self, message: dict[str, Any]) -> None:
        """The user logged out: this socket no longer speaks for them."""
        await self._send_error(
            ActionError("you logged out; sign in again to play", "session_ended")
        )
        await self.close(code=protocol.CLOSE_SESSION_ENDED)

    async def _in_order(self, frame: Frame) -> None:
        """Send ``frame`` in version order (holding ``ordering``): a version this connection
        sent is not sent again; one that skips a version waits for it (at most HOLD_SECONDS,
        then the missing versions are drawn again here), and goes right after it."""
        if not frame.full:
            if self.awaiting_view:
                self.held[frame.version] = frame  # sent after the whole view it patches
                return
            if frame.version <= self.sent_version:
                return  # the viewer already holds this version (a frame raced the connect)
            if self.sent_version >= 0 and frame.version > self.sent_version + 1:
                if frame.version not in self.held:
                    self.gap_waits += 1
                self.held[frame.version] = frame
                self._wait_for_gap()
                return
        await self._write_frame(frame)
        while (following := self.held.pop(self.sent_version + 1, None)) is not None:
            await self._write_frame(following)
        for version in [version for version in self.held if version <= self.sent_version]:
            del self.held[version]
        if self.held or self.expected > self.sent_version:
            self._wait_for_gap()
        else:
            self._stop_waiting_for_gap()

    async def _write_frame(self, frame: Frame) -> None:
        if self.with_html and frame.lacks(self.panels_sent):
            drawn = await self._drawn_whole(frame)
            if drawn is None:
                return  # the seats changed hands: the next frame decides the viewer again
            frame = drawn
        self.sent_version = max(self.sent_version, frame.version)
        if self.viewer.seat is not None:
            tracing.mark("sent", self.match.pk, self.viewer.seat, frame.version)
        if frame.full:
            self.awaiting_view = False
        await self.send(text_data=frame.text(self.with_html, self.panels_sent))

    async def _drawn_whole(self, frame: Frame) -> Frame | None:
        """``frame``'s version drawn here with every panel whole: the layer carries a panel
        whole only where a connection holding its audience's version before needs it, and
        this one does not hold it (it never should: counted, and logged)."""
        self.drawn_whole += 1
        log.info("match %s v%s: a frame drawn here whole", self.match.pk, frame.version)
        draw = database_sync_to_async(self._frames_since, thread_sensitive=False)
        frames = await draw(frame.version - 1 or None, frame.version)
        if frames is None:
            return None
        return frames[-1] if frames and frames[-1].version >= frame.version else None

    def _wait_for_gap(self) -> None:
        if self.gap_timer is None and self.gap_filling is None:
            loop = asyncio.get_running_loop()
            self.gap_timer = loop.call_later(HOLD_SECONDS, self._gap_timed_out)

    def _stop_waiting_for_gap(self) -> None:
        if self.gap_timer is not None:
            self.gap_timer.cancel()
            self.gap_timer = None

    def _gap_timed_out(self) -> None:
        self.gap_timer = None
        if not self.closing:
            self.gap_filling = asyncio.create_task(self._fill_gap())

    async def _fill_gap(self) -> None:
        """The versions before the first held frame have not come: while the process that
        committed them is still sending them (a loaded worker), wait on; once they were sent and
        lost (the layer) or their worker died (not sent, and the scheduler's heal did not send
        them either), draw them here from the event log and send them before the held frames.
        The drawing is done without holding ``ordering``: the frames that come meanwhile (a
        spectator's from its gallery) are not kept waiting. Spectators on this worker missing
        the same versions share one drawing."""
        try:
            if self.sent_version < 0:
                return
            since = self.sent_version
            until = min(self.held) - 1 if self.held else self.expected
            if until <= since:
                return
            frames = await self._frames_missing(since, until)
            if frames is None:
                return  # still on their way: wait another HOLD_SECONDS
            async with self.ordering:
                log.info("match %s: v%s-%s drawn again", self.match.pk, since + 1, until)
                self.gap_fills += 1
                for frame in frames:
                    await self._in_order(frame)
        except Exception:  # the viewer asks at its next ping (the pong names a newer version)
            log.exception("match %s: a missing version could not be drawn", self.match.pk)
        finally:
            self.gap_filling = None
            waiting = self.held or self.expected > self.sent_version
            if waiting and not self.closing:
                self._wait_for_gap()

    async def _frames_missing(self, since: int, until: int) -> list[Frame] | None:
        key = (self.match.pk, self.viewer.audience, self.with_html, since, until)
        drawing = _drawing_again.get(key)
        if drawing is None or not self.viewer.is_spectator:
            draw = database_sync_to_async(self._frames_unless_coming, thread_sensitive=False)
            drawing = asyncio.ensure_future(draw(since, until))
            if self.viewer.is_spectator:
                _drawing_again[key] = drawing
                drawing.add_done_callback(lambda _: _drawing_again.pop(key, None))
        return await asyncio.shield(drawing)

    def _frames_unless_coming(self, since: int, until: int) -> list[Frame] | None:
        """The frames of versions ``since`` + 1 to ``until``, or None while any of them is still
        on its way: sent to the layer less than a hold ago (a loaded worker hands it on), or not
        sent yet and committed less than the heal's delay and a hold ago (its worker is drawing
        it, or the scheduler sends it again if that worker died)."""
        now, hold = clock.now(), timedelta(seconds=HOLD_SECONDS)
        coming = Event.objects.filter(
            Q(sent_at=None, created_at__gt=now - broadcast.HEAL_AFTER - hold)
            | Q(sent_at__gt=now - hold),
            match_id=self.match.pk,
            version__gt=since,
            version__lte=until,
        )
        if coming.exists():
            return None
        # None too when the seats changed hands: the frame saying so decides the viewer again.
        return self._frames_since(since, until)

    async def _send(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=protocol.dumps(frame))

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        """Send, unless the connection is closing: the viewer left, or the server closed it (a
        message too big) while earlier frames were still being answered. That is normal; the
        frame is dropped and the frames still queued from that connection are not answered."""
        if self.closing:
            return
        if self.gathered is not None and text_data is not None and not close:
            self.gathered.append(text_data)  # sent with the rest of the gallery's turn
            return
        if self.recorded is not None and text_data is not None:
            self.recorded.append(text_data)  # for the hand-out's members in this state
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except Disconnected:
            self.closing = True

    async def _send_error(self, error: ActionError, message_id: str | None = None) -> None:
        await self._send(error.as_frame(message_id))
