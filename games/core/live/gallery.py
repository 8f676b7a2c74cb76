"""The spectators of a match on one worker: one place in the channel layer for all of them.

A match's spectators are the many: hundreds of sockets on a worker. In the layer's group each
would have its own channel, so each frame would be handed to every spectator's consumer on its
own (a copy of the message decoded, a queue woken, a task made and a wait set up per socket, all
of them before the first socket is written to). A gallery is in the spectators' group once per
worker: it takes each message once and hands it to its spectators' consumers in turn, each the
way that consumer would have handled it from its own channel (after whatever it is handling
now: ``Spectator.from_gallery``). The messages that came while it was handing out the last ones
go to each spectator together (the layer's ``waiting``), so that a socket that asked for it
sends them as one websocket message (docs/protocol.md, "Frames together"): a cast moving at once
makes a dozen versions within a few hundred milliseconds, and every websocket message costs its
worker the same whatever it carries. While the match moves that fast (a message comes soon after
the last hand-out), the gallery gathers what comes for a few tens of milliseconds before handing
it out; a lone move in a quiet match goes at once.

Nothing here is state of a match: a gallery holds only the sockets open on its worker, which
live and die with the worker anyway. Every other audience (a seat, the host) and every other
group (chat, a user's sockets) stays one channel per socket.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, Protocol
from weakref import WeakKeyDictionary

from games.core.live import tracing

log = logging.getLogger(__name__)


# Spectators handed a frame before the worker's other sockets get a turn.
HAND_OUT_RUN = 25


# A message that comes within GATHER_AFTER_SECONDS of the last hand-out (the match moves fast: a
# cast at once, a round closing) is handed out GATHER_SECONDS after it came, with whatever came
# meanwhile. Measured on the 13-seat race at a swap every 1.5 s with 200 spectators on two
# workers (benchmarks/cast_together.py): each spectator's messages halved (2.4 -> 4.9 updates a
# message) and the worker's event loop, writing half as many, answered the seats sooner.
GATHER_SECONDS = 0.04
GATHER_AFTER_SECONDS = 0.25
_pause = asyncio.sleep  # how a gallery waits while it gathers (a test waits for an event instead)


# What a gallery awaits before handing out what came (the worker's more urgent work of its match
# first); it returns within a bound of its own.
Turn = Callable[[], Awaitable[None]]


# What the members of one hand-out were sent, by the state each was in when handed the messages
# (games/core/live/consumers.py ``MatchConsumer.from_gallery``): a member in the same state as
# an earlier one takes what that one was sent instead of working it out again. A hundred
# spectators of a match mostly hold the same version and panels: one works each frame out.
Handed = dict[Hashable, Any]


class Spectator(Protocol):
    async def from_gallery(
        self, messages: list[dict[str, Any]], handed: Handed | None = None
    ) -> None:
        """Handle messages of the gallery's group, in order, as if they came on the consumer's
        channel; ``handed`` is shared by the members of one hand-out."""


class Gallery:
    """The sockets on this worker of one group, behind one channel of the layer."""

    def __init__(self, group: str, layer: Any, turn: Turn | None = None) -> None:
        self.group = group
        self.layer = layer
        self.turn = turn
        self.members: dict[Spectator, None] = {}  # in the order they came
        self.channel = ""
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.listening: asyncio.Task[None] | None = None
        self.handed_at = float("-inf")  # when the last hand-out ended (the loop's clock)

    async def open(self) -> None:
        """Join the group and start listening; ``opened`` tells those who came meanwhile."""
        try:
            self.channel = await self.layer.new_channel()
            await self.layer.group_add(self.group, self.channel)
        except BaseException as error:
            self.opened.set_exception(error)
            self.opened.exception()  # retrieved: those waiting get it, no one else must
            raise
        self.listening = asyncio.create_task(self._listen(), name=f"gallery {self.group}")
        self.opened.set_result(None)

    async def rejoin(self) -> None:
        """Join the group again (a restarted Redis forgets its members)."""
        if self.channel:
            await self.layer.group_add(self.group, self.channel)

    async def _listen(self) -> None:
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # the layer is recovering; its viewers heal through their pings
                log.warning("the gallery of %s could not receive", self.group, exc_info=True)
                await asyncio.sleep(1)
                continue
            loop = asyncio.get_running_loop()
            came = loop.time()
            tracing.mark("gallery_came", self.group, message.get("version"))
            if self.turn is not None:
                try:
                    await self.turn()
                except Exception:  # a turn is a courtesy: the frames go anyway
                    log.warning("%s: the gallery did not wait its turn", self.group, exc_info=True)
            if came - self.handed_at < GATHER_AFTER_SECONDS and self._takes_waiting():
                # The match moves fast: what comes next goes with this one. (A layer that
                # cannot hand over what waits would only make each message wait, one by one.)
                await _pause(max(0.0, came + GATHER_SECONDS - loop.time()))
            messages = [message, *self._waiting()]
            versions = (
                ",".join(str(m.get("version")) for m in messages) if tracing.enabled() else ""
            )
            tracing.mark("handing", self.group, versions)
            await self.hand_out(messages)
            tracing.mark("handed", self.group, versions)
            self.handed_at = loop.time()

    def _takes_waiting(self) -> bool:
        return getattr(self.layer, "waiting", None) is not None

    def _waiting(self) -> list[dict[str, Any]]:
        """What the channel received meanwhile, where the layer tells (games/core/live/layer.py
        ``waiting``); nothing if it cannot: those messages then come through ``receive``."""
        waiting = getattr(self.layer, "waiting", None)
        if waiting is None:
            return []
        try:
            return list(waiting(self.channel))
        except Exception:
            log.warning("%s: could not take what the channel received", self.group, exc_info=True)
            return []

    async def hand_out(self, messages: list[dict[str, Any]]) -> None:
        """``messages`` to every member, one after another; one that fails is logged and the
        others still get them. Every HAND_OUT_RUN members the worker's other sockets get a turn:
        handing a frame to hundreds of spectators takes tens of milliseconds, and a player's
        own frame waiting behind all of it made every move of a cast moving at once late."""
        handed: Handed = {}
        for count, member in enumerate(tuple(self.members), start=1):
            try:
                await member.from_gallery(messages, handed)
            except Exception:
                kinds = sorted({str(message.get("type")) for message in messages})
                log.exception("a spectator of %s failed on %s", self.group, ", ".join(kinds))
            if count % HAND_OUT_RUN == 0:
                await asyncio.sleep(0)

    async def close(self) -> None:
        if self.listening is not None:
            self.listening.cancel()
        if self.channel:
            try:
                await self.layer.group_discard(self.group, self.channel)
            except Exception:  # the membership expires with the layer's group
                log.warning("the gallery could not leave %s", self.group)


# This worker's galleries, by group; each event loop (a worker's, a test's) has its own.
_galleries: WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Gallery]] = WeakKeyDictionary()


def _here() -> dict[str, Gallery]:
    return _galleries.setdefault(asyncio.get_running_loop(), {})


async def enter(group: str, member: Spectator, layer: Any, turn: Turn | None = None) -> Gallery:
    """Seat ``member`` in the gallery of ``group`` (opening it for the first spectator, with
    ``turn`` awaited before each hand-out); once this returns, every message sent to the group
    reaches it. Raises when the layer cannot be joined; the member is then in no gallery. A
    spectator who came while the first one's socket was opening the gallery, and was closed
    meanwhile, opens it again itself."""
    galleries = _here()
    while True:
        gallery = galleries.get(group)
        if gallery is None:
            gallery = galleries[group] = Gallery(group, layer, turn)
            gallery.members[member] = None
            try:
                await gallery.open()
            except BaseException:
                if galleries.get(group) is gallery:
                    del galleries[group]
                raise
            return gallery
        gallery.members[member] = None
        try:
            await asyncio.shield(gallery.opened)
        except asyncio.CancelledError:
            gallery.members.pop(member, None)
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # this socket is the one closing
            continue  # the opener's was: try again
        except BaseException:
            gallery.members.pop(member, None)
            raise
        return gallery


async def leave(gallery: Gallery, member: Spectator) -> None:
    """``member`` leaves; the last one out closes the gallery."""
    gallery.members.pop(member, None)
    if gallery.members:
        return
    galleries = _here()
    if galleries.get(gallery.group) is gallery:
        del galleries[gallery.group]
    await gallery.close()
