"""games.core.broadcast: frames go out in version order, and a version that is never sent holds
back no later one for long."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from games.core import broadcast

MATCH_PK = 7


class RecordingLayer:
    def __init__(self) -> None:
        self.sent: list[int] = []

    async def group_send(self, group: str, message: dict) -> None:
        self.sent.append(message["version"])


@pytest.fixture
def layer(monkeypatch) -> RecordingLayer:
    """A channel layer that records the versions sent; frames rendered without a database."""
    recording = RecordingLayer()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: recording)
    monkeypatch.setattr(
        broadcast,
        "render",
        lambda announcements: [
            (f"match.{match.pk}.spectators", {"version": event.version})
            for match, event in announcements
        ],
    )
    monkeypatch.setattr(broadcast, "_unsent", {})
    monkeypatch.setattr(broadcast, "_in_order", {})
    return recording


def announced(version: int) -> list[broadcast.Announcement]:
    """``version`` committed inside ``deferred()``, as the consumer's action path collects it."""
    match = SimpleNamespace(pk=MATCH_PK)
    with broadcast.deferred() as pending:
        broadcast.announce(match, SimpleNamespace(version=version))  # type: ignore[arg-type]
    return list(pending)


async def test_frames_go_out_in_version_order(layer):
    fourth, fifth = announced(4), announced(5)
    later = asyncio.create_task(broadcast.send(fifth))
    await asyncio.sleep(0.05)
    assert layer.sent == []  # version 5 waits for version 4
    await broadcast.send(fourth)
    await later
    assert layer.sent == [4, 5]


async def test_a_version_never_sent_holds_back_the_next_send_once_and_no_later_one(
    layer, monkeypatch
):
    announced(4)  # collected, and then never sent
    monkeypatch.setattr(broadcast, "ORDER_WAIT_SECONDS", 0.05)
    await broadcast.send(announced(5))
    monkeypatch.setattr(broadcast, "ORDER_WAIT_SECONDS", 3600)
    await asyncio.wait_for(broadcast.send(announced(6)), 10)
    assert layer.sent == [5, 6]
    assert not broadcast._unsent.get(MATCH_PK)


async def test_a_send_whose_frames_cannot_be_rendered_holds_back_nothing(layer, monkeypatch):
    fourth = announced(4)
    with monkeypatch.context() as broken:
        broken.setattr(broadcast, "render", lambda announcements: 1 / 0)
        await broadcast.send(fourth)  # logged, not raised: the viewers' pings heal it
    monkeypatch.setattr(broadcast, "ORDER_WAIT_SECONDS", 3600)
    await asyncio.wait_for(broadcast.send(announced(5)), 10)
    assert layer.sent == [5]
    assert not broadcast._unsent.get(MATCH_PK)


async def test_a_cancelled_send_holds_back_nothing(layer, monkeypatch):
    fourth, fifth = announced(4), announced(5)
    monkeypatch.setattr(broadcast, "ORDER_WAIT_SECONDS", 3600)
    waiting = asyncio.create_task(broadcast.send(fifth))  # waits for 4
    await asyncio.sleep(0.05)
    waiting.cancel()  # its connection closed
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await asyncio.wait_for(broadcast.send(fourth), 10)
    await asyncio.wait_for(broadcast.send(announced(6)), 10)
    assert layer.sent == [4, 6]
