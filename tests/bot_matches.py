"""Matches of every real game (tests/registered.py) played by their own bots through the
services, with the frames a page-format connection of every audience is sent for each event
(tests/core/test_frames.py and benchmarks/frames.py measure them).

Each action runs as the websocket consumer runs it: inside ``broadcast.deferred()``, the frames
rendered after the commit once per audience, and each audience's connection sending only the
panels that changed since its last frame.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any

import msgpack
from django.db import connection

from games.core.game.gamedef import Viewer
from games.core.live import broadcast
from games.core.match import clock, deadlines, seating, services
from games.core.models import Deadline, Match
from games.core.render import rendering
from games.core.render.frame import Frame, digest
from games.core.render.rendering import Announcement, update_frames
from tests.registered import bot_seats, real_games, seat_roles


@dataclass(frozen=True)
class Table:
    """How a game's bots sit down: a level per seat and the settings."""

    levels: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)


# What a game's table differs in from its fewest seats, its bot levels in turn and its default
# settings (tests/registered.py): a game without an entry is played that way.
TWEAKS = {
    "bejeweled-dm": Table(("club", "expert")),  # the expert counterclaims the club player
    "seven-gem-swap": Table(("club",) * 7),  # a full table: the most audiences, the most frames
}
# Every real game, by being registered.
TABLES = {key: TWEAKS.get(key) or Table(bot_seats(key)) for key in real_games()}


@dataclass(frozen=True)
class SentFrame:
    """One update frame as a connection sent it."""

    version: int
    kind: str  # the event's kind
    viewer: Viewer
    audience: str  # "seat" (the acting seat), "opponent" (another seat), "spectator", "host"
    size: int  # bytes, page format (the panels that changed)
    text: str  # the frame as sent: kept as text, so that a long match's frames, kept for the
    # benchmarks and tests, are no objects for the garbage collector to go over between actions
    state_before: bool  # the viewer held a view of a game before (the event is not the first)

    @property
    def frame(self) -> dict[str, Any]:
        return json.loads(self.text)


@dataclass
class Played:
    match: Match
    frames: list[SentFrame] = field(default_factory=list)
    apply_ms: list[float] = field(default_factory=list)  # worker CPU: the action's own path
    queries: list[float] = field(default_factory=list)  # queries of the action's own path
    render_ms: list[float] = field(default_factory=list)  # worker CPU: every audience's frames
    layer_bytes: list[int] = field(default_factory=list)  # every audience's layer message
    send_ms: list[float] = field(default_factory=list)  # worker CPU: messages packed, marked sent
    # The panels (HTML by id) each audience's page loaded just before its first update.
    loaded: dict[str, dict[str, str]] = field(default_factory=dict)


def audience_of(viewer: Viewer, actor: int | None) -> str:
    if viewer.is_host:
        return "host"
    if viewer.seat is None:
        return "spectator"
    return "seat" if viewer.seat == actor else "opponent"


def play(
    game_key: str,
    host: Any,
    advance: Callable[[float], None],
    *,
    events: int = 60,
    step_seconds: float = 4,
    commits: Callable[..., AbstractContextManager[Any]] | None = None,
    on_event: Callable[[Played], None] | None = None,
    seed: int | None = None,
    table: Table | None = None,
) -> Played:
    """Play a match of ``game_key`` with its bots for up to ``events`` events (or its end).
    Inside a test's transaction, ``commits`` is pytest-django's
    ``django_capture_on_commit_callbacks``: what would run on commit runs at the end of it.
    ``on_event`` is called after each event's frames are recorded. ``seed``: the match's
    seed (the same match every time), else a random one. ``table``: other seats than the
    game's own in TABLES."""
    table = table or TABLES[game_key]
    match = seating.create_match(
        host=host,
        game_key=game_key,
        title="bots",
        settings=table.settings,
        roles=seat_roles(game_key, len(table.levels)),
    )
    if seed is not None:  # before the seats fill: the match starts from it (its server seed)
        match.seed = seed
        match.server_seed = f"{seed:064x}"
        named = f"s{seed:x}"[:16]  # the draws read the match's id too
        if not Match.objects.filter(public_id=named).exists():
            match.public_id = named
        match.save(update_fields=["seed", "server_seed", "public_id"])
    for index, level in enumerate(table.levels):
        seating.seat_bot(match, index, level)
    played = Played(Match.objects.with_seats().get(pk=match.pk))
    held: dict[str, dict[str, str]] = {}
    for _ in range(events * 20):
        # The bot thinks first, outside the measured path: a human's action arrives chosen.
        chosen = _bot_choice(Match.objects.with_seats().get(pk=match.pk))
        # The scheduler's look for due clocks is one query for every match at once, not a cost
        # of each action: only a clock that fires (its timeout is an event) is measured.
        clocks_due = _clocks_due(match)
        started = time.process_time()
        with (
            _counting_queries() as queries,
            broadcast.deferred() as outbox,
            (commits or _committing)(execute=True),
        ):
            # Only this match's clocks: matches left live by earlier runs are not its events.
            if clocks_due:
                deadlines.fire_due_deadlines(match_id=match.pk)
            if chosen is not None:
                # A clock that moved the match on first refuses it: the bot looks again.
                with contextlib.suppress(services.ActionError):
                    services.submit_bot_action(*chosen)
        applied = time.process_time() - started
        if outbox.events:
            played.apply_ms.append(applied * 1000 / len(outbox.events))
            played.queries.append(queries[0] / len(outbox.events))
        for announcement in outbox.events:
            broadcast._release(announcement.match.pk, {announcement.event.version})
            _record(played, announcement, held)
            if on_event is not None:
                on_event(played)
        if len(played.frames) and played.frames[-1].version >= events:
            break
        match = Match.objects.get(pk=match.pk)
        if match.is_over:
            break
        advance(step_seconds)
    played.match = Match.objects.with_seats().get(pk=match.pk)
    return played


@contextmanager
def _counting_queries() -> Iterator[list[int]]:
    """Count the queries run inside (without the debug cursor's log of each, which production
    does not keep)."""
    count = [0]

    def counted(execute: Callable[..., Any], *args: Any) -> Any:
        count[0] += 1
        return execute(*args)

    with connection.execute_wrapper(counted):
        yield count


def _clocks_due(match: Match) -> bool:
    due = Deadline.objects.filter(match=match, fired_at=None, cancelled=False)
    return due.filter(due_at__lte=clock.now()).exists()


def _bot_choice(match: Match) -> tuple[Match, int, Any, int] | None:
    """What the first bot seat that wants to act would do now (services.run_bots' choice)."""
    if match.status != Match.Status.LIVE:
        return None
    for seat in match.seats.all():
        if seat.bot_level:
            view = match.game.view(match.state, Viewer(seat=seat.index))
            action = match.game.bot_action(view, seat.index, seat.bot_level, clock.now())
            if action is not None:
                return match, seat.index, action, match.version
    return None


@contextmanager
def _committing(execute: bool) -> Iterator[None]:
    """Outside a test's transaction, each change commits (and announces) by itself."""
    yield


def _page_loaded(announcement: Announcement, viewer: Viewer) -> dict[str, str]:
    """What a page opened just before ``announcement`` holds: its panels at the version before
    (drawn with the match as it was then), or nothing before the match's first event."""
    match, version = announcement.match, announcement.event.version - 1
    return rendering._panels_before(match, viewer, version, announcement.before) or {}


def _record(played: Played, announcement: Announcement, held: dict[str, dict[str, str]]) -> None:
    started = time.process_time()
    frames = update_frames(announcement)
    played.render_ms.append((time.process_time() - started) * 1000)
    event = announcement.event
    # The send as the consumer's path makes it: each audience's message packed for the layer
    # (channels-redis packs with msgpack), then the event marked sent.
    started = time.process_time()
    messages = [drawn.as_message() for _, drawn in frames]
    packed = [msgpack.packb({"type": "match.frame", **message}) for message in messages]
    broadcast.mark_sent(announcement.match.pk, {event.version})
    played.send_ms.append((time.process_time() - started) * 1000)
    played.layer_bytes.append(sum(len(message) for message in packed))
    for (viewer, drawn), message in zip(frames, messages, strict=True):
        # As a connection gets it: through the layer message its worker receives.
        frame = Frame.from_message(msgpack.unpackb(msgpack.packb(message)))
        if viewer.audience not in held:
            loaded = _page_loaded(announcement, viewer)
            played.loaded[viewer.audience] = loaded
            # Its connection holds their hashes, as a page's first frame leaves them.
            held[viewer.audience] = {key: digest(html) for key, html in loaded.items()}
        if frame.lacks(held[viewer.audience]):  # its consumer draws it here, whole
            frame = drawn
        text = frame.text(True, held[viewer.audience])
        played.frames.append(
            SentFrame(
                version=event.version,
                kind=event.kind,
                viewer=viewer,
                audience=audience_of(viewer, event.seat),
                size=len(text.encode()),
                text=text,
                state_before=bool(announcement.before),
            )
        )
