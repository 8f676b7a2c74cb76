"""On a 375x812 phone: the lobby fits the screen's width (its tables of matches too), and a
refusal told beside its form never makes the page taller or moves what is under it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.core.match import host_operations, seating, services
from tests.browser.pages import ARTIFACTS, PHONE
from tests.browser.test_pointsweeper import NO_MINE_ON_RANK_1
from tests.browser.test_seven_gem_swap import a_gem_with_room

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_refusal_never_makes_the_page_taller(login_context, seated_match):
    settings = {
        "scout_turns": 0,
        "boards": "pasted",
        **dict.fromkeys(("board_1", "board_2", "board_3"), NO_MINE_ON_RANK_1),
    }
    match, (_, dmitri), _ = seated_match("pointsweeper", "erin", "dmitri", settings=settings)
    services.submit_action(match, dmitri, {"type": "choose_order", "first": True})
    page = login_context("dmitri")
    page.set_viewport_size(PHONE)
    page.goto(match.get_absolute_url())
    expect(page.locator("#connection")).to_have_text("connected")
    claim = page.locator("form[data-action='claim']")
    measure = """() => ({height: document.documentElement.scrollHeight,
      pass: Math.round(document.querySelector("form[data-action='pass'] button")
        .getBoundingClientRect().top + scrollY)})"""
    before = page.evaluate(measure)
    claim.locator("select[name=piece]").select_option("R1")
    claim.locator("input[name=start]").fill("a1")
    claim.locator("input[name=end]").fill("b2")
    claim.locator("button[type=submit]").click()
    expect(claim.locator(".action-error")).to_contain_text("cannot move")
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#ps-moves").screenshot(path=str(ARTIFACTS / "phone-refusal.png"))
    assert page.evaluate(measure) == before


def test_the_lobby_fits_a_phone(login_context, seated_match):
    """Every list of matches (open, live, finished) fits the phone's width: nothing scrolls
    sideways and the page is not zoomed out."""
    finished, _, host = seated_match(
        "glittering-paths", "erin", "dmitri", title="The long finished match of the evening"
    )
    host_operations.host_abort(finished, host, "testing the lobby")
    seated_match_again = seating.create_match(
        host=host, game_key="pointsweeper", title="An open match", settings={}, roles=["", ""]
    )
    assert seated_match_again.status == "open"
    page = login_context("erin")
    page.set_viewport_size(PHONE)
    page.goto("/")
    expect(page.get_by_text("The long finished match of the evening")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "phone-lobby.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_refused_sequence_never_makes_the_page_taller(login_context, seated_match):
    settings = {"bid_seconds": 3600, "round_seconds": 3600}
    match, (ada, bob), _ = seated_match("seven-gem-swap", "ada", "bob", settings=settings)
    services.submit_action(match, ada, {"type": "bid", "bid": -4, "colours": "ROY"})
    services.submit_action(match, bob, {"type": "bid", "bid": 0, "colours": "GBR"})
    match.refresh_from_db()
    for user, colour in ((ada, "R"), (bob, "G")):
        gem = a_gem_with_room(match.state["board"], colour)[0]
        services.submit_action(match, user, {"type": "submit", "round": 1, "gem": gem, "moves": ""})
    match.refresh_from_db()
    gem = a_gem_with_room(match.state["board"], "R")[0]
    page = login_context("ada")
    page.set_viewport_size(PHONE)
    page.goto(match.get_absolute_url())
    expect(page.locator("#connection")).to_have_text("connected")
    page.click(f'[data-grid="sgs"] [data-cell="{gem}"]')
    expect(page.locator("#sgs-play .sgs-preview-text")).to_contain_text("Path:")
    height = "document.documentElement.scrollHeight"
    before = page.evaluate(height)
    page.locator("#sgs-play .sgs-submit").click()  # no colour card: refused
    expect(page.locator("#sgs-play .sgs-refusal")).to_contain_text("play a colour card")
    page.locator("#sgs-play").screenshot(path=str(ARTIFACTS / "phone-sgs-refusal.png"))
    assert page.evaluate(height) == before
