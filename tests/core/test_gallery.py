"""The spectators' gallery (games/core/live/gallery.py): one place in the channel layer per worker
for a match's spectators, each socket still handling what it is handed as from its own channel."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

import pytest
from channels.layers import get_channel_layer

from games.core.game.gamedef import Viewer
from games.core.live import gallery
from games.core.live.broadcast import group_name
from games.core.live.consumers import BACKLOG_LIMIT, MatchConsumer
from games.core.live.layer import MemoryLayer
from tests.core import test_consumers
from tests.core.test_consumers import add, connect, receive

pytestmark = pytest.mark.django_db(transaction=True)
tally = test_consumers.tally  # the same match: two seats, a host


async def test_a_frame_reaches_every_spectator_through_one_message_of_the_layer(tally, monkeypatch):
    match, ada, _bob, _host = tally
    handed_out = []
    hand_out = gallery.Gallery.hand_out

    async def counted(self: gallery.Gallery, messages: list[dict[str, Any]]) -> None:
        handed_out.append((self.group, [m["type"] for m in messages], len(self.members)))
        await hand_out(self, messages)

    monkeypatch.setattr(gallery.Gallery, "hand_out", counted)
    ada_ws = await connect(match, ada)
    watchers = [await connect(match, None) for _ in range(4)]
    for socket in (ada_ws, *watchers):
        assert (await receive(socket))["type"] == "full"
    await add(ada_ws, match.version, "g1")
    for socket in watchers:
        update = await receive(socket)
        assert (update["type"], update["version"]) == ("update", match.version + 1)
    spectators = group_name(match.pk, Viewer.spectator())
    assert handed_out == [(spectators, ["match.frame"], 4)]
    for socket in (ada_ws, *watchers):
        await socket.disconnect()


async def test_seats_and_the_host_keep_a_channel_each_and_the_last_spectator_closes_the_gallery(
    tally, monkeypatch
):
    match, ada, _bob, host = tally
    joined: list[str] = []
    layer = get_channel_layer()
    group_add = layer.group_add

    async def recorded(group: str, channel: str) -> None:
        joined.append(group)
        await group_add(group, channel)

    monkeypatch.setattr(layer, "group_add", recorded)
    sockets = [await connect(match, user) for user in (ada, host, None, None, None)]
    for socket in sockets:
        await receive(socket)
    spectators = group_name(match.pk, Viewer.spectator())
    assert joined.count(spectators) == 1  # the gallery, once for three spectators
    assert joined.count(group_name(match.pk, Viewer(seat=0))) == 1
    assert joined.count(group_name(match.pk, Viewer.host())) == 1
    opened = gallery._here()[spectators]
    assert len(opened.members) == 3
    for socket in sockets[2:]:
        await socket.disconnect()
    assert spectators not in gallery._here()
    assert opened.listening is not None and opened.listening.done()
    watcher = await connect(match, None)  # a new spectator opens a new gallery
    await receive(watcher)
    assert gallery._here()[spectators] is not opened
    await add(sockets[0], match.version, "g2")
    assert (await receive(watcher))["version"] == match.version + 1
    for socket in (*sockets[:2], watcher):
        await socket.disconnect()


async def test_spectators_in_one_state_are_sent_what_the_first_worked_out(tally, monkeypatch):
    """A hundred spectators of a match mostly hold the same version and panels: the first of
    a hand-out works each frame out, the others in its state send the same text and take the
    same state. A page in another state (json) works out its own."""
    match, ada, bob, _host = tally
    worked_out: list[bool] = []
    own = MatchConsumer._from_gallery

    async def counted(self: MatchConsumer, messages: list[dict[str, Any]]) -> None:
        worked_out.append(self.with_html)
        await own(self, messages)

    monkeypatch.setattr(MatchConsumer, "_from_gallery", counted)
    seats = [await connect(match, ada), await connect(match, bob)]
    watchers = [await connect(match, None) for _ in range(4)]
    json_page = await connect(match, None, "format=json")
    for socket in (*seats, *watchers, json_page):
        assert (await receive(socket))["type"] == "full"
    for move, version in enumerate((match.version + 1, match.version + 2)):
        await add(seats[move], version - 1, f"s{move}")  # Ada's turn, then Bob's
        updates = [await receive(socket) for socket in watchers]
        assert updates[0]["version"] == version
        assert "html" in updates[0] or "html_patch" in updates[0]
        assert all(update == updates[0] for update in updates)
        as_json = await receive(json_page)
        assert (as_json["version"], "html" in as_json) == (version, False)
        assert sorted(worked_out) == [False] * (move + 1) + [True] * (move + 1)
    held = [c for c in gallery._here()[group_name(match.pk, Viewer.spectator())].members]
    assert len({frozenset(c.panels_sent.items()) for c in held if c.with_html}) == 1
    assert {c.sent_version for c in held} == {match.version + 2}
    for socket in (*seats, *watchers, json_page):
        await socket.disconnect()


async def test_a_spectator_who_takes_a_seat_is_decided_again_while_the_others_share(
    tally, make_user
):
    """Cy watches among anonymous spectators and takes Bob's freed seat: the spectators' frame
    of that version says the seats changed hands. The others send it as one worked it out;
    Cy's socket decides its viewer again and sends the seat's whole view, never a spectator's
    frame taken from another socket."""
    from asgiref.sync import sync_to_async

    from games.core.match import host_operations, seating

    match, _, _, host = tally
    cy = await sync_to_async(make_user)("cy")
    await sync_to_async(host_operations.host_replace_seat)(match, host, 1, "", "left")
    first = await connect(match, None)
    cy_ws = await connect(match, cy)
    others = [await connect(match, None) for _ in range(2)]
    for socket in (first, cy_ws, *others):
        assert (await receive(socket))["view"]["viewer"]["audience"] == "spectators"

    def take_the_seat() -> int:
        seating.take_seat(match, cy, match.seats.get(index=1).invite_token)
        match.refresh_from_db()
        return match.version

    version = await sync_to_async(take_the_seat)()
    updates = [await receive(socket) for socket in (first, *others)]
    assert [(u["type"], u["version"]) for u in updates] == [("update", version)] * 3
    assert updates[1] == updates[0] == updates[2]
    as_seat = await receive(cy_ws)
    assert (as_seat["type"], as_seat["version"]) == ("full", version)
    assert as_seat["view"]["viewer"]["audience"] == "seat-1"
    for socket in (first, cy_ws, *others):
        await socket.disconnect()


class Probe(MatchConsumer):
    """A consumer whose handlers only note what they were handed, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.noted: list[str] = []
        self.backlog = deque(maxlen=BACKLOG_LIMIT)

    async def probe_note(self, message: dict[str, Any]) -> None:
        self.noted.append(message["text"])
        if message.get("then"):  # while handling this one, the gallery hands over another
            await self.from_gallery([{"type": "probe.note", "text": message["then"]}])

    async def probe_fail(self, message: dict[str, Any]) -> None:
        raise RuntimeError("a socket's handler failed")


async def test_a_spectator_busy_with_a_message_gets_the_gallerys_after_it_in_order():
    probe = Probe()
    probe.seat_in = object()  # type: ignore[assignment]  (in a gallery)
    await probe.dispatch({"type": "probe.note", "text": "ping", "then": "frame 5"})
    assert probe.noted == ["ping", "frame 5"]
    probe.busy = True  # connecting: what the gallery hands over waits its turn
    await probe.from_gallery([{"type": "probe.note", "text": "frame 6"}])
    await probe.from_gallery([{"type": "probe.note", "text": "frame 7"}])
    assert probe.noted == ["ping", "frame 5"]
    probe.busy = False
    await probe.dispatch({"type": "probe.note", "text": "connected"})
    assert probe.noted == ["ping", "frame 5", "connected", "frame 6", "frame 7"]
    assert not probe.backlog
    probe.busy = True  # a socket stuck far behind keeps only the newest, and resyncs
    for version in range(8, 8 + BACKLOG_LIMIT + 5):
        await probe.from_gallery([{"type": "probe.note", "text": f"frame {version}"}])
    probe.busy = False
    await probe.dispatch({"type": "probe.note", "text": "pong"})
    assert probe.noted[5:] == ["pong"] + [f"frame {v}" for v in range(13, 8 + BACKLOG_LIMIT + 5)]


class QueueLayer:
    """A layer of one gallery's channel: what is put in ``queue`` comes, in order."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def new_channel(self) -> str:
        return "gallery-channel"

    async def group_add(self, group: str, channel: str) -> None:
        pass

    async def group_discard(self, group: str, channel: str) -> None:
        pass

    async def receive(self, channel: str) -> dict[str, Any]:
        return await self.queue.get()

    def waiting(self, channel: str) -> list[dict[str, Any]]:
        taken = []
        while not self.queue.empty():
            taken.append(self.queue.get_nowait())
        return taken


async def test_a_spectator_that_fails_does_not_keep_the_frame_from_the_others():
    first, failing, last = Probe(), Probe(), Probe()
    seats = []
    for probe in (first, failing, last):
        seats.append(await gallery.enter("match.1.spectators", probe, QueueLayer()))
    assert seats[0] is seats[1] is seats[2]
    await seats[0].hand_out([{"type": "probe.note", "text": "v2"}])
    failing_gallery = seats[1]
    failing.probe_note = failing.probe_fail  # type: ignore[method-assign]
    await failing_gallery.hand_out([{"type": "probe.note", "text": "v3"}])
    assert first.noted == last.noted == ["v2", "v3"]
    assert failing.noted == ["v2"]
    for probe in (first, failing, last):
        await gallery.leave(seats[0], probe)
    assert "match.1.spectators" not in gallery._here()


async def test_a_gallery_the_layer_refuses_is_joined_again_on_a_later_ping(tally, monkeypatch):
    """The layer is down as a spectator connects: it is served all the same, and its next
    ping (whose version tells it is behind) puts it in the gallery."""
    match, ada, bob, _host = tally
    enter = gallery.enter
    refusals = [ConnectionError("the layer is down")]

    async def flaky(group: str, member: Any, layer: Any, turn: Any = None) -> gallery.Gallery:
        if refusals:
            raise refusals.pop()
        return await enter(group, member, layer, turn)

    monkeypatch.setattr(gallery, "enter", flaky)
    watcher = await connect(match, None)
    assert (await receive(watcher))["type"] == "full"
    spectators = group_name(match.pk, Viewer.spectator())
    assert spectators not in gallery._here()
    ada_ws, bob_ws = await connect(match, ada), await connect(match, bob)
    for socket in (ada_ws, bob_ws):
        await receive(socket)
    await add(ada_ws, match.version, "g3")
    # Bob's frame is drawn and sent after the spectators' (games/core/render/rendering.py
    # ``audiences``): once he has it, the watcher, in no group, has missed theirs, and the
    # next thing it hears is its ping's pong, which says it is behind.
    while (await receive(bob_ws)).get("version") != match.version + 1:
        pass
    await watcher.send_json_to({"type": "ping"})
    pong = await receive(watcher)
    assert (pong["type"], pong["version"]) == ("pong", match.version + 1)
    assert len(gallery._here()[spectators].members) == 1
    await add(bob_ws, match.version + 1, "g4")  # the tally's turns alternate
    # The frame it missed is drawn again for it, then the next goes out after it: no gap.
    got = [(await receive(watcher))["version"] for _ in range(2)]
    assert got == [match.version + 1, match.version + 2]
    for socket in (watcher, ada_ws, bob_ws):
        await socket.disconnect()


async def test_a_spectator_waiting_on_an_opener_that_closed_opens_the_gallery_itself():
    """The first spectator's socket closes while it is opening the gallery; one that came
    meanwhile and waits for it opens the gallery itself and hears the group."""
    calls: list[int] = []
    added: list[str] = []

    class SlowLayer:
        async def new_channel(self) -> str:
            calls.append(1)
            if len(calls) == 1:
                await asyncio.Event().wait()  # the first opener waits here until it is closed
            return f"gallery-{len(calls)}"

        async def group_add(self, group: str, channel: str) -> None:
            added.append(channel)

        async def group_discard(self, group: str, channel: str) -> None:
            pass

        async def receive(self, channel: str) -> dict[str, Any]:
            await asyncio.Event().wait()
            raise AssertionError

    closing, waiting = Probe(), Probe()
    opener = asyncio.create_task(gallery.enter("match.2.spectators", closing, SlowLayer()))
    await asyncio.sleep(0)
    waiter = asyncio.create_task(gallery.enter("match.2.spectators", waiting, SlowLayer()))
    await asyncio.sleep(0)
    opener.cancel()
    seat = await asyncio.wait_for(waiter, 1)
    assert opener.cancelled()
    assert list(seat.members) == [waiting] and added == ["gallery-2"]
    await seat.hand_out([{"type": "probe.note", "text": "v4"}])
    assert waiting.noted == ["v4"] and closing.noted == []
    await gallery.leave(seat, waiting)


async def until(condition: Any) -> None:
    while not condition():
        await asyncio.sleep(0)


class Sending(Probe):
    """A probe whose notes are sent, and whose sends are recorded, not written to a socket."""

    def __init__(self, together: bool) -> None:
        super().__init__()
        self.together = together
        self.gathered = None
        self.written: list[str] = []

    async def probe_note(self, message: dict[str, Any]) -> None:
        await super().probe_note(message)
        await self.send(text_data=f'"{message["text"]}"')

    async def base_send(self, message: dict[str, Any]) -> None:
        self.written.append(message["text"])


@pytest.mark.parametrize("together", [True, False])
async def test_what_the_gallery_hands_over_together_goes_as_one_message_where_asked(together):
    probe = Sending(together)
    probe.seat_in = object()  # type: ignore[assignment]  (in a gallery)
    await probe.from_gallery([{"type": "probe.note", "text": "v2"}])
    notes = [{"type": "probe.note", "text": text} for text in ("v3", "v4", "v5")]
    await probe.from_gallery(notes)
    if together:
        assert probe.written == ['"v2"', '["v3","v4","v5"]']
    else:
        assert probe.written == ['"v2"', '"v3"', '"v4"', '"v5"']
    # One that fails midway still sends what it had gathered, and the next goes alone.
    with pytest.raises(RuntimeError):
        await probe.from_gallery([notes[0], {"type": "probe.fail"}, notes[1]])
    await probe.from_gallery([notes[2]])
    assert probe.written[-2:] == ['"v3"', '"v5"']
    assert probe.gathered is None


async def test_a_gallery_hands_out_what_came_during_its_turn_together():
    """The gallery waits its turn (the worker drawing the match's table frames) before each
    hand-out, and hands out every message that came meanwhile at once, in order."""
    layer = QueueLayer()
    queue = layer.queue
    turns = asyncio.Queue[asyncio.Event]()

    async def turn() -> None:
        over = asyncio.Event()
        await turns.put(over)
        await over.wait()

    handed: list[list[str]] = []

    class Watcher(Probe):
        async def from_gallery(
            self, messages: list[dict[str, Any]], _shared: gallery.Handed | None = None
        ) -> None:
            handed.append([message["text"] for message in messages])

    watcher = Watcher()
    seat = await gallery.enter("match.3.spectators", watcher, layer, turn)
    await queue.put({"type": "probe.note", "text": "v2"})
    first_turn = await asyncio.wait_for(turns.get(), 5)
    for text in ("v3", "v4"):  # they come while the worker draws
        await queue.put({"type": "probe.note", "text": text})
    first_turn.set()
    await asyncio.wait_for(until(lambda: len(handed) == 1), 5)
    await queue.put({"type": "probe.note", "text": "v5"})
    (await asyncio.wait_for(turns.get(), 5)).set()
    await asyncio.wait_for(until(lambda: len(handed) == 2), 5)
    assert handed == [["v2", "v3", "v4"], ["v5"]]
    await gallery.leave(seat, watcher)


async def test_a_gallery_whose_layer_cannot_tell_what_waits_hands_out_one_by_one():
    class Refusing(QueueLayer):
        def waiting(self, channel: str) -> list[dict[str, Any]]:
            raise ConnectionError("the layer's queue is not what it was")

    handed: list[list[str]] = []

    class Watcher(Probe):
        async def from_gallery(
            self, messages: list[dict[str, Any]], _shared: gallery.Handed | None = None
        ) -> None:
            handed.append([message["text"] for message in messages])

    layer, watcher = Refusing(), Watcher()
    seat = await gallery.enter("match.4.spectators", watcher, layer)
    for text in ("v2", "v3"):
        await layer.queue.put({"type": "probe.note", "text": text})
    await asyncio.wait_for(until(lambda: len(handed) == 2), 5)
    assert handed == [["v2"], ["v3"]] and not seat.listening.done()
    await gallery.leave(seat, watcher)


async def test_a_gallery_gathers_what_comes_soon_after_a_hand_out(monkeypatch):
    """A lone message in a quiet gallery goes at once; one that comes soon after a hand-out (the
    match moves fast) waits at most GATHER_SECONDS for what comes next, and both go together."""
    monkeypatch.setattr(gallery, "GATHER_AFTER_SECONDS", 60)
    pauses: list[float] = []
    gathered = asyncio.Event()

    async def pause(seconds: float) -> None:  # the window stays open until the test closes it
        pauses.append(seconds)
        await gathered.wait()

    monkeypatch.setattr(gallery, "_pause", pause)
    layer = QueueLayer()
    handed: list[list[str]] = []

    class Watcher(Probe):
        async def from_gallery(
            self, messages: list[dict[str, Any]], _shared: gallery.Handed | None = None
        ) -> None:
            handed.append([message["text"] for message in messages])

    watcher = Watcher()
    seat = await gallery.enter("match.5.spectators", watcher, layer)
    await layer.queue.put({"type": "probe.note", "text": "v2"})
    await asyncio.wait_for(until(lambda: handed == [["v2"]]), 5)
    assert pauses == []  # the first after a quiet spell: at once
    await layer.queue.put({"type": "probe.note", "text": "v3"})
    await asyncio.wait_for(until(lambda: pauses), 5)  # taken: the gallery gathers
    await layer.queue.put({"type": "probe.note", "text": "v4"})
    gathered.set()
    await asyncio.wait_for(until(lambda: len(handed) == 2), 5)
    assert handed == [["v2"], ["v3", "v4"]]
    assert 0 <= pauses[0] <= gallery.GATHER_SECONDS
    await gallery.leave(seat, watcher)


async def test_the_memory_layer_tells_what_waits_in_order_and_leaves_out_the_expired():
    layer = MemoryLayer()
    channel = await layer.new_channel()
    for text in ("v2", "v3", "v4"):
        await layer.send(channel, {"type": "probe.note", "text": text})
    assert [message["text"] for message in layer.waiting(channel)] == ["v2", "v3", "v4"]
    assert layer.waiting(channel) == [] and layer.waiting("specific.never!used") == []
    stale = MemoryLayer(expiry=-1)  # every message past its expiry as it is sent
    await stale.send(channel, {"type": "probe.note", "text": "v5"})
    assert stale.waiting(channel) == []


async def test_a_fast_match_on_the_memory_layer_loses_no_spectator_frame(monkeypatch):
    """``make run``'s layer (one process, no Redis): while a match moves faster than the gallery's
    turns, the gallery takes what came during its gather at once. It took one message a turn,
    the rest piled up past the channel's capacity (100) and the layer dropped them: every
    spectator then waited a hold for each missing version to be drawn again."""
    monkeypatch.setattr(gallery, "GATHER_AFTER_SECONDS", 60)
    layer = MemoryLayer()
    group = "match.9.spectators"
    sent: list[str] = []

    async def frame() -> None:
        if len(sent) < 300:
            sent.append(f"v{len(sent) + 2}")
            await layer.group_send(group, {"type": "probe.note", "text": sent[-1]})

    async def pause(seconds: float) -> None:  # four more frames come while the gallery gathers
        for _ in range(4):
            await frame()

    monkeypatch.setattr(gallery, "_pause", pause)
    handed: list[str] = []

    class Watcher(Probe):
        async def from_gallery(
            self, messages: list[dict[str, Any]], _shared: gallery.Handed | None = None
        ) -> None:
            handed.extend(message["text"] for message in messages)
            await frame()  # and one more while it hands them out

    watcher = Watcher()
    seat = await gallery.enter(group, watcher, layer)
    await frame()
    await asyncio.wait_for(until(lambda: len(handed) == len(sent) == 300), 10)
    assert handed == sent
    await gallery.leave(seat, watcher)


class HandOuts(Probe):
    """A spectator that keeps the texts of each hand-out it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.handed: list[list[str]] = []

    async def from_gallery(
        self, messages: list[dict[str, Any]], _shared: gallery.Handed | None = None
    ) -> None:
        self.handed.append([message["text"] for message in messages])


async def test_a_gallery_whose_layer_keeps_no_queue_does_not_gather(monkeypatch):
    """A layer with no ``waiting`` (channels-redis's core layer) could hand over nothing that
    came during a gather: each message goes as it comes rather than waiting for nothing."""
    monkeypatch.setattr(gallery, "GATHER_AFTER_SECONDS", 60)
    pauses: list[float] = []

    async def pause(seconds: float) -> None:
        pauses.append(seconds)

    monkeypatch.setattr(gallery, "_pause", pause)

    class NoQueue(QueueLayer):
        waiting = None  # type: ignore[assignment]

    layer, watcher = NoQueue(), HandOuts()
    seat = await gallery.enter("match.10.spectators", watcher, layer)
    for text in ("v2", "v3", "v4"):
        await layer.queue.put({"type": "probe.note", "text": text})
    await asyncio.wait_for(until(lambda: len(watcher.handed) == 3), 5)
    assert watcher.handed == [["v2"], ["v3"], ["v4"]] and pauses == []
    await gallery.leave(seat, watcher)
