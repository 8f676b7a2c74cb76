"""Signal receivers of the match core, connected in CoreConfig.ready()."""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.core.broadcast import user_group_name

log = logging.getLogger(__name__)


def end_live_sockets(sender: Any, request: Any = None, user: Any = None, **kwargs: Any) -> None:
    """On logout, tell every socket the user holds (on any worker) that its session ended; the
    consumer closes it, so no socket opened before the logout still acts for them."""
    if user is None or user.pk is None:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(user_group_name(user.pk), {"type": "session.ended"})
    except Exception:  # the logout itself stands; only the sockets could not be told
        log.exception("could not close the live sockets of user %s on logout", user.pk)
