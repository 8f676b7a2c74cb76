"""The match core's signals, and its own receivers (connected in CoreConfig.ready()).

The core announces; the apps built on it listen (notifications, seasons): it imports none of
them. ``event_appended`` is sent for every event, inside the transaction that appends it (a
receiver's rows commit or roll back with the move), with ``match`` (locked, already at the
event's version), ``event`` and ``before`` (the state before it). A receiver that raises undoes
the move, so one that must never cost a move catches its own errors."""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

from games.core.live import broadcast

event_appended = Signal()


def end_live_sockets(sender: Any, request: Any = None, user: Any = None, **kwargs: Any) -> None:
    """On logout, tell every socket the user holds (on any worker) that its session ended; the
    consumer closes it, so no socket opened before the logout still acts for them. The logout
    itself stands even if the sockets cannot be told (logged by the broadcast)."""
    if user is None or user.pk is None:
        return
    broadcast.publish([(broadcast.user_group_name(user.pk), {"type": "session.ended"})])
