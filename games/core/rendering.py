"""Turning a match into what one viewer may see: the view data, its panels and websocket frames.

Every page, frame, replay and export goes through ``view_of``; nothing else reads match state
for a viewer. Panels are the swappable top-level elements of a game's ``_panels.html`` (each
wrapped in ``{% panel %}``); a frame carries each panel with a hash of its HTML, so that a
connection sends a viewer only the panels that changed since the last frame it sent.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from games.core import viewpatch
from games.core.gamedef import State, Viewer
from games.core.models import Event, Match
from games.core.replaying import state_at
from games.core.templatetags.arena import PANEL_SINK


def view_of(
    match: Match, viewer: Viewer, state: dict[str, Any] | None = None, *, drafts: bool = True
) -> dict[str, Any]:
    """The game's view for ``viewer`` plus the match facts everyone may know. With ``drafts``
    (the live page, not a replay) a seat also gets what it is composing and the host every
    seat's draft; no one else ever does."""
    game_view = match.game.view(match.state if state is None else state, viewer)
    view: dict[str, Any] = {
        "game": game_view,
        "match": {
            "id": match.public_id,
            "status": match.status,
            "title": match.title,
            "result": match.result,
            # While paused, the moment the clocks stopped: a page shows each clock's time left
            # as of then ("0:11 left, stopped while paused").
            "paused_at": match.paused_at.isoformat() if match.paused_at else None,
        },
        "viewer": {"seat": viewer.seat, "host": viewer.is_host, "audience": viewer.audience},
    }
    if drafts:
        seats = match.seats.all()
        if viewer.seat is not None:
            view["draft"] = next((s.draft for s in seats if s.index == viewer.seat), None)
        elif viewer.is_host:
            view["drafts"] = {str(s.index): s.draft for s in seats if s.draft is not None}
    return view


def panels_template(match: Match) -> str:
    template_dir = match.game.template_dir
    return f"{template_dir}/_panels.html" if template_dir else "core/_generic_panels.html"


def render_panel_list(
    match: Match, view: dict[str, Any], *, version: int, oob: bool, live: bool = True
) -> list[tuple[str, str]]:
    """The panels for ``view`` as (element id, html), in page order. A replay step is not
    ``live``: it shows no host console."""
    sink: list[tuple[str, str]] = []
    render_to_string(
        "core/_panels.html",
        {
            "match": match,
            "view": view,
            "game_view": view["game"],
            "version": version,
            "oob": oob,
            "live": live,
            "panels_template": panels_template(match),
            PANEL_SINK: sink,
        },
    )
    return sink


def render_panels(
    match: Match, view: dict[str, Any], *, version: int, oob: bool, live: bool = True
) -> str:
    """The panels as one HTML string (a page, a replay step)."""
    panels = render_panel_list(match, view, version=version, oob=oob, live=live)
    return mark_safe("\n".join(html for _, html in panels))  # rendered by our own templates


def server_time_ms() -> int:
    return int(time.time() * 1000)


def _dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


@dataclass(frozen=True)
class Frame:
    """A frame for one audience, serialised once: ``head`` is the JSON text of everything but
    the panels; ``panels`` holds (id, hash, html already escaped as the inside of a JSON string).
    A connection joins the panels its viewer lacks onto the head (``text``)."""

    version: int
    head: str
    panels: tuple[tuple[str, str, str], ...]
    full: bool = False

    def text(self, with_html: bool, sent: dict[str, str] | None) -> str:
        """The frame as sent. ``sent`` maps panel ids to the hashes this connection has sent;
        only panels whose hash differs are included, and ``sent`` is updated. None: all."""
        if not with_html:
            return self.head
        parts = []
        for panel_id, digest, escaped in self.panels:
            if sent is not None:
                if sent.get(panel_id) == digest:
                    continue
                sent[panel_id] = digest
            parts.append(escaped)
        return f'{self.head[:-1]},"html":"{"".join(parts)}"}}'

    def as_message(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "head": self.head,
            "panels": [list(p) for p in self.panels],
        }

    @classmethod
    def from_message(cls, message: dict[str, Any]) -> Frame:
        panels = tuple((p[0], p[1], p[2]) for p in message["panels"])
        return cls(version=message["version"], head=message["head"], panels=panels)


def _panel_entries(match: Match, view: dict[str, Any], version: int) -> tuple:
    entries = []
    for panel_id, html in render_panel_list(match, view, version=version, oob=True):
        digest = hashlib.blake2b(html.encode(), digest_size=8).hexdigest()
        entries.append((panel_id, digest, _dumps(html)[1:-1]))
    return tuple(entries)


@dataclass(frozen=True)
class Announcement:
    """An event to tell its viewers, with the match's state either side of it: frames are drawn
    from these, never from what the event row stores."""

    match: Match
    event: Event
    before: State
    after: State

    @classmethod
    def stored(cls, match: Match, event: Event) -> Announcement:
        """An event read back from the database (a resync, a heal): its states rebuilt."""
        before = state_at(match, event.version - 1)
        return cls(match, event, before, state_at(match, event.version))


def _as_sent(data: Any) -> tuple[Any, str]:
    """``data`` as a client holds it (object keys are strings, tuples are lists) and its text."""
    text = _dumps(data)
    return json.loads(text), text


def _game_view(match: Match, viewer: Viewer, state: State) -> Any:
    """The game's view of ``state`` for ``viewer`` as a client holds it; None for no state."""
    if not state:
        return None
    return _as_sent(match.game.view(state, viewer))[0]


def view_patch(
    before: Any, after: dict[str, Any], event: dict[str, Any] | None
) -> list[viewpatch.Op]:
    """The patch from the game view ``before`` (None: the viewer holds none) to the whole view
    ``after``. The match facts and the drafts are small and change apart from the game's
    state: they are set whole; the game's view is diffed."""
    if before is None:
        ops = [["s", ["game"], after["game"]]]
    else:
        ops = viewpatch.diff(before, after["game"], ("game",))
    ops.append(["s", ["match"], after["match"]])
    ops.extend(["s", [key], after[key]] for key in ("draft", "drafts") if key in after)
    return viewpatch.refer_to_event(ops, event)


def full_frame(match: Match, viewer: Viewer, *, with_html: bool = True) -> Frame:
    """The whole view of the match as it is now, every panel with it: a first frame or a
    resync that cannot be patched."""
    view = view_of(match, viewer)
    head: dict[str, Any] = {"type": "full", "version": match.version, "view": view}
    head["server_time"] = server_time_ms()
    panels = _panel_entries(match, view, match.version) if with_html else ()
    if with_html:
        head["panel_ids"] = [entry[0] for entry in panels]
    return Frame(version=match.version, head=_dumps(head), panels=panels, full=True)


def update_frames(
    announcement: Announcement, viewers: list[Viewer] | None = None, *, with_html: bool = True
) -> list[tuple[Viewer, Frame]]:
    """The update frame of ``announcement`` for each viewer (every audience by default): the
    event as that viewer may see it, the patch of that viewer's view and the panels (rendered
    once per distinct view; a connection sends only those that changed)."""
    match, event = announcement.match, announcement.event
    rendered: dict[str, tuple] = {}
    frames = []
    for viewer in audiences(match) if viewers is None else viewers:
        view = view_of(match, viewer, announcement.after)
        after, key = _as_sent(view)  # panels may show the viewer (the host's controls)
        seen = event.seen_by(viewer)
        before = _game_view(match, viewer, announcement.before)
        head: dict[str, Any] = {
            "type": "update",
            "version": event.version,
            "event": seen,
            "patch": view_patch(before, after, seen),
            "server_time": server_time_ms(),
        }
        panels: tuple = ()
        if with_html:
            if key not in rendered:
                rendered[key] = _panel_entries(match, view, event.version)
            panels = rendered[key]
            # Every panel the viewer's page should hold now: one no longer here goes away.
            head["panel_ids"] = [entry[0] for entry in panels]
        frames.append((viewer, Frame(version=event.version, head=_dumps(head), panels=panels)))
    return frames


def audiences(match: Match) -> list[Viewer]:
    """Every distinct kind of viewer of a match: each seat, the host, the spectators."""
    seats = [Viewer(seat=seat.index) for seat in match.seats.all()]
    return [*seats, Viewer.host(), Viewer.spectator()]
