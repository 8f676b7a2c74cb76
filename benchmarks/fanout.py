"""Spectator fan-out with the real games (issues 8 and 20): PostgreSQL + Redis + Daphne workers.

Spectators hold page websockets (html frames, as the browser gets them) to a live match of a
real game whose seats are played by their game's bots over the seats' own sockets, as players
would: a Pointsweeper match (the whole match, ending late in its third board, where frames are
largest), Seven Gem Swap rounds of 7 seats, a death match. For each version: the time from the
action being sent (or, for a clock fired or an analysis recorded in this process as the
scheduler would, from its event's time) to each spectator receiving its update frame.

The floor, measured in the same run with the same number of websockets on as many processes: a
bare Channels consumer (benchmarks/_floor_app.py) in one group, forwarding frames of the same
sizes, in the same order, that this process group_sends through the same layer (pubsub, the
site's default). Beside delivery: every garbage collection in each worker and floor process
(GC_PAUSE_LOG, read by ``manage.py serve`` at startup: the pause of each) and the worker's
memory (RSS) when it starts, once the spectators are in and at the end.

``FANOUT_TOPOLOGY=1`` runs the late Pointsweeper case through nginx in front of two workers and a
scheduler (gemsite/topology.py, ``make topology``) instead of straight to the workers;
``FANOUT_SPECTATORS`` sets how many watch through nginx; ``FANOUT_CASES=0,3`` runs only those
cases; ``FANOUT_FLOOR=lean`` gives the floor's consumer the site's dispatch (no hop to the
database thread before each message, games/core/live/consumers.py); the workers take
GC_GEN0_THRESHOLD and GIL_SWITCH_MICROSECONDS from the environment, to compare settings.

Targets (issue 20): p99 within 1.3x the floor for every game, no collection pause over 100 ms in
a worker during the run. The load generator shares the machine's cores with the workers, Redis
and PostgreSQL (and, here, with other sessions' work: the load average is reported).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from benchmarks import _live
from benchmarks._live import ms, percentile

LAYER = "pubsub"
# Daphne rejects a handshake the consumer has not accepted within 5 s (websocket_connect_timeout),
# and connects queue behind each other in the consumer: open sockets a few at a time.
CONNECT_BATCH = 20
DELIVERY_TIMEOUT = 60.0
PAUSE_LIMIT_MS = 100.0
BOT_LEAD = timedelta(seconds=120)
# Every database call of this process runs on one thread (Django's connections are per thread):
# one connection, kept, instead of one a call.
DB = ThreadPoolExecutor(max_workers=1)
VERSION = re.compile(r'"type":\s*"(\w+)",\s*"version":\s*(\d+)')


async def in_db(function: Any, *args: Any) -> Any:
    return await asyncio.get_running_loop().run_in_executor(DB, function, *args)


def run(quick: bool) -> str:
    return _live.in_subprocess("fanout", quick, timeout=7200)


@dataclass(frozen=True)
class Scene:
    """A live match of a real game, its seats played by its bots over their sockets."""

    game_key: str
    label: str
    levels: tuple[str, ...]
    settings: dict[str, Any]
    before: int  # versions played in this process (no spectators yet) before the measure
    most: int  # versions measured at most (the match may end first)


POINTSWEEPER = Scene(
    "pointsweeper",
    "Pointsweeper, a whole match (three boards)",
    ("club", "beginner"),
    {"move_seconds": 3600, "bank_seconds": 7200, "order_seconds": 3600},
    before=0,
    most=400,
)
POINTSWEEPER_LATE = Scene(
    "pointsweeper",
    "Pointsweeper, late in its third board",
    ("club", "beginner"),
    {"move_seconds": 3600, "bank_seconds": 7200, "order_seconds": 3600},
    before=110,
    most=400,
)
SEVEN_GEM_SWAP = Scene(
    "seven-gem-swap",
    "Seven Gem Swap, 7 seats, rounds",
    ("club",) * 7,
    {"bid_seconds": 3600, "round_seconds": 3600},
    before=0,
    most=60,
)
DEATH_MATCH = Scene(
    "bejeweled-dm",
    "death match, claims and proofs",
    ("club", "beginner"),  # the expert's search takes minutes a claim on a busy machine
    {"claim_window_seconds": 5, "proof_seconds": 3600, "pick_seconds": 3600},
    before=0,
    most=60,
)


@dataclass
class Watchers:
    """Many websockets reading frames; when each frame of a version arrived, and its size."""

    expected: int
    arrivals: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    sizes: dict[int, int] = field(default_factory=dict)
    complete: dict[int, asyncio.Event] = field(default_factory=dict)
    connections: list[Any] = field(default_factory=list)
    tasks: list[asyncio.Task] = field(default_factory=list)

    def event_for(self, version: int) -> asyncio.Event:
        return self.complete.setdefault(version, asyncio.Event())

    async def connect(self, urls: list[str], origin: str | None, first_frame: bool) -> None:
        import websockets

        async def one(url: str) -> None:
            for attempt in range(10):  # a loaded worker may fail a handshake: try again
                try:
                    connection = await websockets.connect(url, origin=origin, max_size=2**23)
                    break
                except (OSError, websockets.InvalidHandshake):
                    if attempt == 9:
                        raise
                    await asyncio.sleep(1.0 + attempt)
            if first_frame:  # the full frame
                await asyncio.wait_for(connection.recv(), DELIVERY_TIMEOUT)
            self.connections.append(connection)
            self.tasks.append(asyncio.create_task(self._read(connection)))

        for start in range(0, len(urls), CONNECT_BATCH):
            await asyncio.gather(*(one(url) for url in urls[start : start + CONNECT_BATCH]))

    async def _read(self, connection: Any) -> None:
        import websockets

        try:
            async for text in connection:
                arrived = time.time()
                # A frame begins {"type": ..., "version": N: read that, not the whole frame.
                found = VERSION.search(text[:120])
                if found is None:
                    frame = json.loads(text)
                    kind, version = frame.get("type"), frame.get("version")
                else:
                    kind, version = found.group(1), int(found.group(2))
                if kind != "update" or version is None:
                    continue
                self.arrivals[version].append(arrived)
                self.sizes.setdefault(version, len(text.encode()))
                if len(self.arrivals[version]) == self.expected:
                    self.event_for(version).set()
        except websockets.ConnectionClosed:
            pass

    async def wait(self, version: int) -> bool:
        try:
            await asyncio.wait_for(self.event_for(version).wait(), DELIVERY_TIMEOUT)
            return True
        except TimeoutError:
            return False

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*(c.close() for c in self.connections), return_exceptions=True)


@dataclass
class Figures:
    delivery: list[float] = field(default_factory=list)
    late: list[float] = field(default_factory=list)  # the last third of the versions measured
    lost: int = 0
    sizes: list[int] = field(default_factory=list)  # bytes of each version's frame, in order
    pauses: list[tuple[int, float, float]] = field(default_factory=list)  # gc_pauses
    rss: list[float] = field(default_factory=list)  # MiB: start, spectators in, end
    # Each version's first arrival: the delay before the worker writes to any socket (the
    # site's action path and drawing, the layer), apart from the writing to all of them.
    first: list[float] = field(default_factory=list)
    # Delivery by what moved the match on: "action" (a seat's socket) or "time" (a clock or an
    # analysis, its frames drawn and sent by the process that fired it, as the scheduler does).
    by_cause: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    versions_by_cause: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def causes(self) -> str:
        """p50 / p99 of each cause, with its number of versions, for the line under the row."""
        return "; ".join(
            f"{cause} ({self.versions_by_cause[cause]} versions): "
            f"{ms(percentile(delays, 0.5))} / {ms(percentile(delays, 0.99))} ms"
            for cause, delays in sorted(self.by_cause.items())
            if delays
        )

    def cells(self) -> list[str]:
        size = sum(self.sizes) / len(self.sizes) / 1000 if self.sizes else 0.0
        walls = [wall for _, wall, _ in self.pauses]
        cpus = [cpu for _, _, cpu in self.pauses]
        big = sum(1 for wall in walls if wall > PAUSE_LIMIT_MS)
        full = sum(1 for generation, _, _ in self.pauses if generation == 2)
        return [
            f"{len(self.sizes)}",
            f"{size:.1f} / {max(self.sizes, default=0) / 1000:.1f}",
            ms(percentile(self.delivery, 0.5)),
            ms(percentile(self.delivery, 0.99)),
            ms(percentile(self.late, 0.99)) if self.late else "-",
            f"{len(self.pauses)} ({full} full), longest {max(walls, default=0):.0f} ms (CPU "
            f"{max(cpus, default=0):.0f} ms), {big} over {PAUSE_LIMIT_MS:.0f} ms",
            " -> ".join(f"{value:.0f}" for value in self.rss) if self.rss else "-",
            f"{self.lost}",
            f"{ms(percentile(self.first, 0.5))} / {ms(percentile(self.first, 0.99))}"
            if self.first
            else "-",
        ]


def gc_pauses(paths: list[Path]) -> list[tuple[int, float, float]]:
    """(generation, pause ms, CPU ms) of each collection the processes logged."""
    pauses = []
    for path in paths:
        for line in path.read_text().splitlines() if path.exists() else []:
            parts = line.split()
            if len(parts) == 4:
                pauses.append((int(parts[0]), float(parts[1]), float(parts[3])))
    return pauses


# --- the match, played by its bots --------------------------------------------------------------


def make_match(scene: Scene, tag: str) -> tuple[Any, list[str]]:
    """A live match of ``scene``'s game with a signed-up player in each seat (their usernames)."""
    from django.contrib.auth import get_user_model

    from games.core.match import seating

    users = get_user_model().objects
    host = users.create_user(f"fan-host-{tag}", password=_live.PASSWORD)
    names = [f"fan-{tag}-{i}" for i in range(len(scene.levels))]
    players = [users.create_user(name, password=_live.PASSWORD) for name in names]
    match = seating.create_match(
        host=host,
        game_key=scene.game_key,
        title=f"Fan-out {scene.game_key}",
        settings=scene.settings,
        roles=[""] * len(scene.levels),
    )
    for seat, user in zip(match.seats.order_by("index"), players, strict=True):
        seating.take_seat(match, user, seat.invite_token)
    return match, names


def next_action(match_id: int, levels: tuple[str, ...]) -> tuple[str, Any]:
    """What happens next: ("over", None), ("act", (seat, action, version)), or ("time", None)
    when no seat acts now (a clock or an analysis moves the match on)."""
    from django.utils import timezone

    from games.core.game.gamedef import Viewer
    from games.core.models import Match

    match = Match.objects.get(pk=match_id)
    if match.is_over:
        return "over", None
    # Bots wait a moment (a few seconds, drawn) before they move, as people do: ask them as if
    # that moment had passed, so the measure is not spent waiting.
    game, now = match.game, timezone.now() + BOT_LEAD
    for seat, level in enumerate(levels):
        action = game.bot_action(game.view(match.state, Viewer(seat=seat)), seat, level, now)
        if action is not None:
            return "act", (seat, action, match.version)
    return "time", None


def move_on(match_id: int) -> int:
    """Let the scheduler's work move the match on: its analysis, its due clocks. The number of
    events appended."""
    from games.core.match import deadlines, services

    return services.run_analyses() + deadlines.fire_due_deadlines(match_id=match_id)


def made_at(match_id: int, versions: range) -> dict[int, float]:
    """When each of ``versions`` was appended (its event's time), as a Unix time."""
    from games.core.models import Event

    rows = Event.objects.filter(match_id=match_id, version__in=list(versions))
    return {v: at.timestamp() for v, at in rows.values_list("version", "created_at")}


def current_version(match_id: int) -> int:
    from games.core.models import Match

    return Match.objects.filter(pk=match_id).values_list("version", flat=True)[0]


def play_before(match: Any, names: list[str], scene: Scene) -> None:
    """``scene.before`` versions played in this process (no spectators to send them to)."""
    from django.contrib.auth import get_user_model

    from games.core.game.gamedef import ActionError
    from games.core.match import services

    users = {i: get_user_model().objects.get(username=name) for i, name in enumerate(names)}
    while current_version(match.pk) < scene.before:
        kind, found = next_action(match.pk, scene.levels)
        if kind == "over":
            raise RuntimeError(f"{scene.game_key} ended before version {scene.before}")
        if kind == "act":
            seat, action, version = found
            try:
                services.submit_action(match, users[seat], action, expected_version=version)
            except ActionError:
                continue  # the match moved meanwhile: look again
        elif not move_on(match.pk):
            time.sleep(0.2)


async def play_measured(
    match: Any, scene: Scene, sockets: list[Any], watchers: Watchers, figures: Figures
) -> None:
    """The match moves on (seats act over their sockets) for ``scene.most`` versions or to its
    end; each version's frames are timed from the moment that moved it on."""
    from games.core.live.client import Refused

    start = held = await in_db(current_version, match.pk)
    timed: list[tuple[int, str, list[float]]] = []
    while held - start < scene.most:
        kind, found = await in_db(next_action, match.pk, scene.levels)
        if kind == "over":
            break
        sent = time.time()
        if kind == "act":
            seat, action, version = found
            try:
                await sockets[seat].act(action, version=version)
            except Refused:
                continue  # the match moved meanwhile (a clock): look again
        elif not await in_db(move_on, match.pk):
            await asyncio.sleep(0.2)
            continue
        now_at = await in_db(current_version, match.pk)
        made = range(held + 1, now_at + 1)
        # A clock or an analysis is timed from its event (the analysis's search, done here as
        # the scheduler does it, is not delivery); an action from its seat sending it.
        starts = await in_db(made_at, match.pk, made) if kind == "time" else {}
        for version in made:
            if not await watchers.wait(version):
                figures.lost += watchers.expected - len(watchers.arrivals[version])
            began = starts.get(version, sent)
            delays = [arrived - began for arrived in watchers.arrivals[version]]
            timed.append((version, "action" if kind == "act" else "clock or analysis", delays))
            if watchers.arrivals[version]:
                figures.first.append(min(watchers.arrivals[version]) - began)
        held = now_at
    third = len(timed) - len(timed) // 3
    for index, (version, cause, delays) in enumerate(timed):
        figures.delivery += delays
        figures.by_cause[cause] += delays
        figures.versions_by_cause[cause] += 1
        if index >= third:
            figures.late += delays
        figures.sizes.append(watchers.sizes.get(version, 0))


async def site_run(
    scene: Scene, ports: list[int], origin: str, spectators: int, pids: list[int], tag: str
) -> Figures:
    from games.core.live.client import ArenaClient

    match, names = await in_db(make_match, scene, tag)
    await in_db(play_before, match, names, scene)
    figures = Figures()
    figures.rss.append(max(_live.rss_mib(pid) for pid in pids))
    watchers = Watchers(expected=spectators)
    urls = [
        f"ws://127.0.0.1:{ports[i % len(ports)]}/ws/m/{match.public_id}/" for i in range(spectators)
    ]
    await watchers.connect(urls, origin=origin, first_frame=True)
    figures.rss.append(max(_live.rss_mib(pid) for pid in pids))
    clients = []
    for name in names:
        client = ArenaClient(origin)
        await asyncio.to_thread(client.login, name, _live.PASSWORD)
        clients.append(client)
    sockets = []
    try:
        for client in clients:
            socket_ = await client.match_socket(match.public_id).__aenter__()
            await socket_.recv_until("full")
            sockets.append(socket_)
        await play_measured(match, scene, sockets, watchers, figures)
    finally:
        for socket_ in sockets:
            await socket_.__aexit__(None, None, None)
        await watchers.close()
    figures.rss.append(max(_live.rss_mib(pid) for pid in pids))
    return figures


# --- the floor ---------------------------------------------------------------------------------


def start_floor(gc_log: Path) -> tuple[subprocess.Popen[bytes], int]:
    from tests.live_server import free_port

    port = free_port()
    env = {
        **os.environ,
        "CHANNEL_LAYER": LAYER,
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "GC_PAUSE_LOG": str(gc_log),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "-v", "0"]
        + ["benchmarks._floor_app:application"],
        cwd=_live.ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _live.wait_for_port(port, timeout=120)
    return process, port


async def floor_run(processes: int, spectators: int, sizes: list[int], workdir: Path) -> Figures:
    from benchmarks._floor_app import GROUP

    logs = [workdir / f"floor-gc-{i}-{time.time_ns()}.log" for i in range(processes)]
    floors = [start_floor(log) for log in logs]
    channel_layer = _layer()
    watchers = Watchers(expected=spectators)
    figures = Figures()
    try:
        figures.rss.append(max(_live.rss_mib(p.pid) for p, _ in floors))
        urls = [f"ws://127.0.0.1:{floors[i % processes][1]}/" for i in range(spectators)]
        await watchers.connect(urls, origin=None, first_frame=False)
        await asyncio.sleep(1.0)  # the group_add happens just after the handshake
        figures.rss.append(max(_live.rss_mib(p.pid) for p, _ in floors))
        for log in logs:
            log.write_text("")  # collections while starting and connecting are not the run's
        timed = []
        for version, size in enumerate(sizes, start=1):
            frame = json.dumps({"type": "update", "version": version, "pad": ""})
            text = frame[:-2] + "x" * max(0, size - len(frame)) + '"}'
            sent = time.time()
            await channel_layer.group_send(GROUP, {"type": "floor.frame", "text": text})
            if not await watchers.wait(version):
                figures.lost += spectators - len(watchers.arrivals[version])
            timed.append([arrived - sent for arrived in watchers.arrivals[version]])
            if watchers.arrivals[version]:
                figures.first.append(min(watchers.arrivals[version]) - sent)
        third = len(timed) - len(timed) // 3
        for index, delays in enumerate(timed):
            figures.delivery += delays
            if index >= third:
                figures.late += delays
        figures.sizes = [watchers.sizes.get(v, 0) for v in range(1, len(sizes) + 1)]
        figures.pauses = gc_pauses(logs)
        figures.rss.append(max(_live.rss_mib(p.pid) for p, _ in floors))
        return figures
    finally:
        await watchers.close()
        for process, _ in floors:
            process.terminate()
            process.wait(10)


def _layer() -> Any:
    from django.conf import settings

    config = dict(settings.CHANNEL_LAYERS["default"]["CONFIG"])
    backend = settings.CHANNEL_LAYER_BACKENDS[LAYER]
    module, name = backend.rsplit(".", 1)
    cls = getattr(__import__(module, fromlist=[name]), name)
    return cls(**config)


# --- runs --------------------------------------------------------------------------------------


async def direct_run(
    scene: Scene, processes: int, spectators: int, workdir: Path, tag: str
) -> tuple[Figures, Figures]:
    """The site (``processes`` workers, spectators spread over them) and its floor."""
    from tests.live_server import Worker

    logs = [workdir / f"worker-gc-{tag}-{i}.log" for i in range(processes)]
    workers = []
    try:
        for log in logs:
            os.environ["GC_PAUSE_LOG"] = str(log)
            worker = Worker(scheduler=False)
            await asyncio.to_thread(worker.start)
            workers.append(worker)
        os.environ.pop("GC_PAUSE_LOG", None)
        pids = [w.process.pid for w in workers if w.process is not None]
        ports = [w.port for w in workers]

        async def measured() -> Figures:
            for log in logs:
                log.write_text("")  # startup's collections are not the run's
            return await site_run(scene, ports, workers[0].url, spectators, pids, tag)

        site = await measured()
        site.pauses = gc_pauses(logs)
    finally:
        os.environ.pop("GC_PAUSE_LOG", None)
        for worker in workers:
            await asyncio.to_thread(worker.stop)
    floor = await floor_run(processes, spectators, site.sizes, workdir)
    return site, floor


async def topology_run(scene: Scene, spectators: int, workdir: Path) -> tuple[Figures, Figures]:
    """The same through nginx in front of two workers and a scheduler (gemsite/topology.py)."""
    from gemsite.topology import Topology
    from tests import live_server

    env = live_server.worker_environment()
    env["GC_PAUSE_LOG"] = str(workdir / "topology-gc-%p.log")
    topology = Topology(workers=2, env=env)
    await asyncio.to_thread(topology.start)
    try:
        pids = [p.pid for name, p in topology.processes.items() if name.startswith("worker")]
        for log in workdir.glob("topology-gc-*.log"):
            log.write_text("")
        site = await site_run(scene, [topology.port], topology.url, spectators, pids, "nginx")
        site.pauses = gc_pauses([workdir / f"topology-gc-{pid}.log" for pid in pids])
    finally:
        await asyncio.to_thread(topology.stop)
    floor = await floor_run(2, spectators, site.sizes, workdir)
    return site, floor


HEADER = (
    "| path | spectators | versions | frame KB, mean / max | p50 ms | p99 ms | p99 ms, last "
    "third | p99 / floor's | collections in the run (pauses) | RSS MiB: start -> spectators "
    "in -> end | frames lost | first socket's frame, p50 / p99 ms |\n"
    "| --- | --: | --: | --: | --: | --: | --: | --: | --- | --- | --: | --: |"
)


def rows_of(label: str, spectators: int, site: Figures, floor: Figures) -> list[str]:
    ratio = percentile(site.delivery, 0.99) / percentile(floor.delivery, 0.99)
    s, f = site.cells(), floor.cells()
    return [
        f"| site: {label} | {spectators} | {' | '.join(s[:5])} | {ratio:.2f}x | "
        f"{' | '.join(s[5:])} |",
        f"| floor: {label} | {spectators} | {' | '.join(f[:5])} | 1x | {' | '.join(f[5:])} |",
    ]


async def measure(quick: bool, topology: bool) -> str:
    _live.production_workers()
    one_worker = 40 if quick else 500
    two_workers = 80 if quick else 2000
    workdir = Path(tempfile.mkdtemp(prefix="gem-arena-fanout-"))

    def scaled(scene: Scene) -> Scene:
        if not quick:
            return scene
        before = max(0, scene.before - 60)
        return Scene(scene.game_key, scene.label, scene.levels, scene.settings, before, 12)

    cases = []
    if topology:
        spectators = int(os.environ.get("FANOUT_SPECTATORS", two_workers))
        cases.append(("topology", POINTSWEEPER_LATE, 2, spectators))
    else:
        cases += [
            ("direct", POINTSWEEPER, 1, one_worker),
            ("direct", SEVEN_GEM_SWAP, 1, one_worker),
            ("direct", DEATH_MATCH, 1, one_worker),
            ("direct", POINTSWEEPER_LATE, 2, two_workers),
        ]
    chosen = os.environ.get("FANOUT_CASES")  # e.g. "0,3": only those cases, by index
    if chosen:
        cases = [case for i, case in enumerate(cases) if str(i) in chosen.split(",")]
    rows, causes = [], []
    for index, (kind, scene, processes, spectators) in enumerate(cases):
        scene = scaled(scene)
        load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
        if kind == "topology":
            site, floor = await topology_run(scene, spectators, workdir)
            label = f"{scene.label}, nginx + 2 workers"
        else:
            site, floor = await direct_run(scene, processes, spectators, workdir, f"r{index}")
            label = f"{scene.label}, {processes} worker{'s' if processes > 1 else ''}"
        rows += rows_of(f"{label} (load {load})", spectators, site, floor)
        causes.append(
            f"- {label}: site delivery p50 / p99 by what moved the match on: {site.causes()}"
        )
        print(*rows[-2:], causes[-1], sep="\n", file=sys.stderr, flush=True)
    title = "through nginx (gemsite/topology.py)" if topology else "on the workers directly"
    return "\n".join(
        [
            f"## Spectator fan-out with the real games, {title} (PostgreSQL + Redis, Daphne)",
            "",
            "Frame delivery: from the action sent by its seat's socket (a clock fired or an "
            "analysis recorded: from its event's time) to each spectator's page socket "
            "receiving its update frame (html panels, the page format); the floor: a bare "
            "consumer on the same layer (pubsub) sent frames of the same sizes in the same "
            "order, to as many sockets on as many processes. Collections: every garbage "
            "collection in the workers (or floor processes) while the frames were measured, "
            "from gc.callbacks (GC_PAUSE_LOG). "
            "Load: the machine's load average as each case began (2 cores, shared).",
            "",
            HEADER,
            *rows,
            "",
            *causes,
        ]
    )


def main(quick: bool) -> str:
    topology = os.environ.get("FANOUT_TOPOLOGY") == "1"
    with _live.own_database("fanout"):
        return asyncio.run(measure(quick, topology))
