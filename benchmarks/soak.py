"""`make soak`: the fault scripts at length, with their timings (issue 8). Not part of `make bench`
(no ``run``): ``python -m benchmarks.soak [--rounds N]``; prints a markdown report.

Everything runs on a PostgreSQL cluster and a redis-server this script starts itself (initdb into
a temporary directory with the binaries of /usr/lib/postgresql/*/bin, on free ports), so that it
may kill and restart them without touching the machine's shared servers:

1. a worker killed with SIGKILL mid-turn, N times: the watcher reconnects and resyncs, no version
   skipped or repeated, the turn clock fires once, and how late it fired;
2. Redis killed and started again mid-match: how long until every client (on 2 workers, socket
   kept) holds the new version, and that a clock due after the restart still fires;
3. PostgreSQL stopped mid-match, then started: what a player gets while it is down, that nothing
   is half-written (gap-free versions, every acknowledged action in the log), and how long until
   actions are accepted again with no restart of the workers;
4. the scheduler killed with SIGKILL while deadlines are due, N times: each fires once;
5. a move that beats the scheduler to a due clock, N times: the worker fires the clock itself and
   refuses the move (stale_version); how long until the clock's event reached every watcher on
   two workers, and how soon each later update reaches them after its ack, beside before.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from functools import partial
from typing import Any

from benchmarks import _live
from tests.live_server import in_db


@contextlib.contextmanager
def own_postgres() -> Iterator[tuple[str, Any]]:
    """A throwaway cluster: (its URL, a function that stops or starts it)."""
    from tests.live_server import free_port

    binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]
    data = tempfile.mkdtemp(prefix="soak-pg-")
    port = free_port()
    user = "postgres"
    run_as: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root: use the postgres account
        shutil.chown(data, user)
        run_as = ["runuser", "-u", user, "--"]
    subprocess.run(
        [*run_as, f"{binaries}/initdb", "-D", data, "-U", user, "--auth=trust"],
        check=True,
        capture_output=True,
    )

    def control(action: str) -> None:
        options = f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off"
        subprocess.run(
            [*run_as, f"{binaries}/pg_ctl", "-D", data, "-o", options, "-w", "-m", "fast"]
            + ["-l", f"{data}/log", action],
            check=True,
            capture_output=True,
        )

    control("start")
    try:
        yield f"postgres://{user}@127.0.0.1:{port}", control
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            control("stop")
        shutil.rmtree(data, ignore_errors=True)


class OwnRedis:
    def __init__(self) -> None:
        from tests.live_server import free_port

        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> OwnRedis:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        _live.wait_for_port(self.port)
        return self

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)


def make_match(tag: str, turn_seconds: float, seated: bool = True) -> tuple[Any, list[str]]:
    from django.contrib.auth import get_user_model

    from games.core.match import seating

    users = get_user_model().objects
    host = users.create_user(f"{tag}-host", password=_live.PASSWORD)
    names = [f"{tag}-a", f"{tag}-b"]
    players = [users.create_user(name, password=_live.PASSWORD) for name in names]
    match = seating.create_match(
        host=host,
        game_key="fixture-tally",
        title=tag,
        settings={"turn_seconds": turn_seconds, "target": 10**6},
        roles=["EC", "DMO"],
    )
    if seated:
        seat_players(match, players)
    return match, names


def seat_players(match: Any, players: list[Any]) -> None:
    from games.core.match import seating

    for seat, user in zip(match.seats.order_by("index"), players, strict=True):
        seating.take_seat(match, user, seat.invite_token)


def log_of(match: Any) -> list[tuple[int, str]]:
    from games.core.models import Event

    return list(
        Event.objects.filter(match=match).order_by("version").values_list("version", "kind")
    )


def gap_free(frames: list[dict[str, Any]]) -> bool:
    versions = [f["version"] for f in frames if f.get("type") == "update"]
    return versions == sorted(set(versions))


async def worker_kills(rounds: int) -> list[str]:
    from django.contrib.auth import get_user_model

    from games.core.live.client import ArenaClient
    from games.core.models import Deadline
    from tests.live_server import Worker

    lines = []
    worker = await asyncio.to_thread(Worker().start)
    try:
        for index in range(rounds):
            match, names = await in_db(partial(make_match, f"kill{index}", 3, False))
            async with ArenaClient(worker.url).match_socket(match.public_id) as watcher:
                await watcher.recv_until("full")
                users = await in_db(
                    lambda names=names: list(get_user_model().objects.filter(username__in=names))
                )
                await in_db(partial(seat_players, match, users))
                await asyncio.to_thread(worker.restart)
                while True:
                    frame = await watcher.recv(timeout=60)
                    if frame.get("type") == "update" and frame["event"]["kind"] == "turn_skipped":
                        break
            rows = await in_db(
                lambda match=match: list(
                    Deadline.objects.filter(match=match)
                    .exclude(fired_at=None)
                    .values_list("due_at", "fired_at")
                )
            )
            log = await in_db(partial(log_of, match))
            skipped = sum(1 for _, kind in log if kind == "turn_skipped")
            late = (rows[0][1] - rows[0][0]).total_seconds()
            lines.append(
                f"| worker kill {index + 1} | reconnects {watcher.reconnects}, "
                f"gap-free {gap_free(watcher.frames)}, clocks fired {len(rows)} = events "
                f"{skipped}, first fired {late * 1000:.0f} ms after due |"
            )
    finally:
        await asyncio.to_thread(worker.stop)
    return lines


async def redis_restart() -> list[str]:
    from django.contrib.auth import get_user_model

    from games.core.live.client import ArenaClient
    from tests.live_server import Worker

    redis = await asyncio.to_thread(OwnRedis().start)
    os.environ["REDIS_URL"] = f"redis://127.0.0.1:{redis.port}/0"
    match, names = await in_db(partial(make_match, "redis", 3600))
    workers = [Worker(), Worker(scheduler=False)]
    try:
        for worker in workers:
            await asyncio.to_thread(worker.start)
        player = ArenaClient(workers[0].url)
        await asyncio.to_thread(player.login, names[0], _live.PASSWORD)
        sockets = [player.match_socket(match.public_id)] + [
            ArenaClient(workers[i % 2].url).match_socket(match.public_id) for i in range(6)
        ]
        for socket_ in sockets:
            await socket_.__aenter__()
            await socket_.recv_until("full")
        await asyncio.to_thread(redis.kill)
        await asyncio.to_thread(redis.start)
        version = await sockets[0].act({"type": "add", "amount": 1}, timeout=30)
        acked = time.monotonic()
        times = await asyncio.gather(*(until_current(s, version, acked) for s in sockets))
        for socket_ in sockets:
            await socket_.__aexit__(None, None, None)
        # A clock set after the restart fires, and its frame reaches a watcher on the other worker.
        clock_match, clock_names = await in_db(partial(make_match, "redis-clock", 2, False))
        async with ArenaClient(workers[1].url).match_socket(clock_match.public_id) as watcher:
            await watcher.recv_until("full")
            users = await in_db(
                lambda: list(get_user_model().objects.filter(username__in=clock_names))
            )
            await in_db(partial(seat_players, clock_match, users))
            while True:
                frame = await watcher.recv(timeout=30)
                if frame.get("type") == "update" and frame["event"]["kind"] == "turn_skipped":
                    break
    finally:
        for worker in workers:
            await asyncio.to_thread(worker.stop)
        redis.kill()
        os.environ["REDIS_URL"] = _live.REDIS_URL
    worst = max(times)
    return [
        f"| Redis killed and restarted | {len(sockets)} sockets on 2 workers kept open; every "
        f"one held the next version {worst:.1f} s after its ack at worst "
        f"(median {sorted(times)[len(times) // 2]:.1f} s; target 10 s); a 2 s turn clock "
        "set after the restart fired and its frame reached a watcher |"
    ]


async def until_current(socket_: Any, version: int, since: float) -> float:
    """Read (pinging each second, as the page pings every 10 s) until ``version`` is held."""
    while socket_.version < version:
        await socket_.send({"type": "ping"})
        try:
            frame = await socket_.recv(timeout=1.0)
        except TimeoutError:
            continue
        if frame.get("type") == "pong" and frame.get("version", 0) > socket_.version:
            await socket_.resync(socket_.version)
    return time.monotonic() - since


async def postgres_restart(control: Any) -> list[str]:
    from games.core.live.client import ArenaClient
    from tests.live_server import Worker

    match, names = await in_db(partial(make_match, "pg", 3600))
    worker = await asyncio.to_thread(Worker().start)
    seen: list[str] = []
    acknowledged: list[int] = []
    try:
        player = ArenaClient(worker.url)
        await asyncio.to_thread(player.login, names[0], _live.PASSWORD)
        other = ArenaClient(worker.url)
        await asyncio.to_thread(other.login, names[1], _live.PASSWORD)
        async with (
            player.match_socket(match.public_id) as first,
            other.match_socket(match.public_id) as second,
        ):
            await first.recv_until("full")
            await second.recv_until("full")
            acknowledged.append(await first.act({"type": "add", "amount": 1}))
            await second.wait_version(acknowledged[-1])
            await asyncio.to_thread(control, "stop")
            try:
                step = second.act({"type": "add", "amount": 1}, timeout=10)
                acknowledged.append(await asyncio.wait_for(step, 20))
                seen.append("acknowledged while down?!")
            except Exception as refusal:  # what a player sees: the point of this step
                seen.append(f"{type(refusal).__name__}: {str(refusal)[:120]}")
            await asyncio.to_thread(control, "start")
            started = time.monotonic()
            back = None
            while time.monotonic() - started < 60:
                try:
                    # Whoever is to move now (the action sent while the database was down may
                    # have been applied once it came back), against the newest version seen.
                    view = max((first, second), key=lambda s: s.version).latest_view()
                    mover = (first, second)[view["game"]["turn"]]
                    step = mover.act({"type": "add", "amount": 1}, timeout=5)
                    acknowledged.append(await asyncio.wait_for(step, 10))
                    back = time.monotonic() - started
                    break
                except Exception as refusal:
                    seen.append(f"after restart: {type(refusal).__name__}: {str(refusal)[:80]}")
                    await asyncio.sleep(1)
    finally:
        await asyncio.to_thread(worker.stop)
    log = await in_db(partial(log_of, match))
    versions = [v for v, _ in log]
    whole = versions == list(range(1, len(versions) + 1)) and set(acknowledged) <= set(versions)
    came_back = f"{back:.1f} s after the start" if back is not None else "not within 60 s"
    return [
        f"| PostgreSQL stopped mid-match | while down the player got: {seen[0]} |",
        f"| PostgreSQL started again | an action was accepted {came_back} (no worker "
        f"restarted); log gap-free with every ack in it: {whole}; "
        f"{len(seen) - 1} failed tries before ({'; '.join(seen[1:3])}) |",
    ]


async def scheduler_kills(rounds: int) -> list[str]:
    from games.core.models import Deadline, Event
    from tests.live_server import ROOT, worker_environment

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "manage.py", "run_scheduler"],
            cwd=ROOT,
            env=worker_environment(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    lines = []
    for index in range(rounds):
        matches = []
        for number in range(10):
            match, _ = await in_db(partial(make_match, f"sch{index}-{number}", 1))
            matches.append(match)
        due = await in_db(
            lambda matches=matches: list(
                Deadline.objects.filter(match__in=matches).values_list("pk", flat=True)
            )
        )

        def fired(due: list[int] = due) -> int:
            return Deadline.objects.filter(pk__in=due).exclude(fired_at=None).count()

        await asyncio.sleep(1.5)
        first = start()
        while await in_db(fired) == 0:
            await asyncio.sleep(0.01)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        racing = [start(), start()]
        while await in_db(fired) < len(due):
            await asyncio.sleep(0.05)
        for process in racing:
            process.send_signal(signal.SIGKILL)
            process.wait(10)

        def tally(matches: list[Any] = matches) -> tuple[int, int]:
            fired_rows = Deadline.objects.filter(match__in=matches).exclude(fired_at=None).count()
            events = Event.objects.filter(match__in=matches, kind="turn_skipped").count()
            return fired_rows, events

        rows, events = await in_db(tally)
        lines.append(
            f"| scheduler kill {index + 1} | {len(due)} due; fired {rows} deadlines, "
            f"{events} events (each fired once: {rows == events}) |"
        )
    return lines


class Arrivals:
    """Reads a watcher's socket on and notes when each version arrived (monotonic seconds)."""

    def __init__(self, socket_: Any) -> None:
        self.socket = socket_
        self.at: dict[int, float] = {}
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            try:
                await self.socket.recv(timeout=60)
            except TimeoutError:
                continue
            self.at.setdefault(self.socket.version, time.monotonic())

    def held_at(self, version: int) -> float | None:
        """When the watcher first held ``version`` or a later one (a full frame skips some)."""
        return min((at for held, at in self.at.items() if held >= version), default=None)


async def all_arrived(watchers: list[Arrivals], version: int, timeout: float) -> list[float]:
    """When each watcher held ``version``; raises TimeoutError past ``timeout``."""
    deadline = time.monotonic() + timeout
    while (times := [w.held_at(version) for w in watchers]).count(None):
        if time.monotonic() > deadline:
            raise TimeoutError(f"v{version} reached {len(watchers) - times.count(None)} watchers")
        await asyncio.sleep(0.005)
    return [at for at in times if at is not None]


async def moves(
    players: list[Any], turn: int, version: int, count: int, watchers: list[Arrivals]
) -> tuple[int, int, list[float]]:
    """``count`` moves through the players' worker, taking turns; returns the next turn, the
    version reached and each watcher's delay after each ack, in seconds."""
    delays: list[float] = []
    for _ in range(count):
        version = await players[turn].act({"type": "add", "amount": 1}, version=version)
        acked = time.monotonic()
        delays += [at - acked for at in await all_arrived(watchers, version, timeout=30)]
        turn = 1 - turn
    return turn, version, delays


async def reached_after(watchers: list[Arrivals], version: int, since: float) -> float:
    """How long after ``since`` every watcher held ``version`` (infinite: not within 15 s)."""
    try:
        return max(await all_arrived(watchers, version, timeout=15)) - since
    except TimeoutError:
        return float("inf")


def spread(delays: list[float]) -> str:
    p50, p99 = _live.percentile(delays, 0.5), _live.percentile(delays, 0.99)
    return f"p50 {_live.ms(p50)} / p99 {_live.ms(p99)} ms ({len(delays)} deliveries)"


async def open_sockets(workers: list[Any], match: Any, names: list[str]) -> tuple[list, list]:
    """Both players on the first worker; six watchers, three on each worker, read on and on."""
    from games.core.live.client import ArenaClient

    players = []
    for name in names:
        client = ArenaClient(workers[0].url)
        await asyncio.to_thread(client.login, name, _live.PASSWORD)
        players.append(await client.match_socket(match.public_id).__aenter__())
    watchers = []
    for index in range(6):
        watcher = ArenaClient(workers[index % 2].url).match_socket(match.public_id)
        await watcher.__aenter__()
        await watcher.recv_until("full")
        watchers.append(Arrivals(watcher))
    return players, watchers


async def beat_the_clock(players: list[Any], turn: int, version: int) -> tuple[str, float]:
    """The mover waits until its clock is due (no one fires it), then moves on what it saw:
    the move's code (a refusal's) and when its answer came."""
    from games.core.live.client import Refused

    await asyncio.sleep(BEATEN_TURN_SECONDS + 0.2)
    try:
        await players[turn].act({"type": "add", "amount": 1}, version=version)
        code = "accepted"
    except Refused as refused:
        code = refused.code
    return code, time.monotonic()


# Longer than a delivery may take (broadcast.ORDER_WAIT_SECONDS), so that only the clocks the
# script lets run out do.
BEATEN_TURN_SECONDS = 5


async def clock_beaten(rounds: int) -> list[str]:
    from django.contrib.auth import get_user_model

    from tests.live_server import Worker

    match, names = await in_db(partial(make_match, "beaten", BEATEN_TURN_SECONDS, False))
    # No scheduler anywhere: each due clock is met by a move first, as when a move arrives just
    # after a clock ran out, before any scheduler looked.
    workers = [Worker(scheduler=False), Worker(scheduler=False)]
    players: list[Any] = []
    watchers: list[Arrivals] = []
    codes: set[str] = set()
    reached: list[float] = []
    after: list[float] = []
    try:
        for worker in workers:
            await asyncio.to_thread(worker.start)
        players, watchers = await open_sockets(workers, match, names)
        users = await in_db(lambda: list(get_user_model().objects.filter(username__in=names)))
        await in_db(
            partial(seat_players, match, sorted(users, key=lambda u: names.index(u.username)))
        )
        await all_arrived(watchers, 3, timeout=15)  # started: the first mover's clock runs
        turn, version, before = await moves(players, 0, 3, 20, watchers)
        beaten: list[tuple[int, float]] = []  # the clock's version, when the move was refused
        for _ in range(rounds):
            code, answered = await beat_the_clock(players, turn, version)
            codes.add(code)
            version += 1  # the clock's turn_skipped, fired by the worker on the move's way
            beaten.append((version, answered))
            # The game goes on at once (the next mover's clock runs).
            turn, version, delays = await moves(players, 1 - turn, version, 20, watchers)
            after += delays
        reached = [await reached_after(watchers, *clock) for clock in beaten]
    finally:
        for arrivals in watchers:
            arrivals.task.cancel()
        for socket_ in [*players, *(w.socket for w in watchers)]:
            await socket_.__aexit__(None, None, None)
        for worker in workers:
            await asyncio.to_thread(worker.stop)
    log = await in_db(partial(log_of, match))
    skipped = sum(1 for _, kind in log if kind == "turn_skipped")
    shown = ", ".join("not in 15 s" if t == float("inf") else _live.ms(t) for t in reached)
    return [
        f"| clock beaten by a move, {rounds} times | {len(watchers)} watchers on 2 workers, moves "
        f"through worker 1: each move that met its due clock was {', '.join(sorted(codes))}, the "
        f"clock fired {skipped} times, and its event reached every watcher {shown} ms after the "
        "refusal |",
        f"| delivery around it | each update reached the watchers after its ack: before, "
        f"{spread(before)}; after, {spread(after)} |",
    ]


STEPS = ("worker", "redis", "postgres", "scheduler", "clock")


async def soak(rounds: int, control: Any, steps: list[str]) -> str:
    lines = ["## Soak: faults on the production shape", "", "| fault | what happened |"]
    lines.append("| --- | --- |")
    scripts = {
        "worker": lambda: worker_kills(rounds),
        "redis": redis_restart,
        "postgres": lambda: postgres_restart(control),
        "scheduler": lambda: scheduler_kills(rounds),
        "clock": lambda: clock_beaten(rounds),
    }
    for name in steps:
        try:
            found = await asyncio.wait_for(scripts[name](), 600)
        except Exception as failure:  # a fault script that fails is a finding: report it
            found = [f"| {name} | the script failed: {type(failure).__name__} {failure} |"]
        print("\n".join(found), file=sys.stderr, flush=True)
        lines += found
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("steps", nargs="*", help=f"some of {', '.join(STEPS)} (default: all)")
    args = parser.parse_args(argv)
    unknown = set(args.steps) - set(STEPS)
    if unknown:
        parser.error(f"unknown steps {sorted(unknown)}; choose from {', '.join(STEPS)}")
    _live.production_workers()
    with own_postgres() as (url, control):
        _live.POSTGRES_URL = url
        with _live.own_database("soak"):
            print(asyncio.run(soak(args.rounds, control, args.steps or list(STEPS))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
