"""channels-redis's pub/sub layer, with several groups' messages sent in one round trip, and a
channel's messages already come taken without waiting.

An event's frames are a dozen layer messages or more (one per audience: a race's thirteen seats,
its spectators, its host), and channels-redis sends each as its own PUBLISH, one after another
under its connection's lock: each a round trip to Redis and a turn of the event loop, which on
a worker handing frames to hundreds of spectators is milliseconds apiece, while the next
mover's frame waits for every one of them. ``group_send_many`` sends them as one pipeline of
PUBLISHes per Redis shard, under the same lock; Redis delivers each exactly as it delivers a
``group_send`` (games/core/live/broadcast.py ``send_messages``).

It reaches into the layer's own parts (its per-loop layer, shards, lock and client) as
channels-redis 4 has them: tests/core/test_layer.py checks it against a real Redis, and
``send_messages`` sends one by one whenever it fails.

``waiting`` takes the messages a channel has received and not yet handed over: a worker's
gallery (games/core/live/gallery.py) hands its spectators every frame that came while it was
handing out the last one together.

``MemoryLayer`` is channels' in-memory layer (one process: ``make run``, the tests without
Redis) with the same ``waiting``.

``publish_now`` sends messages from the thread that drew them, through a connection of its own
(redis-py's synchronous client, thread-safe), not through the event loop: the table's frames of
a version (the next mover's among them) go as soon as they are drawn, however busy the loop is
handing out the versions before to hundreds of spectators (games/core/live/broadcast.py).
``listened`` asks Redis, from the same thread, which of a match's audiences any worker listens
to: the frames of one no socket holds are not drawn.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import redis
from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer
from channels_redis.utils import _consistent_hash, decode_hosts

# A thread publishing waits at most this long for Redis to connect or answer (the layer's own
# connections wait longer: a subscriber's read may idle); a publish that fails goes again
# through the event loop.
PUBLISH_TIMEOUT_SECONDS = 2.0


class PubSubLayer(RedisPubSubChannelLayer):
    """RedisPubSubChannelLayer plus ``group_send_many``, ``waiting``, ``publish_now`` and
    ``listened``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._publishers: list[redis.Redis] | None = None
        self._publishers_made = threading.Lock()

    @property
    def publishes_from_threads(self) -> bool:
        """Whether ``publish_now`` can reach every host (each given as an address, as
        settings.py gives it; a Sentinel's is not)."""
        return all("address" in host for host in self._hosts())

    def publish_now(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        """Send each (group, message) as ``group_send`` would, in the order given, from any
        thread and without an event loop: each shard's in one pipeline. Raises when Redis does
        not take them (the caller sends them again through the loop)."""
        publishers = self._sync_publishers()
        prefix = self._kwargs.get("prefix", "asgi")
        by_shard: dict[int, list[tuple[str, bytes]]] = {}
        for group, message in messages:
            channel = f"{prefix}__group__{group}"  # RedisPubSubLoopLayer's group channel
            shard = _consistent_hash(channel, len(publishers))
            by_shard.setdefault(shard, []).append((channel, self.serialize(message)))
        for shard, publishes in by_shard.items():
            pipeline = publishers[shard].pipeline(transaction=False)
            for channel, data in publishes:
                pipeline.publish(channel, data)
            pipeline.execute()

    def listened(self, groups: list[str]) -> set[str]:
        """Those of ``groups`` some worker listens to now (a socket of it is in the group), asked
        of Redis from any thread: PUBSUB NUMSUB, one round trip per shard. A group no worker
        listens to would take a message to no one. Raises when Redis does not answer."""
        publishers = self._sync_publishers()
        prefix = self._kwargs.get("prefix", "asgi")
        by_shard: dict[int, dict[str, str]] = {}
        for group in groups:
            channel = f"{prefix}__group__{group}"
            by_shard.setdefault(_consistent_hash(channel, len(publishers)), {})[channel] = group
        heard: set[str] = set()
        for shard, of_shard in by_shard.items():
            for asked, listeners in publishers[shard].pubsub_numsub(*of_shard):
                if listeners:
                    heard.add(of_shard[asked.decode() if isinstance(asked, bytes) else asked])
        return heard

    def _sync_publishers(self) -> list[redis.Redis]:
        """One synchronous client per shard, in the layer's order of its hosts (made once)."""
        with self._publishers_made:
            if self._publishers is None:
                self._publishers = [_publisher(host) for host in self._hosts()]
            return self._publishers

    def _hosts(self) -> list[dict[str, Any]]:
        hosts = self._kwargs.get("hosts", self._args[0] if self._args else None)
        return decode_hosts(hosts)

    async def group_send_many(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        """Send each (group, message) as ``group_send`` would, each shard's in one pipeline,
        in the order given."""
        layer = self._get_layer()
        by_shard: dict[int, tuple[Any, list[tuple[str, bytes]]]] = {}
        for group, message in messages:
            channel = layer._get_group_channel_name(group)
            shard = layer._get_shard(channel)
            by_shard.setdefault(id(shard), (shard, []))[1].append(
                (channel, self.serialize(message))
            )
        for shard, publishes in by_shard.values():
            async with shard._lock:
                shard._ensure_redis()
                pipeline = shard._redis.pipeline(transaction=False)
                for channel, data in publishes:
                    pipeline.publish(channel, data)
                await pipeline.execute()

    def waiting(self, channel: str) -> list[dict[str, Any]]:
        """The messages ``channel`` has received and ``receive`` has not returned yet, in the
        order they came, taken now (none if it has no queue here)."""
        layer = self._get_layer()
        queue = layer.channels.get(channel)
        taken: list[dict[str, Any]] = []
        while queue is not None and not queue.empty():
            taken.append(self.deserialize(queue.get_nowait()))
        return taken


class MemoryLayer(InMemoryChannelLayer):
    """channels' in-memory layer plus ``waiting``. Without it a gallery took one message a turn
    (each turn up to its wait for the drawing and its gather), so a player moving every 15 ms
    piled its spectators' frames up past the channel's capacity (100): the layer dropped the
    rest, and every spectator waited a hold (1 s) for each missing version to be drawn again,
    or for its next ping when the last one was lost."""

    def waiting(self, channel: str) -> list[dict[str, Any]]:
        """The messages ``channel`` has received and ``receive`` has not returned yet, in the
        order they came, taken now; those past their expiry are left out, as ``receive`` leaves
        them."""
        queue = self.channels.get(channel)
        now = time.time()
        taken: list[dict[str, Any]] = []
        while queue is not None and not queue.empty():
            expires, message = queue.get_nowait()
            if expires >= now:
                taken.append(message)
        return taken


def _publisher(host: dict[str, Any]) -> redis.Redis:
    """A synchronous client of one of the layer's hosts (given as an address and options)."""
    options = dict(host)
    address = options.pop("address", None)
    if address is None:
        raise ValueError("publish_now needs each Redis host given as an address")
    for name in ("socket_timeout", "socket_connect_timeout"):
        options[name] = min(options.get(name) or PUBLISH_TIMEOUT_SECONDS, PUBLISH_TIMEOUT_SECONDS)
    return redis.Redis.from_url(address, **options)
