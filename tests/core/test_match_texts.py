"""What a match's page and the host's words say to players: an aborted match names no one to
move; an award names the player (issue 36)."""

from __future__ import annotations

import pytest

from games.core.host import audit
from games.core.match import host_operations, services
from games.core.render.rendering import ABORTED_PROMPT
from tests.core.test_replay import CHOSEN

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("game_key", "settings"), [("bejeweled-dm", CHOSEN), ("glittering-paths", {})]
)
def test_an_aborted_match_names_no_one_to_move(client, seated_match, game_key, settings):
    match, (ada, _), host = seated_match(game_key, "ada", "bob", settings=settings)
    client.force_login(ada)
    assert ABORTED_PROMPT not in client.get(match.get_absolute_url()).content.decode()
    host_operations.host_abort(match, host, "testing")
    match.refresh_from_db()
    page = client.get(match.get_absolute_url()).content.decode()
    assert "to move<" not in page and "If no one claims" not in page
    assert ABORTED_PROMPT in page


def test_a_round_award_names_the_player_not_the_seat(seated_match):
    match, (ada, _), host = seated_match("bejeweled-dm", "ada", "bob", settings=CHOSEN)
    host_operations.host_adjudicate(match, host, {"scope": "round", "winner": 0})
    match.refresh_from_db()
    said = audit.latest_host_words(match)
    assert said.startswith("Ada wins round 1") and "Seat 1" not in said
    assert audit.match_log(match)[0]["words"] == said


def test_the_host_finds_a_substitutes_invite_link_on_the_match_page(client, seated_match):
    match, (ada, bob), host = seated_match("bejeweled-dm", "ada", "bob", settings=CHOSEN)
    host_operations.host_replace_seat(match, host, 1, "", "Bob left")
    match.refresh_from_db()
    seat = match.seats.get(index=1)
    client.force_login(host)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Invite a substitute" in page and seat.get_invite_url() in page
    client.force_login(ada)
    assert seat.get_invite_url() not in client.get(match.get_absolute_url()).content.decode()


def test_a_seat_freed_for_a_substitute_is_an_open_seat_in_the_games_panels_too(
    client, seated_match
):
    match, (ada, bob), host = seated_match("pointsweeper", "ada", "bob")
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    host_operations.host_replace_seat(match, host, 1, "club", "Bob left")
    host_operations.host_replace_seat(match, host, 1, "", "the bot is too slow")
    match.refresh_from_db()
    client.force_login(ada)
    page = client.get(match.get_absolute_url()).content.decode()
    status = page.split('id="ps-status"')[1].split("</section>")[0]
    assert "Club bot 2" not in status and "open seat" in status


def test_names_are_listed_as_a_host_says_them():
    from games.core.game.words import listed

    assert listed([]) == ""
    assert listed(["Ada"]) == "Ada"
    assert listed(["Ada", "Bob"]) == "Ada and Bob"
    assert listed(["Ada", "Bob", "Cy", "Dee"]) == "Ada, Bob, Cy and Dee"
