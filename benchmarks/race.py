"""A 13-seat Bejeweled 2 race watched by 200 spectators, on the production shape (PostgreSQL +
Redis + a Daphne worker): ``python -m benchmarks.run race``.

Thirteen players hold their own page websockets (html frames, as the browser gets them) and
swap gems on their own boards; 200 spectators hold page websockets too. Two ways of moving:
one seat after another (each move's frames delivered before the next), and all thirteen at once
(a burst, as a race really is played). For each move: the time from the player sending it to
each spectator receiving its update (delivery), and the bytes of the update frame each kind of
viewer is sent: the spectators (every board small, one board's panel per move), the mover (its
own board, the move's steps), another seat (nothing of the mover's board: its page changes not)
and the host. The floor, measured in the same run with the same sockets: a bare Channels
consumer (benchmarks/_floor_app.py, via benchmarks.fanout's floor) forwarding frames of the
spectators' mean size through the same layer.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from benchmarks import _live
from benchmarks._live import ms, percentile

SEATS = 13
LAYER = "pubsub"  # the site's default layer


def run(quick: bool) -> str:
    return _live.in_subprocess("race", quick)


def make_race() -> Any:
    from django.contrib.auth import get_user_model

    from games.core.match import seating

    users = get_user_model().objects
    host = users.create_user("race-host", password=_live.PASSWORD)
    racers = [users.create_user(f"racer{seat}", password=_live.PASSWORD) for seat in range(SEATS)]
    match = seating.create_match(
        host=host,
        game_key="bejeweled-2-race",
        title="Race benchmark",
        settings={"mode": "classic_time", "minutes": 120},
        roles=[""] * SEATS,
    )
    for seat, user in zip(match.seats.order_by("index"), racers, strict=True):
        seating.take_seat(match, user, seat.invite_token)
    match.refresh_from_db()
    assert match.status == "live", match.status
    return match


def frame_size(frame: dict[str, Any]) -> int:
    """The frame's bytes as sent (the server writes compact JSON)."""
    return len(json.dumps(frame, separators=(",", ":")))


@dataclass
class Sizes:
    mover: list[int] = field(default_factory=list)
    other_seat: list[int] = field(default_factory=list)
    host: list[int] = field(default_factory=list)

    def take(self, sockets: dict[int, Any], host: Any, movers: dict[int, int]) -> None:
        """The update frames of the moves ``movers`` ({version: seat}) each socket got."""
        for seat, socket in sockets.items():
            for frame in socket.frames:
                version = frame.get("version")
                if frame.get("type") != "update" or version not in movers:
                    continue
                (self.mover if movers[version] == seat else self.other_seat).append(
                    frame_size(frame)
                )
        for frame in host.frames:
            if frame.get("type") == "update" and frame.get("version") in movers:
                self.host.append(frame_size(frame))


def best_swap(socket: Any) -> dict[str, Any]:
    from games.bejeweled2 import engine

    a, b = engine.best_move(socket.latest_view()["game"]["board"])
    return {"type": "swap", "a": a, "b": b}


async def race_runs(
    worker: Any, match: Any, spectators: int, turns: int, bursts: int
) -> tuple[Any, Any, Sizes]:
    from benchmarks.fanout import Figures, Watchers
    from games.core.live.client import ArenaClient

    watchers = Watchers(expected=spectators)
    url = f"ws://127.0.0.1:{worker.port}/ws/m/{match.public_id}/"
    await watchers.connect([url] * spectators, origin=worker.url)
    clients = {}
    for seat in range(SEATS):
        clients[seat] = ArenaClient(worker.url)
        await asyncio.to_thread(clients[seat].login, f"racer{seat}", _live.PASSWORD)
    host_client = ArenaClient(worker.url)
    await asyncio.to_thread(host_client.login, "race-host", _live.PASSWORD)
    one_by_one, at_once, sizes = Figures(), Figures(), Sizes()
    movers: dict[int, int] = {}
    sockets = {
        seat: client.match_socket(match.public_id, json_only=False)
        for seat, client in clients.items()
    }
    host = host_client.match_socket(match.public_id, json_only=False)
    for socket in (*sockets.values(), host):
        await socket.__aenter__()
    try:
        for socket in (*sockets.values(), host):
            await socket.recv_until("full", timeout=30)

        async def everyone_at(version: int) -> None:
            for socket in (*sockets.values(), host):
                await socket.wait_version(version, timeout=60)

        # One seat after another.
        for turn in range(turns):
            seat = turn % SEATS
            sent = time.time()
            version = await sockets[seat].act(best_swap(sockets[seat]), timeout=60)
            acked = time.time()
            movers[version] = seat
            if not await watchers.wait(version):
                one_by_one.lost += spectators - len(watchers.arrivals[version])
            arrivals = watchers.arrivals[version]
            one_by_one.delivery += [arrived - sent for arrived in arrivals]
            one_by_one.after_ack += [max(0.0, arrived - acked) for arrived in arrivals]
            await everyone_at(version)
        # Thirteen at once.
        for _ in range(bursts):
            sent = time.time()
            moves = [best_swap(sockets[seat]) for seat in range(SEATS)]
            versions = await asyncio.gather(
                *(sockets[seat].act(moves[seat], timeout=120) for seat in range(SEATS))
            )
            for seat, version in enumerate(versions):
                movers[version] = seat
            for version in versions:
                if not await watchers.wait(version):
                    at_once.lost += spectators - len(watchers.arrivals[version])
                at_once.delivery += [arrived - sent for arrived in watchers.arrivals[version]]
            await everyone_at(max(versions))
        sizes.take(sockets, host, movers)
    finally:
        for socket in (*sockets.values(), host):
            await socket.__aexit__(None, None, None)
    one_by_one.frame_bytes = list(watchers.sizes)  # every update a spectator got is a move
    at_once.frame_bytes = one_by_one.frame_bytes
    await watchers.close()
    return one_by_one, at_once, sizes


def mean_kb(values: list[int]) -> str:
    return f"{sum(values) / len(values) / 1000:.2f}" if values else "-"


def max_kb(values: list[int]) -> str:
    return f"{max(values) / 1000:.2f}" if values else "-"


async def measure(quick: bool) -> str:
    from benchmarks.fanout import floor_runs
    from tests.live_server import Worker

    spectators = 50 if quick else 200
    turns, bursts = (SEATS, 1) if quick else (3 * SEATS, 3)
    os.environ["CHANNEL_LAYER"] = LAYER
    match = await asyncio.to_thread(make_race)
    worker = Worker(scheduler=False)
    await asyncio.to_thread(worker.start)
    try:
        one_by_one, at_once, sizes = await race_runs(worker, match, spectators, turns, bursts)
    finally:
        await asyncio.to_thread(worker.stop)
    spectator_bytes = one_by_one.frame_bytes
    mean = int(sum(spectator_bytes) / max(1, len(spectator_bytes)))
    floor = await floor_runs(LAYER, 1, spectators, 1, turns, mean)
    print(
        one_by_one.row("site", spectators, str(turns)),
        floor.row("floor", spectators, str(turns)),
        file=sys.stderr,
        flush=True,
    )
    header = (
        "| path | spectators | moves | spectator frame KB | p50 ms | p99 ms "
        "| after ack p50 / p99 ms | frames lost |\n"
        "| --- | --: | --: | --: | --: | --: | --: | --: |"
    )
    burst = (
        f"| site: 13 seats at once, {bursts} burst(s) | {spectators} | {bursts * SEATS} "
        f"| {mean_kb(spectator_bytes)} | {ms(percentile(at_once.delivery, 0.5))} "
        f"| {ms(percentile(at_once.delivery, 0.99))} | - | {at_once.lost} |"
    )
    sizes_table = [
        "| viewer | frames | mean KB | max KB |",
        "| --- | --: | --: | --: |",
        f"| a spectator | {len(spectator_bytes)} | {mean_kb(spectator_bytes)} "
        f"| {max_kb(spectator_bytes)} |",
        f"| the mover | {len(sizes.mover)} | {mean_kb(sizes.mover)} | {max_kb(sizes.mover)} |",
        f"| another seat | {len(sizes.other_seat)} | {mean_kb(sizes.other_seat)} "
        f"| {max_kb(sizes.other_seat)} |",
        f"| the host | {len(sizes.host)} | {mean_kb(sizes.host)} | {max_kb(sizes.host)} |",
    ]
    return "\n".join(
        [
            f"## Bejeweled 2 race: {SEATS} seats, {spectators} spectators "
            "(PostgreSQL + Redis, one Daphne worker)",
            "",
            "Delivery: from a player sending a swap to each spectator's page websocket receiving "
            "its update frame; the floor is a bare consumer on the same layer "
            f"({LAYER}) with the same sockets and frames of the spectators' mean size. "
            "One seat after another: each move's frames are delivered before the next is sent. "
            "At once: the thirteen seats send a swap each together; delivery is counted from "
            "the burst's start. Frames are page frames (the patch and the panels that changed).",
            "",
            header,
            one_by_one.row("site: one seat after another", spectators, str(turns)),
            burst,
            floor.row("floor: bare consumer, same frames", spectators, str(turns)),
            "",
            "Update frame bytes per move, by viewer:",
            "",
            *sizes_table,
        ]
    )


def main(quick: bool) -> str:
    _live.production_workers()
    with _live.own_database("race"):
        return asyncio.run(measure(quick))
