"""Every phase of a death match on a phone (375x812) and a desktop (1280x800): a screenshot each
(test-artifacts/dm-<phase>-<size>.png), no sideways scroll, the board and the action panel on
the first screen (once over: the result), and no serious or critical axe-core violation in the
game's panels."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.core.match import host_operations
from tests.bejeweled_dm.browser_pages import (
    SIZES,
    assert_playable_layout,
    serious_axe_violations,
    shoot,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Round 1 offers Refresh, so the proof below sets it off: the second starter phase.
REFRESH_ROUND = {
    "first_offer": "chosen",
    "offered_starters": ["Pick"],
    "offered_passives": ["Bend"],
    "offered_actives": ["Refresh"],
    "pick_seconds": 300,
}


def check(pages: dict, phase: str, ready: str) -> None:
    """For each size: wait for ``ready``, shoot, check the layout and run axe."""
    for size, page in pages.items():
        expect(page.locator(ready).first).to_be_visible()
        # A proof's animation played out first (its rising numbers fade as they go); a window
        # in the back may get no animation frames at all.
        page.bring_to_front()
        page.wait_for_function("!window.gemSteps.playing", timeout=30_000)
        expect(page.locator(".steps-float")).to_have_count(0)
        shoot(page, f"dm-{phase}-{size}")
        # Once the match is over the result comes first; the final board may follow it.
        found = assert_playable_layout(page, f"{phase} at {size}", board=phase != "over")
        if size == "1280x800" and phase == "claim":
            # The clock, the board and the claim box on one screen.
            for part in ("clock", "board", "claim"):
                assert found[part]["bottom"] <= found["height"], f"{part} below the fold {found}"
        assert serious_axe_violations(page) == [], f"{phase} at {size}"


def test_every_phase_fits_a_phone_and_a_desktop_and_passes_axe(login_context, seated_match):
    match, _, host = seated_match("bejeweled-dm", "erin", "dmitri", settings=REFRESH_ROUND)
    ec, dmo = {}, {}
    for size, viewport in SIZES.items():
        ec[size], dmo[size] = login_context("erin"), login_context("dmitri")
        for page in (ec[size], dmo[size]):
            page.set_viewport_size(viewport)
            page.goto(match.get_absolute_url())
            expect(page.locator("#connection")).to_have_text("connected")

    check(ec, "claim", "#bjdm-claim-count")
    ec["1280x800"].fill("#bjdm-claim-count", "1")
    ec["1280x800"].keyboard.press("Enter")
    check(dmo, "counterclaim", "#bjdm-counter-count")
    dmo["1280x800"].locator("form[data-action=pass] button").click()
    check(ec, "proof", "#bjdm-proof")
    ec["1280x800"].fill("#bjdm-proof", "Refresh A7; Bend; Pick A7")
    ec["1280x800"].keyboard.press("Enter")
    check(ec, "second-starter", "#bjdm-second")
    ec["1280x800"].locator("form[data-action=skip_second_starter] button").click()
    check(ec, "pick", "form[data-action=pick]")
    for page in ec.values():
        expect(page.locator("#bjdm-board .bjdm-anim-clock")).to_contain_text("Picking time")
    host_operations.host_adjudicate(match, host, {"winner": 0, "scope": "match"})
    check(ec, "over", "#bjdm-actions .bjdm-final")
