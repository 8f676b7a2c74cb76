"""Signal receivers of the match core, connected in CoreConfig.ready()."""

from __future__ import annotations

from typing import Any

from games.core import broadcast


def end_live_sockets(sender: Any, request: Any = None, user: Any = None, **kwargs: Any) -> None:
    """On logout, tell every socket the user holds (on any worker) that its session ended; the
    consumer closes it, so no socket opened before the logout still acts for them. The logout
    itself stands even if the sockets cannot be told (logged by the broadcast)."""
    if user is None or user.pk is None:
        return
    broadcast.publish([(broadcast.user_group_name(user.pk), {"type": "session.ended"})])
