"""The replay page in a real browser: it opens at the start of the last round, jumps to a round,
steps with the arrow keys and Home/End, and plays on by itself until paused."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from games.core.game.gamedef import Viewer
from games.core.match import services
from games.core.match.replaying import replay_step
from tests.core.test_replay import play_death_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture
def finished_match(transactional_db, make_user, clock):
    """Played before the browser starts (its event loop would stop the broadcasts), with the
    rounds' optima found. The worker's scheduler may still be recording one it took first: the
    test reads the last event from the page, not from this match."""
    match = play_death_match(make_user, clock)
    while services.run_analyses():
        pass
    match.refresh_from_db()
    return match


# What the page did, for a failure's message: two clean-clone runs failed at the End key, and
# only this record showed that every key had done its part (the test expected a stale version).
WHAT_THE_PAGE_DID = (Path(__file__).parent / "what_the_page_did.js").read_text()


def version_of(page) -> int:
    return int(page.locator("#replay-step").get_attribute("data-version"))


def at_step(page, version: int) -> None:
    """The replay shows ``version``, and htmx has settled the step in (its address pushed, the
    swap done): a key pressed before then would click a link of the step it replaces."""
    try:
        expect(page.locator("#replay-step")).to_have_attribute("data-version", str(version))
    except AssertionError as failed:
        did = "\n".join(page.evaluate("window.whatThePageDid || []"))
        raise AssertionError(f"{failed}\nWhat the page did:\n{did}") from None
    page.wait_for_function(
        "!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"
    )


def test_the_replay_opens_at_the_last_round_and_steps_by_keys_marks_and_autoplay(
    finished_match, login_context
):
    match = finished_match
    marks = replay_step(match, Viewer.spectator(), None).marks
    last_round = marks[-1][0]
    page = login_context(None)
    # The page's timers run on a clock the test can move on by hand (it runs on by itself too).
    page.clock.install()
    page.add_init_script(WHAT_THE_PAGE_DID)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"/m/{match.public_id}/replay/")
    expect(page.locator("#replay-step")).to_have_attribute("data-version", str(last_round))
    expect(page.locator("#replay-event")).to_contain_text("Round 5 begins")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "replay-1280x800.png"), full_page=False)

    def press(key: str) -> None:
        # The key goes to the page, as a reader's does, not to a control left focused (a
        # focused "Jump to" list takes an arrow key as a choice of its own).
        page.evaluate("document.activeElement && document.activeElement.blur()")
        page.keyboard.press(key)

    for key, version in (("ArrowRight", last_round + 1), ("ArrowLeft", last_round), ("Home", 1)):
        press(key)
        at_step(page, version)
    # End goes to the last event the page knows of. The worker's scheduler may have recorded a
    # round's analysis since the match was read (it ran them beside the fixture, which then found
    # none left to do): a run expecting the version read then saw 31 instead of 29.
    last = int(page.locator("#replay-step").get_attribute("data-last"))
    assert last >= match.version
    press("End")
    at_step(page, last)

    round_two = next(version for version, label in marks if label == "Round 2")
    page.select_option("#replay-mark", label="Round 2")
    expect(page.locator("#replay-step")).to_have_attribute("data-version", str(round_two))
    assert f"v={round_two}" in page.url

    page.select_option("#replay-speed", "400")
    page.click("#replay-play")
    expect(page.locator("#replay-play")).to_have_attribute("aria-pressed", "true")
    # Autoplay moves on by itself (a loaded machine may catch it a step or two later).
    page.wait_for_function(
        f"parseInt(document.getElementById('replay-step').dataset.version) >= {round_two + 3}"
    )
    page.click("#replay-play")
    expect(page.locator("#replay-play")).to_have_attribute("aria-pressed", "false")
    # Paused, autoplay steps no more: five seconds of the page's clock (twelve steps at this
    # speed) run every timer due in them, and none clicks the next step.
    page.evaluate(
        """() => { window.nextClicks = 0; document.addEventListener("click", (event) => {
            if (event.target.closest('a[data-step="next"]')) window.nextClicks += 1; }, true); }"""
    )
    page.clock.run_for(5000)
    assert page.evaluate("window.nextClicks") == 0
    assert not page.locator(".replay-panels #match-status").is_visible()


def test_the_replay_fits_a_phone(finished_match, login_context):
    match = finished_match
    page = login_context(None)
    page.set_viewport_size({"width": 375, "height": 812})
    page.goto(f"/m/{match.public_id}/replay/")
    expect(page.locator("#replay-event")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "replay-375x812.png"), full_page=False)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.goto("/rules/bejeweled-dm/")
    page.screenshot(path=str(ARTIFACTS / "rules-bejeweled-dm-375x812.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
