"""History names each move's player as they were when the move was made: a seat the host hands
to a substitute does not take over the moves made before (issue 36)."""

from __future__ import annotations

import pytest

from games.bejeweled_dm import view as dm_view
from games.core.game.gamedef import Viewer
from games.core.match import host_operations, seating, services
from games.core.match.replaying import described_events, replay_step
from games.core.models import Match
from tests.core.test_replay import CHOSEN

pytestmark = pytest.mark.django_db


def hand_seat_to(match: Match, host, seat: int, user) -> None:
    """The host frees ``seat`` for a substitute and ``user`` takes it by the new invite."""
    host_operations.host_replace_seat(match, host, seat, "", "left")
    match.refresh_from_db()
    token = match.seats.get(index=seat).invite_token
    seating.take_seat(match, user, token)
    match.refresh_from_db()


def test_the_replay_and_export_name_the_player_who_made_each_move(seated_match, make_user):
    match, (ada, bob), host = seated_match("pointsweeper", "ada", "bob", title="ps")
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    services.submit_action(match, bob, {"type": "scout", "piece": "Q", "square": "d4"})
    carol = make_user("carol")
    hand_seat_to(match, host, 1, carol)
    services.submit_action(match, ada, {"type": "scout", "piece": "K", "square": "a1"})
    services.submit_action(match, carol, {"type": "pass"})
    match.refresh_from_db()
    said = [e["description"] for e in described_events(match, Viewer.spectator())]
    assert "Bob scouts with Q on d4." in said
    assert not any(line.startswith("Carol scouts") for line in said)
    assert "Carol passes for the rest of the board." in said
    scouted = next(e for e in match.events.all() if e.kind == "scouted")
    step = replay_step(match, Viewer.spectator(), str(scouted.version))
    assert step.description == "Bob scouts with Q on d4."
    assert "Bob scouts with Q on d4." in [e["description"] for e in step.round_events]


def test_pointsweepers_move_list_names_the_player_who_made_each_move(
    client, seated_match, make_user
):
    match, (ada, bob), host = seated_match("pointsweeper", "ada", "bob", title="ps")
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    services.submit_action(match, bob, {"type": "scout", "piece": "Q", "square": "d4"})
    hand_seat_to(match, host, 1, make_user("carol"))
    client.force_login(ada)
    html = client.get(match.get_absolute_url()).content.decode()
    moves = html.split('class="ps-entry ps-scout">')[1]
    assert moves.split("\n")[0].strip() == "Bob"


def test_the_death_match_names_the_claimer_of_the_time(seated_match, make_user):
    match, (ada, bob), host = seated_match("bejeweled-dm", "ada", "bob", settings=CHOSEN)
    services.submit_action(match, ada, {"type": "claim", "count": 1})
    services.submit_action(match, bob, {"type": "counterclaim", "count": 19})
    hand_seat_to(match, host, 1, make_user("carol"))
    shown = dm_view.view(match.state, Viewer.spectator())
    assert shown["seats"][1]["name"] == "Carol"
    assert (shown["claim"]["name"], shown["counterclaim"]["name"]) == ("Ada", "Bob")
