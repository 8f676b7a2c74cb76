"""Privacy through seat and role changes, for every registered game: every frame of every
connection is recorded while the host replaces a player by a bot and another by a substitute,
a staff co-host of the season sits down in a seat and the match's host sits down to play; each
frame must be exactly what that connection's user may see at its version, as the seats stood
then (their seat, the host's view, or a spectator's), never what the seat they left now holds.
In the Bejeweled 2 race the signed-out spectator (the public link) must also see no board but
the start board while the race runs, and no seat its place while the ranking is hidden.

Who may see what is said here, independently of the code under test: a user holding a seat is
that seat; else the match's host and the season's co-host see the host's view; anyone else is
a spectator.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from games.core.game.gamedef import Viewer
from games.core.game.registry import all_games, get_game
from games.core.match import host_operations, seating, services
from games.core.match.replaying import state_at
from games.core.models import Match
from games.core.render.rendering import sent_view, view_of
from games.seasons import hosts
from gemsite.routing import websocket_urlpatterns
from tests.frames import with_views

pytestmark = pytest.mark.django_db(transaction=True)

WAIT_SECONDS = 30
BOT_THINKS = 6  # seconds: longer than any bot's pause before its move
RACE = "bejeweled-2-race"
NAMES = ("ada", "bob", "cy", "sam", "stella", "hostess", None)  # None: signed out (the public link)
RUNNERS = {"hostess", "stella"}  # the match's host, the season's co-host


@dataclass
class Socket:
    name: str | None
    socket: WebsocketCommunicator
    texts: list[str] = field(default_factory=list)
    version: int = -1

    async def read_until(self, version: int) -> None:
        """Every frame up to ``version`` (a full or update frame of it), each wait bounded."""
        while self.version < version:
            try:
                text = await self.socket.receive_from(timeout=WAIT_SECONDS)
            except TimeoutError:
                raise AssertionError(f"{self.name}'s socket never reached v{version}") from None
            self.texts.append(text)
            frame = json.loads(text)
            if frame.get("type") in ("full", "update"):
                self.version = max(self.version, frame["version"])


@dataclass
class Timeline:
    """Who each user is in the match from each version on."""

    steps: list[tuple[int, dict[str | None, Viewer]]] = field(default_factory=list)

    def note(self, match: Match, users: dict[str | None, Any]) -> None:
        match = Match.objects.with_seats().get(pk=match.pk)
        seat_of = {seat.user_id: seat.index for seat in match.seats.all() if seat.user_id}
        who: dict[str | None, Viewer] = {}
        for name, user in users.items():
            if user is not None and user.pk in seat_of:
                who[name] = Viewer(seat=seat_of[user.pk])
            else:
                who[name] = Viewer(is_host=name in RUNNERS)
        self.steps.append((match.version, who))

    def viewer(self, name: str | None, version: int) -> Viewer:
        return [who for start, who in self.steps if start <= version][-1][name]


def plain(data: Any) -> Any:
    return json.loads(json.dumps(data))


def other_boards(state: dict[str, Any], viewer: Viewer) -> set[str]:
    """The race: the rows of every seat's board but the viewer's own (the caller sets the
    start board's aside: everyone knows it)."""
    if state.get("phase") != "racing":
        return set()
    own = state["boards"].get(str(viewer.seat), {}).get("board", "")
    rows = {row for board in state["boards"].values() for row in board["board"].split("\n")}
    return rows - set(own.split("\n"))


def check(match: Match, recorded: Socket, timeline: Timeline, start_rows: set[str]) -> int:
    """Every full or update frame ``recorded`` got is exactly its user's view at its version,
    and its event as that user may see it; returns how many frames were checked."""
    events = {event.version: event for event in match.events.all()}
    checked = 0
    texts = [t for t in recorded.texts if json.loads(t).get("type") in ("full", "update")]
    frames = with_views([json.loads(t) for t in texts])
    last = -1
    for text, frame in zip(texts, frames, strict=True):
        version = frame["version"]
        viewer = timeline.viewer(recorded.name, version)
        where = f"{match.game_key} v{version}: {recorded.name}'s socket as {viewer.audience}"
        applied = frame["type"] == "full" or version == last + 1
        last = version if applied else last
        if frame["type"] == "update":
            seen = plain(events[version].seen_by(viewer))
            assert frame["event"] == seen, f"{where}: an event it may not see"
        state = state_at(match, version)
        if applied:
            shown = sent_view(match, view_of(match, viewer, state, drafts=False))["game"]
            assert frame["view"]["game"] == plain(shown), f"{where}: a view it may not see"
            assert frame["view"]["viewer"]["audience"] == viewer.audience, where
        if match.game_key == RACE and not viewer.is_host:
            hidden = other_boards(state, viewer) - start_rows
            assert not any(row in text for row in hidden), f"{where}: a rival's board"
            if viewer.seat is not None and applied and state.get("phase") == "racing":
                assert "place" not in frame["view"]["game"], f"{where}: its place, unasked"
        checked += 1
    versions = {json.loads(t)["version"] for t in texts}
    first = min(versions)
    assert versions == set(range(first, match.version + 1)), f"{recorded.name}: a version missed"
    return checked


async def connect(match: Match, user: Any, name: str | None) -> Socket:
    socket = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/m/{match.public_id}/?format=html"
    )
    socket.scope["user"] = user or AnonymousUser()
    connected, _ = await socket.connect(timeout=WAIT_SECONDS)
    assert connected, name
    return Socket(name, socket)


def cast_and_match(make_user: Any, game_key: str) -> tuple[Match, dict[str | None, Any]]:
    users: dict[str | None, Any] = {
        "ada": make_user("ada"),
        "bob": make_user("bob"),
        "cy": make_user("cy"),
        "sam": make_user("sam"),
        "stella": make_user("stella", is_staff=True),
        "hostess": make_user("hostess", is_staff=True),
        None: None,
    }
    lead = make_user("lead", is_staff=True)
    season = hosts.create_season(name="S", host=lead, settings={}, make_current=True)
    hosts.add_cohost(season, lead, "stella")
    game = get_game(game_key)
    count = max(game.min_seats, min(2, game.max_seats))
    roles = [*game.roles, *[""] * count][:count]
    match = seating.create_match(
        host=users["hostess"], game_key=game_key, title="Seats", settings={}, roles=roles
    )
    seats = list(match.seats.order_by("index"))
    for name, seat in zip(("ada", "bob"), seats, strict=False):
        seating.take_seat(match, users[name], seat.invite_token)
    for seat in seats[2:]:
        seating.seat_bot(match, seat.index, game.bot_levels[0])
    match = Match.objects.with_seats().get(pk=match.pk)
    assert match.status == Match.Status.LIVE and match.season_id == season.pk
    return match, users


def invite_of(match: Match, index: int) -> str:
    return Match.objects.get(pk=match.pk).seats.get(index=index).invite_token


@pytest.mark.parametrize("game_key", sorted(game.key for game in all_games()))
async def test_every_frame_follows_who_holds_the_seat_now(make_user, clock, game_key):
    match, users = await sync_to_async(cast_and_match)(make_user, game_key)
    game = get_game(game_key)
    host = users["hostess"]
    last = len(list(await sync_to_async(lambda: list(match.seats.all()))())) - 1
    timeline = Timeline()
    start_rows: set[str] = set()
    if game_key == RACE:
        start_rows = set(match.state["boards"]["0"]["board"].split("\n"))
    await sync_to_async(timeline.note)(match, users)
    sockets = [await connect(match, users[name], name) for name in NAMES]

    async def step(change: Any) -> None:
        await sync_to_async(change)()
        await sync_to_async(timeline.note)(match, users)
        version = (await sync_to_async(Match.objects.get)(pk=match.pk)).version
        for socket in sockets:
            await socket.read_until(version)

    # Ada is replaced by a bot (a game with no bot: by Cy, watching until then), who plays on.
    if game.bot_levels:
        level = game.bot_levels[0]
        await step(lambda: host_operations.host_replace_seat(match, host, 0, level, "left"))
        for _ in range(3):  # a bot takes its time to think (``clock``: the services' time)
            clock.advance(BOT_THINKS)
            await step(services.run_bots)
    else:
        await step(lambda: host_operations.host_replace_seat(match, host, 0, "", "left"))
        await step(lambda: seating.take_seat(match, users["cy"], invite_of(match, 0)))
    if game_key == RACE:  # the public link, signed out, while the race runs
        page = await sync_to_async(Client().get)(match.get_absolute_url())
        state = (await sync_to_async(Match.objects.get)(pk=match.pk)).state
        hidden = other_boards(state, Viewer.spectator()) - start_rows
        assert hidden and not any(row in page.content.decode() for row in hidden)
    # The last seat (Bob's; alone, the bot's) goes to a substitute: Sam, watching until then.
    await step(lambda: host_operations.host_replace_seat(match, host, last, "", "left"))
    if game.bot_levels or last != 0:
        await step(lambda: seating.take_seat(match, users["sam"], invite_of(match, last)))
    # A staff co-host of the season, watching as a host, sits down in seat 1.
    await step(lambda: host_operations.host_replace_seat(match, host, 0, "", "swap"))
    await step(lambda: seating.take_seat(match, users["stella"], invite_of(match, 0)))
    # The match's host, watching as the host, sits down to play.
    free = last if last != 0 else 0
    await step(lambda: host_operations.host_replace_seat(match, host, free, "", "swap"))
    await step(lambda: seating.take_seat(match, host, invite_of(match, free)))

    match = await sync_to_async(Match.objects.with_seats().get)(pk=match.pk)
    checked = 0
    for socket in sockets:
        checked += await sync_to_async(check)(match, socket, timeline, start_rows)
        await socket.socket.disconnect()
    assert checked >= len(sockets) * (match.version - timeline.steps[0][0]), checked
