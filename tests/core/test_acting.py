"""The trips of the thread that applies a worker's actions (games/core/live/acting.py)."""

from __future__ import annotations

import pytest

from games.core.live import acting, broadcast
from games.core.match import services

pytestmark = pytest.mark.django_db


def add(user, amount: int) -> services.SeatAction:
    return services.SeatAction(user, {"type": "add", "amount": amount})


def test_a_trip_whose_action_an_earlier_trip_answered_leaves_the_later_ones_to_their_own(
    clock, tally_match
):
    match, ada, bob, _ = tally_match
    answered = acting._Waiting(add(ada, 1), services.Accepted(version=4, duplicate=False))
    later = acting._Waiting(add(ada, 2))  # came after: its own trip is queued after this one
    acting._waiting[match.pk] = [later]
    try:
        acting._apply_waiting(match.pk, answered, broadcast.Outbox())
        # Its player is answered now: it does not wait for the later action's row and hold.
        assert acting._waiting[match.pk] == [later] and later.answer is None
        match.refresh_from_db()
        assert match.version == 3
        acting._apply_waiting(match.pk, later, broadcast.Outbox())
    finally:
        acting._waiting.pop(match.pk, None)
    assert later.answer == services.Accepted(version=4, duplicate=False)
    assert match.pk not in acting._taken  # nothing kept of a match once its actions are answered
    match.refresh_from_db()
    assert match.version == 4 and match.state["total"] == 2
