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
"""

from __future__ import annotations

from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer


class PubSubLayer(RedisPubSubChannelLayer):
    """RedisPubSubChannelLayer plus ``group_send_many`` and ``waiting``."""

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
