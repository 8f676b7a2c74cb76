"""How many real-game matches one machine runs at once (issue 39): ``python -m benchmarks.run
matches_ceiling``, or alone ``python -m benchmarks._live matches_ceiling [--quick]``.

The production shape (gemsite/topology.py, as ``make topology`` starts it): nginx in front of two
Daphne workers (``serve --no-scheduler``), one scheduler process, PostgreSQL and Redis, DEBUG
off. N matches are played at once, the real games in turn (every listed game of the registry,
its fewest seats, its default settings and so its real clocks, which the scheduler runs); when
a match ends another of the same game takes its place. Each seat is a signed-in page socket
through nginx, played by the game's own bot from what that socket holds: the bot decides, the
seat thinks 1-3 s (seeded), then acts over the socket, and the ack is timed there. The bots'
own pauses (up to minutes for a Bejeweled DM claim) are not waited for: the bot is asked as at
a later moment, so every seat plays at the human pace above. A bot that reads more than the page
is sent (Pointsweeper's reads each scout's values) decides from its seat's view read from the
database by the load generator: the decision only, the action still goes over the socket. Each
match has 5 spectator page sockets, which answer a version gap as the page does (a resync).

N is raised in steps; each step's figures are taken over a window once its new matches play.
The run stops at the first step whose action-to-ack p99 passes 150 ms or where a frame is lost
(a socket got a later version first, so the page drops it and resyncs, or a client resynced),
or at the time cap. Reported per step: actions/s, ack p50 / p99, the frames lost, each
worker's ping-to-pong (its event loop, and the version read a ping makes) on a socket of its
own, the load generator's own loop lag, and the CPU of each process (per cent of one core):
the workers, the scheduler, nginx, the PostgreSQL backends of this run's database, Redis (shared
with the machine's other users) and the load generator. Then the first resource to saturate
and a model, labelled as one, of what a second machine of workers would add.

The report ends with the ceiling, each step's figures and each game's acks beside the previous
full run's, kept in benchmarks/reports/matches_ceiling.json (benchmarks/_baseline.py); a full
run writes its own there, a quick run leaves them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import multiprocessing
import os
import random
import shutil
import sys
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks import _baseline, _live
from benchmarks._live import ms, percentile
from benchmarks.cast_together import Stream, cpu_seconds, machine_busy, spectator

THINK_SECONDS = (1.0, 3.0)
SPECTATORS = 5
ACK_P99_LIMIT = 0.150
STEPS = (6, 12, 24, 48, 96, 192, 384)
QUICK_STEPS = (6, 12)
WINDOW_SECONDS = 60.0
QUICK_WINDOW_SECONDS = 15.0
TIME_CAP_SECONDS = 30 * 60.0
QUICK_TIME_CAP_SECONDS = 90.0
# A bot is asked as at each of these moments after now until it acts: its own pause is skipped.
LATER_SECONDS = (0, 2, 5, 10, 20, 40, 80, 160, 320)
STALL_SECONDS = 45.0  # a match where no version came for this long is left and replaced
PROBE_SECONDS = 0.5
CONNECT_AT_ONCE = 20
THINKERS = 2  # the bots' processes, one a core
THINKING = "the bots' thinking (players' browsers)"
# The players' browsers are not on a server: here their thinking yields the cores to the server's
# processes and this one's timing loop when both want one (it still takes what is idle).
THINKING_NICENESS = 10
PRESSED = 0.25  # a quarter of the time some task waited for a core: the cores are the limit
PRESSURE = Path("/proc/pressure/cpu")  # Linux's CPU pressure (PSI), where the kernel keeps it
TIMEOUT = 120.0
ENDED = ("finished", "aborted")
BASELINE = _baseline.REPORTS / "matches_ceiling.json"


def run(quick: bool) -> str:
    return _live.in_subprocess("matches_ceiling", quick)


@dataclass
class Step:
    """What happened while ``matches`` matches were played, over ``seconds``."""

    matches: int
    seconds: float = 0.0
    acks: list[float] = field(default_factory=list)
    by_game: dict[str, list[float]] = field(default_factory=dict)  # the acks of each game
    refused: Counter[str] = field(default_factory=Counter)
    unanswered: int = 0
    seat_resyncs: int = 0  # a seat's client saw a gap (or a patch that no longer applied)
    behind: int = 0  # an ack's update late by a second, or a pong ahead: asked, not lost
    spectator_lost: int = 0  # versions a spectator got only after a later one
    spectator_resyncs: int = 0
    spectators_failed: int = 0
    pings: dict[str, list[float]] = field(default_factory=dict)
    lag: list[float] = field(default_factory=list)  # the load generator's loop
    cpu: dict[str, float] = field(default_factory=dict)  # share of one core
    waited: float | None = None  # the share of the window some task waited for a core (PSI)
    finished: int = 0
    stalled: int = 0

    @property
    def rate(self) -> float:
        return len(self.acks) / self.seconds if self.seconds else 0.0

    @property
    def lost(self) -> int:
        return self.seat_resyncs + self.spectator_lost + self.spectator_resyncs

    def broke(self) -> str | None:
        """Why this step did not hold, or None."""
        if percentile(self.acks, 0.99) > ACK_P99_LIMIT:
            return f"ack p99 {ms(percentile(self.acks, 0.99))} ms > {ms(ACK_P99_LIMIT)} ms"
        if self.lost:
            return f"{self.lost} frames lost or resyncs"
        return None


@dataclass
class Run:
    url: str  # nginx
    step: Step
    stopping: bool = False
    streams: list[Stream] = field(default_factory=list)
    from_database: set[str] = field(default_factory=set)
    errors: Counter[str] = field(default_factory=Counter)
    gate: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(CONNECT_AT_ONCE))
    thinkers: Any = None  # the bots' processes (``thinkers``)

    @property
    def ws(self) -> str:
        return self.url.replace("http://", "ws://")


# --- the bots -----------------------------------------------------------------------------------


def bot_decides(key: str, shown: dict[str, Any], seat: int, level: str) -> dict[str, Any] | None:
    """The bot's action on ``shown`` as at the first moment from now it would act."""
    from games.core.game.registry import get_game

    game, now = get_game(key), datetime.now(UTC)
    for later in LATER_SECONDS:
        action = game.bot_action(shown, seat, level, now + timedelta(seconds=later))
        if action is not None:
            return action
    return None


def thinking_ready(keys: list[str]) -> None:
    """A process of the players' thinking: Django set up (the run's environment is inherited),
    the games warmed up."""
    import django

    os.nice(THINKING_NICENESS)
    django.setup()
    warm_up(keys)


def thinkers(keys: list[str]) -> ProcessPoolExecutor:
    """The bots decide in processes of their own. Players think in their own browsers; in a
    thread of this process a bot's search (a Bejeweled DM proof, a Seven Gem Swap plan) held the
    interpreter while this process's event loop timed every socket's ack and frame: at N=24 the
    loop lagged 173-191 ms at p99, and the step's ack p99 (183-271 ms) carried it. They run
    niced (``THINKING_NICENESS``)."""
    return ProcessPoolExecutor(
        max_workers=THINKERS,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=thinking_ready,
        initargs=(keys,),
    )


def seat_view(match_pk: int, seat: int) -> dict[str, Any]:
    from games.core.game.gamedef import Viewer
    from games.core.models import Match

    match = Match.objects.get(pk=match_pk)
    return match.game.view(match.state, Viewer(seat=seat))


async def choose(
    run: Run, game: Any, view: dict[str, Any], match_pk: int, seat: int, level: str
) -> dict[str, Any] | None:
    shown: dict[str, Any] | None = view.get("game")
    if not shown:
        return None
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(run.thinkers, bot_decides, game.key, shown, seat, level)
    except (KeyError, TypeError, IndexError, AttributeError):
        run.from_database.add(game.key)  # the page's view lacks what this bot reads
    shown = await asyncio.to_thread(seat_view, match_pk, seat)
    return await loop.run_in_executor(run.thinkers, bot_decides, game.key, shown, seat, level)


# --- a table: one slot of N, a match of one game after another ------------------------------------


def make_players(slot: int, seats: int) -> list[Any]:
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    return [users.create_user(f"t{slot}s{seat}", password=_live.PASSWORD) for seat in range(seats)]


def make_match(key: str, slot: int, players: list[Any], number: int) -> Any:
    from django.contrib.auth import get_user_model

    from games.core.match import seating
    from tests.registered import seat_roles

    host, _ = get_user_model().objects.get_or_create(username="ceiling-host")
    match = seating.create_match(
        host=host,
        game_key=key,
        title=f"Table {slot} match {number}",
        settings={},
        roles=seat_roles(key, len(players)),
    )
    for seat, user in zip(match.seats.order_by("index"), players, strict=True):
        seating.take_seat(match, user, seat.invite_token)
    match.refresh_from_db()
    return match


async def entered(socket: Any) -> Any:
    for attempt in range(10):  # a loaded worker may fail a handshake: try again
        try:
            return await socket.__aenter__()
        except Exception:
            if attempt == 9:
                raise
            await asyncio.sleep(1.0 + attempt)
    raise AssertionError("unreachable")


def counting(run: Run, socket: Any) -> None:
    """Count a seat client's resyncs and "behind" asks into the step they happen in."""
    asking, behind = socket.resync, socket._behind

    async def resync(since: int) -> None:
        run.step.seat_resyncs += 1
        await asking(since)

    async def asked() -> None:
        run.step.behind += 1
        await behind()

    socket.resync, socket._behind = resync, asked


async def drain(socket: Any) -> None:
    """Read what has already come, so that the view is the newest."""
    with contextlib.suppress(TimeoutError):
        while True:
            await socket.recv(0.01)


async def seat_plays(
    run: Run, game: Any, match_pk: int, socket: Any, seat: int, level: str, rng: random.Random
) -> str:
    """Play ``seat`` until its match ends (or stalls, or the run stops); say which."""
    from games.core.live.client import Refused

    loop = asyncio.get_running_loop()
    moved, held = loop.time(), socket.version
    while not run.stopping:
        if socket.version != held:
            moved, held = loop.time(), socket.version
        view = socket.latest_view()
        if view.get("match", {}).get("status") in ENDED:
            return "finished"
        if loop.time() - moved > STALL_SECONDS:
            return "stalled"
        action = await choose(run, game, view, match_pk, seat, level)
        if action is None:
            with contextlib.suppress(TimeoutError):
                await socket.recv(1.0)
            continue
        await asyncio.sleep(rng.uniform(*THINK_SECONDS))
        await drain(socket)
        view = socket.latest_view()  # the others may have moved meanwhile: decide again
        if view.get("match", {}).get("status") in ENDED:
            continue
        action = await choose(run, game, view, match_pk, seat, level)
        if action is None or run.stopping:
            continue
        step, started = run.step, time.perf_counter()
        try:
            version = await socket.act(action, timeout=TIMEOUT)
        except Refused as refused:
            step.refused[refused.code] += 1
            continue
        except TimeoutError:
            step.unanswered += 1
            continue
        step.acks.append(time.perf_counter() - started)
        step.by_game.setdefault(game.key, []).append(step.acks[-1])
        with contextlib.suppress(TimeoutError):
            await socket.wait_version(version, timeout=5.0)
    return "stopped"


async def play_match(
    run: Run,
    game: Any,
    match: Any,
    clients: list[Any],
    levels: tuple[str, ...],
    rng: Any,
    ready: asyncio.Event,
) -> str:
    """Play ``match`` with its seats' clients and 5 spectators; ``ready`` is set once every
    seat holds its first frame."""
    done = asyncio.Event()
    streams = [Stream(f"{match.public_id} spectator {n}") for n in range(SPECTATORS)]
    run.streams.extend(streams)
    url = f"{run.ws}/ws/m/{match.public_id}/?together=1"  # as the page asks
    watchers = [
        asyncio.create_task(spectator(url, run.url, stream, done, run.gate)) for stream in streams
    ]
    sockets = []
    try:
        for client in clients:
            socket = client.match_socket(match.public_id, json_only=False)
            async with run.gate:
                await entered(socket)
                sockets.append(socket)
                await socket.recv_until("full", timeout=TIMEOUT)
            counting(run, socket)
        ready.set()
        ends = await asyncio.gather(
            *(
                seat_plays(run, game, match.pk, socket, seat, levels[seat], rng)
                for seat, socket in enumerate(sockets)
            )
        )
    finally:
        done.set()
        for outcome in await asyncio.gather(*watchers, return_exceptions=True):
            if isinstance(outcome, BaseException):
                run.step.spectators_failed += 1
        for socket in sockets:
            await socket.__aexit__(None, None, None)
    return "stalled" if "stalled" in ends else ends[0]


async def table(run: Run, slot: int, key: str, ready: asyncio.Event) -> None:
    """Matches of ``key``, one after another, until the run stops."""
    from games.core.game.registry import get_game
    from games.core.live.client import ArenaClient
    from tests.registered import bot_seats

    game, levels = get_game(key), bot_seats(key)
    rng = random.Random(f"ceiling {slot}")
    players = await asyncio.to_thread(make_players, slot, len(levels))
    clients = [ArenaClient(run.url) for _ in players]
    for client, player in zip(clients, players, strict=True):
        async with run.gate:
            await asyncio.to_thread(client.login, player.username, _live.PASSWORD)
    number = 0
    while not run.stopping:
        number += 1
        match = await asyncio.to_thread(make_match, key, slot, players, number)
        try:
            ended = await play_match(run, game, match, clients, levels, rng, ready)
        except Exception as error:  # counted and reported; the table goes on with a new match
            run.errors[f"{key}: {type(error).__name__}: {error}"[:160]] += 1
            await asyncio.sleep(1.0)
            continue
        if ended == "finished":
            run.step.finished += 1
        elif ended == "stalled":
            run.step.stalled += 1


# --- the meters ---------------------------------------------------------------------------------


async def probe(run: Run, name: str, port: int, public_id: str) -> None:
    """A socket straight to one worker that pings it every PROBE_SECONDS."""
    from games.core.live.client import ArenaClient

    client = ArenaClient(f"http://127.0.0.1:{port}")
    socket = client.match_socket(public_id, json_only=False, reconnect=True)
    await entered(socket)
    try:
        await socket.recv_until("full", timeout=TIMEOUT)
        while not run.stopping:
            started = time.perf_counter()
            await socket.send({"type": "ping"})
            with contextlib.suppress(TimeoutError):
                await socket.recv_until("pong", timeout=10)
                run.step.pings.setdefault(name, []).append(time.perf_counter() - started)
            await asyncio.sleep(PROBE_SECONDS)
    finally:
        await socket.__aexit__(None, None, None)


async def lag_meter(run: Run) -> None:
    loop = asyncio.get_running_loop()
    while not run.stopping:
        began = loop.time()
        await asyncio.sleep(0.1)
        run.step.lag.append(loop.time() - began - 0.1)


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def processes_of(
    topology: Any, database: str, redis_port: int, thinking: ProcessPoolExecutor | None = None
) -> dict[str, list[int]]:
    """The pids of each process (or group) measured, found now (PostgreSQL backends come and go)."""
    found: dict[str, list[int]] = {
        name: [process.pid] for name, process in topology.processes.items() if name != "nginx"
    }
    if thinking is not None:  # the processes a pool has started so far
        found[THINKING] = list(getattr(thinking, "_processes", None) or {})
    nginx = topology.processes["nginx"].pid
    found["nginx"] = [nginx, *children(nginx)]
    found["PostgreSQL (this database's backends)"] = []
    found["Redis"] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        line = command_line(int(entry.name))
        if line.startswith("postgres: ") and f" {database} " in line:
            found["PostgreSQL (this database's backends)"].append(int(entry.name))
        elif line.startswith("redis-server") and line.rstrip().endswith(f":{redis_port}"):
            found["Redis"].append(int(entry.name))
    return found


def cpu_of(pids: dict[str, list[int]]) -> dict[str, dict[int, float]]:
    seconds: dict[str, dict[int, float]] = {}
    for name, group in pids.items():
        seconds[name] = {}
        for pid in group:
            with contextlib.suppress(OSError):
                seconds[name][pid] = cpu_seconds(pid)
    return seconds


def cpu_waited() -> float | None:
    """Seconds in all that some runnable task of the machine waited for a core (PSI "some"),
    or None where the kernel does not say."""
    try:
        some = PRESSURE.read_text().splitlines()[0]
    except (OSError, IndexError):
        return None
    return int(some.rsplit("total=", 1)[1]) / 1e6


@dataclass
class Meter:
    """The CPU of each process over a window (a share of one core)."""

    find: Callable[[], dict[str, list[int]]]
    before: dict[str, dict[int, float]] = field(default_factory=dict)
    own: Any = None
    machine: tuple[float, float] = (0.0, 0.0)
    clock: float = 0.0
    pressure: float | None = None
    waited: float | None = None  # of the last window, once stopped

    def start(self) -> None:
        self.before = cpu_of(self.find())
        self.own, self.machine, self.clock = os.times(), machine_busy(), time.monotonic()
        self.pressure = cpu_waited()

    def stop(self) -> dict[str, float]:
        after = cpu_of(self.find())
        wall = time.monotonic() - self.clock
        waited = cpu_waited()
        self.waited = (
            None if waited is None or self.pressure is None else (waited - self.pressure) / wall
        )
        shares = {
            name: sum(at - self.before.get(name, {}).get(pid, 0.0) for pid, at in group.items())
            / wall
            for name, group in after.items()
        }
        own = os.times()
        spent = own.user + own.system - self.own.user - self.own.system
        shares["load generator (this process)"] = spent / wall
        busy, total = machine_busy()
        shares["whole machine (every user)"] = (
            (os.cpu_count() or 1) * (busy - self.machine[0]) / max(1, total - self.machine[1])
        )
        return shares


# --- the run ------------------------------------------------------------------------------------


def make_probe_match() -> Any:
    """A match nobody plays (its seats open), for the probes' sockets."""
    from django.contrib.auth import get_user_model

    from games.core.game.registry import get_game
    from games.core.match import seating
    from tests.registered import real_games, seat_roles

    host, _ = get_user_model().objects.get_or_create(username="ceiling-host")
    key = real_games()[0]
    roles = seat_roles(key, get_game(key).min_seats)
    return seating.create_match(host=host, game_key=key, title="Probe", settings={}, roles=roles)


def warm_up(keys: list[str]) -> None:
    from games.core.game.registry import get_game

    for key in keys:
        get_game(key).warm_up()


async def measure(quick: bool, database: str) -> str:
    from django.db import connections

    from gemsite.topology import Topology
    from tests import live_server
    from tests.registered import real_games

    steps = QUICK_STEPS if quick else STEPS
    window = QUICK_WINDOW_SECONDS if quick else WINDOW_SECONDS
    cap = QUICK_TIME_CAP_SECONDS if quick else TIME_CAP_SECONDS
    keys = real_games()
    await asyncio.to_thread(warm_up, keys)
    redis_port = urllib.parse.urlsplit(_live.REDIS_URL).port or 6379
    env = live_server.worker_environment()
    # The production defaults (gemsite/env.py, gemsite/settings.py), not the test workers'.
    env.update(DB_POOL_SIZE="20", SCHEDULER_POLL_SECONDS="0.5")
    topology = Topology(workers=2, env=env)
    await asyncio.to_thread(topology.start)
    run = Run(topology.url, Step(0), thinkers=thinkers(keys))
    meter = Meter(lambda: processes_of(topology, database, redis_port, run.thinkers))
    results: list[Step] = []
    stopped_by = "the last step"
    load_before = os.getloadavg()
    began = time.monotonic()
    tables: list[asyncio.Task[None]] = []
    meters: list[asyncio.Task[None]] = []
    try:
        probe_match = await asyncio.to_thread(make_probe_match)
        meters.append(asyncio.create_task(lag_meter(run)))
        for index, port in enumerate(topology.worker_ports, start=1):
            meters.append(
                asyncio.create_task(probe(run, f"worker-{index}", port, probe_match.public_id))
            )
        for count in steps:
            if time.monotonic() - began > cap:
                stopped_by = f"the time cap ({cap / 60:.0f} min)"
                break
            run.step = Step(count)  # the ramp: new tables log in and sit down, not measured
            readies = []
            for slot in range(len(tables), count):
                ready = asyncio.Event()
                readies.append(ready)
                tables.append(asyncio.create_task(table(run, slot, keys[slot % len(keys)], ready)))
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), TIMEOUT)
            await asyncio.sleep(3.0)  # the new matches' spectators open their sockets too
            step = Step(count)
            lost_before = sum(len(s.lost()) for s in run.streams)
            resyncs_before = sum(s.resyncs for s in run.streams)
            meter.start()
            run.step = step
            with _live.collector_paused():  # collected in the ramp, between the windows
                await asyncio.sleep(window)
            step.seconds = window
            step.cpu = meter.stop()
            step.waited = meter.waited
            run.step = Step(count)
            step.spectator_lost = sum(len(s.lost()) for s in run.streams) - lost_before
            step.spectator_resyncs = sum(s.resyncs for s in run.streams) - resyncs_before
            results.append(step)
            print(f"N={count}: {summary(step)}", file=sys.stderr, flush=True)
            broke = step.broke()
            if broke and not stopped_by.startswith("N="):
                stopped_by = f"N={count}: {broke}"
                if quick:  # a quick run is a smoke run: it plays both its steps
                    stopped_by += " (a quick run plays both its steps)"
                else:
                    break
    finally:
        run.stopping = True
        pending = [*tables, *meters]
        _, late = await asyncio.wait(pending, timeout=60) if pending else (set(), set())
        for task in late:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        logs = "".join(topology.log(name) for name in topology.processes)
        await asyncio.to_thread(topology.stop)
        run.thinkers.shutdown(cancel_futures=True)
        shutil.rmtree(topology.workdir, ignore_errors=True)  # its logs are read above
        await asyncio.to_thread(connections.close_all)
    load_after = os.getloadavg()
    return "\n\n".join(
        [
            report(results, stopped_by, run, logs, (load_before[0], load_after[0])),
            beside_previous(results, stopped_by, full=not quick),
        ]
    )


def summary(step: Step) -> str:
    return (
        f"{step.rate:.1f} actions/s, ack p50/p99 {ms(percentile(step.acks, 0.5))}/"
        f"{ms(percentile(step.acks, 0.99))} ms, lost {step.lost}, "
        + ", ".join(f"{name} {100 * share:.0f}%" for name, share in step.cpu.items())
        + f", waited for a core {waited(step)}"
    )


def waited(step: Step) -> str:
    return "-" if step.waited is None else f"{100 * step.waited:.0f}%"


# --- the report ---------------------------------------------------------------------------------

SINGLE = ("worker-1", "worker-2", "scheduler", "Redis")  # one event loop or thread each


def saturated(step: Step) -> str:
    """The first resource to saturate at ``step``, named with its figures."""
    cores = os.cpu_count() or 1
    machine = step.cpu.get("whole machine (every user)", 0.0)
    single = {name: step.cpu.get(name, 0.0) for name in SINGLE}
    busiest = max(single, key=single.__getitem__)
    pings = [p for values in step.pings.values() for p in values]
    ping99 = percentile(pings, 0.99)
    others = {
        name: share
        for name, share in step.cpu.items()
        if name not in ("whole machine (every user)", THINKING) and not name.startswith("load")
    }
    top = max(others, key=others.__getitem__) if others else "?"
    if single[busiest] >= 0.85:
        return (
            f"{busiest}'s CPU: {100 * single[busiest]:.0f}% of the one core it can use "
            f"(the machine at {100 * machine:.0f}% of {cores} cores)"
        )
    if step.waited is not None and step.waited >= PRESSED:
        return (
            f"the machine's {cores} cores: some runnable task waited for one "
            f"{100 * step.waited:.0f}% of the window (the kernel's CPU pressure), though they "
            f"were {100 * machine:.0f}% of {100 * cores}% busy on average (the most by {top}, "
            f"{100 * others.get(top, 0.0):.0f}%; the bots' thinking "
            f"{100 * step.cpu.get(THINKING, 0.0):.0f}%, niced)"
        )
    if machine >= 0.9 * cores:
        generator = step.cpu.get("load generator (this process)", 0.0)
        own = sum(others.values()) + generator
        return (
            f"the machine's {cores} cores: {100 * machine:.0f}% of {100 * cores}% busy, "
            f"{100 * own:.0f}% by this run's processes (the most by {top}, "
            f"{100 * others.get(top, 0.0):.0f}%; the load generator {100 * generator:.0f}%), "
            f"the rest by the machine's other work"
        )
    if ping99 > ACK_P99_LIMIT / 2:
        return f"the workers' event loops: ping-to-pong p99 {ms(ping99)} ms"
    return (
        f"none yet: the busiest process {top} at {100 * others.get(top, 0.0):.0f}% of a core, "
        f"the machine at {100 * machine:.0f}% of {100 * cores}%"
    )


def per_action(step: Step) -> dict[str, float]:
    """CPU seconds per acknowledged action of each process group, at ``step``."""
    actions = max(1, len(step.acks))
    groups = {
        "workers": ("worker-1", "worker-2"),
        "scheduler": ("scheduler",),
        "nginx": ("nginx",),
        "PostgreSQL": ("PostgreSQL (this database's backends)",),
        "Redis": ("Redis",),
    }
    return {
        name: sum(step.cpu.get(member, 0.0) for member in members) * step.seconds / actions
        for name, members in groups.items()
    }


def model(step: Step) -> list[str]:
    """What a second machine of workers would add, from ``step``'s CPU per action: a model."""
    cost = per_action(step)
    if not step.acks or not step.matches:
        return ["No action was acknowledged: no model."]
    per_match = step.rate / step.matches  # actions/s one match makes at this pace
    everything = sum(cost.values())
    back = cost["PostgreSQL"] + cost["Redis"] + cost["scheduler"] + cost["nginx"]
    cores = 2.0
    one = min(cores / everything, 1 / max(cost["Redis"], 1e-9), 2 / max(cost["workers"], 1e-9))
    apart = min(
        cores / max(cost["workers"], 1e-9),  # machine B: the two workers, a core each
        cores / max(back, 1e-9),  # machine A: PostgreSQL, Redis, the scheduler, nginx
        1 / max(cost["Redis"], 1e-9),  # Redis: one thread
    )
    four = min(
        2 * cores / everything,  # two workers on each machine
        1 / max(cost["Redis"], 1e-9),
    )

    def row(shape: str, rate: float) -> str:
        return (
            f"| {shape} | {rate:.0f} | {rate / per_match:.0f} | "
            f"{rate / one:.2f} | {step.matches * rate / one:.0f} |"
        )

    return [
        f"**A model, not a measurement.** From the CPU each process spent per acknowledged "
        f"action at N={step.matches} ({len(step.acks)} actions, {step.rate:.1f}/s, "
        f"{per_match:.2f} actions/s per match at this pace): workers {1000 * cost['workers']:.1f} "
        f"ms, PostgreSQL {1000 * cost['PostgreSQL']:.1f} ms, Redis {1000 * cost['Redis']:.1f} ms, "
        f"the scheduler {1000 * cost['scheduler']:.1f} ms, nginx {1000 * cost['nginx']:.1f} ms "
        f"({1000 * everything:.1f} ms of CPU in all, the load generator left out: players' "
        "browsers are elsewhere). Assumed: the cost per action stays as measured, a core "
        "can be used to 100%, Redis and each worker use one core each, the network between "
        "machines costs nothing. The ack's p99 passes 150 ms before the cores are full, so the "
        "last column scales the N measured here by each shape's ratio instead.",
        "",
        "| shape | actions/s at 100% CPU | matches at this pace | ratio | N scaled |",
        "| --- | --: | --: | --: | --: |",
        row("one 2-core machine (this run's shape)", one),
        row(
            "+ a 2-core machine holding both workers (PostgreSQL, Redis, scheduler, nginx "
            "on the first)",
            apart,
        ),
        row(
            "+ a 2-core machine with two more workers (four workers, the backing services "
            "on the first)",
            four,
        ),
    ]


def report(
    steps: list[Step], stopped_by: str, run: Run, logs: str, load: tuple[float, float]
) -> str:
    held = list(itertools.takewhile(lambda step: step.broke() is None, steps))
    last = steps[-1] if steps else None
    names = list(last.cpu) if last else []
    workers = sorted({name for step in steps for name in step.pings})
    lines = [
        "## Many matches ceiling: real games by bots at human pace on the production shape "
        "(issue 39)",
        "",
        f"nginx, two Daphne workers, a scheduler, PostgreSQL and Redis on one machine "
        f"({os.cpu_count()} cores, shared with the load generator; load average "
        f"{load[0]:.1f} before, {load[1]:.1f} after). Matches of every listed game in turn, "
        f"{SPECTATORS} spectator page sockets each; each seat thinks "
        f"{THINK_SECONDS[0]:.0f}-{THINK_SECONDS[1]:.0f} s, then acts over its page socket. "
        f"A step holds while the ack's p99 is within {ms(ACK_P99_LIMIT)} ms and no frame is "
        f"lost. Stopped by {stopped_by}.",
        "",
        f"**N = {held[-1].matches if held else 0}** matches held (the last step that did).",
        "",
        "| N | actions/s | ack p50 / p99 ms | frames lost (seat resyncs, spectator versions "
        "lost, spectator resyncs) | behind asks | refused / unanswered | "
        + " | ".join(f"{name} ping p50 / p99 ms" for name in workers)
        + " | load generator lag p99 ms | matches ended / stalled |",
        "| --: | --: | --: | --: | --: | --: | "
        + " | ".join("--:" for _ in workers)
        + " | --: | --: |",
    ]
    for step in steps:
        refused = sum(step.refused.values())
        pings = " | ".join(
            f"{ms(percentile(step.pings.get(name, []), 0.5))} / "
            f"{ms(percentile(step.pings.get(name, []), 0.99))}"
            for name in workers
        )
        lines.append(
            f"| {step.matches} | {step.rate:.1f} | {ms(percentile(step.acks, 0.5))} / "
            f"{ms(percentile(step.acks, 0.99))} | {step.lost} ({step.seat_resyncs}, "
            f"{step.spectator_lost}, {step.spectator_resyncs}) | {step.behind} | "
            f"{refused} / {step.unanswered} | {pings} | {ms(percentile(step.lag, 0.99))} | "
            f"{step.finished} / {step.stalled} |"
        )
    lines += [
        "",
        "CPU, per cent of one core over each step's window (Redis serves the machine's other "
        "users too; PostgreSQL's shared background processes are left out):",
        "",
        "| process | " + " | ".join(f"N={step.matches}" for step in steps) + " |",
        "| --- | " + " | ".join("--:" for _ in steps) + " |",
        *(
            f"| {name} | "
            + " | ".join(f"{100 * step.cpu.get(name, 0.0):.0f}" for step in steps)
            + " |"
            for name in names
        ),
        "| some task waiting for a core (the kernel's CPU pressure), % of the window | "
        + " | ".join(waited(step) for step in steps)
        + " |",
        "",
    ]
    if last is not None:
        lines += [
            f"Each game's acks at N={last.matches}:",
            "",
            "| game | actions | ack p50 / p99 ms |",
            "| --- | --: | --: |",
            *(
                f"| {key} | {len(acks)} | {ms(percentile(acks, 0.5))} / "
                f"{ms(percentile(acks, 0.99))} |"
                for key, acks in sorted(last.by_game.items())
            ),
            "",
        ]
        lines += [f"First resource to saturate (at N={last.matches}): {saturated(last)}.", ""]
        lines += model(held[-1] if held else last)
        lines.append("")
    refused = Counter[str]()
    for step in steps:
        refused.update(step.refused)
    notes = [
        "refusals by code: "
        + (", ".join(f"{code} {n}" for code, n in sorted(refused.items())) or "none"),
        "bots that decided from their seat's view read from the database (the page's lacks "
        "what they read): " + (", ".join(sorted(run.from_database)) or "none"),
        f"spectator sockets that failed: {sum(step.spectators_failed for step in steps)}",
        f"tracebacks in the processes' logs: {logs.count('Traceback')}",
    ]
    if run.errors:
        notes.append(
            "tables' errors: " + "; ".join(f"{text} ({n})" for text, n in run.errors.items())
        )
    lines.append("Notes: " + "; ".join(notes) + ".")
    return "\n".join(lines)


# --- beside the previous full run ----------------------------------------------------------------

CEILING = "ceiling"
# Each process group's CPU per acknowledged action at the last step that held (the model's).
PER_ACTION = {
    "workers": "workers_cpu_ms",
    "PostgreSQL": "postgresql_cpu_ms",
    "Redis": "redis_cpu_ms",
    "scheduler": "scheduler_cpu_ms",
    "nginx": "nginx_cpu_ms",
}
CEILING_COLUMNS = (
    ("N", "N held", 0),
    ("workers_cpu_ms", "workers' CPU per action at N, ms", 1),
    ("postgresql_cpu_ms", "PostgreSQL's", 1),
    ("redis_cpu_ms", "Redis's", 1),
    ("scheduler_cpu_ms", "the scheduler's", 1),
    ("nginx_cpu_ms", "nginx's", 1),
)
STEP_COLUMNS = (
    ("actions_s", "actions/s", 1),
    ("ack_p50_ms", "ack p50 ms", 0),
    ("ack_p99_ms", "ack p99 ms", 0),
    ("lost", "frames lost", 0),
    ("workers_cpu_pct", "workers' CPU, % of a core", 0),
    ("lag_p99_ms", "load generator lag p99 ms", 0),
)
GAME_COLUMNS = (
    ("actions", "actions", 0),
    ("ack_p50_ms", "ack p50 ms", 0),
    ("ack_p99_ms", "ack p99 ms", 0),
)


def _step_row(matches: int) -> str:
    return f"N={matches}"


def _numbers(figures: dict[str, float]) -> dict[str, float]:
    return {name: value for name, value in figures.items() if not math.isnan(value)}


def headline(steps: list[Step]) -> dict[str, dict[str, float]]:
    """The figures kept for the next run: the ceiling N with the CPU per action of each process
    group there, each step's acks, losses and workers' CPU, and each game's acks at the last step
    (rows ``ceiling``, ``N=<n>`` and the games' keys)."""
    held = list(itertools.takewhile(lambda step: step.broke() is None, steps))
    ceiling = {"N": float(held[-1].matches if held else 0)}
    if held and held[-1].acks:
        cost = per_action(held[-1])
        ceiling.update({PER_ACTION[name]: 1000 * cost[name] for name in PER_ACTION})
    figures = {CEILING: ceiling}
    for step in steps:
        figures[_step_row(step.matches)] = _numbers(
            {
                "actions_s": step.rate,
                "ack_p50_ms": 1000 * percentile(step.acks, 0.5),
                "ack_p99_ms": 1000 * percentile(step.acks, 0.99),
                "lost": float(step.lost),
                "workers_cpu_pct": 100
                * sum(share for name, share in step.cpu.items() if name.startswith("worker-")),
                "lag_p99_ms": 1000 * percentile(step.lag, 0.99),
            }
        )
    if steps:
        for key, acks in sorted(steps[-1].by_game.items()):
            figures[key] = _numbers(
                {
                    "actions": float(len(acks)),
                    "ack_p50_ms": 1000 * percentile(acks, 0.5),
                    "ack_p99_ms": 1000 * percentile(acks, 0.99),
                }
            )
    return figures


def compared(
    figures: dict[str, dict[str, float]], previous: _baseline.Previous, games_at: int, kept: bool
) -> str:
    """The ceiling, the steps and the games' acks beside the previous full run's."""

    def is_step(row: str) -> bool:
        return row.startswith("N=")

    def is_game(row: str) -> bool:
        return row != CEILING and not is_step(row)

    if previous.figures:
        said = (
            "The ceiling beside the previous full run's: now (previous, change). "
            f"The previous: {previous.said}."
        )
    else:
        said = f"The ceiling: {previous.said}."
    before = previous.facts.get("games_at")
    games_before = f", the previous at N={before}" if before and before != games_at else ""
    if kept:
        after = f"This run's figures are kept in {BASELINE.name} for the next run."
    else:
        after = f"A quick run: {BASELINE.name} is left as it was."
    return "\n".join(
        [
            said,
            "",
            *_baseline.table(
                "",
                CEILING_COLUMNS,
                {CEILING: figures[CEILING]},
                previous.part(lambda row: row == CEILING),
            ),
            "",
            *_baseline.table(
                "step",
                STEP_COLUMNS,
                {row: values for row, values in figures.items() if is_step(row)},
                previous.part(is_step),
            ),
            "",
            f"Each game's acks at the last step (N={games_at}{games_before}):",
            "",
            *_baseline.table(
                "game",
                GAME_COLUMNS,
                {row: values for row, values in figures.items() if is_game(row)},
                previous.part(is_game),
            ),
            "",
            after,
        ]
    )


def beside_previous(steps: list[Step], stopped_by: str, full: bool) -> str:
    """The ceiling beside the previous full run's; a ``full`` run's figures are then kept in
    BASELINE, a quick run's are not."""
    previous = _baseline.read(BASELINE)
    figures = headline(steps)
    games_at = steps[-1].matches if steps else 0
    if full:
        _baseline.write(
            BASELINE,
            "matches_ceiling",
            figures,
            how="python -m benchmarks.run matches_ceiling",
            stopped_by=stopped_by,
            games_at=games_at,
        )
    return compared(figures, previous, games_at, kept=full)


def main(quick: bool) -> str:
    _live.production_workers()
    with _live.own_database("ceiling") as url:
        database = urllib.parse.urlsplit(url).path.lstrip("/")
        return asyncio.run(measure(quick, database))


if __name__ == "__main__":
    raise SystemExit(_live.main(["matches_ceiling", *sys.argv[1:]]))
