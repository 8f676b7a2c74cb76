"""Sending committed events to the viewers of a match, each audience its own frame."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.core.gamedef import Viewer
from games.core.models import Match
from games.core.rendering import audiences, update_frame


def group_name(match_pk: int, viewer: Viewer) -> str:
    return f"match.{match_pk}.{viewer.audience}"


def broadcast_version(match_pk: int, version: int) -> None:
    """Render the event at ``version`` once per audience and send it to that audience's group."""
    layer = get_channel_layer()
    if layer is None:
        return
    match = Match.objects.prefetch_related("seats").get(pk=match_pk)
    event = match.events.get(version=version)
    send = async_to_sync(layer.group_send)
    for viewer in audiences(match):
        frame = update_frame(match, viewer, event)
        send(group_name(match_pk, viewer), {"type": "match.frame", "frame": frame})
