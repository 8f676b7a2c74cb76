"""The new-match page asks a host only what applies to the choices made so far."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.core.models import Match

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_form_shows_pasted_boards_and_a_modes_own_settings_only_when_chosen(
    login_context, make_user
):
    make_user("boss")
    host = login_context("boss")
    host.set_viewport_size({"width": 375, "height": 812})

    host.goto("/matches/new/pointsweeper/")
    boards = host.locator("textarea")
    expect(boards).to_have_count(3)
    for index in range(3):
        expect(boards.nth(index)).to_be_hidden()
    host.get_by_label("I paste the three boards below").check()
    for index in range(3):
        expect(boards.nth(index)).to_be_visible()
    host.get_by_label("Three boards drawn at random").check()
    expect(boards.first).to_be_hidden()
    # Hidden fields are still sent; with random boards the server ignores them.
    host.fill("input[name=title]", "Random boards")
    host.click("form.settings button[type=submit]")
    expect(host.locator("#connection")).to_have_text("connected")
    assert Match.objects.get(title="Random boards").settings["boards"] == "random"

    host.goto("/matches/new/bejeweled-2-race/")
    moves, count = host.locator("input[name=moves]"), host.locator("input[name=puzzle_count]")
    expect(moves).to_be_hidden()
    expect(count).to_be_hidden()
    host.check("input[name=mode][value=classic_moves]")
    expect(moves).to_be_visible()
    expect(count).to_be_hidden()
    host.check("input[name=mode][value=puzzles]")
    expect(moves).to_be_hidden()
    expect(count).to_be_visible()
    expect(host.locator("select[name=puzzle_first]")).to_be_visible()
