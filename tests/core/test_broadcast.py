"""games.core.live.broadcast: frames go out in version order, and a version that is never sent holds
back no later one for long."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace

import pytest
from asgiref.sync import sync_to_async

from games.core.game.gamedef import Viewer
from games.core.live import acting, broadcast
from games.core.match import services
from games.core.render import rendering
from tests.sockets import frames_before, version_is
from tests.waiting import until, until_async

MATCH_PK = 7


def seatless(pk: int) -> SimpleNamespace:
    """A match as the send reads it: its key, and no seats."""
    return SimpleNamespace(pk=pk, seats=SimpleNamespace(all=list))


class RecordingLayer:
    def __init__(self) -> None:
        self.sent: list[int] = []

    async def group_send(self, group: str, message: dict) -> None:
        self.sent.append(message["version"])


async def waits_for_its_turn(match_pk: int = MATCH_PK) -> None:
    """Until a send of the match waits for an earlier version's (asyncio's Condition keeps its
    waiters in ``_waiters``): from then on, nothing it holds goes out before that version."""

    async def waiting() -> bool:
        turn = broadcast._in_order.get(match_pk)
        return turn is not None and len(turn._waiters) > 0  # type: ignore[attr-defined]

    await until_async(waiting, f"a send of match {match_pk} waiting for its turn")


@pytest.fixture
def layer(monkeypatch) -> RecordingLayer:
    """A channel layer that records the versions sent; frames rendered without a database."""
    recording = RecordingLayer()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: recording)
    monkeypatch.setattr(broadcast, "frames_drawn", spectators_frame)
    monkeypatch.setattr(broadcast, "_unsent", {})
    monkeypatch.setattr(broadcast, "_table_unsent", {})
    monkeypatch.setattr(broadcast, "_movers_unsent", {})
    monkeypatch.setattr(broadcast, "_table_lanes", {})
    monkeypatch.setattr(broadcast, "_in_order", {})
    return recording


def spectators_frame(told, keeping=None, next_movers=(), unwatched=frozenset()):
    """An announcement's frames as ``frames_drawn`` yields them: the spectators' alone."""
    message = {"version": told.event.version}
    yield Viewer.spectator(), SimpleNamespace(as_message=lambda: message)


def announced(version: int) -> broadcast.Outbox:
    """``version`` committed inside ``deferred()``, as the consumer's action path collects it."""
    match = seatless(MATCH_PK)
    with broadcast.deferred() as outbox:
        told = SimpleNamespace(match=match, event=SimpleNamespace(version=version, seat=None))
        broadcast.announce(told)  # type: ignore[arg-type]
    return outbox


async def test_frames_go_out_in_version_order(layer):
    fourth, fifth = announced(4), announced(5)
    later = asyncio.create_task(broadcast.send(fifth))
    await waits_for_its_turn()
    assert layer.sent == []  # version 5 waits for version 4
    await broadcast.send(fourth)
    await later
    assert layer.sent == [4, 5]


async def test_a_later_versions_seats_and_spectators_go_before_an_earlier_versions_host(
    layer, monkeypatch
):
    """A socket takes a version only after the one before: the next mover's own frame waits
    for the seats' frames of every earlier version, and a spectator for the spectators', never
    for the host's, which costs more than the rest (issue 40). Each lane goes in version
    order."""
    recording = RecordingGroups()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: recording)

    two_seats_and_the_host(monkeypatch)
    fourth, fifth = seat_zero_moved(4), seat_zero_moved(5)
    later = asyncio.create_task(broadcast.send(fifth))
    await waits_for_its_turn()  # version 5's table waits for version 4's
    await asyncio.wait_for(broadcast.send(fourth), 10)
    await asyncio.wait_for(later, 10)
    sent = by_audience(recording)
    assert sent == [
        ("seat-0", 4),
        ("seat-1", 4),
        ("spectators", 4),
        ("seat-0", 5),
        ("seat-1", 5),
        ("spectators", 5),
        ("host", 4),
        ("host", 5),
    ]
    assert not broadcast._unsent and not broadcast._table_unsent and not broadcast._table_lanes


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
        broken.setattr(broadcast, "frames_drawn", lambda announcement, **_: iter([1 / 0]))
        await broadcast.send(fourth)  # logged, not raised: the viewers' pings heal it
    monkeypatch.setattr(broadcast, "ORDER_WAIT_SECONDS", 3600)
    await asyncio.wait_for(broadcast.send(announced(5)), 10)
    assert layer.sent == [5]
    assert not broadcast._unsent.get(MATCH_PK)


async def test_a_cancelled_send_holds_back_nothing(layer, monkeypatch):
    fourth, fifth = announced(4), announced(5)
    monkeypatch.setattr(broadcast, "ORDER_WAIT_SECONDS", 3600)
    waiting = asyncio.create_task(broadcast.send(fifth))
    await waits_for_its_turn()  # for 4
    waiting.cancel()  # its connection closed
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await asyncio.wait_for(broadcast.send(fourth), 10)
    await asyncio.wait_for(broadcast.send(announced(6)), 10)
    assert layer.sent == [4, 6]


@pytest.mark.django_db
def test_an_event_sent_is_marked_and_one_never_sent_is_sent_again_by_the_scheduler(
    clock, tally_match, monkeypatch, django_capture_on_commit_callbacks
):
    from games.core.game.gamedef import Viewer
    from games.core.match import services
    from games.core.models import Event

    match, ada, bob, _ = tally_match
    Event.objects.filter(match=match).update(sent_at=clock.current)  # the seats' events went
    with django_capture_on_commit_callbacks(execute=True):
        sent = services.submit_action(match, ada, {"type": "add", "amount": 1})
    assert Event.objects.get(match=match, version=sent.version).sent_at is not None
    # A worker that dies right after its ack: the event is committed, its frames never sent.
    with monkeypatch.context() as patched, django_capture_on_commit_callbacks(execute=True):
        patched.setattr(broadcast, "announce", lambda announcement: None)
        lost = services.submit_action(match, bob, {"type": "add", "amount": 1})
    assert Event.objects.get(match=match, version=lost.version).sent_at is None
    sent_again: list[tuple[str, dict]] = []

    async def record(messages: list[tuple[str, dict]]) -> bool:
        sent_again.extend(messages)
        return True

    monkeypatch.setattr(broadcast, "send_messages", record)
    assert broadcast.heal_unsent() == 0  # not yet: its own worker may still be sending it
    clock.advance(3)
    assert broadcast.heal_unsent() == 1
    spectators = broadcast.group_name(match.pk, Viewer.spectator())
    frames = [message for group, message in sent_again if group == spectators]
    assert [(f["type"], f["version"]) for f in frames] == [("match.frame", lost.version)]
    assert Event.objects.get(match=match, version=lost.version).sent_at is not None
    assert broadcast.heal_unsent() == 0


@pytest.mark.django_db
def test_the_versions_of_several_matches_are_marked_sent_in_one_statement(clock, tally_match):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.core.models import Event

    match, *_ = tally_match
    versions = set(Event.objects.filter(match=match).values_list("version", flat=True))
    Event.objects.filter(match=match).update(sent_at=None)
    with CaptureQueriesContext(connection) as statements:
        broadcast.mark_all_sent({match.pk: versions, match.pk + 1000: {1}})
    assert len(statements) == 1
    assert not Event.objects.filter(match=match, sent_at=None).exists()


# --- one route: events, chat lines and drafts leave on commit, once ---------------------------


class Rollback(Exception):
    pass


@pytest.mark.django_db
def test_a_rolled_back_action_chat_line_or_draft_sends_nothing_and_a_committed_one_goes_once(
    tally_match, monkeypatch, django_capture_on_commit_callbacks
):
    from django.db import transaction

    from games.core.match import chat, services

    match, ada, *_ = tally_match
    recording = RecordingGroups()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: recording)
    changes = {
        "match.frame": lambda: services.submit_action(match, ada, {"type": "add", "amount": 1}),
        "chat.message": lambda: chat.post(match, ada, "players", "good luck"),
        "match.draft": lambda: services.save_draft(match, ada, {"amount": 2}),
    }
    with django_capture_on_commit_callbacks(execute=True):
        for change in changes.values():
            with pytest.raises(Rollback), transaction.atomic():
                change()
                raise Rollback
    assert recording.sent == []
    for kind, change in changes.items():
        with django_capture_on_commit_callbacks(execute=True):
            change()
        assert {message["type"] for _, message in recording.sent} == {kind}
        groups = [group for group, _ in recording.sent]
        assert len(groups) == len(set(groups)) > 0  # each group told once
        recording.sent.clear()


class RecordingGroups:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []

    async def group_send(self, group: str, message: dict) -> None:
        self.sent.append((group, message))


@pytest.mark.django_db(transaction=True)
async def test_an_action_a_chat_line_and_a_draft_each_reach_a_socket_once(tally_match):
    from tests.core.test_consumers import connect, receive

    match, ada, _, host = tally_match
    ada_ws, host_ws = await connect(match, ada), await connect(match, host)
    full = await receive(ada_ws)
    await receive(host_ws)
    await ada_ws.send_json_to({"type": "draft", "draft": {"amount": 2}})
    await ada_ws.send_json_to({"type": "chat", "id": "c1", "channel": "players", "text": "hi"})
    await ada_ws.send_json_to(
        {
            "type": "action",
            "id": "a1",
            "version": full["version"],
            "action": {"type": "add", "amount": 1},
        }
    )
    received = {}
    for socket, expected in (
        (ada_ws, ["ack", "chat", "chat", "draft", "update"]),  # the acks of chat and action
        (host_ws, ["chat", "draft", "update"]),
    ):
        kinds = [(await receive(socket))["type"] for _ in expected]
        assert sorted(kinds) == expected
        received[socket] = kinds
    # And nothing twice: the host's pause, sent after all of it, comes next.
    paused = await sync_to_async(pause)(match, host)
    for socket in received:
        assert await frames_before(socket, version_is(paused)) == []
        await socket.disconnect()


def pause(match, host) -> int:
    from games.core.match import host_operations

    match.refresh_from_db()
    host_operations.host_pause(match, host, reason="a moment")
    match.refresh_from_db()
    return match.version


async def test_a_scheduler_steps_event_and_a_players_later_one_go_out_in_version_order(layer):
    """A bot's move (or a timeout) committed by the scheduler goes out in version order with
    the frames of a player's move that followed it in the same process."""
    from games.core.live import scheduler

    committed, go_on, stop = threading.Event(), threading.Event(), asyncio.Event()

    def step() -> float:
        told = SimpleNamespace(
            match=seatless(MATCH_PK), event=SimpleNamespace(version=4, seat=None)
        )
        broadcast.announce(told)  # type: ignore[arg-type]
        committed.set()
        go_on.wait(10)  # the step goes on (other matches' bots) while a player moves
        stop.set()
        return 0.0

    stepping = asyncio.create_task(scheduler._loop(step, stop, thread_sensitive=False))
    await asyncio.to_thread(committed.wait, 10)
    fifth = asyncio.create_task(broadcast.send(announced(5)))
    await waits_for_its_turn()
    assert layer.sent == []  # the player's version 5 waits for the bot's version 4
    go_on.set()
    await asyncio.wait_for(fifth, 10)
    await asyncio.wait_for(stepping, 10)
    assert layer.sent == [4, 5]


async def test_a_step_that_commits_events_of_several_matches_holds_back_none_of_them(
    layer, monkeypatch
):
    """A scheduler step (bots' moves, clocks) commits events of several matches into one outbox:
    each match's versions are sent in its own order and marked sent for that match, so the next
    version of any of them goes out without waiting for the 2 s give-up (issue 34, item 9)."""
    marked: list[list[tuple[int, list[int]]]] = []
    monkeypatch.setattr(
        broadcast,
        "mark_all_sent",
        lambda sent: marked.append(sorted((pk, sorted(vs)) for pk, vs in sent.items())),
    )
    monkeypatch.setattr(broadcast, "ORDER_WAIT_SECONDS", 3600)
    with broadcast.deferred() as outbox:
        for match_pk, version in ((7, 4), (8, 9), (9, 2), (8, 10)):
            told = SimpleNamespace(
                match=seatless(match_pk), event=SimpleNamespace(version=version, seat=None)
            )
            broadcast.announce(told)  # type: ignore[arg-type]
    await asyncio.wait_for(broadcast.send(outbox), 10)

    async def marked_now() -> list:
        return marked

    await until_async(marked_now, "the versions sent marked")
    assert marked == [[(7, [4]), (8, [9, 10]), (9, [2])]]  # together, in one statement
    with broadcast.deferred() as later:
        told = SimpleNamespace(match=seatless(8), event=SimpleNamespace(version=11, seat=None))
        broadcast.announce(told)  # type: ignore[arg-type]
    await asyncio.wait_for(broadcast.send(later), 10)  # nothing of match 8 holds it back
    assert layer.sent == [4, 9, 10, 2, 11]
    assert not broadcast._unsent


def test_a_drawing_thread_waits_for_the_action_holding_its_matchs_row_here(settings):
    """While an action holds its match's row on this worker, a thread drawing that match's
    frames draws none (at most DRAWING_YIELDS_MS): the interpreter goes to the action. An
    action still waiting for the row, and another match's action, are not waited for."""
    settings.DRAWING_YIELDS_MS = 60_000
    drawn: list[str] = []

    class Drawing:
        announcement = SimpleNamespace(match=seatless(MATCH_PK), event=SimpleNamespace(version=4))

        def next(self, table_only: bool) -> tuple:
            drawn.append("frame")
            return Viewer.spectator(), SimpleNamespace(as_message=lambda: {"version": 4})

    with broadcast.actions.applying(MATCH_PK + 1):  # another match's, holding its row
        broadcast.actions.row_locked(MATCH_PK + 1)
        broadcast._next_messages(Drawing(), alone=True)
    with broadcast.actions.applying(MATCH_PK):  # waiting for the row (the other worker's)
        broadcast._next_messages(Drawing(), alone=True)
    assert drawn == ["frame", "frame"]
    drawn.clear()
    with broadcast.actions.applying(MATCH_PK):
        broadcast.actions.row_locked(MATCH_PK)
        thread = threading.Thread(target=broadcast._next_messages, args=(Drawing(), True))
        thread.start()
        waiting = broadcast.actions.done._waiters  # type: ignore[attr-defined]
        until(lambda: len(waiting) > 0, "the drawing thread waiting for the action")
        assert drawn == []
        drawn.append("the action's end")
    thread.join(10)
    assert drawn == ["the action's end", "frame"]


def by_audience(layer: RecordingGroups) -> list[tuple[str, int]]:
    """What ``layer`` sent, as (audience, version) pairs in order."""
    return [(group.rsplit(".", 1)[1], message["version"]) for group, message in layer.sent]


class PublishingLayer(RecordingGroups):
    """A layer that also publishes from the drawing thread (``publish_now``), or fails to."""

    def __init__(self, broken: bool = False) -> None:
        super().__init__()
        self.broken = broken
        self.published: list[list[str]] = []  # the groups of each publish, in order
        self.threads: set[int] = set()
        self.publishes_from_threads = True
        self.unheard: set[str] = set()  # the audiences no socket listens to

    def listened(self, groups: list[str]) -> set[str]:
        return {group for group in groups if group.rsplit(".", 1)[1] not in self.unheard}

    def publish_now(self, messages: list[tuple[str, dict]]) -> None:
        self.threads.add(threading.get_ident())
        if self.broken:
            raise ConnectionError("Redis went away")
        self.published.append([group.rsplit(".", 1)[1] for group, _ in messages])
        self.sent.extend(messages)


def two_seats_and_the_host(monkeypatch) -> None:
    """Frames drawn as ``frames_drawn`` draws a two-seat match's: the seats', the spectators',
    then the host's."""

    def frames(told, keeping=None, next_movers=(), unwatched=frozenset()):
        version = told.event.version
        for viewer in (Viewer(seat=0), Viewer(seat=1), Viewer.spectator(), Viewer.host()):
            message = {"type": "match.frame", "version": version}
            yield viewer, SimpleNamespace(as_message=lambda message=message: message)

    monkeypatch.setattr(broadcast, "frames_drawn", frames)


def seat_zero_moved(version: int) -> broadcast.Outbox:
    seats = [SimpleNamespace(index=0), SimpleNamespace(index=1)]
    match = SimpleNamespace(pk=MATCH_PK, seats=SimpleNamespace(all=lambda: seats))
    with broadcast.deferred() as outbox:
        told = SimpleNamespace(match=match, event=SimpleNamespace(version=version, seat=0))
        broadcast.announce(told)  # type: ignore[arg-type]
    return outbox


async def test_the_tables_frames_are_published_from_the_drawing_thread_the_movers_first(
    layer, monkeypatch
):
    """Where the layer can publish from the thread that draws, the table's frames go from
    there as they are drawn, not through the event loop: the acting seat's alone and first.
    The host's go through the loop, after them."""
    publishing = PublishingLayer()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: publishing)
    monkeypatch.setattr(broadcast, "DRAWING_SLICE_SECONDS", 3600)  # the rest come together
    two_seats_and_the_host(monkeypatch)
    await asyncio.wait_for(broadcast.send(seat_zero_moved(4)), 10)
    assert publishing.published == [["seat-0"], ["seat-1", "spectators"]]
    assert threading.get_ident() not in publishing.threads
    sent = by_audience(publishing)
    assert sent == [("seat-0", 4), ("seat-1", 4), ("spectators", 4), ("host", 4)]
    assert not broadcast._unsent and not broadcast._table_unsent and not broadcast._table_lanes


def seats_moved(*moves: tuple[int, int], seats: int = 3) -> broadcast.Outbox:
    """One send of several versions (``moves``: version, acting seat), as the actions that
    share one hold of the row commit them. Its seats' players are their indexes."""
    held = [SimpleNamespace(index=index) for index in range(seats)]
    match = SimpleNamespace(
        pk=MATCH_PK, seats=SimpleNamespace(all=lambda: held), seat_of=lambda user: held[user]
    )
    with broadcast.deferred() as outbox:
        for version, seat in moves:
            told = SimpleNamespace(match=match, event=SimpleNamespace(version=version, seat=seat))
            broadcast.announce(told)  # type: ignore[arg-type]
    return outbox


def in_the_order_of_the_audiences(told, keeping=None, next_movers=(), unwatched=frozenset()):
    """Frames as ``frames_drawn`` yields them: every audience's but the ``unwatched``, in the
    order of ``rendering.audiences``."""
    for viewer in rendering.audiences(told.match, told.event.seat, next_movers):
        if viewer.audience not in unwatched:
            message = {"type": "match.frame", "version": told.event.version}
            yield viewer, SimpleNamespace(as_message=lambda message=message: message)


async def test_versions_sent_together_draw_every_next_movers_frames_before_the_rest(
    layer, monkeypatch
):
    """Seat 0's move made version 4 and seat 2's version 5, in one send: seat 2's own frame of
    5 waits for its frame of 4, so both go before the other frames of 4 (seat 1's, the
    spectators'). Every audience still gets its frames in version order."""
    publishing = PublishingLayer()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: publishing)
    monkeypatch.setattr(broadcast, "DRAWING_SLICE_SECONDS", 3600)  # the rest come together

    monkeypatch.setattr(broadcast, "frames_drawn", in_the_order_of_the_audiences)
    await asyncio.wait_for(broadcast.send(seats_moved((4, 0), (5, 2))), 10)
    sent = by_audience(publishing)
    assert sent == [
        ("seat-0", 4),
        ("seat-2", 4),
        ("seat-2", 5),
        ("seat-1", 4),
        ("spectators", 4),
        ("seat-0", 5),
        ("seat-1", 5),
        ("spectators", 5),
        ("host", 4),
        ("host", 5),
    ]
    assert publishing.published[:3] == [["seat-0"], ["seat-2"], ["seat-2"]]  # each alone


async def test_a_coming_movers_own_frame_waits_for_the_earlier_movers_not_the_whole_table(
    layer, monkeypatch
):
    """Seat 0's move made version 4 while seat 2's action waited for its turn here, then made
    version 5 (each its own send). Seat 2's frame of 4 is drawn with seat 0's, first; its own
    frame of 5 goes once they are out, while the rest of 4's table (seat 1's, the spectators')
    is still being drawn: it is drawn here only after seat 2's own frame of 5 went."""
    publishing = PublishingLayer()
    own_frame_out = threading.Event()
    publish_now = publishing.publish_now

    def published(messages: list[tuple[str, dict]]) -> None:
        publish_now(messages)
        if ("seat-2", 5) in by_audience(publishing):
            own_frame_out.set()

    monkeypatch.setattr(publishing, "publish_now", published)
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: publishing)
    monkeypatch.setattr(broadcast, "DRAWING_SLICE_SECONDS", 3600)  # the rest come together

    def rest_of_four_after_the_own_frame(told, keeping=None, next_movers=(), unwatched=()):
        for viewer, frame in in_the_order_of_the_audiences(told, keeping, next_movers):
            if (told.event.version, viewer.audience) == (4, "seat-1"):
                assert own_frame_out.wait(10), "seat 2's own frame of 5 waited for 4's table"
            yield viewer, frame

    monkeypatch.setattr(broadcast, "frames_drawn", rest_of_four_after_the_own_frame)
    coming = acting._Waiting(services.SeatAction(2, {"type": "swap"}))  # seat 2's player
    monkeypatch.setitem(acting._waiting, MATCH_PK, [coming])
    fourth, fifth = seats_moved((4, 0)), seats_moved((5, 2))
    await asyncio.wait_for(asyncio.gather(broadcast.send(fourth), broadcast.send(fifth)), 20)
    assert publishing.published == [
        ["seat-0"],
        ["seat-2"],
        ["seat-2"],
        ["seat-1", "spectators"],
        ["seat-0", "seat-1", "spectators"],
    ]
    assert [v for audience, v in by_audience(publishing) if audience == "host"] == [4, 5]
    assert not broadcast._unsent and not broadcast._table_unsent and not broadcast._movers_unsent


async def test_an_audience_no_socket_listens_to_is_not_drawn_and_the_host_still_goes_last(
    layer, monkeypatch
):
    """Seat 1's player has no page open (asked of the layer once the version committed): its
    frames are not drawn. The table's frames are the ones left, the movers' first, and the
    host's still go after them, through the loop."""
    publishing = PublishingLayer()
    publishing.unheard = {"seat-1"}
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: publishing)
    monkeypatch.setattr(broadcast, "DRAWING_SLICE_SECONDS", 3600)  # the rest come together
    monkeypatch.setattr(broadcast, "frames_drawn", in_the_order_of_the_audiences)
    await asyncio.wait_for(broadcast.send(seats_moved((4, 0), (5, 2))), 10)
    assert publishing.published == [
        ["seat-0"],
        ["seat-2"],
        ["seat-2"],
        ["spectators"],
        ["seat-0", "spectators"],
    ]
    assert by_audience(publishing)[-2:] == [("host", 4), ("host", 5)]


def test_the_next_movers_are_drawn_right_after_the_acting_seat_each_once():
    seats = [SimpleNamespace(index=index) for index in range(4)]
    match = SimpleNamespace(seats=SimpleNamespace(all=lambda: seats))
    drawn = rendering.audiences(match, 1, [3, 1, 0, 3])  # type: ignore[arg-type]
    assert [viewer.audience for viewer in drawn] == [
        "seat-1",
        "seat-3",
        "seat-0",
        "seat-2",
        "spectators",
        "host",
    ]
    plain = rendering.audiences(match, None)  # type: ignore[arg-type]
    assert [viewer.audience for viewer in plain][:4] == ["seat-0", "seat-1", "seat-2", "seat-3"]


async def test_frames_the_drawing_thread_could_not_publish_go_through_the_loop_in_order(
    layer, monkeypatch
):
    broken = PublishingLayer(broken=True)
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: broken)
    two_seats_and_the_host(monkeypatch)
    await asyncio.wait_for(broadcast.send(seat_zero_moved(4)), 10)
    await asyncio.wait_for(broadcast.send(seat_zero_moved(5)), 10)
    assert broken.published == []
    sent = by_audience(broken)
    assert sent == [
        ("seat-0", 4),
        ("seat-1", 4),
        ("spectators", 4),
        ("host", 4),
        ("seat-0", 5),
        ("seat-1", 5),
        ("spectators", 5),
        ("host", 5),
    ]


class TogetherLayer(RecordingGroups):
    """A layer that sends several messages in one round trip, or fails to (``broken``)."""

    def __init__(self, broken: bool = False) -> None:
        super().__init__()
        self.broken = broken
        self.together: list[list[str]] = []

    async def group_send_many(self, messages: list[tuple[str, dict]]) -> None:
        if self.broken:
            raise ConnectionError("Redis went away")
        self.together.append([group for group, _ in messages])
        self.sent.extend(messages)


async def test_a_versions_frames_go_together_and_one_by_one_when_that_fails(monkeypatch):
    frames = [(f"match.7.seat-{seat}", {"type": "match.frame", "version": 4}) for seat in (0, 1)]
    together = TogetherLayer()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: together)
    assert await broadcast.send_messages(frames)
    assert together.together == [["match.7.seat-0", "match.7.seat-1"]]
    # A chat line is never sent twice: it goes alone, whatever goes with it.
    chat = [("match.7.players", {"type": "chat.message"}), frames[0]]
    assert await broadcast.send_messages(chat)
    assert len(together.together) == 1 and together.sent[-2:] == chat
    broken = TogetherLayer(broken=True)
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: broken)
    assert await broadcast.send_messages(frames)
    assert broken.sent == frames  # one by one


async def test_the_hosts_frame_waits_for_the_table_at_most_order_wait_seconds(
    layer, monkeypatch, caplog
):
    """A table lane that never ends (its send stuck) holds the host's frames back for
    ORDER_WAIT_SECONDS at most; then they go, and the wait is logged."""
    recording = RecordingGroups()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: recording)

    def table_and_host(told, keeping=None, next_movers=(), unwatched=frozenset()):
        for viewer in (Viewer.spectator(), Viewer.host()):
            yield viewer, SimpleNamespace(as_message=lambda: {"version": told.event.version})

    monkeypatch.setattr(broadcast, "frames_drawn", table_and_host)
    monkeypatch.setattr(broadcast, "ORDER_WAIT_SECONDS", 0.05)
    broadcast._table_lanes[MATCH_PK] = 1  # another send's table frames, never done
    await asyncio.wait_for(broadcast.send(announced(4)), 10)
    sent = by_audience(recording)
    assert sent == [("spectators", 4), ("host", 4)]
    assert "held the host's back too long" in caplog.text


async def test_the_spectators_gallery_waits_for_the_workers_table_frames_a_bounded_time(
    layer, monkeypatch
):
    """``table_drawn`` (the spectators' gallery awaits it before handing out) returns at once
    when this worker draws none of the match's table frames, once the last such send is done,
    and after its bound when one never is."""
    await asyncio.wait_for(broadcast.table_drawn(MATCH_PK, at_most=60), 1)  # no lane: at once
    recording = RecordingGroups()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: recording)
    release = threading.Event()

    def slow_table(told, keeping=None, next_movers=(), unwatched=frozenset()):
        release.wait(10)  # the drawing, in its thread, until the test lets it go
        yield Viewer.spectator(), SimpleNamespace(as_message=lambda: {"version": 4})

    monkeypatch.setattr(broadcast, "frames_drawn", slow_table)
    sending = asyncio.create_task(broadcast.send(announced(4)))
    while not broadcast._table_lanes.get(MATCH_PK):  # the send has begun its table lane
        await asyncio.sleep(0)
    waiting = asyncio.create_task(broadcast.table_drawn(MATCH_PK, at_most=60))
    await asyncio.sleep(0.05)
    assert not waiting.done()  # the table frames are being drawn
    release.set()
    await asyncio.wait_for(waiting, 10)
    await asyncio.wait_for(sending, 10)
    assert recording.sent and not broadcast._table_lanes
    broadcast._table_lanes[MATCH_PK] = 1  # a send whose table frames never end
    try:
        await asyncio.wait_for(broadcast.table_drawn(MATCH_PK, at_most=0.05), 5)
    finally:
        broadcast._table_lanes.pop(MATCH_PK, None)


def test_every_audience_is_drawn_when_the_layer_cannot_say_who_listens(monkeypatch):
    publishing = PublishingLayer()

    def redis_gone(groups: list[str]) -> set[str]:
        raise ConnectionError("Redis went away")

    publishing.listened = redis_gone  # type: ignore[method-assign]
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: publishing)
    every = [Viewer(seat=0), Viewer.spectator(), Viewer.host()]
    assert broadcast._listened(MATCH_PK, every) == every


async def test_what_the_table_was_sent_is_kept_once_its_frames_are_out_and_again_with_the_host(
    layer, monkeypatch
):
    """The other worker draws the next version at the same moment (a cast moving at once) and
    draws each audience from what was sent at this one: kept right after the table's frames,
    not after the host's, it is there sooner. The host's audience is kept with the rest once
    its frame is drawn."""
    from games.core.render import panelcache

    happened: list[tuple[str, ...]] = []
    publishing = PublishingLayer()
    publish_now, group_send = publishing.publish_now, publishing.group_send

    def published(messages: list[tuple[str, dict]]) -> None:
        publish_now(messages)
        happened.append(("published", *(group.rsplit(".", 1)[1] for group, _ in messages)))

    async def sent(group: str, message: dict) -> None:
        await group_send(group, message)
        happened.append(("sent", group.rsplit(".", 1)[1]))

    def kept(match, version, audiences) -> None:
        happened.append(("kept", str(version), *sorted(v.audience for v in audiences)))

    monkeypatch.setattr(publishing, "publish_now", published)
    monkeypatch.setattr(publishing, "group_send", sent)
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: publishing)
    monkeypatch.setattr(broadcast, "DRAWING_SLICE_SECONDS", 3600)  # the rest come together
    monkeypatch.setattr(panelcache, "keep", kept)

    def frames(told, keeping=None, next_movers=(), unwatched=frozenset()):
        drawn: dict[Viewer, object] = {}
        keeping.match, keeping.version, keeping.sent = told.match, told.event.version, drawn
        for viewer in (Viewer(seat=0), Viewer(seat=1), Viewer.spectator(), Viewer.host()):
            drawn[viewer] = object()
            message = {"type": "match.frame", "version": told.event.version}
            yield viewer, SimpleNamespace(as_message=lambda message=message: message)

    monkeypatch.setattr(broadcast, "frames_drawn", frames)
    await asyncio.wait_for(broadcast.send(seat_zero_moved(4)), 10)
    assert happened == [
        ("published", "seat-0"),
        ("published", "seat-1", "spectators"),
        ("kept", "4", "seat-0", "seat-1", "spectators"),
        ("sent", "host"),
        ("kept", "4", "host", "seat-0", "seat-1", "spectators"),
    ]
