"""Faults on the production shape, as repeatable tests: a worker killed mid-round, the scheduler
killed while deadlines are due, Redis restarted mid-match. (PostgreSQL restarted mid-match, and
each of these at length with their timings, are in `make soak`: benchmarks/soak.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from django.utils import timezone

from games.core.live.client import ArenaClient, Refused
from games.core.match import seating
from games.core.models import Deadline, Event, Match
from tests.live_server import ROOT, Worker, free_port, in_db, worker_environment
from tests.waiting import until_async

PASSWORD = "pw-for-tests-1"

pytestmark = pytest.mark.django_db(transaction=True)


def tally(host, settings: dict) -> Match:  # type: ignore[no-untyped-def]
    return seating.create_match(
        host=host, game_key="fixture-tally", title="faults", settings=settings, roles=["EC", "DMO"]
    )


def seat_both(match: Match, ada, bob) -> None:  # type: ignore[no-untyped-def]
    seats = list(match.seats.order_by("index"))
    seating.take_seat(match, ada, seats[0].invite_token)
    seating.take_seat(match, bob, seats[1].invite_token)


def event_log(match: Match) -> list[tuple[int, str]]:
    return list(
        Event.objects.filter(match=match).order_by("version").values_list("version", "kind")
    )


def updates_as_logged(frames: list[dict], log: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The (version, kind) of each update a client received, in the order received."""
    return [(f["version"], f["event"]["kind"]) for f in frames if f.get("type") == "update"]


async def keep_current(socket_, version: int, timeout: float) -> None:  # type: ignore[no-untyped-def]
    """Read until ``version`` arrived, pinging each second as the page does (a pong carries the
    current version: a client that missed a frame asks for it)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while socket_.version < version:
        if loop.time() > deadline:
            raise TimeoutError(f"still at {socket_.version}, not {version}")
        await socket_.send({"type": "ping"})
        try:
            frame = await socket_.recv(timeout=1.0)
        except TimeoutError:
            continue
        if frame.get("type") == "pong" and frame.get("version", 0) > socket_.version:
            await socket_.resync(socket_.version)


# --- a worker killed with SIGKILL mid-round -------------------------------------------------------


async def test_a_killed_worker_loses_nothing_and_its_clock_fires_once(make_user):
    host, ada, bob = await in_db(lambda: [make_user(name) for name in ("hostess", "ada", "bob")])
    match = await in_db(lambda: tally(host, {"turn_seconds": 4}))
    worker = await asyncio.to_thread(Worker().start)
    try:
        async with ArenaClient(worker.url).match_socket(match.public_id) as watcher:
            await watcher.recv_until("full")
            await in_db(lambda: seat_both(match, ada, bob))  # it starts: ada's 4 s clock runs
            await asyncio.to_thread(worker.restart)  # SIGKILL mid-turn, a new worker on the port
            # The watcher reconnects by itself and gets ada's skipped turn from the new worker.
            for _ in range(100):  # a handful of frames come first (full, seats, the start)
                frame = await watcher.recv(timeout=30)
                if frame.get("type") == "update" and frame["event"]["kind"] == "turn_skipped":
                    break
            else:
                raise AssertionError("100 frames and no skipped turn")
            assert watcher.reconnects >= 1
    finally:
        await asyncio.to_thread(worker.stop)
    log = await in_db(lambda: event_log(match))
    assert [version for version, _ in log] == list(range(1, len(log) + 1))
    received = updates_as_logged(watcher.frames, log)
    assert received == [entry for entry in log if entry[0] in dict(received)]
    assert [v for v, _ in received] == sorted({v for v, _ in received})  # none twice
    fired = await in_db(
        lambda: Deadline.objects.filter(match=match, key="turn").exclude(fired_at=None).count()
    )
    assert fired == sum(1 for _, kind in log if kind == "turn_skipped")


# --- the scheduler killed while deadlines are due -----------------------------------------------


def start_scheduler() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "manage.py", "run_scheduler"],
        cwd=ROOT,
        env=worker_environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def fired_count(pks: list[int]) -> int:
    return Deadline.objects.filter(pk__in=pks).exclude(fired_at=None).count()


async def test_deadlines_due_across_scheduler_kills_each_fire_once(make_user):
    host, *players = await in_db(lambda: [make_user(f"p{i}") for i in range(25)])

    def make_matches() -> list[Match]:
        made = []
        for index in range(12):
            match = tally(host, {"turn_seconds": 1})
            seat_both(match, players[2 * index], players[2 * index + 1])
            made.append(match)
        return made

    matches = await in_db(make_matches)
    due = await in_db(
        lambda: list(Deadline.objects.filter(match__in=matches).values_list("pk", flat=True))
    )
    last_due = await in_db(lambda: max(d.due_at for d in Deadline.objects.filter(pk__in=due)))
    await asyncio.sleep(max(0.0, (last_due - timezone.now()).total_seconds()) + 0.05)
    # Every first turn clock is now due, and no scheduler runs.
    first = start_scheduler()

    async def fired() -> int:
        return await in_db(lambda: fired_count(due))

    await until_async(fired, "the first scheduler to fire a clock")
    first.send_signal(signal.SIGKILL)  # mid-batch, as likely as not
    first.wait(10)
    racing = [start_scheduler(), start_scheduler()]  # the restart, and a second one racing it
    try:

        async def all_fired() -> bool:
            return await fired() == len(due)

        await until_async(all_fired, f"the restarted schedulers to fire all {len(due)} clocks")
    finally:
        for scheduler in racing:
            scheduler.send_signal(signal.SIGKILL)
            scheduler.wait(10)

    def check() -> None:
        for match in matches:
            log = event_log(match)
            assert [version for version, _ in log] == list(range(1, len(log) + 1))
            fired = Deadline.objects.filter(match=match).exclude(fired_at=None).count()
            assert fired == sum(1 for _, kind in log if kind == "turn_skipped")

    await in_db(check)


# --- Redis restarted mid-match -------------------------------------------------------------------

needs_redis_server = pytest.mark.skipif(
    shutil.which("redis-server") is None,
    reason="Redis: no redis-server binary; apt-get install redis-server",
)


class OwnRedis:
    """A redis-server of this test's own, on a free port, that it may kill and start again."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> OwnRedis:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                import socket

                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)


@pytest.mark.redis
@needs_redis_server
async def test_after_a_redis_restart_every_client_is_current_again(make_user, monkeypatch):
    redis = await asyncio.to_thread(OwnRedis().start)
    monkeypatch.setenv("REDIS_URL", redis.url)
    monkeypatch.setenv("CHANNEL_PREFIX", f"faults{os.getpid()}")
    host, ada, bob = await in_db(lambda: [make_user(name) for name in ("hostess", "ada", "bob")])
    match = await in_db(lambda: tally(host, {"turn_seconds": 3600}))
    await in_db(lambda: seat_both(match, ada, bob))
    workers = [Worker(), Worker(scheduler=False)]
    try:
        for worker in workers:
            await asyncio.to_thread(worker.start)
        player = ArenaClient(workers[0].url)
        await asyncio.to_thread(player.login, "ada", PASSWORD)
        watchers = [ArenaClient(w.url).match_socket(match.public_id) for w in workers * 2]
        async with (
            player.match_socket(match.public_id) as ada_ws,
            watchers[0] as first,
            watchers[1] as second,
            watchers[2] as third,
            watchers[3] as fourth,
        ):
            clients = (ada_ws, first, second, third, fourth)
            for client in clients:
                await client.recv_until("full")
            await asyncio.to_thread(redis.kill)
            await asyncio.to_thread(redis.start)  # empty: every group membership is gone
            # The move is acknowledged whatever became of its broadcast.
            version = await ada_ws.act({"type": "add", "amount": 1}, timeout=30)
            for client in clients:
                await keep_current(client, version, timeout=10)
    finally:
        for worker in workers:
            await asyncio.to_thread(worker.stop)
        await asyncio.to_thread(redis.kill)
    log = await in_db(lambda: event_log(match))
    assert log[-1] == (version, "added")
    assert [v for v, _ in log] == list(range(1, version + 1))


# --- an action that beats the scheduler to a due clock -------------------------------------------


async def until_due(match: Match) -> None:
    """Sleep until the match's pending clock is due (no scheduler runs to fire it)."""
    due = await in_db(
        lambda: Deadline.objects.get(match=match, fired_at=None, cancelled=False).due_at
    )
    while (left := (due - timezone.now()).total_seconds()) >= 0:
        await asyncio.sleep(left + 0.05)


async def test_a_clock_an_action_beats_to_it_reaches_every_viewer_though_the_action_is_refused(
    make_user,
):
    host, ada, bob = await in_db(lambda: [make_user(name) for name in ("hostess", "ada", "bob")])
    match = await in_db(lambda: tally(host, {"turn_seconds": 1}))
    await in_db(lambda: seat_both(match, ada, bob))  # v3: ada's 1 s clock runs
    worker = await asyncio.to_thread(Worker(scheduler=False).start)
    try:
        ada_client, bob_client = ArenaClient(worker.url), ArenaClient(worker.url)
        await asyncio.to_thread(ada_client.login, "ada", PASSWORD)
        await asyncio.to_thread(bob_client.login, "bob", PASSWORD)
        async with (
            ada_client.match_socket(match.public_id) as ada_ws,
            bob_client.match_socket(match.public_id) as bob_ws,
            ArenaClient(worker.url).match_socket(match.public_id) as watcher,
        ):
            for socket_ in (ada_ws, bob_ws, watcher):
                assert (await socket_.recv_until("full"))["version"] == 3
            await until_due(match)
            # The worker fires ada's clock itself (v4, turn_skipped), then judges her move
            # against it: she saw version 3.
            with pytest.raises(Refused) as refused:
                await ada_ws.act({"type": "add", "amount": 1})
            assert refused.value.code == "stale_version"
            for socket_ in (watcher, ada_ws, bob_ws):
                await socket_.wait_version(4)
            assert watcher.latest_view()["game"]["turn"] == 1
            # The clock's event went out, and the next event is not held back behind anything
            # (bob's move, or his own clock if it ran out first: either is version 5).
            with contextlib.suppress(Refused):
                await bob_ws.act({"type": "add", "amount": 2})
            await watcher.wait_version(5)
    finally:
        await asyncio.to_thread(worker.stop)
    assert "Traceback" not in worker.log(), worker.log()[-4000:]
    log = await in_db(lambda: event_log(match))
    assert log[3] == (4, "turn_skipped") and log[4][0] == 5
