"""A whole Seven Gem Swap match over real websockets, for the live and privacy tests: the host
creates it on the new-match page, players take their seats by invite link (bots are seated by
the host), and every player bids, saves drafts and submits sequences through its own socket
while a spectator and the host watch. Every frame each viewer receives is kept."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import connections

from games.core.live.client import ArenaClient, MatchSocket
from games.core.match import seating
from games.core.models import LedgerEntry, Match
from games.seven_gem_swap import engine
from tests.live_server import in_db

PASSWORD = "pw-for-tests-1"
HOST = "boss"


def player_name(seat: int) -> str:
    return f"player{seat}"


@dataclass
class Played:
    match: Match
    clients: dict[str, ArenaClient]  # by audience: "seat-0".., "host", "spectators"
    sockets: dict[str, MatchSocket]
    secrets: dict[int, list[str]] = field(default_factory=dict)  # seat -> its sequences, drafts
    bids: dict[int, dict[str, Any]] = field(default_factory=dict)


def create_through_the_page(url: str, seats: int, bot_seats: tuple[int, ...], clock: int) -> Match:
    host = ArenaClient(url)
    host.login(HOST, PASSWORD)
    host.post_form(
        "/matches/new/seven-gem-swap/",
        {
            "title": "Websocket seven",
            "seat_count": str(seats),
            "auto_start": "on",
            "bid_seconds": str(clock),
            "round_seconds": str(clock),
            "no_card_scores": "own_colour",
            "board": "",
        },
    )
    match = Match.objects.get(title="Websocket seven")
    for index in bot_seats:
        seating.seat_bot(match, index, "expert")  # (nobody listens yet: no broadcast needed)
    premover = User.objects.get(username=player_name(0))
    LedgerEntry.objects.create(
        user=premover, season=match.season, garnets=2, reason="granted for a premove"
    )
    for seat in match.seats.order_by("index"):
        if seat.index in bot_seats:
            continue
        player = ArenaClient(url)
        player.login(player_name(seat.index), PASSWORD)
        player.post_form(seat.get_invite_url(), {})
    connections.close_all()
    match.refresh_from_db()
    return match


def distinct_moves(rng: random.Random, used: set[str]) -> str:
    """A sequence of 14-20 moves no one else has used: a needle to look for in every record."""
    while True:
        moves = "".join(rng.choice("UDLR") for _ in range(rng.randint(14, 20)))
        if moves not in used:
            used.add(moves)
            return moves


async def read_until(socket: MatchSocket, done, timeout: float = 30.0) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """Read frames until ``done(view)`` holds for the latest view."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not done(socket.latest_view()):
        left = deadline - asyncio.get_running_loop().time()
        try:
            if left <= 0:
                raise TimeoutError
            await socket.recv(left)
        except TimeoutError:
            game = socket.latest_view().get("game", {})
            raise AssertionError(
                f"the view never reached the state wanted: version {socket.version}, "
                f"phase {game.get('phase')}, round {game.get('round')}, reconnects "
                f"{socket.reconnects}, last frames "
                f"{[(f.get('type'), f.get('version'), f.get('code')) for f in socket.frames[-4:]]}"
            ) from None
    return socket.latest_view()


async def everyone_sees(sockets: dict[str, MatchSocket], version: int) -> None:
    """Read every socket up to ``version``: a socket left unread stops answering pings."""
    for audience, socket in sockets.items():
        try:
            await socket.wait_version(version, timeout=15)
        except TimeoutError:
            game = socket.latest_view().get("game", {})
            raise AssertionError(
                f"{audience} stuck at version {socket.version} (wanted {version}), phase "
                f"{game.get('phase')}, round {game.get('round')}, reconnects {socket.reconnects}"
            ) from None


async def play_match(
    url: str, *, seats: int = 7, bot_seats: tuple[int, ...] = (), clock: int = 600, pages=None
) -> Played:  # type: ignore[no-untyped-def]
    """Play a whole match; ``pages(played, round)`` is awaited once a round, in the middle of
    it (some sequences are in, others not yet). Each round ends when every seat is in: its
    ``clock`` only has to outlast a loaded machine (a CI run saw 20 s run out mid-round)."""
    match = await asyncio.to_thread(create_through_the_page, url, seats, bot_seats, clock)
    humans = [i for i in range(seats) if i not in bot_seats]
    clients: dict[str, ArenaClient] = {}
    for seat in humans:
        clients[f"seat-{seat}"] = ArenaClient(url)
        await asyncio.to_thread(clients[f"seat-{seat}"].login, player_name(seat), PASSWORD)
    clients["host"] = ArenaClient(url)
    await asyncio.to_thread(clients["host"].login, HOST, PASSWORD)
    clients["spectators"] = ArenaClient(url)
    sockets = {
        audience: client.match_socket(match.public_id, json_only=False)
        for audience, client in clients.items()
    }
    played = Played(match=match, clients=clients, sockets=sockets)
    rng = random.Random(13)
    used: set[str] = set()
    for socket in sockets.values():
        await socket.__aenter__()
    try:
        for socket in sockets.values():
            await socket.recv_until("full")
        for seat in humans:
            colours = "".join(rng.sample(engine.COLOURS, 3))
            bid = {"type": "bid", "bid": -rng.randint(0, 9), "colours": colours}
            played.bids[seat] = bid
            await everyone_sees(sockets, await sockets[f"seat-{seat}"].act(bid))
        watcher = sockets["spectators"]
        await read_until(watcher, lambda v: v.get("game", {}).get("phase") == "round")
        for round_number in range(1, 9):
            for seat in humans:
                socket = sockets[f"seat-{seat}"]
                await read_until(socket, lambda v, n=round_number: v["game"].get("round") == n)
                me = socket.latest_view()["game"]["me"]
                board = engine.parse_board(socket.latest_view()["game"]["board"]).cells
                gem = engine.cell_name(board.index(me["colour"]))
                draft_moves = distinct_moves(rng, used)
                moves = distinct_moves(rng, used)
                played.secrets.setdefault(seat, []).extend([draft_moves, moves])
                card = me["cards_left"][0] if round_number >= 2 else None
                draft = {"round": round_number, "gem": gem, "moves": draft_moves}
                await socket.send({"type": "draft", "draft": draft})
                await socket.recv_until("draft")
                action = {
                    "type": "submit",
                    "round": round_number,
                    "gem": gem,
                    "moves": moves,
                    "card": card,
                    "premove": seat == humans[0] and round_number == 2,
                }
                await everyone_sees(sockets, await socket.act(action))
                if pages is not None and seat == humans[len(humans) // 2]:
                    await pages(played, round_number)  # some sequences are in, not all
            await read_until(
                watcher,
                lambda v, n=round_number: (
                    v["game"].get("round", 0) > n or v["game"].get("phase") == "over"
                ),
            )
        final = await read_until(watcher, lambda v: v["match"]["status"] == "finished")
        assert final["game"]["phase"] == "over"
        for socket in sockets.values():
            await socket.wait_version(watcher.version)
    finally:
        for socket in sockets.values():
            await socket.__aexit__(None, None, None)
    await in_db(match.refresh_from_db)
    return played
