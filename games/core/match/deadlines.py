"""The clocks no action reaches in time: the scheduler fires each due Deadline row once.

A clock's due time is kept in the state; every append mirrors it into a Deadline row
(games/core/match/services.py), which this module fires as a timeout on the locked match.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from games.core.game.gamedef import state_deadlines
from games.core.match import clock, services
from games.core.models import Deadline, Match


def fire_due_deadlines(*, match_id: int | None = None, now: datetime | None = None) -> int:
    """Fire every due deadline once. Safe to run in any number of processes at the same time."""
    now = now or clock.now()
    due = Deadline.objects.filter(fired_at=None, cancelled=False, due_at__lte=now)
    if match_id is not None:
        due = due.filter(match_id=match_id)
    fired = 0
    rows = due.values_list("id", "match_id", "key", "due_at")[:100]
    for deadline_id, deadline_match_id, key, due_at in rows:
        if _fire_one(deadline_id, deadline_match_id, key, due_at, now):
            fired += 1
    return fired


def _fire_one(deadline_id: int, match_id: int, key: str, due_at: datetime, now: datetime) -> bool:
    """Fire the row ``deadline_id`` (its clock ``key``, due at ``due_at``: a row's clock and
    time never change) if no other scheduler has, and the match's state still has that clock."""
    with transaction.atomic():
        match = services.lock(match_id)
        claimed = Deadline.objects.filter(pk=deadline_id, fired_at=None, cancelled=False).update(
            fired_at=now
        )
        if not claimed:
            return False  # another scheduler fired it, or it was replaced
        if match.status != Match.Status.LIVE:
            return False
        if state_deadlines(match.state).get(key) != due_at:
            return False  # stale: the game moved its clock since
        services.time_out(match, key, now)
        return True


def next_deadline_at() -> datetime | None:
    row = Deadline.objects.filter(fired_at=None, cancelled=False).order_by("due_at").first()
    return row.due_at if row else None
