"""Each listed game's rules page for players, with example boards made by its engine, and the
first-visit walkthrough of its controls."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string

from games.core.game.registry import get_game, listed_games

LISTED = [game.key for game in listed_games()]


@pytest.mark.parametrize("game_key", LISTED)
def test_each_listed_game_has_a_rules_page(client, game_key):
    response = client.get(f"/rules/{game_key}/")
    assert response.status_code == 200
    assert f"How to play {get_game(game_key).title}" in response.content.decode()


@pytest.mark.parametrize("game_key", LISTED)
def test_each_rules_page_draws_its_example_boards(client, game_key):
    body = client.get(f"/rules/{game_key}/").content.decode()
    assert 'data-grid="example-' in body
    assert body.count('data-cell="') >= 9


@pytest.mark.parametrize("game_key", LISTED)
def test_each_listed_game_explains_its_controls(client, game_key):
    game = get_game(game_key)
    assert 3 <= len(game.controls_help) <= 5
    body = client.get(f"/rules/{game_key}/").content.decode()
    assert "On this site" in body


def test_an_unknown_game_has_no_rules_page(client):
    assert client.get("/rules/no-such-game/").status_code == 404


def test_an_unlisted_game_has_no_rules_page(client):
    assert client.get("/rules/fixture-tally/").status_code == 404


def test_the_rules_index_links_every_listed_game(client):
    body = client.get("/rules/").content.decode()
    for key in LISTED:
        assert f'href="/rules/{key}/"' in body


def test_the_walkthrough_lists_the_controls_and_links_the_rules():
    game = get_game("bejeweled-dm")

    class FakeMatch:
        pass

    match = FakeMatch()
    match.game = game
    html = render_to_string("core/_walkthrough.html", {"match": match})
    assert 'data-walkthrough="bejeweled-dm"' in html
    assert 'href="/rules/bejeweled-dm/"' in html
    assert html.count("<li>") == len(game.controls_help)


def test_the_gem_gallery_shows_every_gem_of_the_set_and_each_picture_exists(client):
    from pathlib import Path

    from games.core.help_views import GEMS, SPECIALS

    body = client.get("/gems/").content.decode()
    pictures = Path(__file__).resolve().parents[2] / "static" / "gems"
    for colour, _shape in GEMS:
        assert f'class="cell gem-{colour}"' in body and f'class="cell gem-{colour} power"' in body
        assert (pictures / f"{colour}.svg").exists()
    for name in ("hypercube", "rock", "bomb", "locked", "power-glow", "power-spark"):
        assert (pictures / f"{name}.svg").exists()
    assert len(SPECIALS) == 5 and 'class="cell hypercube"' in body


def test_the_bejeweled_2_rules_say_how_points_are_scored_not_that_they_climb_by_level(client):
    html = client.get("/rules/bejeweled-2/").content.decode()
    assert "Points climb with each level" not in html
    assert "10 points times the depth of its cascade" in html
    assert "the level does not change what a gem is worth" in html
