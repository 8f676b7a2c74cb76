"""What the Pointsweeper tests share."""

from __future__ import annotations

import pytest

from games.core import services

EC, DMO = 0, 1


@pytest.fixture
def ps(make_user):
    """A started match: (match, the EC's user, the DMO's user, the host)."""
    host, ada, bob = make_user("hostess"), make_user("ada"), make_user("bob")
    match = services.create_match(
        host=host, game_key="pointsweeper", title="ps", settings={}, roles=["EC", "DMO"]
    )
    seats = list(match.seats.all())
    services.take_seat(match, ada, seats[EC].invite_token)
    services.take_seat(match, bob, seats[DMO].invite_token)
    match.refresh_from_db()
    return match, ada, bob, host
