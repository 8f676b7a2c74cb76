"""A Seven Gem Swap round resolved through the server (issue 13), on the production shape:
PostgreSQL + Redis (channels-redis) + one Daphne worker.

Seven seats, the host and 100 spectators hold page websockets (html frames, as browsers get
them; the seats and the host logged in). Each round six seats submit a sequence and the seventh
does not, so the round ends at its deadline: this process fires the deadline through
deadlines.fire_due_deadlines (as the scheduler does; the worker runs none) and times from that
call to the last of the 108 sockets receiving the round's frame. Target: p99 under 500 ms.
The load generator shares the machine's cores with the worker, PostgreSQL and Redis.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import defaultdict
from typing import Any

from benchmarks import _live
from benchmarks._live import ms, percentile

SEATS = 7
SPECTATORS = 100
CONNECT_BATCH = 20
DELIVERY_TIMEOUT = 30.0


def run(quick: bool) -> str:
    return _live.in_subprocess("seven_gem_swap_round", quick)


class Sockets:
    """Many page websockets reading frames; when each arrived, by version."""

    def __init__(self) -> None:
        self.arrivals: dict[int, list[float]] = defaultdict(list)
        self.sizes: list[int] = []
        self.connections: list[Any] = []
        self.tasks: list[asyncio.Task] = []

    async def connect(self, url: str, origin: str, cookies: list[str | None]) -> None:
        import websockets

        async def one(cookie: str | None) -> None:
            headers = {"Cookie": f"sessionid={cookie}"} if cookie else {}
            connection = await websockets.connect(
                url, origin=origin, additional_headers=headers, max_size=2**22
            )
            await connection.recv()  # the full frame
            self.connections.append(connection)
            self.tasks.append(asyncio.create_task(self._read(connection)))

        for start in range(0, len(cookies), CONNECT_BATCH):
            await asyncio.gather(*(one(c) for c in cookies[start : start + CONNECT_BATCH]))

    async def _read(self, connection: Any) -> None:
        import websockets

        try:
            async for text in connection:
                arrived = time.time()
                frame = json.loads(text)
                if frame.get("type") == "update":
                    self.arrivals[frame["version"]].append(arrived)
                    self.sizes.append(len(text))
        except websockets.ConnectionClosed:
            pass

    async def all_have(self, version: int) -> bool:
        deadline = time.monotonic() + DELIVERY_TIMEOUT
        while len(self.arrivals[version]) < len(self.connections):
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.002)
        return True

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*(c.close() for c in self.connections), return_exceptions=True)


def make_match(tag: int) -> Any:
    from django.contrib.auth import get_user_model

    from games.core.match import seating, services

    users = get_user_model().objects
    host = users.create_user(f"sgs-host-{tag}", password=_live.PASSWORD)
    players = [users.create_user(f"sgs-{tag}-{i}", password=_live.PASSWORD) for i in range(SEATS)]
    match = seating.create_match(
        host=host,
        game_key="seven-gem-swap",
        title=f"Round benchmark {tag}",
        settings={"bid_seconds": 3600, "round_seconds": 3600},
        roles=[""] * SEATS,
    )
    for seat, user in zip(match.seats.order_by("index"), players, strict=True):
        seating.take_seat(match, user, seat.invite_token)
    colours = "ROYGBIV"
    for index, user in enumerate(players):
        ranked = colours[index:] + colours[:index]
        services.submit_action(match, user, {"type": "bid", "bid": 0, "colours": ranked[:3]})
    match.refresh_from_db()
    return match


def submit_six(match_id: int) -> int:
    """Six seats submit a short sequence (the seventh never does); the version after them."""
    from games.core.match import services
    from games.core.models import Match
    from games.seven_gem_swap import engine

    match = Match.objects.prefetch_related("seats__user").get(pk=match_id)
    state = match.state
    board = engine.parse_board(state["board"]).cells
    for seat in sorted(match.seats.all(), key=lambda s: s.index)[: SEATS - 1]:
        key = str(seat.index)
        gem = engine.cell_name(board.index(state["colours"][key]))
        left = [c for c in engine.COLOURS if c not in state["played"][key]]
        action = {
            "type": "submit",
            "gem": gem,
            "moves": "UDLRUDLRUDLR",
            "card": left[0] if state["round"] >= 2 else None,
        }
        services.submit_action(match, seat.user, action)
    match.refresh_from_db()
    return match.version


def fire_round(match_id: int) -> tuple[int, float]:
    """Fire the round's deadline (as the scheduler would at its time); the new version and when
    the call began."""
    from games.core.match import deadlines
    from games.core.match.services import state_deadlines
    from games.core.models import Match

    match = Match.objects.get(pk=match_id)
    due = state_deadlines(match.state)["round"]
    began = time.time()
    assert deadlines.fire_due_deadlines(match_id=match_id, now=due) == 1
    return Match.objects.get(pk=match_id).version, began


async def one_match(worker: Any, tag: int, rounds: list[float], sizes: list[int]) -> int:
    from games.core.live.client import ArenaClient

    match = await asyncio.to_thread(make_match, tag)
    cookies: list[str | None] = []
    for name in [*(f"sgs-{tag}-{i}" for i in range(SEATS)), f"sgs-host-{tag}"]:
        client = ArenaClient(worker.url)
        await asyncio.to_thread(client.login, name, _live.PASSWORD)
        cookies.append(client.session_cookie())
    cookies += [None] * SPECTATORS
    sockets = Sockets()
    await sockets.connect(
        f"ws://127.0.0.1:{worker.port}/ws/m/{match.public_id}/", worker.url, cookies
    )
    lost = 0
    try:
        for _ in range(8):
            before = await asyncio.to_thread(submit_six, match.pk)
            await sockets.all_have(before)
            version, began = await asyncio.to_thread(fire_round, match.pk)
            if not await sockets.all_have(version):
                lost += len(sockets.connections) - len(sockets.arrivals[version])
                continue
            rounds.append(max(sockets.arrivals[version]) - began)
            print(f"round: {ms(rounds[-1])} ms", file=sys.stderr, flush=True)
        sizes += sockets.sizes
    finally:
        await sockets.close()
    return lost


async def measure(quick: bool) -> str:
    from tests.live_server import Worker

    matches = 1 if quick else 5
    worker = Worker(scheduler=False)
    await asyncio.to_thread(worker.start)
    rounds: list[float] = []
    sizes: list[int] = []
    lost = 0
    try:
        for tag in range(matches):
            lost += await one_match(worker, tag, rounds, sizes)
    finally:
        await asyncio.to_thread(worker.stop)
    size = sum(sizes) / max(1, len(sizes)) / 1000
    return "\n".join(
        [
            "## Seven Gem Swap: a round resolved through the server",
            "",
            f"One Daphne worker (PostgreSQL + Redis), {SEATS} seats, the host and {SPECTATORS} "
            "spectators on page websockets. From the round's deadline being fired "
            "(deadlines.fire_due_deadlines: resolve, append, commit, render a frame per "
            "audience, send through Redis) to the last of the "
            f"{SEATS + 1 + SPECTATORS} sockets receiving it. Target: p99 < 500 ms.",
            "",
            "| rounds | frame KB (mean) | p50 ms | p99 ms | max ms | frames lost |",
            "| --: | --: | --: | --: | --: | --: |",
            f"| {len(rounds)} | {size:.1f} | {ms(percentile(rounds, 0.5))} "
            f"| {ms(percentile(rounds, 0.99))} | {ms(max(rounds) if rounds else float('nan'))} "
            f"| {lost} |",
        ]
    )


def main(quick: bool) -> str:
    _live.production_workers()
    with _live.own_database("sgs_round"):
        return asyncio.run(measure(quick))
