"""Turning a match into what one viewer may see: the view data, its HTML and websocket frames.

Every page, frame, replay and export goes through ``view_of``; nothing else reads match state
for a viewer.
"""

from __future__ import annotations

import time
from typing import Any

from django.template.loader import render_to_string

from games.core.gamedef import Viewer
from games.core.models import Event, Match


def view_of(match: Match, viewer: Viewer, state: dict[str, Any] | None = None) -> dict[str, Any]:
    """The game's view for ``viewer`` plus the match facts everyone may know."""
    game_view = match.game.view(match.state if state is None else state, viewer)
    return {
        "game": game_view,
        "match": {
            "id": match.public_id,
            "status": match.status,
            "title": match.title,
            "result": match.result,
        },
        "viewer": {"seat": viewer.seat, "host": viewer.is_host, "audience": viewer.audience},
    }


def render_panels(
    match: Match, viewer: Viewer, view: dict[str, Any], *, version: int, oob: bool
) -> str:
    """The game's swappable panels. With ``oob`` they carry hx-swap-oob for a live update."""
    return render_to_string(
        "core/_panels.html",
        {
            "match": match,
            "viewer": viewer,
            "view": view,
            "game_view": view["game"],
            "version": version,
            "oob": oob,
            "panels_template": panels_template(match),
        },
    )


def panels_template(match: Match) -> str:
    template_dir = match.game.template_dir
    return f"{template_dir}/_panels.html" if template_dir else "core/_generic_panels.html"


def server_time_ms() -> int:
    return int(time.time() * 1000)


def update_frame(
    match: Match, viewer: Viewer, event: Event, *, with_html: bool = True
) -> dict[str, Any]:
    """The frame that tells ``viewer`` about ``event``, rendered from the state after it."""
    view = view_of(match, viewer, event.state)
    frame: dict[str, Any] = {
        "type": "update",
        "version": event.version,
        "event": event.seen_by(viewer),
        "view": view,
        "server_time": server_time_ms(),
    }
    if with_html:
        frame["html"] = render_panels(match, viewer, view, version=event.version, oob=True)
    return frame


def full_frame(match: Match, viewer: Viewer, *, with_html: bool = True) -> dict[str, Any]:
    view = view_of(match, viewer)
    frame: dict[str, Any] = {
        "type": "full",
        "version": match.version,
        "view": view,
        "server_time": server_time_ms(),
    }
    if with_html:
        frame["html"] = render_panels(match, viewer, view, version=match.version, oob=True)
    return frame


def audiences(match: Match) -> list[Viewer]:
    """Every distinct kind of viewer of a match: each seat, the host, the spectators."""
    seats = [Viewer(seat=seat.index) for seat in match.seats.all()]
    return [*seats, Viewer.host(), Viewer.spectator()]
