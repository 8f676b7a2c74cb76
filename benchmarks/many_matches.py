"""Many matches at once on the production shape (issue 8): PostgreSQL + Redis + 2 Daphne workers
(one runs the scheduler), 100 fixture-game matches played by their clients for 3 minutes.

Each match's two players are on different workers (every move crosses Redis); each waits for its
turn, thinks 1-3 s, then acts over its websocket (games/core/live/client.py). Figures: actions per
second; action-to-ack p50 / p99 (target p99 < 150 ms) beside the floor, a ping-to-pong round trip
on the same sockets in the same run; every socket's updates checked against the event log (no
version skipped or repeated, each event's kind as logged); RSS of each worker at start and end.
The load generator shares the machine's cores with the workers, PostgreSQL and Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from benchmarks import _live
from benchmarks._live import ms, percentile

THINK_SECONDS = (1.0, 3.0)
LOGIN_THREADS = 8


def run(quick: bool) -> str:
    return _live.in_subprocess("many_matches", quick)


@dataclass
class Tally:
    acks: list[float] = field(default_factory=list)
    pongs: list[float] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)


def make_matches(count: int) -> list[tuple[Any, list[str]]]:
    from django.contrib.auth import get_user_model

    from games.core.match import seating

    users = get_user_model().objects
    host = users.create_user("many-host", password=_live.PASSWORD)
    made = []
    for index in range(count):
        names = [f"many-{index}-a", f"many-{index}-b"]
        players = [users.create_user(name, password=_live.PASSWORD) for name in names]
        match = seating.create_match(
            host=host,
            game_key="fixture-tally",
            title=f"Many {index}",
            settings={"target": 10**6, "turn_seconds": 3600},
            roles=["EC", "DMO"],
        )
        for seat, user in zip(match.seats.order_by("index"), players, strict=True):
            seating.take_seat(match, user, seat.invite_token)
        made.append((match, names))
    return made


async def play(socket_: Any, seat: int, end: float, tally: Tally) -> None:
    loop = asyncio.get_running_loop()
    await socket_.recv_until("full", timeout=60)
    while loop.time() < end:
        if socket_.latest_view()["game"]["turn"] != seat:
            with contextlib.suppress(TimeoutError):
                await socket_.recv(timeout=max(0.1, end - loop.time()))
            continue
        await asyncio.sleep(random.uniform(*THINK_SECONDS))
        started = time.perf_counter()
        await socket_.send({"type": "ping"})
        await socket_.recv_until("pong", timeout=30)
        tally.pongs.append(time.perf_counter() - started)
        started = time.perf_counter()
        try:
            version = await socket_.act({"type": "add", "amount": 1}, timeout=30)
        except Exception as refusal:  # a refusal or a timeout: counted, never hidden
            name = getattr(refusal, "code", type(refusal).__name__)
            tally.refused[name] = tally.refused.get(name, 0) + 1
            continue
        tally.acks.append(time.perf_counter() - started)
        await socket_.wait_version(version, timeout=30)  # the update that passes the turn


def check_frames(frames: list[dict[str, Any]], events: dict[int, str]) -> tuple[int, int]:
    """(versions skipped or repeated, updates whose event differs from the log) of one socket."""
    held: int | None = None
    anomalies = mismatched = 0
    for frame in frames:
        if frame.get("type") == "full" and held is None:
            held = frame["version"]
        elif frame.get("type") == "update":
            if held is None or frame["version"] != held + 1:
                anomalies += 1
            held = frame["version"] if held is None else max(held, frame["version"])
            if events.get(frame["version"]) != frame["event"]["kind"]:
                mismatched += 1
    return anomalies, mismatched


async def measure(quick: bool) -> str:
    from games.core.live.client import ArenaClient
    from games.core.models import Event, Match
    from tests.live_server import Worker

    count, seconds = (10, 20) if quick else (100, 180)
    matches = await asyncio.to_thread(make_matches, count)
    workers = [Worker(scheduler=True), Worker(scheduler=False)]
    for worker in workers:
        await asyncio.to_thread(worker.start)
    try:
        gate = asyncio.Semaphore(LOGIN_THREADS)

        async def login(worker: Any, name: str) -> Any:
            client = ArenaClient(worker.url)
            async with gate:
                await asyncio.to_thread(client.login, name, _live.PASSWORD)
            return client

        clients = await asyncio.gather(
            *(login(workers[seat], names[seat]) for _, names in matches for seat in (0, 1))
        )
        sockets = [
            client.match_socket(matches[index // 2][0].public_id)
            for index, client in enumerate(clients)
        ]
        for socket_ in sockets:
            await socket_.__aenter__()
        rss_start = [_live.rss_mib(worker.process.pid) for worker in workers]
        tally = Tally()
        loop = asyncio.get_running_loop()
        began = loop.time()
        end = began + seconds
        await asyncio.gather(
            *(play(socket_, index % 2, end, tally) for index, socket_ in enumerate(sockets))
        )
        elapsed = loop.time() - began
        rss_end = [_live.rss_mib(worker.process.pid) for worker in workers]
        # Let every socket catch up with its match's last version, then check it against the log.
        finals = await asyncio.to_thread(
            lambda: dict(
                Match.objects.filter(pk__in=[m.pk for m, _ in matches]).values_list("pk", "version")
            )
        )
        behind = 0
        for index, socket_ in enumerate(sockets):
            try:
                await socket_.wait_version(finals[matches[index // 2][0].pk], timeout=30)
            except TimeoutError:
                behind += 1
        logs = await asyncio.to_thread(
            lambda: {
                pk: dict(Event.objects.filter(match_id=pk).values_list("version", "kind"))
                for pk in finals
            }
        )
        anomalies = mismatched = gapped_sockets = 0
        for index, socket_ in enumerate(sockets):
            match_pk = matches[index // 2][0].pk
            skipped, wrong = check_frames(socket_.frames, logs[match_pk])
            anomalies += skipped
            mismatched += wrong
            gapped_sockets += bool(skipped or wrong)
        for socket_ in sockets:
            await socket_.__aexit__(None, None, None)
    finally:
        for worker in workers:
            await asyncio.to_thread(worker.stop)
    actions = len(tally.acks)
    refused = ", ".join(f"{code} {n}" for code, n in sorted(tally.refused.items())) or "none"
    print(f"acks {actions} in {elapsed:.0f} s; refused {refused}", file=sys.stderr)
    rss = "; ".join(
        f"worker {i + 1}: {start:.0f} -> {stop:.0f} MiB"
        for i, (start, stop) in enumerate(zip(rss_start, rss_end, strict=True))
    )
    return "\n".join(
        [
            f"## Many matches ({count} client-played matches, 2 workers, PostgreSQL + Redis)",
            "",
            f"{count} fixture-game matches for {elapsed:.0f} s, each player on its own worker "
            f"(every move crosses Redis), thinking {THINK_SECONDS[0]:.0f}-"
            f"{THINK_SECONDS[1]:.0f} s before each move. Floor: a ping's round trip on the same "
            "sockets in the same run. Target: action-to-ack p99 < 150 ms.",
            "",
            "| figure | value |",
            "| --- | --: |",
            f"| actions acknowledged | {actions} ({actions / elapsed:.1f}/s) |",
            f"| actions refused or unanswered | {refused} |",
            f"| action-to-ack p50 / p99 ms | {ms(percentile(tally.acks, 0.5))} / "
            f"{ms(percentile(tally.acks, 0.99))} |",
            f"| floor: ping-to-pong p50 / p99 ms | {ms(percentile(tally.pongs, 0.5))} / "
            f"{ms(percentile(tally.pongs, 0.99))} |",
            f"| sockets | {len(sockets)} |",
            f"| versions skipped or repeated (sockets affected) | {anomalies} ({gapped_sockets}) |",
            f"| updates whose event differs from the log | {mismatched} |",
            f"| sockets not at the final version 30 s after | {behind} |",
            f"| RSS | {rss} |",
        ]
    )


def main(quick: bool) -> str:
    _live.production_workers()
    with _live.own_database("many"):
        return asyncio.run(measure(quick))
