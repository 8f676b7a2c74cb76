"""Hostile input: frames no client should send, from every kind of connection."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import json
import logging
import os
import re
from typing import Any

import pytest
import websockets
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.db import connections
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from games.core.live.client import ArenaClient
from games.core.management.commands.serve import MAX_MESSAGE_BYTES as SERVER_MAX_MESSAGE_BYTES
from gemsite.routing import websocket_urlpatterns
from tests.registered import long_clocks, real_games, seat_roles
from tests.sockets import pong_comes_next


@pytest.fixture
def quiet_tally(make_user):
    from games.core.match import seating

    host = make_user("hostess")
    return seating.create_match(
        host=host, game_key="fixture-tally", title="Big", settings={}, roles=["EC", "DMO"]
    )


@pytest.mark.django_db(transaction=True)
async def test_a_message_over_the_servers_limit_is_closed_with_1009_not_dropped(
    live_worker, quiet_tally
):
    socket_ = ArenaClient(live_worker.url).match_socket(quiet_tally.public_id, reconnect=False)
    async with socket_:
        await socket_.recv_until("full")
        connection = socket_._connection
        # Below the server's limit, a large message is answered and the connection kept.
        await connection.send("x" * 100_000)
        assert (await socket_.recv_until("error"))["code"] == "frame_too_large"
        await connection.send("x" * (SERVER_MAX_MESSAGE_BYTES + 1))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await connection.recv()
    assert closed.value.rcvd is not None, "the server dropped the connection with no close frame"
    assert closed.value.rcvd.code == 1009


class SilentSocket:
    """A websocket client that sends and never reads: it leaves the server's close unanswered,
    so the server's side stays closing (not yet gone) while it still answers earlier frames."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, url: str, path: str) -> SilentSocket:
        host, port = url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            f"Sec-WebSocket-Version: 13\r\nOrigin: {url}\r\n\r\n".encode()
        )
        assert b" 101 " in await reader.readuntil(b"\r\n\r\n")
        return cls(reader, writer)

    async def send(self, text: str) -> None:
        payload = text.encode()
        size = len(payload)
        if size < 126:
            length = bytes([0x80 | size])
        elif size < 2**16:
            length = bytes([0x80 | 126]) + size.to_bytes(2, "big")
        else:
            length = bytes([0x80 | 127]) + size.to_bytes(8, "big")
        # A text frame, masked with a key of zeros (any key is allowed; this one changes nothing).
        self.writer.write(b"\x81" + length + bytes(4) + payload)
        await self.writer.drain()

    async def until_dropped(self) -> None:
        """Wait for the server to end the connection (whatever it sent before is read and
        thrown away: the close frame is still never answered)."""
        with contextlib.suppress(ConnectionResetError):  # dropped with data unread: a reset
            while await self.reader.read(65536):
                pass

    def close(self) -> None:
        self.writer.close()


@pytest.mark.django_db(transaction=True)
async def test_answers_to_a_connection_an_oversize_frame_closed_are_dropped_quietly(
    live_worker, tally_match
):
    match = tally_match[0]
    silent = await SilentSocket.open(live_worker.url, f"/ws/m/{match.public_id}/")
    # Frames the worker is still answering (each resync renders the match's frames again) when
    # the next one makes it close the connection (1009).
    for _ in range(15):
        await silent.send(json.dumps({"type": "resync", "since": 0}))
    await silent.send("x" * (SERVER_MAX_MESSAGE_BYTES + 1))
    # The server closes the connection (1009) and, its close never answered, drops it: what the
    # worker had not sent by then is dropped.
    await asyncio.wait_for(silent.until_dropped(), 60)
    silent.close()
    # Another socket's answer comes after the worker has dealt with the first.
    async with ArenaClient(live_worker.url).match_socket(match.public_id) as after:
        await after.recv_until("full")
        await after.send({"type": "ping"})
        await after.recv_until("pong")
    log = live_worker.log()
    assert "Traceback" not in log and "Exception inside application" not in log, log[-3000:]


# --- the fuzzer ---------------------------------------------------------------------------------
# Hypothesis writes frames no honest client sends and sends each through the in-process consumer
# (every game; one connection per kind of viewer, reused across examples). Each must get an error
# frame (a seated player's well-formed action may be legal: then an ack and its update), the match
# must be unchanged whenever nothing was acknowledged, and nothing may be logged as an error.
# NaN, infinities, NUL characters and lone surrogates anywhere in a message are refused as
# bad_message (never answered as a database outage), and frames over the limit as too large.

# Frames per game for each kind of connection. A seat's frames reach each game's own checks of
# an action; the host's, a spectator's and a guest's are refused by the core (no seat) before any
# game reads them, the same path in every game, so they get far fewer. The default run draws the
# same frames every time (hypothesis derandomised); `make soak` draws new ones, and ten times as
# many (GEM_FUZZ_SCALE multiplies them all).
FRAMES_PER_KIND = {
    kind: round(count * float(os.environ.get("GEM_FUZZ_SCALE", "1")))
    for kind, count in {"seated": 250, "host": 100, "spectator": 60, "anonymous": 60}.items()
}
KINDS = tuple(FRAMES_PER_KIND)
# Every real game (tests/registered.py), from its fewest seats, and Tally, the fixture whose
# "add" the fuzzer's actions reach, with clocks that cannot run out while the fuzzer plays (an
# action that finds a clock due fires it first, which would change the match under a refusal):
# each clock setting at a day, or as near as its bounds allow.
TWEAKS: dict[str, dict[str, Any]] = {"fixture-tally": {"target": 10**6}}  # never reached
GAMES: dict[str, dict[str, Any]] = {
    key: {**long_clocks(key), **TWEAKS.get(key, {})} for key in [*real_games(), *TWEAKS]
}
ACTION_TYPES = (
    "add",
    "claim",
    "counterclaim",
    "pass",
    "proof",
    "pick",
    "second_starter",
    "skip_second_starter",
    "swap",
    "hint",
    "path",
    "agree_end",
    "scout",
    "choose_order",
    "bid",
    "submit",
)
ACTION_FIELDS = (
    "amount",
    "count",
    "text",
    "starter",
    "passive",
    "active",
    "steps",
    "seat",
    "cells",
    "cell",
    "board",
    "from",
    "to",
    "first",
    "bid",
    "colours",
    "gem",
    "moves",
    "premove",
    "card",
    "round",
)
leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and the infinities too: json.dumps writes them as NaN, Infinity
    | st.text(max_size=24)
    | st.sampled_from(["٣", "²", "\u0000", "\ud800", "1e9", "-1", "３", "Ⅻ"])
)
json_values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _text(value: Any) -> tuple[str, str]:
    return ("text", json.dumps(value))


hostile_ids = (
    st.just("")
    | st.text(min_size=65, max_size=90)
    | st.sampled_from(["a\u0000b", "\ud800", "\udfff\ud800", "tab\there", "new\nline", "é", "٣"])
    | json_values.filter(lambda value: not isinstance(value, str))
)
any_id = hostile_ids | st.uuids().map(lambda u: u.hex)
game_actions = st.builds(
    lambda kind, fields: {"type": kind, **fields},
    st.sampled_from(ACTION_TYPES) | st.text(max_size=12) | json_values,
    st.dictionaries(st.sampled_from(ACTION_FIELDS), json_values, max_size=3),
)
versions = st.none() | st.integers(-3, 12) | st.integers() | json_values

actions = st.builds(
    lambda message_id, version, action, extra: {
        "type": "action",
        "id": message_id,
        "version": version,
        "action": action,
        **extra,
    },
    any_id,
    versions,
    game_actions | json_values,
    st.dictionaries(st.just("seat"), st.integers(0, 3), max_size=1),
)
# Well-formed messages with hostile actions inside: these reach the services and the game's rules.
game_messages = st.builds(
    lambda message_id, version, action: {
        "type": "action",
        "id": message_id,
        "version": version,
        "action": action,
    },
    st.uuids().map(lambda u: u.hex),
    st.none() | st.integers(-3, 12),
    game_actions,
)
deep = st.integers(400, 4000).map(lambda depth: ("text", "[" * depth + "]" * depth)) | st.integers(
    400, 2000
).map(lambda depth: ("text", '{"a":' * depth + "1" + "}" * depth))
# What no store keeps, hidden in otherwise plausible messages: a legal move with an extra field,
# a draft's cells, a chat post.
UNKEEPABLE_CHARACTERS = ("\u0000", "\ud800", "\udbff", "\udc00", "\udfff")
poison = st.sampled_from([float("nan"), float("inf"), float("-inf")]) | st.builds(
    lambda before, bad, after: before + bad + after,
    st.text(max_size=4),
    st.sampled_from(UNKEEPABLE_CHARACTERS),
    st.text(max_size=4),
)
poisoned = st.one_of(
    st.builds(
        lambda action_id, field, bad: {
            "type": "action",
            "id": action_id,
            "action": {"type": "add", "amount": 1, field: bad},
        },
        st.uuids().map(lambda u: u.hex),
        st.sampled_from(ACTION_FIELDS[1:]),
        poison,
    ),
    st.builds(lambda bad: {"type": "draft", "draft": {"cells": ["A1", bad]}}, poison),
    st.builds(lambda bad: {"type": "draft", "draft": {"amount": 1, "note": bad}}, poison),
    st.builds(
        lambda channel, bad: {"type": "chat", "id": "chat-p", "channel": channel, "text": bad},
        st.sampled_from(["players", "spectators"]),
        poison,
    ),
)


def holds_unkeepable(text: str) -> bool:
    """Does this JSON object hold NaN, an infinity, a NUL or a lone surrogate anywhere?"""
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return False
    found, stack = False, [message]
    while stack and not found:
        value = stack.pop()
        if isinstance(value, float):
            found = value != value or value in (float("inf"), float("-inf"))
        elif isinstance(value, str):
            found = any(c == "\u0000" or "\ud800" <= c <= "\udfff" for c in value)
        elif isinstance(value, dict):
            stack += [*value.keys(), *value.values()]
        elif isinstance(value, list):
            stack += value
    return found and isinstance(message, dict)


hostile_frames = st.one_of(
    st.text(max_size=200).filter(lambda text: not _is_json(text)).map(lambda t: ("text", t)),
    st.binary(max_size=200).map(lambda data: ("bytes", data)),
    json_values.filter(lambda value: not isinstance(value, dict)).map(_text),
    deep,
    st.builds(
        lambda kind, extra: {**extra, "type": kind},
        json_values.filter(lambda kind: kind not in ("action", "draft", "resync", "ping")),
        st.dictionaries(st.text(max_size=8), json_values, max_size=3),
    ).map(_text),
    st.builds(
        lambda since: {"type": "resync", "since": since},
        json_values.filter(
            lambda since: (
                not (isinstance(since, int) and not isinstance(since, bool) and since >= 0)
            )
        ),
    ).map(_text),
    st.builds(lambda draft: {"type": "draft", "draft": draft}, json_values).map(_text),
    st.builds(
        lambda kind, size: _text({"type": kind, "id": "big", "pad": "x" * size}),
        st.sampled_from(["ping", "action", "draft", "chat"]),
        st.integers(8200, 20000),
    ),
    actions.map(_text),
    game_messages.map(_text),
    game_messages.map(_text),
    game_messages.map(_text),
    poisoned.map(_text),
    poisoned.map(_text),
)


def state_hash(match_pk: int) -> str:
    from games.core.models import Match

    version, status, state = Match.objects.filter(pk=match_pk).values_list(
        "version", "status", "state"
    )[0]
    return hashlib.sha256(json.dumps([version, status, state], sort_keys=True).encode()).hexdigest()


@pytest.fixture
def fuzz_match(make_user, django_user_model):
    """A started match of ``game``, and the user of each kind of connection."""
    from games.core.game.registry import get_game
    from games.core.match import seating

    def user(name: str) -> Any:  # the same people in every match
        return django_user_model.objects.filter(username=name).first() or make_user(name)

    def make(game: str) -> tuple[Any, dict[str, Any]]:
        host = user("hostess")
        seats = get_game(game).min_seats
        players = [user(name) for name in ("ada", "bob", "cy", "dee")[:seats]]
        carol = user("carol")
        match = seating.create_match(
            host=host,
            game_key=game,
            title="fuzz",
            settings=GAMES[game],
            roles=seat_roles(game, seats),
        )
        for seat, player in zip(match.seats.order_by("index"), players, strict=True):
            seating.take_seat(match, player, seat.invite_token)
        match.refresh_from_db()
        users = {
            "seated": players[0],
            "spectator": carol,
            "anonymous": AnonymousUser(),
            "host": host,
        }
        return match, users

    return make


@pytest.fixture
def no_rate_limit(settings):
    settings.WS_RATE_PER_SECOND = 10**9
    settings.WS_RATE_BURST = 10**9


async def _open(match: Any, user: Any) -> WebsocketCommunicator:
    socket_ = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/m/{match.public_id}/")
    socket_.scope["user"] = user
    connected, _ = await socket_.connect(timeout=30)
    assert connected
    assert json.loads(await socket_.receive_from(timeout=10))["type"] == "full"
    return socket_


async def _answers(socket_: WebsocketCommunicator, frame: tuple[str, Any]) -> list[dict[str, Any]]:
    """Send one frame; return what came back for it (one error; or an ack and its update, or a
    kept draft echoed)."""
    kind, payload = frame
    # send_input, not send_to: an empty frame is a frame too.
    await socket_.send_input({"type": "websocket.receive", kind: payload})
    first = json.loads(await socket_.receive_from(timeout=10))
    answers = [first]
    if first["type"] == "ack" and not first["duplicate"]:
        while True:  # the update of the acknowledged version follows the ack
            update = json.loads(await socket_.receive_from(timeout=10))
            answers.append(update)
            if update.get("version") == first["version"] and update["type"] == "update":
                break
    return answers


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("game", list(GAMES))
def test_hostile_frames_get_errors_and_change_nothing(
    fuzz_match, no_rate_limit, caplog, game, kind
):
    match, users = fuzz_match(game)
    loop = asyncio.new_event_loop()
    socket_ = loop.run_until_complete(_open(match, users[kind]))
    seen: collections.Counter[str] = collections.Counter()
    caplog.set_level(logging.WARNING)

    @hypothesis_settings(
        max_examples=FRAMES_PER_KIND[kind],
        database=None,
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(frame=hostile_frames)
    def one_frame(frame: tuple[str, Any]) -> None:
        before = state_hash(match.pk)
        answers = loop.run_until_complete(_answers(socket_, frame))
        first = answers[0]
        seen[first.get("code", first["type"])] += 1
        assert first.get("code") != "unavailable", (frame, first)  # the database is up
        kind_of_payload, payload = frame
        small = kind_of_payload == "text" and len(payload.encode(errors="replace")) <= 8192
        if small and holds_unkeepable(payload):
            assert first.get("code") == "bad_message", (frame, first)
        if first["type"] == "error":
            assert len(answers) == 1
            assert re.fullmatch(r"[a-z_]+", first["code"]) and first["message"]
            assert state_hash(match.pk) == before
            return
        # Only a seat may be answered with anything but an error: an ack of a legal action, or
        # its draft kept.
        assert kind == "seated", first
        assert first["type"] in ("ack", "draft"), first
        if first["type"] == "draft" or first["duplicate"]:
            assert state_hash(match.pk) == before

    try:
        one_frame()
        loop.run_until_complete(pong_comes_next(socket_))  # nothing left unanswered
    finally:
        loop.run_until_complete(socket_.disconnect())
        loop.close()
        connections.close_all()
    assert sum(seen.values()) >= FRAMES_PER_KIND[kind]
    assert seen["error"] == 0  # every error carries its code
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not logged, [r.getMessage() for r in logged]


# --- every game's connections over real websockets -----------------------------------------------
# The same kinds of hostile frames through a real worker (Daphne, the session, the origin check,
# the database and the layer), every game and every kind of connection, ending with a frame over
# the server's limit: each is answered with an error or closes the connection with 1009, nothing
# changes, and the worker logs no traceback.

BATTERY: list[tuple[str | bytes, str]] = [
    (
        '{"type": "action", "id": "n1", "action": {"type": "add", "amount": 1, "x": NaN}}',
        "bad_message",
    ),
    ('{"type": "action", "id": "n2", "action": {"type": "pass", "x": Infinity}}', "bad_message"),
    ('{"type": "action", "id": "n3", "action": {"type": "pass", "x": -1e400}}', "bad_message"),
    ('{"type": "action", "id": "n4", "action": {"type": "pass", "x": "a\\u0000"}}', "bad_message"),
    ('{"type": "action", "id": "n5", "action": {"type": "pass", "x\\u0000": 1}}', "bad_message"),
    ('{"type": "action", "id": "n6", "action": {"type": "pass", "x": "\\ud800"}}', "bad_message"),
    ('{"type": "action", "id": "n7", "action": {"type": "pass", "x": ["\\udfff"]}}', "bad_message"),
    ('{"type": "draft", "draft": {"cells": ["A1\\u0000"]}}', "bad_message"),
    ('{"type": "draft", "draft": {"amount": NaN}}', "bad_message"),
    ('{"type": "draft", "draft": {"cells": ["\\udbff"]}}', "bad_message"),
    ('{"type": "chat", "id": "chat-n1", "channel": "players", "text": "gg\\u0000"}', "bad_message"),
    (
        '{"type": "chat", "id": "chat-n2", "channel": "spectators", "text": "\\ud83d"}',
        "bad_message",
    ),
    (
        '{"type": "chat", "id": "chat-n3", "channel": "players", "text": "gg", "x": NaN}',
        "bad_message",
    ),
    ('{"type": "ping", "pad": NaN}', "bad_message"),
    ('{"type": "resync", "since": NaN}', "bad_message"),
    ('{"type": "resync", "since": -1}', "bad_message"),
    (
        '{"type": "action", "id": "n8", "action": {"type": "pass", "x": %s}}' % ("9" * 5000),
        "bad_json",
    ),
    ("[" * 3000 + "]" * 3000, "bad_json"),
    ("not json", "bad_json"),
    (b"\x00\xff binary", "bad_frame"),
    ('{"type": "ping", "pad": "%s"}' % ("x" * 9000), "frame_too_large"),
    (
        '{"type": "action", "id": "n9", "action": {"type": "pass", "x": "%s"}}' % ("é" * 5000),
        "frame_too_large",
    ),
]


@pytest.fixture
def unlimited_worker(transactional_db, monkeypatch):
    """A worker (no scheduler: no clock may move a match under the frames) whose rate limit
    lets a whole battery through at once."""
    from tests.live_server import Worker

    monkeypatch.setenv("WS_RATE_PER_SECOND", "100000")
    monkeypatch.setenv("WS_RATE_BURST", "100000")
    worker = Worker(scheduler=False).start()
    yield worker
    worker.stop()
    print(f"--- worker log ---\n{worker.log()[-8000:]}")
    worker.log_path.unlink(missing_ok=True)


async def answer_to(socket_: Any, frame: str | bytes) -> dict[str, Any]:
    await socket_._connection.send(frame)
    return await socket_.recv(timeout=10)


async def test_every_games_connections_refuse_hostile_frames_and_the_worker_logs_no_traceback(
    unlimited_worker, fuzz_match
):
    from tests.live_server import PASSWORD, in_db

    url = unlimited_worker.url
    for game in GAMES:
        match, users = await in_db(lambda game=game: fuzz_match(game))
        before = await in_db(lambda match=match: state_hash(match.pk))
        for kind, user in users.items():
            client = ArenaClient(url)
            if kind != "anonymous":
                await asyncio.to_thread(client.login, user.username, PASSWORD)
            async with client.match_socket(match.public_id, reconnect=False) as socket_:
                await socket_.recv_until("full")
                for frame, code in BATTERY:
                    answer = await answer_to(socket_, frame)
                    assert (answer["type"], answer.get("code")) == ("error", code), (game, kind)
                await socket_._connection.send("x" * (SERVER_MAX_MESSAGE_BYTES + 1))
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    while True:
                        await socket_._connection.recv()
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        assert await in_db(lambda match=match: state_hash(match.pk)) == before, game
    log = unlimited_worker.log()
    assert "Traceback" not in log and "Exception inside application" not in log, log[-3000:]
