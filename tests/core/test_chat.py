"""The match chat: who reads and writes each channel, the limits, mutes, history, the page and
the live frames (in-process consumer with channels' WebsocketCommunicator)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.db import connections

from games.core.game.gamedef import ActionError
from games.core.live import protocol
from games.core.match import chat, seating
from games.core.models import ChatMessage, Match
from gemsite.routing import websocket_urlpatterns
from tests.sockets import frames_before, receive


@pytest.fixture
def room(tally_match, make_user):
    """A match with two seated players (ada, bob), its host and a signed-in spectator (sam)."""
    match, ada, bob, host = tally_match
    return match, ada, bob, host, make_user("sam")


def refusal_code(call, *args, **kwargs) -> str:
    with pytest.raises(ActionError) as refused:
        call(*args, **kwargs)
    return refused.value.code


def finish(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    match.refresh_from_db()


# --- who writes where -------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_player_writes_in_the_players_channel(room):
    match, ada, *_ = room
    posted = chat.post(match, ada, "players", "good luck")
    assert ChatMessage.objects.get(pk=posted.pk).text == "good luck"


@pytest.mark.django_db
def test_the_host_writes_in_both_channels(room):
    match, _, _, host, _ = room
    chat.post(match, host, "players", "round two starts now")
    chat.post(match, host, "spectators", "welcome")
    assert ChatMessage.objects.filter(author=host).count() == 2


@pytest.mark.django_db
def test_a_spectator_cannot_write_in_the_players_channel(room):
    match, *_, sam = room
    assert refusal_code(chat.post, match, sam, "players", "psst") == "chat_not_allowed"


@pytest.mark.django_db
def test_a_player_cannot_write_to_the_spectators_while_the_match_runs(room):
    match, ada, *_ = room
    assert refusal_code(chat.post, match, ada, "spectators", "cheer me") == "chat_not_allowed"


@pytest.mark.django_db
def test_a_player_writes_to_the_spectators_once_the_match_is_over(room):
    match, ada, *_ = room
    finish(match)
    assert chat.post(match, ada, "spectators", "gg all").channel == "spectators"


@pytest.mark.django_db
def test_an_anonymous_viewer_must_sign_in_to_write(room):
    match, *_ = room
    assert refusal_code(chat.post, match, AnonymousUser(), "spectators", "hi") == "chat_sign_in"


@pytest.mark.django_db
def test_an_unknown_channel_is_refused(room):
    match, ada, *_ = room
    assert refusal_code(chat.post, match, ada, "everyone", "hi") == "chat_unknown_channel"


# --- what a message may hold ------------------------------------------------------------------


@pytest.mark.django_db
def test_a_message_over_300_characters_is_refused(room):
    match, ada, *_ = room
    assert refusal_code(chat.post, match, ada, "players", "x" * 301) == "chat_too_long"
    assert chat.post(match, ada, "players", "x" * 300).text == "x" * 300


@pytest.mark.django_db
def test_a_blank_message_is_refused(room):
    match, ada, *_ = room
    assert refusal_code(chat.post, match, ada, "players", " \n\t ") == "chat_empty"


@pytest.mark.django_db
def test_control_characters_and_runs_of_spaces_become_one_space(room):
    match, ada, *_ = room
    assert chat.post(match, ada, "players", "a\x00b  \n c\ud800").text == "a b c"


@pytest.mark.django_db
def test_markup_is_stored_as_typed(room):
    match, ada, *_ = room
    assert chat.post(match, ada, "players", "<b>hi</b>").text == "<b>hi</b>"


# --- the rate ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_sixth_message_within_ten_seconds_is_refused(room, clock):
    match, ada, *_ = room
    for n in range(chat.RATE_COUNT):
        chat.post(match, ada, "players", f"line {n}")
        clock.advance(1)
    with pytest.raises(ActionError) as refused:
        chat.post(match, ada, "players", "one too many")
    assert refused.value.code == "chat_rate_limited"
    assert "wait 5 s" in refused.value.message


@pytest.mark.django_db
def test_the_rate_counts_a_user_across_matches(room, make_user, clock):

    match, ada, _, host, _ = room
    other = seating.create_match(
        host=host, game_key="fixture-tally", title="t2", settings={}, roles=["EC", "DMO"]
    )
    for n in range(chat.RATE_COUNT):
        chat.post(match, ada, "players", f"line {n}")
    assert refusal_code(chat.post, other, ada, "spectators", "here too") == "chat_rate_limited"


@pytest.mark.django_db
def test_a_user_writes_again_ten_seconds_later(room, clock):
    match, ada, *_ = room
    for n in range(chat.RATE_COUNT):
        chat.post(match, ada, "players", f"line {n}")
    clock.advance(chat.RATE_SECONDS)
    assert chat.post(match, ada, "players", "back").text == "back"


@pytest.mark.django_db
def test_the_rate_is_per_user(room, clock):
    match, ada, bob, *_ = room
    for n in range(chat.RATE_COUNT):
        chat.post(match, ada, "players", f"line {n}")
    assert chat.post(match, bob, "players", "my turn").text == "my turn"


# --- mutes ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_muted_user_is_refused_in_every_channel(room):
    match, ada, _, host, _ = room
    chat.set_mute(match, host, muted=True, user_id=ada.pk)
    assert refusal_code(chat.post, match, ada, "players", "hey") == "chat_muted"
    finish(match)
    assert refusal_code(chat.post, match, ada, "spectators", "hey") == "chat_muted"


@pytest.mark.django_db
def test_an_unmuted_user_writes_again(room):
    match, _, _, host, sam = room
    chat.set_mute(match, host, muted=True, user_id=sam.pk)
    chat.set_mute(match, host, muted=False, user_id=sam.pk)
    assert chat.post(match, sam, "spectators", "thanks").text == "thanks"


@pytest.mark.django_db
def test_a_muted_channel_refuses_everyone_but_the_host(room):
    match, _, _, host, sam = room
    chat.set_mute(match, host, muted=True, channel="spectators")
    assert refusal_code(chat.post, match, sam, "spectators", "hey") == "chat_channel_muted"
    assert chat.post(match, host, "spectators", "quiet please").text == "quiet please"


@pytest.mark.django_db
def test_muting_twice_keeps_one_mute(room):
    match, _, _, host, sam = room
    chat.set_mute(match, host, muted=True, user_id=sam.pk)
    mutes = chat.set_mute(match, host, muted=True, user_id=sam.pk)
    assert chat.mutes_of(mutes) == {"users": [{"id": sam.pk, "name": "Sam"}], "channels": []}


@pytest.mark.django_db
def test_only_the_host_can_mute(room):
    match, ada, _, _, sam = room
    code = refusal_code(chat.set_mute, match, ada, muted=True, user_id=sam.pk)
    assert code == "chat_host_only"


@pytest.mark.django_db
def test_the_host_cannot_be_muted(room, make_user):
    match, _, _, host, _ = room
    # A superuser runs every match (games/core/match/authority.py), but not over its host.
    staff = make_user("stella", is_staff=True, is_superuser=True)
    code = refusal_code(chat.set_mute, match, staff, muted=True, user_id=host.pk)
    assert code == "chat_cannot_mute_host"


# --- history and the page ---------------------------------------------------------------------


@pytest.mark.django_db
def test_history_shows_each_viewer_only_the_channels_it_may_read(room):
    match, ada, _, host, sam = room
    chat.post(match, ada, "players", "table talk")
    chat.post(match, sam, "spectators", "go ada")
    assert set(chat.history(match, match.viewer_for(sam))) == {"spectators"}
    assert set(chat.history(match, match.viewer_for(ada))) == {"players"}
    assert set(chat.history(match, match.viewer_for(host))) == {"players", "spectators"}
    finish(match)
    assert set(chat.history(match, match.viewer_for(ada))) == {"players", "spectators"}
    assert set(chat.history(match, match.viewer_for(sam))) == {"spectators"}


@pytest.mark.django_db
def test_history_holds_the_last_50_of_a_channel_oldest_first(room, clock):
    match, ada, bob, *_ = room
    for n in range(60):
        chat.post(match, (ada, bob)[n % 2], "players", f"line {n}")
        clock.advance(2)
    lines = chat.history(match, match.viewer_for(ada))["players"]
    assert [line["text"] for line in lines] == [f"line {n}" for n in range(10, 60)]


@pytest.mark.django_db
def test_a_message_names_its_author_and_seat(room):
    match, ada, _, host, _ = room
    chat.post(match, ada, "players", "hi")
    chat.post(match, host, "players", "hello")
    lines = chat.history(match, match.viewer_for(host))["players"]
    assert [(line["author"], line["badge"]) for line in lines] == [
        ("Ada", "Seat 1"),
        ("Hostess", "Host"),
    ]


@pytest.mark.django_db
def test_the_page_shows_a_message_as_text_not_markup(client, room):
    match, ada, *_ = room
    chat.post(match, ada, "players", "<script>alert(1)</script>")
    client.force_login(ada)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)" not in page


@pytest.mark.django_db
def test_a_spectators_page_holds_no_players_message(client, room):
    match, ada, _, _, sam = room
    chat.post(match, ada, "players", "my secret plan")
    client.force_login(sam)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "my secret plan" not in page
    assert 'data-channel="spectators"' in page
    assert 'data-channel="players"' not in page


@pytest.mark.django_db
def test_an_anonymous_page_asks_to_sign_in_to_chat(client, room):
    match, *_ = room
    page = client.get(match.get_absolute_url()).content.decode()
    assert "to chat; you can read without an account" in page
    assert 'class="chat-form"' not in page


@pytest.mark.django_db
def test_the_hosts_page_has_mute_buttons(client, room):
    match, ada, _, host, _ = room
    chat.post(match, ada, "players", "hi")
    client.force_login(host)
    page = client.get(match.get_absolute_url()).content.decode()
    assert f'data-mute-user="{ada.pk}"' in page
    assert 'data-mute-channel="spectators"' in page


@pytest.mark.django_db
def test_a_players_page_has_no_mute_buttons(client, room):
    match, ada, bob, *_ = room
    chat.post(match, bob, "players", "hi")
    client.force_login(ada)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "data-mute-user" not in page and "data-mute-channel" not in page


# --- the protocol's shape checks --------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        {"type": "chat", "channel": "players", "text": "no id"},
        {"type": "chat", "id": "c1", "op": ["post"], "channel": "players", "text": "hi"},
        {"type": "chat", "id": "c1", "channel": "players"},
        {"type": "chat", "id": "c1", "channel": "players", "text": 5},
        {"type": "chat", "id": "c1", "op": "mute"},
        {"type": "chat", "id": "c1", "op": "mute", "user": 3, "channel": "players"},
        {"type": "chat", "id": "c1", "op": "mute", "user": True},
        {"type": "chat", "id": "c1", "op": "mute", "user": 10**30},
        {"type": "chat", "id": "c1", "op": "shout"},
    ],
)
def test_a_chat_message_of_the_wrong_shape_is_refused(message):
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_client_message(json.dumps(message), None)


# --- live frames ------------------------------------------------------------------------------


@pytest.fixture
async def closing_connections():
    """Close the connection the ORM calls of these async tests opened in asgiref's sync thread,
    so the test database can be dropped afterwards."""
    yield
    await sync_to_async(connections.close_all)()


async def connect(match, user) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/m/{match.public_id}/")
    socket.scope["user"] = user or AnonymousUser()
    connected, _ = await socket.connect(timeout=30)
    assert connected
    assert json.loads(await socket.receive_from(timeout=30))["type"] == "full"
    return socket


BARRIER = "(barrier)"


SEATED = ("ada", "bob")


def _barrier(match: Match) -> dict[str, Callable[[dict], bool]]:
    """Lines the host now writes in the players' chat, then in the spectators': every socket's
    chat frames come through its layer channel in the order they were published, so the last
    of them that a socket may read comes after any chat frame sent to it before. (A spectator's
    match frames come another way, through its worker's gallery: a version is no barrier for
    its chat.) Returns, by socket, what accepts that last line."""
    match.refresh_from_db()
    chat.post(match, match.host, "players", BARRIER)
    chat.post(match, match.host, "spectators", BARRIER)

    def line_in(channel: str) -> Callable[[dict], bool]:
        def accepts(frame: dict) -> bool:
            line = frame.get("message", {}) if frame.get("type") == "chat" else {}
            return (line.get("text"), line.get("channel")) == (BARRIER, channel)

        return accepts

    over = match.is_over
    return {
        name: line_in("players" if name in SEATED and not over else "spectators")
        for name in ("ada", "bob", "host", "sam", "guest")
    }


async def frames(
    match: Match, sockets: dict[str, WebsocketCommunicator], sent: tuple[str, str]
) -> dict[str, list]:
    """The frames that reach each socket once the chat frame ``sent`` (the sender's name, the
    frame's id) is answered, up to the lines the test then makes the host write
    (``_barrier``), without them."""
    sender, frame_id = sent
    answered = []
    while (frame := await receive(sockets[sender])).get("id") != frame_id:
        answered.append(frame)
    answered.append(frame)
    last = await sync_to_async(_barrier)(match)
    received = {name: await frames_before(socket, last[name]) for name, socket in sockets.items()}
    received[sender] = [*answered, *received[sender]]
    return {
        name: [f for f in got if chat_lines([f]) != [BARRIER]] for name, got in received.items()
    }


def chat_lines(received: list[dict]) -> list[str]:
    return [f["message"]["text"] for f in received if f.get("type") == "chat" and "message" in f]


@pytest.fixture
async def sockets(room, closing_connections):
    """A socket for each of ada, bob, the host, sam and an anonymous spectator."""
    match, ada, bob, host, sam = room
    opened = {
        name: await connect(match, user)
        for name, user in zip(
            ("ada", "bob", "host", "sam", "guest"), (ada, bob, host, sam, None), strict=True
        )
    }
    yield opened
    for socket in opened.values():
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_players_message_never_reaches_a_spectators_socket(room, sockets):
    await sockets["ada"].send_json_to(
        {"type": "chat", "id": "c1", "channel": "players", "text": "table talk"}
    )
    received = await frames(room[0], sockets, ("ada", "c1"))
    assert {"type": "chat", "id": "c1", "ok": True} in received["ada"]
    for name in ("ada", "bob", "host"):
        assert chat_lines(received[name]) == ["table talk"]
    assert received["sam"] == [] and received["guest"] == []


@pytest.mark.django_db(transaction=True)
async def test_a_spectators_message_reaches_spectators_and_the_host_not_the_players(room, sockets):
    await sockets["sam"].send_json_to(
        {"type": "chat", "id": "c1", "channel": "spectators", "text": "go ada"}
    )
    received = await frames(room[0], sockets, ("sam", "c1"))
    for name in ("sam", "guest", "host"):
        assert chat_lines(received[name]) == ["go ada"]
    assert received["ada"] == [] and received["bob"] == []


@pytest.mark.django_db(transaction=True)
async def test_a_live_message_is_sent_as_typed_for_the_page_to_show_as_text(room, sockets):
    await sockets["ada"].send_json_to(
        {"type": "chat", "id": "c1", "channel": "players", "text": "<script>x()</script>"}
    )
    received = await frames(room[0], sockets, ("ada", "c1"))
    line = next(f for f in received["bob"] if "message" in f)["message"]
    assert line["text"] == "<script>x()</script>"
    assert line["author"] == "Ada" and line["badge"] == "Seat 1"


@pytest.mark.django_db(transaction=True)
async def test_a_muted_spectator_gets_an_error_frame_and_no_one_hears_them(room, sockets):
    host_ws, sam_ws = sockets["host"], sockets["sam"]
    sam_id = await sync_to_async(_user_id)("sam")
    await host_ws.send_json_to({"type": "chat", "id": "m1", "op": "mute", "user": sam_id})
    received = await frames(room[0], sockets, ("host", "m1"))
    assert {"type": "chat", "id": "m1", "ok": True} in received["host"]
    mutes = [f["mutes"] for f in received["sam"]]
    assert mutes == [{"users": [{"id": sam_id, "name": "Sam"}], "channels": []}]
    assert [f["mutes"] for f in received["guest"]] == mutes  # the guest learns of it too
    await sam_ws.send_json_to(
        {"type": "chat", "id": "c2", "channel": "spectators", "text": "let me talk"}
    )
    received = await frames(room[0], sockets, ("sam", "c2"))
    error = next(frame for frame in received["sam"] if frame.get("id") == "c2")
    assert error["type"] == "error" and error["code"] == "chat_muted"
    assert not any(chat_lines(frames_) for frames_ in received.values())


def _user_id(username: str) -> int:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=username).pk


@pytest.mark.django_db(transaction=True)
async def test_a_mute_reaches_every_socket_of_the_match(room, sockets):
    await sockets["host"].send_json_to(
        {"type": "chat", "id": "m1", "op": "mute", "channel": "spectators"}
    )
    received = await frames(room[0], sockets, ("host", "m1"))
    for name in sockets:
        mutes = [f["mutes"] for f in received[name] if "mutes" in f]
        assert mutes == [{"users": [], "channels": ["spectators"]}], name


@pytest.mark.django_db(transaction=True)
async def test_a_player_who_tries_to_mute_gets_an_error_frame(sockets):
    await sockets["ada"].send_json_to(
        {"type": "chat", "id": "m1", "op": "mute", "channel": "players"}
    )
    error = json.loads(await sockets["ada"].receive_from(timeout=30))
    assert (error["code"], error["id"]) == ("chat_host_only", "m1")


@pytest.mark.django_db(transaction=True)
async def test_the_history_op_sends_the_channels_the_viewer_may_read(sockets, room):
    match, ada, *_ = room
    await sync_to_async(chat.post)(match, ada, "players", "table talk")
    await sockets["sam"].send_json_to({"type": "chat", "id": "h1", "op": "history"})
    reply = json.loads(await sockets["sam"].receive_from(timeout=30))
    assert reply["id"] == "h1" and reply["history"] == {"spectators": []}
    posted = json.loads(await sockets["bob"].receive_from(timeout=30))  # told as it was posted
    assert posted["message"]["text"] == "table talk"
    await sockets["bob"].send_json_to({"type": "chat", "id": "h2", "op": "history"})
    reply = json.loads(await sockets["bob"].receive_from(timeout=30))
    assert [m["text"] for m in reply["history"]["players"]] == ["table talk"]


@pytest.mark.django_db(transaction=True)
async def test_after_the_match_the_players_hear_the_spectators(sockets, room):
    match, *_ = room
    await sync_to_async(finish)(match)
    await sockets["sam"].send_json_to(
        {"type": "chat", "id": "c1", "channel": "spectators", "text": "well played"}
    )
    received = await frames(match, sockets, ("sam", "c1"))
    assert chat_lines(received["ada"]) == ["well played"]
