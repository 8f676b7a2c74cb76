"""games.core.live.layer: several groups' messages in one round trip, each delivered as
``group_send`` delivers it, in order."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest

from games.core.live.layer import PubSubLayer
from tests.waiting import until_async

pytestmark = [
    pytest.mark.redis,
    pytest.mark.skipif(
        not os.environ.get("REDIS_URL"),
        reason="Redis: set REDIS_URL=redis://127.0.0.1:6379/0 (.ci/run does)",
    ),
]


async def test_messages_sent_together_reach_each_groups_channels_in_order():
    layer = PubSubLayer(hosts=[os.environ["REDIS_URL"]], prefix=f"test-{uuid.uuid4().hex}")
    try:
        first, second, both = [await layer.new_channel() for _ in range(3)]
        for group, channel in (("a", first), ("b", second), ("a", both), ("b", both)):
            await layer.group_add(group, channel)
        await layer.group_send_many(
            [
                ("a", {"type": "match.frame", "version": 4}),
                ("b", {"type": "match.frame", "version": 5}),
                ("a", {"type": "match.frame", "version": 6}),
            ]
        )

        async def versions(channel: str, count: int) -> list[int]:
            return [
                (await asyncio.wait_for(layer.receive(channel), 10))["version"]
                for _ in range(count)
            ]

        assert await versions(first, 2) == [4, 6]
        assert await versions(second, 1) == [5]
        assert await versions(both, 3) == [4, 5, 6]
    finally:
        await layer.flush()


async def test_the_messages_a_channel_received_are_taken_without_waiting_in_order():
    layer = PubSubLayer(hosts=[os.environ["REDIS_URL"]], prefix=f"test-{uuid.uuid4().hex}")
    try:
        channel = await layer.new_channel()
        await layer.group_add("spectators", channel)
        assert layer.waiting(channel) == []
        for version in (4, 5, 6):
            await layer.group_send("spectators", {"type": "match.frame", "version": version})
        first = await asyncio.wait_for(layer.receive(channel), 10)
        deadline = asyncio.get_running_loop().time() + 10
        taken: list[dict] = []
        while len(taken) < 2 and asyncio.get_running_loop().time() < deadline:
            taken += layer.waiting(channel)  # what came meanwhile, without waiting
            await asyncio.sleep(0.01)
        assert [first["version"], *(message["version"] for message in taken)] == [4, 5, 6]
        assert layer.waiting(channel) == []
    finally:
        await layer.flush()


async def test_messages_published_from_another_thread_reach_each_groups_channels_in_order():
    """``publish_now`` (a drawing thread's send, with no event loop of its own) delivers as
    ``group_send`` does, to the channels of a loop's layer."""
    layer = PubSubLayer(hosts=[os.environ["REDIS_URL"]], prefix=f"test-{uuid.uuid4().hex}")
    try:
        first, both = [await layer.new_channel() for _ in range(2)]
        for group, channel in (("a", first), ("a", both), ("b", both)):
            await layer.group_add(group, channel)
        messages = [
            ("a", {"type": "match.frame", "version": 4}),
            ("b", {"type": "match.frame", "version": 5}),
            ("a", {"type": "match.frame", "version": 6}),
        ]
        await asyncio.to_thread(layer.publish_now, messages)

        async def versions(channel: str, count: int) -> list[int]:
            return [
                (await asyncio.wait_for(layer.receive(channel), 10))["version"]
                for _ in range(count)
            ]

        assert await versions(first, 2) == [4, 6]
        assert await versions(both, 3) == [4, 5, 6]
    finally:
        await layer.flush()


def test_publishing_from_a_thread_needs_each_host_as_an_address():
    assert PubSubLayer(hosts=[os.environ["REDIS_URL"]]).publishes_from_threads
    layer = PubSubLayer(hosts=[{"host": "127.0.0.1", "port": 6379}], prefix="test")
    assert not layer.publishes_from_threads  # the drawing thread's frames go through the loop
    with pytest.raises(ValueError, match="address"):
        layer.publish_now([("a", {"type": "match.frame", "version": 1})])


def test_a_thread_publishing_waits_for_redis_at_most_the_publish_timeout():
    """A drawing thread whose Redis is gone gives up within PUBLISH_TIMEOUT_SECONDS (its frames
    then go through the loop, which retries), however long the layer's own connections wait."""
    from games.core.live.layer import PUBLISH_TIMEOUT_SECONDS

    host = {"address": os.environ["REDIS_URL"], "socket_timeout": 30, "socket_connect_timeout": 5}
    layer = PubSubLayer(hosts=[host], prefix="test")
    (publisher,) = layer._sync_publishers()
    options = publisher.connection_pool.connection_kwargs
    assert options["socket_timeout"] == options["socket_connect_timeout"] == PUBLISH_TIMEOUT_SECONDS


async def test_a_group_is_listened_to_while_a_channel_of_any_worker_is_in_it():
    """``listened`` asks Redis from any thread: a group a channel joined is listened to (once
    a message sent to it arrived, its subscription is known to be in), one never joined is
    not, nor one whose last channel left."""
    layer = PubSubLayer(hosts=[os.environ["REDIS_URL"]], prefix=f"test-{uuid.uuid4().hex}")
    try:
        channel = await layer.new_channel()
        await layer.group_add("seat-0", channel)
        await layer.group_send("seat-0", {"type": "match.frame", "version": 4})
        assert (await asyncio.wait_for(layer.receive(channel), 10))["version"] == 4
        asked = await asyncio.to_thread(layer.listened, ["seat-0", "host"])
        assert asked == {"seat-0"}
        await layer.group_discard("seat-0", channel)

        async def left() -> bool:
            return await asyncio.to_thread(layer.listened, ["seat-0", "host"]) == set()

        await until_async(left, "the group's last channel left it")
    finally:
        await layer.flush()
