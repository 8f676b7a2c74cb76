"""Every version reaches every viewer, in order, when the whole cast moves at once across two
workers (issue 40).

Each worker sends the frames of the events it committed; a socket hears both. A frame that skips
a version (the other worker's is still on its way) waits for it and goes right after it: no
socket ever gets a version twice, out of order or not at all, and no client has to resync. The
checks are on the frames each socket received, never on time."""

from __future__ import annotations

import asyncio
import os
import random
from contextlib import AsyncExitStack
from typing import Any

import pytest

from games.bejeweled2 import engine as bejeweled2
from games.core.live.client import ArenaClient, MatchSocket
from games.core.match import seating
from games.core.models import Match
from games.seven_gem_swap import engine as seven_gem_swap
from tests.live_server import PASSWORD, Worker, in_db

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.redis,
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL (CI sets it)"),
]

SPECTATORS = 20  # half on each worker
WAIT_SECONDS = 60.0  # a loaded CI machine (four test processes on two cores)


@pytest.fixture
def two_workers(transactional_db):
    """Two real Daphne workers on the test database and Redis; the first runs the scheduler."""
    workers = [Worker(), Worker(scheduler=False)]
    try:
        for worker in workers:
            worker.start()
        yield workers
    finally:
        for worker in workers:
            worker.stop()
            print(f"--- worker {worker.port} log ---\n{worker.log()[-6000:]}")
            worker.log_path.unlink(missing_ok=True)


def seated(make_user, game_key: str, seats: int, settings: dict[str, Any]) -> Match:
    host = make_user("boss")
    players = [make_user(f"player{seat}") for seat in range(seats)]
    match = seating.create_match(
        host=host, game_key=game_key, title="Together", settings=settings, roles=[""] * seats
    )
    for user, seat in zip(players, match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    return match


async def open_sockets(
    stack: AsyncExitStack, workers: list[Worker], match: Match, seats: int
) -> tuple[dict[int, MatchSocket], list[MatchSocket]]:
    """Seat ``n``'s socket on worker ``n % 2``; the spectators half on each. Each socket holds
    its first full view when this returns."""
    players = {}
    for seat in range(seats):
        client = ArenaClient(workers[seat % 2].url)
        await asyncio.to_thread(client.login, f"player{seat}", PASSWORD)
        players[seat] = await stack.enter_async_context(client.match_socket(match.public_id))
    spectators = [
        await stack.enter_async_context(
            ArenaClient(workers[n % 2].url).match_socket(match.public_id)
        )
        for n in range(SPECTATORS)
    ]
    for socket in (*players.values(), *spectators):
        await socket.recv_until("full", timeout=WAIT_SECONDS)
    return players, spectators


async def everyone_at(sockets: list[MatchSocket], version: int) -> None:
    for socket in sockets:
        try:
            await socket.wait_version(version, timeout=WAIT_SECONDS)
        except TimeoutError:
            raise AssertionError(f"a socket stuck at {socket.version}, wanted {version}") from None


def assert_every_version_once_in_order(sockets: dict[str, MatchSocket], last: int) -> None:
    """Each socket got one full frame, then an update for every later version, each once and
    in order: none lost, none resent after a resync."""
    for name, socket in sockets.items():
        frames = [f for f in socket.frames if f.get("type") in ("full", "update")]
        assert frames[0]["type"] == "full", name
        got = [f["version"] for f in frames[1:]]
        first = frames[0]["version"]
        assert got == list(range(first + 1, last + 1)), (
            f"{name} got versions {got} after its full frame at {first}"
        )
        assert socket.reconnects == 0, name


def named(players: dict[int, MatchSocket], spectators: list[MatchSocket]) -> dict[str, Any]:
    sockets: dict[str, MatchSocket] = {f"seat {seat}": s for seat, s in players.items()}
    sockets.update({f"spectator {n}": s for n, s in enumerate(spectators)})
    return sockets


RACE_SEATS = 5
RACE_ROUNDS = 6


async def test_a_race_whose_five_seats_move_together_on_two_workers_loses_no_version(
    two_workers, make_user
):
    match = await in_db(
        lambda: seated(
            make_user,
            "bejeweled-2-race",
            RACE_SEATS,
            {"mode": "classic_time", "minutes": 120},
        )
    )
    async with AsyncExitStack() as stack:
        players, spectators = await open_sockets(stack, two_workers, match, RACE_SEATS)
        everyone = [*players.values(), *spectators]
        for _ in range(RACE_ROUNDS):
            swaps = {}
            for seat, socket in players.items():
                move = bejeweled2.best_move(socket.latest_view()["game"]["board"])
                assert move is not None, f"seat {seat} has no move"
                swaps[seat] = {"type": "swap", "a": move[0], "b": move[1]}
            versions = await asyncio.gather(
                *(players[seat].act(swaps[seat], timeout=WAIT_SECONDS) for seat in players)
            )
            await everyone_at(everyone, max(versions))
        last = max(socket.version for socket in everyone)
        assert last >= RACE_SEATS * RACE_ROUNDS
        assert_every_version_once_in_order(named(players, spectators), last)


GEM_SEATS = 7


def submission(socket: MatchSocket, round_number: int, rng: random.Random) -> dict[str, Any]:
    game = socket.latest_view()["game"]
    me = game["me"]
    cells = seven_gem_swap.parse_board(game["board"]).cells
    return {
        "type": "submit",
        "round": round_number,
        "gem": seven_gem_swap.cell_name(cells.index(me["colour"])),
        "moves": "".join(rng.choice("UDLR") for _ in range(rng.randint(4, 12))),
        "card": me["cards_left"][0] if round_number >= 2 else None,
    }


async def test_seven_gem_swap_seats_all_submitting_at_once_on_two_workers_lose_no_version(
    two_workers, make_user
):
    match = await in_db(
        lambda: seated(
            make_user, "seven-gem-swap", GEM_SEATS, {"bid_seconds": 600, "round_seconds": 600}
        )
    )
    rng = random.Random(40)
    async with AsyncExitStack() as stack:
        players, spectators = await open_sockets(stack, two_workers, match, GEM_SEATS)
        everyone = [*players.values(), *spectators]
        colours = seven_gem_swap.COLOURS
        bids = [
            {"type": "bid", "bid": -rng.randint(0, 9), "colours": "".join(rng.sample(colours, 3))}
            for _ in players
        ]
        versions = await asyncio.gather(
            *(players[seat].act(bids[seat], timeout=WAIT_SECONDS) for seat in players)
        )
        await everyone_at(everyone, max(versions))
        for round_number in (1, 2):
            assert players[0].latest_view()["game"]["round"] == round_number
            moves = {seat: submission(s, round_number, rng) for seat, s in players.items()}
            versions = await asyncio.gather(
                *(players[seat].act(moves[seat], timeout=WAIT_SECONDS) for seat in players)
            )
            await everyone_at(everyone, max(versions))
        last = max(socket.version for socket in everyone)
        assert last >= 3 * GEM_SEATS
        assert_every_version_once_in_order(named(players, spectators), last)
