"""The match page's own client (static/js/match.js) in a real browser."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.core.match import seating

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_spectator_page_follows_moves_live_and_a_refusal_is_shown(login_context, make_user):
    host, ada, bob = make_user("h"), make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host,
        game_key="fixture-tally",
        title="Browser tally",
        settings={},
        roles=["EC", "DMO"],
    )
    for user, seat in zip([ada, bob], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    spectator = login_context(None)
    spectator.goto(match.get_absolute_url())
    expect(spectator.locator("#connection")).to_have_text("connected")
    expect(spectator.locator("#game-state")).to_contain_text("total")
    player = login_context("ada")
    player.goto(match.get_absolute_url())
    expect(player.locator("#connection")).to_have_text("connected")
    player.evaluate("window.gemArena.send({type: 'add', amount: 3})")
    expect(spectator.locator("#match-version")).to_have_attribute("data-version", "4")
    expect(spectator.locator("#game-state dd").first).to_have_text("3")
    secret = match.events.last().state["secrets"]["0"]
    assert secret in player.content()
    assert secret not in spectator.content()
    # The player's page holds version 4 before it sends again (else it names version 3, and the
    # server answers that the match moved on instead).
    expect(player.locator("#match-version")).to_have_attribute("data-version", "4")
    player.evaluate("window.gemArena.send({type: 'add', amount: 9})")
    expect(player.locator("#match-error")).to_have_text("it is not your turn")
