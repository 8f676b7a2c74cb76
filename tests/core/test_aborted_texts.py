"""An aborted match's page says no one moves again: no "to move", no prompt of what a clock
running out would do (issue 36)."""

from __future__ import annotations

import pytest

from games.core import services
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
