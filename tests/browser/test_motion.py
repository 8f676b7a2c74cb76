"""The shared presentation on a Bejeweled 2 move of four cascades played from the keyboard: the
player's speed setting (fast) plays the whole move within a set number of the page's animation
frames and is remembered, the score ends on the server's, the played cell keeps the focus after
the board is redrawn, the board shows its coordinates and axe finds nothing serious."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from games.bejeweled2 import engine
from games.core.game.flowkit import derived_seed
from games.core.models import Match
from tests.browser.pages import (
    ARTIFACTS,
    assert_coordinates_on_every_board,
    serious_axe_violations,
    shoot_both_sizes,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAST_FRAMES = 60
"""At fast speed a move of four cascades plays in at most this many animation frames (about
0.63 s of frames: 38 at 60 a second)."""


def a_four_cascade_move(seed: int) -> tuple[str, str, str]:
    """A new board and a swap on it whose cascade goes four deep with the match's first refill."""
    refill = derived_seed(seed, "refill", 0)
    for board_seed in range(5000):
        board = engine.format_board(engine.generate_board(board_seed))
        for a, b in engine.legal_moves(board):
            steps = engine.swap(board, a, b, refill).steps
            if max(step.get("depth", 0) for step in steps) >= 4:
                return board, a, b
    raise AssertionError("no four-cascade move found")


def keys_to(page, cell: str) -> None:
    """From the focused cell, arrow keys to ``cell``, then Enter."""
    at = page.evaluate("document.activeElement.dataset.cell")
    columns = ord(cell[0]) - ord(at[0])
    rows = int(cell[1:]) - int(at[1:])
    for _ in range(abs(columns)):
        page.keyboard.press("ArrowRight" if columns > 0 else "ArrowLeft")
    for _ in range(abs(rows)):
        page.keyboard.press("ArrowDown" if rows > 0 else "ArrowUp")
    page.keyboard.press("Enter")


def test_a_four_cascade_move_at_fast_speed_keeps_the_focus_and_ends_on_the_servers_score(
    login_context, make_user
):
    make_user("ada")
    page = login_context("ada")
    page.goto("/play/bejeweled-2/")
    page.get_by_role("button", name="Play Bejeweled 2 · Classic").click()
    page.wait_for_url("**/m/*/")
    match = Match.objects.get(game_key="bejeweled-2")
    board, a, b = a_four_cascade_move(match.state["seed"])
    match.state = {**match.state, "board": board}  # the test's board: the rest is the server's
    match.save(update_fields=["state"])
    page.reload()
    expect(page.locator("#connection")).to_have_text("connected")
    assert_coordinates_on_every_board(page)

    page.locator("#match-banner [data-steps-speed]").select_option("fast")
    page.evaluate(
        """() => { window.moveDone = new Promise((resolve) => document.addEventListener(
             'gem:steps-done', (event) => resolve(event.detail), {once: true})); }"""
    )
    page.locator('#bj2-board [data-cell="A1"]').focus()
    keys_to(page, a)
    expect(page.locator(f'#bj2-board [data-cell="{a}"]')).to_have_attribute("aria-pressed", "true")
    keys_to(page, b)
    run = page.evaluate("window.moveDone")
    assert run["speed"] == "fast" and not run["skipped"] and run["frames"] >= 8, run
    assert run["ticks"] <= FAST_FRAMES, run
    (ARTIFACTS / "motion-fast-four-cascades.json").write_text(json.dumps(run))

    match.refresh_from_db()
    expect(page.locator("#bj2-status .bj2-score-value")).to_have_text(str(match.state["score"]))
    expect(page.locator(f'#bj2-board [data-cell="{b}"]')).to_be_focused()
    shoot_both_sizes(page, "motion-bejeweled2-after-four-cascades")
    assert serious_axe_violations(page) == []

    page.reload()
    expect(page.locator("#match-banner [data-steps-speed]")).to_have_value("fast")


def test_the_gem_gallery_shows_every_gem_at_both_sizes_and_passes_axe(login_context):
    page = login_context(None)
    page.goto("/gems/")
    expect(page.locator(".gem-gallery .cell.power")).to_have_count(23)
    drawn = page.evaluate(
        """() => [...document.querySelectorAll('.gem-gallery .cell .gem')].every(
             (gem) => getComputedStyle(gem).backgroundImage.includes('/gems/'))"""
    )
    assert drawn, "a gem without its picture"
    shoot_both_sizes(page, "gem-gallery")
    assert serious_axe_violations(page) == []
