"""A whole death-match round in three browsers: the EC, the DMO and a spectator."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def second_pick_cell(board_text: str) -> str:
    """A gem on the bottom row whose colour differs from A7's (Pick takes different colours)."""
    bottom = board_text.splitlines()[-1]
    column = next(i for i, gem in enumerate(bottom) if gem != bottom[0])
    return f"{'ABCDEFGH'[column]}7"


def test_a_round_is_claimed_counterclaimed_proved_by_clicks_and_animated(
    login_context, seated_match
):
    offer = {
        "first_offer": "chosen",
        "offered_starters": ["Pick"],
        "offered_passives": ["Bend"],
        "offered_actives": ["Plus"],
    }
    match, _, _ = seated_match("bejeweled-dm", "erin", "dmitri", settings=offer)
    other = second_pick_cell(match.state["board"])

    ec_page, dmo_page, spectator = (
        login_context("erin"),
        login_context("dmitri"),
        login_context(None),
    )
    for page in (ec_page, dmo_page, spectator):
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
        expect(page.locator("#bjdm-board [data-cell]")).to_have_count(56)

    ec_page.fill("#bjdm-claim-count", "1")
    ec_page.locator("form[data-action=claim] button[type=submit]").click()
    expect(dmo_page.locator("#bjdm-counter-count")).to_be_visible()
    expect(spectator.locator("#bjdm-status .phase-label")).to_contain_text("ounterclaim")
    expect(spectator.locator("#bjdm-status [data-deadline]")).to_contain_text(":")

    # A counterclaim that is not higher is refused by the server with its reason.
    dmo_page.evaluate("window.gemArena.send({type: 'counterclaim', count: 1})")
    expect(dmo_page.locator("#match-error")).to_contain_text("higher than 1")

    dmo_page.fill("#bjdm-counter-count", "2")
    dmo_page.locator("form[data-action=counterclaim] button[type=submit]").click()
    expect(dmo_page.locator("#bjdm-proof")).to_be_visible()
    expect(ec_page.locator("#bjdm-proof")).to_be_hidden()

    dmo_page.click("#bjdm-board [data-cell=A7]")
    dmo_page.check("input[name=b-target][value=starter]")
    dmo_page.click("#bjdm-board [data-cell=A7]")
    dmo_page.click(f"#bjdm-board [data-cell={other}]")
    expect(dmo_page.locator("#bjdm-proof")).to_have_value(f"Plus A7; Bend; Pick A7 {other}")
    dmo_page.locator("form[data-action=proof] button[type=submit]").click()

    for page in (ec_page, dmo_page, spectator):
        expect(page.locator("#bjdm-board")).to_have_class("panel bjdm-board-panel animating")
        # The result waits for the proof to play out: it would spoil it.
        expect(page.locator("#bjdm-history")).to_be_hidden()
    for page in (ec_page, dmo_page, spectator):
        expect(page.locator("#bjdm-board")).not_to_have_class(
            "panel bjdm-board-panel animating", timeout=60_000
        )
        expect(page.locator(".bjdm-step-text")).to_contain_text("gems removed in all")
        expect(page.locator("#bjdm-history .bjdm-result")).to_contain_text("Dmitri wins the round")
    match.refresh_from_db()
    removed = match.state["history"][-1]["removed"]
    assert removed >= 2
    expect(spectator.locator(".bjdm-counter .count")).to_have_text(str(removed))

    # The picks: the clock runs now and says so; the offer shown is named as the round's that
    # was played; on a phone each radio button stays beside its words.
    pick_clock = ec_page.locator(".bjdm-anim-clock")
    expect(pick_clock).to_contain_text("already running")
    expect(spectator.locator("#bjdm-offer h2")).to_have_text(
        "Round 1's powerups (round 2's are being picked)"
    )
    ec_page.set_viewport_size({"width": 375, "height": 812})
    labels = ec_page.locator(".bjdm-pick-form label")
    expect(labels.first).to_be_visible()
    apart = labels.evaluate_all(
        """labels => labels.filter((label) => {
             const box = label.querySelector('input').getBoundingClientRect();
             const words = document.createRange();
             words.selectNodeContents(label.lastChild.nodeType === 3 ? label : label.lastChild);
             const rects = [...words.getClientRects()].filter((r) => r.width > 0);
             const last = rects[rects.length - 1];
             return Math.abs(last.top + last.height / 2 - (box.top + box.height / 2)) > 12;
           }).map((label) => label.textContent.trim())"""
    )
    assert apart == [], apart

    spectator.click(".bjdm-replay")
    expect(spectator.locator("#bjdm-board")).to_have_class("panel bjdm-board-panel animating")
