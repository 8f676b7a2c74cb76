"""Seven Gem Swap's round resolution played on the grid by the shared step player: a player
composes round 2 from the keyboard at a phone's size (the gem played keeps the focus after the
submission, a refused submission never moves the grid), the round resolves and plays (the gems
slide from the grid before to the grid after, the scoring groups burst with their points, with
sounds) within a set number of the page's animation frames at "fast"; spectators at slow speed
are seen mid-animation at both sizes with the round's new scores held back until it ends; a
spectator who asked for reduced motion sees the result at once. The cells are measured at a
phone's size; the sticky banner never covers a panel heading brought into view."""

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
    serious_axe_violations,
    settled,
)
from tests.browser.test_seven_gem_swap import a_gem_with_room

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAST_FRAMES = 80
"""At fast speed a round of two players (the grid before, the gems sliding, two scoring groups
bursting: four frames, 0.95 s) plays in at most this many animation frames (57 at 60 a second)."""


def keys_to(page, cell: str) -> None:
    """From the focused grid cell, arrow keys to ``cell`` (A1 is top left), then Enter."""
    at = page.evaluate("document.activeElement.dataset.cell")
    columns = ord(cell[0]) - ord(at[0])
    rows = int(cell[1:]) - int(at[1:])
    for _ in range(abs(columns)):
        page.keyboard.press("ArrowRight" if columns > 0 else "ArrowLeft")
    for _ in range(abs(rows)):
        page.keyboard.press("ArrowDown" if rows > 0 else "ArrowUp")
    page.keyboard.press("Enter")


def grid_box(page) -> dict:
    return page.evaluate(
        """() => { const r = document.querySelector('[data-grid="sgs"]').getBoundingClientRect();
           return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; }"""
    )


def watch_for(page, selector: str) -> None:
    """The page notes the first moment ``selector`` is in it: whether the players' scores were
    shown then (``window.seen`` resolves to their visibility). Read as the element is added (a
    mutation observer), not on animation frames, which a window in the back may not get."""
    page.evaluate(
        """(selector) => { window.seen = new Promise((resolve) => {
             const look = () => { if (!document.querySelector(selector)) return false;
               resolve(getComputedStyle(
                 document.querySelector('#sgs-players .sgs-score')).visibility);
               return true; };
             if (look()) return;
             const observer = new MutationObserver(() => { if (look()) observer.disconnect(); });
             observer.observe(document.body,
               {childList: true, subtree: true, attributeFilter: ['class']}); }); }""",
        selector,
    )


def watch_slides(page) -> None:
    """``window.sliding`` resolves once the page sets a gem of the grid moving (a Web
    Animation started on it), however few animation frames the window gets."""
    page.evaluate(
        """() => { window.sliding = new Promise((resolve) => {
             const animate = Element.prototype.animate;
             Element.prototype.animate = function (...args) {
               if (this.matches('.gem') && this.closest('[data-grid="sgs"]')) resolve(true);
               return animate.apply(this, args); }; }); }"""
    )


def round_one_played(seated_match, *, moving: bool) -> tuple[Match, list]:
    """Ada (red) and Bob (green) bid, then play round 1: each its gem with room, still or one
    step that changes the grid (``moving``). The match, its players."""
    settings = {"bid_seconds": 3600, "round_seconds": 3600}
    match, (ada, bob), _ = seated_match("seven-gem-swap", "ada", "bob", settings=settings)
    services.submit_action(match, ada, {"type": "bid", "bid": -4, "colours": "ROY"})
    services.submit_action(match, bob, {"type": "bid", "bid": 0, "colours": "GBR"})
    match.refresh_from_db()
    for user, colour in ((ada, "R"), (bob, "G")):
        gem, first, _ = a_gem_with_room(match.state["board"], colour, changing=moving)
        action = {"type": "submit", "round": 1, "gem": gem, "moves": first if moving else ""}
        services.submit_action(match, user, action)
        match.refresh_from_db()
    return match, [ada, bob]


def test_a_round_plays_on_the_grid_and_its_scores_show_when_it_ends(
    login_context, seated_match, browser, live_worker
):
    match, (ada, bob) = round_one_played(seated_match, moving=False)
    assert match.state["round"] == 2
    # A move that changes the grid: its gems slide (a swap of two red gems would show nothing).
    gem, first, _ = a_gem_with_room(match.state["board"], "R", changing=True)
    url = match.get_absolute_url()

    page = login_context("ada")
    page.set_viewport_size(PHONE)
    page.goto(url)
    expect(page.locator("#connection")).to_have_text("connected")
    boards = assert_coordinates_on_every_board(page)
    cells = page.evaluate(
        """() => [...document.querySelectorAll('[data-grid="sgs"] [data-cell]')].map((c) => {
             const r = c.getBoundingClientRect(); return Math.min(r.width, r.height); })"""
    )
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "sgs-phone-cells.json").write_text(json.dumps({"boards": boards, "cells": cells}))
    # Ten columns and the row numbers in 375 px: 33.8 px is all the width allows (44 px cells
    # would need 470 px); the whole grid is that size.
    assert len(cells) == 100 and min(cells) >= 33, min(cells)
    assert grid_box(page)["x"] + grid_box(page)["width"] <= PHONE["width"]

    covered = page.evaluate(
        """() => [...document.querySelectorAll('#match-root section.panel h2')].map((h) => {
             h.scrollIntoView(); const banner = document.getElementById('match-banner');
             return [h.textContent.trim(), Math.round(h.getBoundingClientRect().top
                     - banner.getBoundingClientRect().bottom)]; }).filter(([, gap]) => gap < 0)"""
    )
    assert covered == [], covered
    page.evaluate("window.scrollTo(0, 0)")
    page.locator("#match-banner [data-steps-speed]").select_option("fast")

    # Round 2 from the keyboard: the gem, one move, and first no card: refused beside the form,
    # with a sound, the grid where it was (at both sizes).
    page.locator('[data-grid="sgs"] [data-cell="A1"]').focus()
    keys_to(page, gem)
    expect(page.locator(".sgs-pad")).to_be_focused()
    page.keyboard.press({"U": "ArrowUp", "D": "ArrowDown"}[first])
    expect(page.locator(".sgs-moves")).to_have_text(first)
    # the server's preview of the path is in (it redraws the grid's caption)
    expect(page.locator("#sgs-play .sgs-preview-text")).to_contain_text("Path:")
    expect(page.locator("#sgs-play .sgs-preview-text")).not_to_have_class(re.compile("updating"))
    submit = page.locator("#sgs-play .sgs-submit")
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        before = grid_box(page)
        submit.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#sgs-play .sgs-refusal")).to_contain_text("play a colour card")
        assert grid_box(page) == before, size
        assert page.evaluate("gemSound.played.at(-1)") == "refused"
    page.set_viewport_size(PHONE)
    page.locator('#sgs-play input[name=card][value="R"]').check()
    submit.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#sgs-play .sgs-sent")).to_be_visible()
    expect(page.locator(f'[data-grid="sgs"] [data-cell="{gem}"]')).to_be_focused()

    # Spectators at slow speed (one at each size) and one who asked for reduced motion.
    spectators = {}
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        spectators[label] = watcher = login_context(None)
        watcher.set_viewport_size(size)
        watcher.goto(url)
        expect(watcher.locator("#connection")).to_have_text("connected")
        watcher.evaluate("gemSteps.setSpeed('slow')")
        watcher.evaluate("document.querySelector('#sgs-board').scrollIntoView()")
        watch_for(watcher, ".steps-ghost")
        watch_slides(watcher)
    still = browser.new_context(base_url=live_worker.url, reduced_motion="reduce")
    quiet = still.new_page()
    quiet.goto(url)
    expect(quiet.locator("#connection")).to_have_text("connected")
    page.evaluate(
        """() => { window.runDone = new Promise((resolve) => document.addEventListener(
             'gem:steps-done', (event) => resolve(event.detail), {once: true})); }"""
    )
    played = page.evaluate("gemSound.played.length")

    bob_gem = a_gem_with_room(match.state["board"], "G")[0]
    services.submit_action(
        match, bob, {"type": "submit", "round": 2, "gem": bob_gem, "moves": "", "card": "G"}
    )
    for label, watcher in spectators.items():
        assert settled(watcher, "window.sliding")
        watcher.screenshot(path=str(ARTIFACTS / f"sgs-round-sliding-{label}.png"))
    for label, watcher in spectators.items():
        held = settled(watcher, "window.seen")
        watcher.screenshot(path=str(ARTIFACTS / f"sgs-round-bursting-{label}.png"))
        assert held == "hidden", label
    run = settled(page, "window.runDone")
    assert run["speed"] == "fast" and not run["skipped"] and run["frames"] >= 4, run
    assert run["ticks"] <= FAST_FRAMES, run
    (ARTIFACTS / "sgs-fast-round.json").write_text(json.dumps(run))
    heard = page.evaluate("(from) => gemSound.played.slice(from)", played)
    assert "match" in heard, heard

    match.refresh_from_db()
    scores = match.state["scores"]
    for watcher in (page, *spectators.values(), quiet):
        expect(watcher.locator("#sgs-players .sgs-score").first).to_be_visible()
        expect(watcher.locator("#sgs-players .sgs-score").first).to_have_text(str(scores["0"]))
        expect(watcher.locator("html")).not_to_have_class("sgs-resolving")
    assert quiet.evaluate("gemSteps.last && gemSteps.last.ticks") == 0
    expect(quiet.locator("#sgs-rounds")).to_contain_text("Round 2")
    page.screenshot(path=str(ARTIFACTS / "sgs-after-round-phone.png"), full_page=True)
    assert serious_axe_violations(page) == []
    still.close()
    assert Match.objects.get(pk=match.pk).state["round"] == 3


def test_the_host_plays_a_round_step_by_step_on_the_grids_the_server_played(
    login_context, seated_match, live_worker
):
    """The host's step player shows each step's grid as the engine left it (sent with the
    step), one after another, and ends on the grid after the round."""
    match, _ = round_one_played(seated_match, moving=True)
    [played] = match.state["history"]
    # The gems as a grid's cells write them (a rock's cell writes nothing).
    steps = [re.sub("[^A-Z]", "", step["board"]) for step in played["secret"]["steps"]]
    assert steps and steps[-1] == re.sub("[^A-Z]", "", match.state["board"])

    page = login_context("hostess")
    page.set_viewport_size(DESKTOP)
    page.goto(match.get_absolute_url())
    expect(page.locator("#connection")).to_have_text("connected")
    # Every grid the page shows while the steps play, in order (read as each step's words come).
    page.evaluate(
        """() => { window.grids = [];
             const read = () => [...document.querySelectorAll('[data-grid="sgs"] [data-cell] .gem')]
               .map((gem) => gem.textContent.trim()).join('');
             const line = document.querySelector('#sgs-board .sgs-step-text');
             new MutationObserver(() => { const now = read();
               if (window.grids[window.grids.length - 1] !== now) window.grids.push(now); })
               .observe(line, {childList: true, characterData: true, subtree: true}); }"""
    )
    page.locator(".sgs-host-anim [data-steps-speed]").select_option("4")
    page.locator(".sgs-host-play").click()
    page.wait_for_function(
        "(last) => window.grids.length && window.grids[window.grids.length - 1] === last",
        arg=steps[-1],
    )
    shown = page.evaluate("window.grids")
    # Each step's grid is among those shown, in the order played.
    at = 0
    for grid in steps:
        assert grid in shown[at:], f"a step's grid was not shown: {grid}"
        at = shown.index(grid, at)
