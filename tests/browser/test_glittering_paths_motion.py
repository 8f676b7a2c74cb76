"""Glittering Paths' paths played out by the shared step player (static/js/steps.js) on an 8x8
board: a path drawn with the keyboard sounds a rising note per cell and "refused" when the server
finds it broken or refuses it (told under the path; the board does not move); a path made is lit
cell by cell with its notes rising, then its gems burst, for the mover, the opponent and
spectators alike, at each one's speed ("fast" within a set number of the page's own animation
frames; Skip ends it); the mover's focus goes to the path's last cell; with reduced motion the
final board shows at once. Cells are measured as touch targets on a phone, and a path is shot
mid-animation at both sizes (test-artifacts/gp-motion-*.png)."""

from __future__ import annotations

import json
import math

import pytest
from playwright.sync_api import expect

from games.core.match import seating
from games.glittering_paths import engine
from tests.browser.pages import (
    ARTIFACTS,
    DESKTOP,
    PHONE,
    assert_coordinates_on_every_board,
    serious_axe_violations,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TOUCH_PX = 44
"""The least side of a cell of an 8x8 board on a 375x812 phone (a finger's target)."""
CELL_MS, WHOLE_MS, BURST_MS = 220, 260, 520
"""A path made at normal speed: each cell lit in turn, the whole path held, then its gems burst
(static/js/glittering_paths.js)."""
FRAME_MS = 1000 / 60


def path_ms(path: list[str]) -> int:
    return CELL_MS * len(path) + WHOLE_MS + BURST_MS


def fast_frames(path: list[str]) -> int:
    """At fast (twice normal speed) a path made plays within this many animation frames of the
    page's clock: its share of the time at 60 frames a second, plus a tenth and 6 frames."""
    return math.ceil(path_ms(path) / 2 / FRAME_MS * 1.1) + 6


def boards_with_a_long_red_path() -> tuple[str, list[str], list[str]]:
    """Three 8x8 boards (the setting's text), the first with a best red path of 5 cells or more:
    the boards, that path and a straight line on the first board that breaks the right angle."""
    for seed in range(200):
        board = engine.format_board(engine.generate_board(seed, 1, 8, 8))
        _, path = engine.best_path(board, "red")
        if len(path) >= 5:
            break
    else:
        raise AssertionError("no 8x8 board with a long red path")
    wrong = None
    for r, line in enumerate(board.splitlines()):
        for c in range(len(line) - 2):
            cells = [engine.cell_name(r, c + i) for i in range(3)]
            if wrong is None and "right angle" in (engine.path_problem(board, "red", cells) or ""):
                wrong = cells
    assert wrong
    others = [engine.format_board(engine.generate_board(seed + n, n, 8, 8)) for n in (2, 3)]
    return "\n\n".join([board, *others]), path, wrong


def listen(page) -> None:
    """Record every sound asked for (gem:sound) and the next finished animation."""
    page.evaluate(
        """() => {
          if (!window.heard) {
            document.addEventListener('gem:sound', (e) => window.heard.push(e.detail));
          }
          window.heard = [];
          window.animationDone = new Promise((resolve) => document.addEventListener(
            'gem:steps-done', (e) => resolve(e.detail), {once: true}));
        }"""
    )


def heard(page) -> list[tuple[str, int | None]]:
    return [(s["name"], s["depth"]) for s in page.evaluate("window.heard")]


def open_page(login_context, name, match, viewport=DESKTOP, reduced=False):
    page = login_context(name)
    page.set_viewport_size(viewport)
    if reduced:
        page.emulate_media(reduced_motion="reduce")
    page.goto(match.get_absolute_url())
    expect(page.locator("#connection")).to_have_text("connected")
    return page


def cell(page, name: str):
    return page.locator(f'#gp-board [data-grid="board"] [data-cell="{name}"]')


def keys_on(page, cells: list[str]) -> None:
    """Each cell chosen from the keyboard: focused, then Enter."""
    for name in cells:
        cell(page, name).focus()
        page.keyboard.press("Enter")


def tab_to(page, selector: str, limit: int = 150) -> None:
    for _ in range(limit):
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def shoot_mid_path(page, name: str) -> dict:
    """A screenshot while a path made is lit cell by cell; what the page showed at that moment
    (read at once, not after the screenshot, which a loaded machine may take past the path's
    end): whether the board panel is animating, how many cells are lit, and each player's total
    with its visibility."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.bring_to_front()  # a window in the back may get no animation frames at all
    seen = page.wait_for_function(
        """() => {
             const now = document.querySelector('#gp-board .gp-step-now');
             return now && parseInt(now.dataset.played, 10) >= 2 && {
               animating: document.getElementById('gp-board').classList.contains('animating'),
               lit: document.querySelectorAll('#gp-board .gp-played').length,
               totals: [...document.querySelectorAll('#gp-status .total')].map(
                 (t) => [t.textContent.trim(), getComputedStyle(t).visibility]),
             };
           }""",
        timeout=30_000,
        polling=20,
    ).json_value()
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), timeout=30_000)
    return seen


def test_a_path_plays_cell_by_cell_with_rising_notes_at_each_viewers_speed(
    login_context, make_user
):
    boards, legal, wrong = boards_with_a_long_red_path()
    host, ec_user, dmo_user = make_user("host1"), make_user("erin"), make_user("dmitri")
    match = seating.create_match(
        host=host,
        game_key="glittering-paths",
        title="Paths in motion",
        settings={
            "race_seconds": 600,
            "turn_seconds": 600,
            "interval_seconds": 600,
            "boards": boards,
        },
        roles=["EC", "DMO"],
    )
    for user, seat in zip([ec_user, dmo_user], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    match.refresh_from_db()
    assert match.state["board"] == boards.split("\n\n")[0]
    score = str(engine.best_path(match.state["board"], "red")[0])

    ec = open_page(login_context, "erin", match)
    dmo = open_page(login_context, "dmitri", match)
    watcher = open_page(login_context, None, match, PHONE)
    calm = open_page(login_context, None, match, PHONE, reduced=True)

    # On a phone: coordinates round the board, every cell a finger's size, no sideways scroll.
    assert_coordinates_on_every_board(watcher)
    sides = watcher.locator('#gp-board [data-grid="board"] [data-cell]').evaluate_all(
        "cells => cells.map((c) => { const r = c.getBoundingClientRect();"
        " return Math.min(r.width, r.height); })"
    )
    assert len(sides) == 64 and min(sides) >= TOUCH_PX, sides
    assert watcher.evaluate("document.documentElement.scrollWidth <= innerWidth")

    ec.locator("#match-banner [data-steps-speed]").select_option("fast")
    watcher.evaluate("window.gemSteps.setSpeed('slow')")

    # A straight line drawn from the keyboard: a rising note per cell, then "refused" once the
    # server finds the right angle broken; submitted, it is refused under the path and the
    # board stays where it was.
    listen(ec)
    keys_on(ec, wrong)
    expect(ec.locator("#gp-draw .gp-problem")).to_contain_text("right angle")
    assert heard(ec) == [("step", 1), ("step", 2), ("step", 3), ("refused", None)]
    before = cell(ec, "A1").bounding_box(), ec.locator("#gp-board").bounding_box()
    listen(ec)
    ec.click('[data-gp="submit"]')
    expect(ec.locator("#gp-draw .gp-problem")).to_contain_text("Refused")
    expect(ec.locator("#match-error")).to_be_hidden()
    assert (cell(ec, "A1").bounding_box(), ec.locator("#gp-board").bounding_box()) == before
    assert heard(ec) == [("refused", None)]

    # The best path, drawn and submitted from the keyboard.
    ec.click('[data-gp="clear"]')
    keys_on(ec, legal)
    expect(ec.locator("#gp-draw .gp-problem")).to_contain_text("A legal path")
    for page in (ec, dmo, watcher, calm):
        listen(page)
    tab_to(ec, '[data-gp="submit"]')
    ec.keyboard.press("Enter")

    # Mid-animation on the spectator's phone (slow): the path lit part of the way.
    seen = shoot_mid_path(watcher, "gp-motion-path-phone")
    assert seen["animating"] and 2 <= seen["lit"] <= len(legal), seen
    # ... the mover's new total not shown yet (the path has not burst), shown when it has.
    totals = (
        "[...document.querySelectorAll('#gp-status .total')]"
        ".map((t) => [t.textContent.trim(), getComputedStyle(t).visibility])"
    )
    mid = seen["totals"]
    assert [(float(t), v) for t, v in mid] == [(float(score), "hidden"), (0, "visible")], mid
    watcher.wait_for_function("!window.gemSteps.playing", timeout=30_000)
    after = watcher.evaluate(totals)
    assert [(float(t), v) for t, v in after] == [(float(score), "visible"), (0, "visible")], after
    assert watcher.evaluate("document.documentElement.dataset.scoreHeld") is None

    # The mover at fast: within its frames, each cell a note higher, then the gems burst.
    run = ec.evaluate("window.animationDone")
    (ARTIFACTS / "gp-motion-fast.json").write_text(json.dumps(run))
    assert run["speed"] == "fast" and not run["skipped"], run
    assert run["frames"] == len(legal) + 3, run
    assert run["ms"] >= path_ms(legal) / 2 * 0.95, run
    assert run["ticks"] <= fast_frames(legal), (run, fast_frames(legal))
    notes = [("step", n) for n in range(1, len(legal) + 1)]
    assert heard(ec) == [*notes, ("match", 1)]
    # ... and the keyboard's focus on the path's last cell, the Submit button gone.
    expect(cell(ec, legal[-1])).to_be_focused()
    for name in legal:
        expect(cell(ec, name)).to_have_class("cell gp-empty gp-last-path")

    # The opponent's page plays the same path the same way (at normal speed).
    theirs = dmo.evaluate("window.animationDone")
    assert theirs["frames"] == len(legal) + 3 and not theirs["skipped"], theirs
    assert heard(dmo) == [*notes, ("match", 1)]
    expect(dmo.locator("#gp-board .gp-last .score")).to_have_text(score)

    # The spectator's animation played out, shown again on a desktop: mid-path, then Skip ends
    # it at once on the server's board.
    assert not watcher.evaluate("window.animationDone")["skipped"]
    watcher.set_viewport_size(DESKTOP)
    watcher.evaluate("window.scrollTo(0, 0)")
    listen(watcher)
    watcher.click('[data-gp="replay-last"]')
    shoot_mid_path(watcher, "gp-motion-path-desktop")
    watcher.locator("#match-banner [data-steps-skip]").click()
    skipped = watcher.evaluate("window.animationDone")
    assert skipped["skipped"] and skipped["speed"] == "slow", skipped
    for name in legal:
        expect(cell(watcher, name)).to_have_class("cell gp-empty gp-last-path")

    # Reduced motion: the final board at once, the score told.
    quiet = calm.evaluate("window.animationDone")
    assert quiet["ticks"] == 0, quiet
    for name in legal:
        expect(cell(calm, name)).to_have_class("cell gp-empty gp-last-path")
    expect(calm.locator("#gp-board .gp-last .score")).to_have_text(score)
    assert serious_axe_violations(calm, within="#match-root") == []
