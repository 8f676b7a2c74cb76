"""What a match's page and the host's words say to players: an aborted match names no one to
move; an award names the player (issue 36)."""

from __future__ import annotations

import pytest

from games.core import audit, services
from games.core.rendering import ABORTED_PROMPT
from tests.core.test_replay import CHOSEN

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("game_key", "settings"), [("bejeweled-dm", CHOSEN), ("glittering-paths", {})]
)
def test_an_aborted_match_names_no_one_to_move(client, seated_match, game_key, settings):
    match, (ada, _), host = seated_match(game_key, "ada", "bob", settings=settings)
    client.force_login(ada)
    assert ABORTED_PROMPT not in client.get(match.get_absolute_url()).content.decode()
    services.host_abort(match, host, "testing")
    match.refresh_from_db()
    page = client.get(match.get_absolute_url()).content.decode()
    assert "to move<" not in page and "If no one claims" not in page
    assert ABORTED_PROMPT in page


def test_a_round_award_names_the_player_not_the_seat(seated_match):
    match, (ada, _), host = seated_match("bejeweled-dm", "ada", "bob", settings=CHOSEN)
    services.host_adjudicate(match, host, {"scope": "round", "winner": 0})
    match.refresh_from_db()
    said = audit.latest_host_words(match)
    assert said.startswith("Ada wins round 1") and "Seat 1" not in said
    assert audit.match_log(match)[0]["words"] == said
