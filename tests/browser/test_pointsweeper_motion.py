"""Pointsweeper's moves played on the board by the shared step player and sounds: a scout and a
claim made from the keyboard at a phone's size (the played square keeps the focus, a refused claim
never moves the board, the sounds asked for are the right ones, a rook's claim across the board
at "fast" ends within a set number of the page's animation frames), a spectator's board in the
middle of a claim at both sizes, and a spectator who asked for reduced motion sees each move's
result at once. The cells are measured at a phone's size; the sticky banner never covers a panel
heading scrolled into view."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from games.core.match import services
from games.core.models import Match
from tests.browser.pages import (
    ARTIFACTS,
    DESKTOP,
    PHONE,
    assert_coordinates_on_every_board,
    board_coordinates,
    serious_axe_violations,
    settled,
)
from tests.browser.test_pointsweeper import NO_MINE_ON_RANK_1

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAST_FRAMES = 60
"""At fast speed a rook's claim across the whole first rank (eight squares, nine frames) plays in
at most this many animation frames (about 0.6 s of frames: about 36 at 60 a second)."""

CELL = 'section#ps-board [data-grid="board"] [data-cell="{}"]'


def keys_to(page, cell: str) -> None:
    """From the focused board square, arrow keys to ``cell`` (a1 is bottom left), then Enter."""
    at = page.evaluate("document.activeElement.dataset.cell")
    files = ord(cell[0]) - ord(at[0])
    ranks = int(cell[1:]) - int(at[1:])
    for _ in range(abs(files)):
        page.keyboard.press("ArrowRight" if files > 0 else "ArrowLeft")
    for _ in range(abs(ranks)):
        page.keyboard.press("ArrowUp" if ranks > 0 else "ArrowDown")
    page.keyboard.press("Enter")


def wait_for_next_run(page) -> None:
    page.evaluate(
        """() => { window.runDone = new Promise((resolve) => document.addEventListener(
             'gem:steps-done', (event) => resolve(event.detail), {once: true})); }"""
    )


def board_box(page) -> dict:
    return page.evaluate(
        """() => { const r = document.querySelector('#ps-board [data-grid="board"]')
             .getBoundingClientRect();
           return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; }"""
    )


def shoot_board(pages, name: str) -> None:
    """Each spectator's page (one at a phone's size, one at a desktop's), mid-animation."""
    for label, page in pages.items():
        page.screenshot(path=str(ARTIFACTS / f"{name}-{label}.png"))


def watch_for(pages, selector: str) -> None:
    """Each page notes the first moment ``selector`` is in it (set before the move): as the
    element is added (a mutation observer), not on animation frames, which a window in the
    back may not get."""
    for page in pages.values():
        page.evaluate(
            """(selector) => { window.seen = window.seen || {};
                 window.seen[selector] = new Promise((resolve) => {
                   if (document.querySelector(selector)) { resolve(true); return; }
                   const observer = new MutationObserver(() => {
                     if (document.querySelector(selector)) { observer.disconnect(); resolve(true); }
                   });
                   observer.observe(document.body,
                     {childList: true, subtree: true, attributeFilter: ["class"]}); }); }""",
            selector,
        )


def until(pages, selector: str) -> None:
    for page in pages.values():
        assert settled(page, f"window.seen[{json.dumps(selector)}]")


def sounds(page) -> list[str]:
    return page.evaluate("[...window.gemSound.played]")


def test_moves_slide_burst_and_sound_keep_the_focus_and_never_move_the_board(
    login_context, seated_match, browser, live_worker
):
    settings = {
        "scout_turns": 0,
        "boards": "pasted",
        **dict.fromkeys(("board_1", "board_2", "board_3"), NO_MINE_ON_RANK_1),
    }
    match, (erin, dmitri), _ = seated_match("pointsweeper", "erin", "dmitri", settings=settings)
    services.submit_action(match, dmitri, {"type": "choose_order", "first": True})
    url = match.get_absolute_url()

    page = login_context("dmitri")
    page.set_viewport_size(PHONE)
    page.goto(url)
    expect(page.locator("#connection")).to_have_text("connected")
    boards = assert_coordinates_on_every_board(page)
    cells = page.evaluate(
        """() => [...document.querySelectorAll('#ps-board [data-cell]')].map((c) => {
             const r = c.getBoundingClientRect(); return Math.min(r.width, r.height); })"""
    )
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "ps-phone-cells.json").write_text(json.dumps({"boards": boards, "cells": cells}))
    # Eight columns and their rank numbers in 375 px: 42.6 px is all the width allows (a 44 px
    # cell would need 377 px with the numbers and the gaps); the whole board is this size.
    assert len(cells) == 64 and min(cells) >= 42, cells
    assert board_box(page)["x"] + board_box(page)["width"] <= PHONE["width"]

    # The sticky banner never covers a panel's heading brought into view.
    covered = page.evaluate(
        """() => [...document.querySelectorAll('#match-root section.panel h2')].map((h) => {
             h.scrollIntoView(); const banner = document.getElementById('match-banner');
             return [h.textContent.trim(), Math.round(h.getBoundingClientRect().top
                     - banner.getBoundingClientRect().bottom)]; }).filter(([, gap]) => gap < 0)"""
    )
    assert covered == [], covered
    page.evaluate("window.scrollTo(0, 0)")

    # A scout from the keyboard: the king on e4 (no mine around it): a ping, the focus stays.
    page.locator("#match-banner [data-steps-speed]").select_option("fast")
    page.locator("form[data-action='scout'] select[name=piece]").select_option("K")
    page.locator(CELL.format("a1")).focus()
    keys_to(page, "e4")
    expect(page.locator("form[data-action='scout'] input[name=square]")).to_have_value("e4")
    wait_for_next_run(page)
    page.locator("form[data-action='scout'] button[type=submit]").focus()
    page.keyboard.press("Enter")
    run = settled(page, "window.runDone")
    assert run["frames"] == 2 and not run["skipped"], run
    assert "scout" in sounds(page) and "mine" not in sounds(page)
    expect(page.locator(CELL.format("e4"))).to_be_focused()
    expect(page.locator("#ps-notebook .ps-note")).to_have_count(1)
    expect(page.locator("#ps-board .ps-token")).to_have_count(0)

    # A refused claim (a rook cannot go a1-b2): said beside its form with a sound, and the board
    # stays where it was, at both sizes.
    services.submit_action(match, erin, {"type": "scout", "piece": "K", "square": "d5"})
    claim = page.locator("form[data-action='claim']")
    expect(claim).to_be_visible()
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        before = board_box(page)
        claim.locator("select[name=piece]").select_option("R1")
        claim.locator("input[name=start]").fill("a1")
        claim.locator("input[name=end]").fill("b2")
        played = len(sounds(page))
        claim.locator("button[type=submit]").click()
        expect(claim.locator(".action-error")).to_contain_text("cannot move")
        assert board_box(page) == before, size
        # Among the sounds since the click: Erin's scout may still be sounding its own (a CI run
        # heard "scout" last, after "refused").
        page.wait_for_function(f"window.gemSound.played.slice({played}).includes('refused')")
        claim.locator("input[name=end]").fill("")
    page.set_viewport_size(PHONE)

    # A spectator at slow speed, seen in the middle of the claim at both sizes; another who
    # asked for reduced motion.
    spectators = {}
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        spectators[label] = login_context(None)
        spectators[label].set_viewport_size(size)
        spectators[label].goto(url)
        spectators[label].evaluate("gemSteps.setSpeed('slow')")
        expect(spectators[label].locator("#connection")).to_have_text("connected")
        spectators[label].evaluate("document.querySelector('#ps-board').scrollIntoView()")
    spectator = spectators["desktop"]
    still = browser.new_context(base_url=live_worker.url, reduced_motion="reduce")
    quiet = still.new_page()
    quiet.goto(url)
    expect(quiet.locator("#connection")).to_have_text("connected")

    # The claim from the keyboard: the rook from a1 to h1, the whole first rank (15 points).
    claim.locator("select[name=piece]").select_option("R1")
    claim.locator("input[name=start]").click()
    page.locator(CELL.format("a1")).focus()
    page.keyboard.press("Enter")
    keys_to(page, "h1")
    expect(claim.locator("input[name=end]")).to_have_value("h1")
    wait_for_next_run(page)
    played = len(sounds(page))
    watch_for(spectators, "#ps-board .ps-token")
    watch_for(spectators, ".steps-ghost.ps-hidden")
    claim.locator("button[type=submit]").focus()
    page.keyboard.press("Enter")
    until(spectators, "#ps-board .ps-token")
    # Sliding, the claimer's new total is not shown yet; it is once the claim has burst.
    score = "#ps-status .ps-player[data-seat='1'] .ps-score"
    shown = f'getComputedStyle(document.querySelector("{score}")).visibility'
    assert spectator.evaluate(shown) == "hidden"
    shoot_board(spectators, "ps-claim-sliding")
    until(spectators, ".steps-ghost.ps-hidden")
    shoot_board(spectators, "ps-claim-bursting")
    run = settled(page, "window.runDone")
    assert run["speed"] == "fast" and not run["skipped"] and run["frames"] == 9, run
    assert run["ticks"] <= FAST_FRAMES, run
    (ARTIFACTS / "ps-fast-rook-claim.json").write_text(json.dumps(run))
    assert sounds(page)[played:][:1] == ["swap"] and "match" in sounds(page)[played:]
    expect(page.locator(CELL.format("h1"))).to_be_focused()
    rank_1 = page.locator("#ps-board [data-cell$='1'].ps-tile.ps-owner-1")
    expect(rank_1).to_have_count(8)
    expect(page.locator("#ps-board .ps-token, #ps-board .ps-scan")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "ps-after-claim-phone.png"))

    # Reduced motion: the claim's result at once, nothing left half drawn, the same tiles.
    expect(quiet.locator("#ps-log")).to_contain_text("claimed with R1 a1–h1: 15 points")
    assert quiet.evaluate("gemSteps.playing") is False
    assert quiet.evaluate("gemSteps.last && gemSteps.last.ticks") == 0
    expect(quiet.locator("#ps-board [data-cell$='1'].ps-tile")).to_have_count(8)
    expect(quiet.locator("#ps-board .ps-token, #ps-board .ps-scan")).to_have_count(0)
    expect(spectator.locator("#ps-board [data-cell$='1'].ps-tile")).to_have_count(8)
    expect(spectator.locator("#ps-board .ps-token")).to_have_count(0)
    spectator.wait_for_function("!gemSteps.playing", timeout=30_000)
    assert spectator.evaluate(shown) == "visible"
    expect(spectator.locator(score)).to_contain_text("15 points")
    assert serious_axe_violations(page) == []
    assert board_coordinates(spectator)

    # Erin scouts: the spectator sees the squares light up (no result: that is Erin's).
    watch_for(spectators, "#ps-board .ps-scan")
    services.submit_action(match, erin, {"type": "scout", "piece": "Q", "square": "c3"})
    until(spectators, "#ps-board .ps-scan")
    shoot_board(spectators, "ps-scout-scanning")
    expect(spectator.locator("#ps-board .ps-scan")).to_have_count(0)
    still.close()
    match.refresh_from_db()
    assert Match.objects.get(pk=match.pk).state["play"]["points"][1] == 15


def test_a_bank_turning_urgent_sounds_a_warning(login_context, seated_match):
    # The bank turns urgent at 10 s left: 14 s after it starts, time enough for a loaded
    # machine to open the page first.
    settings = {"move_seconds": 1, "bank_seconds": 24}
    match, (_, dmitri), _ = seated_match("pointsweeper", "erin", "dmitri", settings=settings)
    services.submit_action(match, dmitri, {"type": "choose_order", "first": True})
    page = login_context("dmitri")
    page.goto(match.get_absolute_url())
    bank = page.locator(".ps-player[data-seat='1'] .ps-bank")
    expect(bank).to_have_class(re.compile(r"\brunning\b"))
    expect(bank).not_to_have_class(re.compile(r"\burgent\b"))
    heard = len(sounds(page))
    expect(bank).to_have_class(re.compile(r"\burgent\b"), timeout=30_000)
    assert "warning" in sounds(page)[heard:]


def test_a_move_arriving_while_another_plays_ends_on_its_own_board(login_context, seated_match):
    settings = {
        "scout_turns": 0,
        "boards": "pasted",
        **dict.fromkeys(("board_1", "board_2", "board_3"), NO_MINE_ON_RANK_1),
    }
    match, (erin, dmitri), _ = seated_match("pointsweeper", "erin", "dmitri", settings=settings)
    services.submit_action(match, dmitri, {"type": "choose_order", "first": True})
    spectator = login_context(None)
    spectator.goto(match.get_absolute_url())
    expect(spectator.locator("#connection")).to_have_text("connected")
    spectator.evaluate("gemSteps.setSpeed('slow')")
    watch_for({"spectator": spectator}, "#ps-board .ps-token")
    # The scout plays for 1.7 s at slow speed: the claim comes while it does.
    services.submit_action(match, dmitri, {"type": "scout", "piece": "K", "square": "e4"})
    claim = {"type": "claim", "piece": "R1", "start": "a1", "end": "c1"}
    services.submit_action(match, erin, claim)
    until({"spectator": spectator}, "#ps-board .ps-token")
    expect(spectator.locator("#ps-log")).to_contain_text("claimed with R1 a1–c1")
    spectator.wait_for_function("!gemSteps.playing", timeout=30_000)
    expect(spectator.locator("#ps-board .ps-token")).to_have_count(0)
    expect(spectator.locator("#ps-board .cell.ps-tile")).to_have_count(3)
