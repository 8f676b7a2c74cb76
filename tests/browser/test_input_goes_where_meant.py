"""Input lands where the player meant it: Pointsweeper's board clicks fill the claim's fields in
order (after a refused claim too), the connection badge says "connected" again when the network
comes back while the socket stayed open, and in the death match the keyboard's focus stays in the
actions panel after a claim or a pass is sent."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.core.match import services
from tests.browser.test_pointsweeper import NO_MINE_ON_RANK_1

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOARD = '#ps-board [data-grid="board"] [data-cell="{}"]'


def test_board_clicks_fill_the_claim_in_order_and_the_badge_follows_the_network(
    login_context, seated_match
):
    settings = {
        "scout_turns": 0,
        "boards": "pasted",
        **dict.fromkeys(("board_1", "board_2", "board_3"), NO_MINE_ON_RANK_1),
    }
    match, (_, dmitri), _ = seated_match("pointsweeper", "erin", "dmitri", settings=settings)
    services.submit_action(match, dmitri, {"type": "choose_order", "first": True})
    page = login_context("dmitri")
    page.goto(match.get_absolute_url())
    expect(page.locator("#connection")).to_have_text("connected")
    claim = page.locator("form[data-action='claim']")
    start, end = claim.locator("input[name=start]"), claim.locator("input[name=end]")

    # A refused claim, then another piece and two squares clicked: from, then to.
    claim.locator("select[name=piece]").select_option("R1")
    start.fill("a1")
    end.fill("b2")
    claim.locator("button[type=submit]").click()
    expect(claim.locator(".action-error")).to_contain_text("cannot move")
    claim.locator("select[name=piece]").select_option("B2")
    page.click(BOARD.format("c5"))
    page.click(BOARD.format("e7"))
    expect(start).to_have_value("c5")
    expect(end).to_have_value("e7")

    # Both fields emptied by hand (the focus left in "to"), the piece chosen again: the clicks
    # fill from, then to, and the claim is made.
    start.fill("")
    end.fill("")
    claim.locator("select[name=piece]").select_option("R1")
    page.click(BOARD.format("a1"))
    page.click(BOARD.format("c1"))
    expect(start).to_have_value("a1")
    expect(end).to_have_value("c1")
    claim.locator("button[type=submit]").click()
    expect(page.locator("#ps-log")).to_contain_text("claimed with R1 a1")

    # The network goes and comes back while the socket stays open: the badge follows.
    page.evaluate("window.dispatchEvent(new Event('offline'))")
    expect(page.locator("#connection")).to_have_text("offline")
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator("#connection")).to_have_text("connected")


def focus_in_actions(page) -> None:
    """The focus is on something in the actions panel, not on the page's body."""
    assert page.evaluate("Boolean(document.activeElement.closest('#bjdm-actions'))")


def test_the_focus_stays_in_the_actions_panel_after_a_claim_and_a_pass(login_context, seated_match):
    quick = {
        "first_offer": "chosen",
        "offered_starters": ["Pick"],
        "offered_passives": ["Bend"],
        "offered_actives": ["Plus"],
    }
    match, _, _ = seated_match("bejeweled-dm", "erin", "dmitri", settings=quick)
    ec, dmo = login_context("erin"), login_context("dmitri")
    for page in (ec, dmo):
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
    ec.locator("#bjdm-claim-count").focus()
    ec.keyboard.type("1")
    ec.keyboard.press("Enter")
    pass_button = dmo.locator("form[data-action=pass] button")
    expect(pass_button).to_be_visible()
    expect(ec.locator("#bjdm-claim-count")).to_have_count(0)  # the claim form went
    focus_in_actions(ec)
    pass_button.focus()
    dmo.keyboard.press("Enter")
    expect(ec.locator("#bjdm-proof")).to_be_visible()
    expect(pass_button).to_have_count(0)
    focus_in_actions(dmo)
    # The next Tab goes on from the panel, not from the top of the page.
    dmo.keyboard.press("Tab")
    assert dmo.evaluate("document.activeElement.closest('#match-banner, header') === null")
