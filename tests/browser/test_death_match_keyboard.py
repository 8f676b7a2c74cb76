"""A whole death match played with the keyboard alone, by two players in two browsers: Tab to a
control, type, Space and Enter; the proof chosen on the board with the arrow keys, Enter and
Escape (static/js/grid.js)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.core.models import Match
from tests.bejeweled_dm.browser_pages import shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Round 1 (and every round both pick them again) offers Pick, Bend and Plus: "Plus A7; Bend;
# Pick A7" always removes at least 1 gem. Rounds in between are proved with a typed proof.
QUICK = {
    "first_offer": "chosen",
    "offered_starters": ["Pick"],
    "offered_passives": ["Bend"],
    "offered_actives": ["Plus"],
}
TYPED_PROOF = "Column A7; Chain R; Rotate A6"  # legal on any board without rocks
ARROWS = {"ArrowDown": (1, 0), "ArrowUp": (-1, 0), "ArrowRight": (0, 1), "ArrowLeft": (0, -1)}


def tab_to(page, selector: str, limit: int = 150) -> None:
    """Press Tab until the focus is on ``selector``."""
    for _ in range(limit):
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def focused_cell(page) -> str:
    return page.evaluate("document.activeElement.dataset.cell || ''")


def arrow_to(page, cell: str) -> None:
    """Move the focus on the board to ``cell`` with the arrow keys."""
    for _ in range(20):
        here = focused_cell(page)
        if here == cell:
            return
        column, row = "ABCDEFGH".index(here[0]), int(here[1:])
        target_column, target_row = "ABCDEFGH".index(cell[0]), int(cell[1:])
        if row != target_row:
            page.keyboard.press("ArrowDown" if target_row > row else "ArrowUp")
        else:
            page.keyboard.press("ArrowRight" if target_column > column else "ArrowLeft")
    raise AssertionError(f"the arrow keys never reached {cell}")


def claim_one(ec, dmo) -> None:
    tab_to(ec, "#bjdm-claim-count")
    ec.keyboard.type("1")
    ec.keyboard.press("Enter")
    tab_to(dmo, "form[data-action=pass] button")
    dmo.keyboard.press("Enter")
    expect(ec.locator("#bjdm-proof")).to_be_visible()


def prove_on_the_board(ec) -> None:
    """Plus on A7 (Enter), a wrong starter cell taken back (Escape), Pick A7, submit."""
    tab_to(ec, "#bjdm-board [data-cell]")
    arrow_to(ec, "A7")
    ec.keyboard.press("Enter")
    arrow_to(ec, "B7")
    ec.keyboard.press("Enter")
    expect(ec.locator("#bjdm-proof")).to_have_value("Plus A7; Bend; Pick B7")
    ec.keyboard.press("Escape")
    expect(ec.locator("#bjdm-proof")).to_have_value("Plus A7; Bend")
    arrow_to(ec, "A7")
    ec.keyboard.press("Enter")
    expect(ec.locator("#bjdm-proof")).to_have_value("Plus A7; Bend; Pick A7")
    tab_to(ec, "form[data-action=proof] button[type=submit]")
    ec.keyboard.press("Enter")


def prove_by_typing(ec) -> None:
    tab_to(ec, "#bjdm-proof")
    ec.keyboard.type(TYPED_PROOF)
    ec.keyboard.press("Enter")


def pick_by_keys(page, wanted: dict[str, str]) -> None:
    """Tick one powerup per type with Space (the first allowed, or ``wanted``), then Enter."""
    for kind in ("starter", "passive", "active"):
        tab_to(page, f"form[data-action=pick] input[name={kind}]")
        name = wanted.get(kind)
        if name:
            for _ in range(6):
                if page.evaluate("document.activeElement.value") == name:
                    break
                page.keyboard.press("ArrowDown")
        page.keyboard.press("Space")
    tab_to(page, "form[data-action=pick] button[type=submit]")
    page.keyboard.press("Enter")


def test_a_whole_match_is_played_with_the_keyboard_alone(login_context, seated_match):
    match, _, _ = seated_match("bejeweled-dm", "erin", "dmitri", settings=QUICK)
    ec, dmo = login_context("erin"), login_context("dmitri")
    for page in (ec, dmo):
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
    for round_number in range(1, 8):
        expect(ec.locator("#bjdm-claim-count")).to_be_visible()
        offer = Match.objects.get(pk=match.pk).state["offer"]
        claim_one(ec, dmo)
        if offer == {"starter": ["Pick"], "passive": ["Bend"], "active": ["Plus"]}:
            prove_on_the_board(ec)
        else:
            prove_by_typing(ec)
        finished = Match.objects.get(pk=match.pk)
        expect(ec.locator("#bjdm-actions")).not_to_have_attribute("data-phase", "proof")
        finished.refresh_from_db()
        if finished.is_over:
            break
        # Back to Pick, Bend and Plus when they were not used; else Rotate, Chain, Column.
        used_plus = "Plus" in (finished.state["last"]["proof"] or "")
        wanted = (
            {"starter": "Rotate", "passive": "Chain", "active": "Column"}
            if used_plus
            else {"starter": "Pick", "passive": "Bend", "active": "Plus"}
        )
        pick_by_keys(ec, wanted)
        pick_by_keys(dmo, wanted)
        expect(ec.locator("#bjdm-status .phase-label")).to_have_text("Claim")
        expect(ec.locator("#bjdm-status")).to_contain_text(f"round {round_number + 1} of")
    match.refresh_from_db()
    assert match.is_over and max(match.result["score"]) == 4
    expect(ec.locator("#bjdm-actions .bjdm-final")).to_contain_text("Final score")
    shoot(ec, "dm-keyboard-over-1280x720")
