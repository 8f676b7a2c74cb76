"""Spectator fan-out on the production shape (issue 8): PostgreSQL + Redis + Daphne workers.

Spectators hold page websockets (html frames, as the browser gets them) to a fixture-game match;
two seated players take turns adding 1 over their own sockets. For each action: the time from the
player sending it to each spectator receiving its update (frame delivery), and from the ack. The
floor, measured in the same run with the same number of websockets: a bare Channels consumer
(benchmarks/_floor_app.py) in one group, forwarding frames of the same size that this process
group_sends through the same layer. Both of channels-redis's layers, side by side:
RedisChannelLayer ("core": one message per socket through Redis) and RedisPubSubChannelLayer
("pubsub": one PUBLISH per group, fanned out in each worker). Then the same across 2 workers.

Targets (issue 8): p99 under 250 ms for 500 spectators on one worker; 2,000 across 2 workers under
500 ms. The load generator shares the machine's cores with the workers and Redis.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from benchmarks import _live
from benchmarks._live import ms, percentile

LAYERS = ("core", "pubsub")
# Daphne rejects a handshake the consumer has not accepted within 5 s (websocket_connect_timeout),
# and connects queue behind each other in the consumer: open sockets a few at a time.
CONNECT_BATCH = 20
DELIVERY_TIMEOUT = 30.0


def run(quick: bool) -> str:
    return _live.in_subprocess("fanout", quick)


@dataclass
class Watchers:
    """Many websockets reading frames; when each frame of a version arrived."""

    expected: int
    arrivals: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    sizes: list[int] = field(default_factory=list)
    complete: dict[int, asyncio.Event] = field(default_factory=dict)
    connections: list[Any] = field(default_factory=list)
    tasks: list[asyncio.Task] = field(default_factory=list)

    def event_for(self, version: int) -> asyncio.Event:
        return self.complete.setdefault(version, asyncio.Event())

    async def connect(self, urls: list[str], origin: str) -> None:
        import websockets

        async def one(url: str) -> None:
            for attempt in range(10):  # a loaded worker may fail a handshake: try again
                try:
                    connection = await websockets.connect(url, origin=origin, max_size=2**22)
                    break
                except (OSError, websockets.InvalidHandshake):
                    if attempt == 9:
                        raise
                    await asyncio.sleep(1.0 + attempt)
            await connection.recv()  # the full frame (or nothing to wait for on the floor)
            self.connections.append(connection)
            self.tasks.append(asyncio.create_task(self._read(connection)))

        for start in range(0, len(urls), CONNECT_BATCH):
            await asyncio.gather(*(one(url) for url in urls[start : start + CONNECT_BATCH]))

    async def _read(self, connection: Any) -> None:
        import websockets

        try:
            async for text in connection:
                arrived = time.time()
                frame = json.loads(text)
                version = frame.get("version")
                if frame.get("type") != "update" or version is None:
                    continue
                self.arrivals[version].append(arrived)
                self.sizes.append(len(text))
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
    delivery: list[float] = field(default_factory=list)  # from the action sent (or group_send)
    after_ack: list[float] = field(default_factory=list)
    lost: int = 0
    frame_bytes: list[int] = field(default_factory=list)

    def row(self, label: str, spectators: int, runs: str) -> str:
        after_ack = (
            f"{ms(percentile(self.after_ack, 0.5))} / {ms(percentile(self.after_ack, 0.99))}"
            if self.after_ack
            else "-"
        )
        size = sum(self.frame_bytes) / len(self.frame_bytes) / 1000 if self.frame_bytes else 0
        return (
            f"| {label} | {spectators} | {runs} | {size:.1f} "
            f"| {ms(percentile(self.delivery, 0.5))} | {ms(percentile(self.delivery, 0.99))} "
            f"| {after_ack} | {self.lost} |"
        )


def make_match() -> tuple[Any, dict[str, str]]:
    from django.contrib.auth import get_user_model

    from games.core import services

    users = get_user_model().objects
    host = users.create_user("fan-host", password=_live.PASSWORD)
    players = [users.create_user(name, password=_live.PASSWORD) for name in ("fan-a", "fan-b")]
    match = services.create_match(
        host=host,
        game_key="fixture-tally",
        title="Fan-out",
        settings={"target": 10**6, "turn_seconds": 3600},
        roles=["EC", "DMO"],
    )
    for seat, user in zip(match.seats.order_by("index"), players, strict=True):
        services.take_seat(match, user, seat.invite_token)
    return match, {"fan-a": _live.PASSWORD, "fan-b": _live.PASSWORD}


async def site_runs(
    workers: list[Any], match: Any, spectators: int, runs: int, actions: int
) -> Figures:
    from games.core.client import ArenaClient

    watchers = Watchers(expected=spectators)
    urls = [
        f"ws://127.0.0.1:{workers[i % len(workers)].port}/ws/m/{match.public_id}/"
        for i in range(spectators)
    ]
    await watchers.connect(urls, origin=workers[0].url)
    clients = []
    for name in ("fan-a", "fan-b"):
        client = ArenaClient(workers[0].url)
        await asyncio.to_thread(client.login, name, _live.PASSWORD)
        clients.append(client)
    figures = Figures()
    async with (
        clients[0].match_socket(match.public_id) as first,
        clients[1].match_socket(match.public_id) as second,
    ):
        await first.recv_until("full")
        await second.recv_until("full")
        players = [first, second]
        turn = first.latest_view()["game"]["turn"]
        for _ in range(runs):
            for _ in range(actions):
                player = players[turn]
                await player.wait_version(max(first.version, second.version))
                sent = time.time()
                version = await player.act({"type": "add", "amount": 1})
                acked = time.time()
                if not await watchers.wait(version):
                    figures.lost += spectators - len(watchers.arrivals[version])
                arrivals = watchers.arrivals[version]
                figures.delivery += [arrived - sent for arrived in arrivals]
                figures.after_ack += [max(0.0, arrived - acked) for arrived in arrivals]
                turn = 1 - turn
                await players[turn].wait_version(version)
    figures.frame_bytes = watchers.sizes
    await watchers.close()
    return figures


def start_floor(layer: str) -> tuple[subprocess.Popen[bytes], int]:
    from tests.live_server import free_port

    port = free_port()
    env = {
        **os.environ,
        "CHANNEL_LAYER": layer,
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "-v", "0"]
        + ["benchmarks._floor_app:application"],
        cwd=_live.ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _live.wait_for_port(port)
    return process, port


async def floor_runs(
    layer: str, processes: int, spectators: int, runs: int, actions: int, frame_bytes: int
) -> Figures:
    from benchmarks._floor_app import GROUP

    floors = [start_floor(layer) for _ in range(processes)]
    channel_layer = _layer(layer)
    watchers = Watchers(expected=spectators)
    try:
        urls = [f"ws://127.0.0.1:{floors[i % processes][1]}/" for i in range(spectators)]
        await _connect_floor(watchers, urls)
        figures = Figures()
        for version in range(1, runs * actions + 1):
            frame = json.dumps({"type": "update", "version": version, "pad": ""})
            text = frame[:-2] + "x" * max(0, frame_bytes - len(frame)) + '"}'
            sent = time.time()
            await channel_layer.group_send(GROUP, {"type": "floor.frame", "text": text})
            if not await watchers.wait(version):
                figures.lost += spectators - len(watchers.arrivals[version])
            figures.delivery += [arrived - sent for arrived in watchers.arrivals[version]]
        figures.frame_bytes = watchers.sizes
        return figures
    finally:
        await watchers.close()
        for process, _ in floors:
            process.terminate()
            process.wait(10)


async def _connect_floor(watchers: Watchers, urls: list[str]) -> None:
    """Floor sockets send nothing on connect; wait until every one has joined the group."""
    import websockets

    async def one(url: str) -> None:
        connection = await websockets.connect(url, max_size=2**22)
        watchers.connections.append(connection)
        watchers.tasks.append(asyncio.create_task(watchers._read(connection)))

    for start in range(0, len(urls), CONNECT_BATCH):
        await asyncio.gather(*(one(url) for url in urls[start : start + CONNECT_BATCH]))
    await asyncio.sleep(1.0)  # the group_add happens just after the handshake


def _layer(layer: str) -> Any:
    from django.conf import settings

    config = dict(settings.CHANNEL_LAYERS["default"]["CONFIG"])
    backend = settings.CHANNEL_LAYER_BACKENDS[layer]
    module, name = backend.rsplit(".", 1)
    cls = getattr(__import__(module, fromlist=[name]), name)
    return cls(**config)


async def measure(quick: bool) -> str:
    from tests.live_server import Worker

    one_worker = 50 if quick else 500
    two_workers = 100 if quick else 2000
    runs, actions = (1, 10) if quick else (3, 30)
    match, _ = await asyncio.to_thread(make_match)
    rows = []
    for layer in LAYERS:
        for processes, spectators in ((1, one_worker), (2, two_workers)):
            os.environ["CHANNEL_LAYER"] = layer
            workers = [Worker(scheduler=False) for _ in range(processes)]
            for worker in workers:
                await asyncio.to_thread(worker.start)
            try:
                site = await site_runs(workers, match, spectators, runs, actions)
            finally:
                for worker in workers:
                    await asyncio.to_thread(worker.stop)
            size = int(sum(site.frame_bytes) / max(1, len(site.frame_bytes)))
            floor = await floor_runs(layer, processes, spectators, runs, actions, size)
            label = f"{layer}, {processes} worker{'s' if processes > 1 else ''}"
            rows.append(site.row(f"site: {label}", spectators, f"{runs}x{actions}"))
            rows.append(floor.row(f"floor: {label}", spectators, f"{runs}x{actions}"))
            print(rows[-2], rows[-1], sep="\n", file=sys.stderr, flush=True)
    header = (
        "| path | spectators | runs x actions | frame KB | p50 ms | p99 ms "
        "| after ack p50 / p99 ms | frames lost |\n"
        "| --- | --: | --: | --: | --: | --: | --: | --: |"
    )
    return "\n".join(
        [
            "## Spectator fan-out (PostgreSQL + Redis, Daphne workers)",
            "",
            "Frame delivery: from the player sending the action (site) or from group_send "
            "(floor: a bare consumer, same layer, same frame size, same sockets) to each "
            "spectator's websocket receiving the frame. Targets: p99 < 250 ms for 500 spectators "
            "on one worker, < 500 ms for 2,000 across 2 workers. Site workers and the floor "
            "both settle their garbage collector at start (GC_GEN0_THRESHOLD); the site's "
            "default layer is pubsub.",
            "",
            header,
            *rows,
        ]
    )


def main(quick: bool) -> str:
    _live.production_workers()
    with _live.own_database("fanout"):
        return asyncio.run(measure(quick))
