"""Hostile input: frames no client should send, from every kind of connection."""

from __future__ import annotations

import asyncio
import collections
import hashlib
import json
import logging
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

from games.core.client import ArenaClient
from games.core.management.commands.serve import MAX_MESSAGE_BYTES as SERVER_MAX_MESSAGE_BYTES
from gemsite.routing import websocket_urlpatterns


@pytest.fixture
def quiet_tally(make_user):
    from games.core import services

    host = make_user("hostess")
    return services.create_match(
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
    await asyncio.sleep(2)  # the worker answers all 15 (or gives up on the closed connection)
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
# (one connection per kind of viewer, reused across examples). Each must get an error frame (a
# seated player's well-formed action may be legal: then an ack and its update), the match must be
# unchanged whenever nothing was acknowledged, and nothing may be logged as an error.

FRAMES_PER_KIND = 1000
KINDS = ("seated", "spectator", "anonymous", "host")
GAMES = {
    "fixture-tally": {"settings": {"target": 10**6, "turn_seconds": 3600}},
    "bejeweled-dm": {"settings": {}},
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
)
ACTION_FIELDS = ("amount", "count", "text", "starter", "passive", "active", "steps", "seat")

leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
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
    st.integers(8200, 20000).map(lambda size: _text({"type": "ping", "pad": "x" * size})),
    actions.map(_text),
    game_messages.map(_text),
    game_messages.map(_text),
    game_messages.map(_text),
)


def state_hash(match_pk: int) -> str:
    from games.core.models import Match

    version, status, state = Match.objects.filter(pk=match_pk).values_list(
        "version", "status", "state"
    )[0]
    return hashlib.sha256(json.dumps([version, status, state], sort_keys=True).encode()).hexdigest()


@pytest.fixture
def fuzz_match(make_user):
    """A started match of ``game``, and the user of each kind of connection."""
    from games.core import services

    def make(game: str) -> tuple[Any, dict[str, Any]]:
        host = make_user("hostess")
        ada, bob, carol = make_user("ada"), make_user("bob"), make_user("carol")
        match = services.create_match(
            host=host,
            game_key=game,
            title="fuzz",
            settings=GAMES[game]["settings"],
            roles=["EC", "DMO"],
        )
        seats = list(match.seats.order_by("index"))
        services.take_seat(match, ada, seats[0].invite_token)
        services.take_seat(match, bob, seats[1].invite_token)
        match.refresh_from_db()
        users = {"seated": ada, "spectator": carol, "anonymous": AnonymousUser(), "host": host}
        return match, users

    return make


@pytest.fixture
def no_rate_limit(settings):
    settings.WS_RATE_PER_SECOND = 10**9
    settings.WS_RATE_BURST = 10**9


async def _open(match: Any, user: Any) -> WebsocketCommunicator:
    socket_ = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/m/{match.public_id}/")
    socket_.scope["user"] = user
    connected, _ = await socket_.connect()
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
        max_examples=FRAMES_PER_KIND,
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
        assert loop.run_until_complete(socket_.receive_nothing(timeout=0.2))
    finally:
        loop.run_until_complete(socket_.disconnect())
        loop.close()
        connections.close_all()
    assert sum(seen.values()) >= FRAMES_PER_KIND
    assert seen["error"] == 0  # every error carries its code
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not logged, [r.getMessage() for r in logged]
