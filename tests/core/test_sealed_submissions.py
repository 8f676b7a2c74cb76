"""The core carries sealed simultaneous submissions for up to 7 seats (the fixture SealedBids)."""

from __future__ import annotations

import pytest

from games.core.game.gamedef import Viewer
from games.core.match import deadlines, seating, services
from games.core.models import Match
from games.core.render.rendering import view_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def seven_seats(make_user, clock):
    host = make_user("host7")
    players = [make_user(f"p{i}") for i in range(7)]
    match = seating.create_match(
        host=host, game_key="fixture-sealed", title="", settings={}, roles=[""] * 7
    )
    for player, seat in zip(players, match.seats.order_by("index"), strict=True):
        seating.take_seat(match, player, seat.invite_token)
    match.refresh_from_db()
    return match, players


def test_a_sealed_bid_is_seen_only_by_its_seat_and_the_host(seven_seats):
    match, players = seven_seats
    services.submit_action(match, players[2], {"type": "bid", "bid": -13})
    match.refresh_from_db()
    assert view_of(match, Viewer(seat=2))["game"]["my_bid"] == -13
    for viewer in [Viewer(seat=3), Viewer.spectator()]:
        assert "-13" not in str(view_of(match, viewer))
        assert view_of(match, viewer)["game"]["submitted"] == [2]
    assert view_of(match, Viewer.host())["game"]["sealed"] == {"2": -13}
    event = match.events.last()
    assert event.seen_by(Viewer(seat=3))["data"] == {"seat": 2}
    assert event.seen_by(Viewer(seat=2))["data"] == {"seat": 2, "bid": -13}


def test_bids_are_revealed_when_everyone_has_submitted(seven_seats):
    match, players = seven_seats
    for index, player in enumerate(players):
        services.submit_action(match, player, {"type": "bid", "bid": -index})
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert view_of(match, Viewer.spectator())["game"]["revealed"]["6"] == -6


def test_bids_are_revealed_at_the_deadline(seven_seats, clock):
    match, players = seven_seats
    services.submit_action(match, players[0], {"type": "bid", "bid": -5})
    clock.advance(61)
    assert deadlines.fire_due_deadlines() == 1
    match.refresh_from_db()
    assert view_of(match, Viewer.spectator())["game"]["revealed"] == {"0": -5}
    with pytest.raises(services.ActionError):
        services.submit_action(match, players[1], {"type": "bid", "bid": -1})
