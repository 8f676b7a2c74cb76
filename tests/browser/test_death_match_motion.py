"""The death match's proof played out by the shared step player (static/js/steps.js), as players
and a spectator see it: the starter's gems slide, removed gems burst with their count rising, the
Plus blasts, gems fall and rocks drop in, each with its sound (gem:sound, static/js/sound.js);
at "fast" the whole proof plays within a set number of the page's own animation frames; the
round's result waits for the animation; Skip ends it; a refused proof never moves the board; the
cell played with the keyboard keeps the focus when the proof redraws the board; with reduced
motion the final board and the result show at once. Cells are measured as touch targets on a
phone, and a burst is shot mid-animation at both sizes (test-artifacts/dm-motion-*.png)."""

from __future__ import annotations

import json
import math

import pytest
from playwright.sync_api import expect

from games.bejeweled_dm import engine, rounds
from tests.browser.pages import (
    ARTIFACTS,
    DESKTOP,
    PHONE,
    assert_coordinates_on_every_board,
    serious_axe_violations,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUICK = {
    "first_offer": "chosen",
    "offered_starters": ["Pick"],
    "offered_passives": ["Bend"],
    "offered_actives": ["Plus"],
    "pick_seconds": 300,
}
TOUCH_PX = 44
"""The least side of a board cell on a 375x812 phone (a finger's target)."""
FRAME_MS = 1000 / 60


def fast_frames(steps: list[dict]) -> int:
    """At fast (twice normal speed) the proof may take at most this many animation frames of the
    page's clock: its share of the time at 60 frames a second, plus a tenth and 6 frames."""
    return math.ceil(rounds.animation_ms(steps) / 2 / FRAME_MS * 1.1) + 6


def a_deep_proof(board: str) -> tuple[str, list[dict], str]:
    """On ``board``, a "Plus X; Bend; Pick X Y" proof whose turn removes gems at least four times
    with the Plus going off and gravity: the proof, its steps and its second Pick cell."""
    rows = board.splitlines()
    names = [f"{c}{r}" for r in range(7, 0, -1) for c in "ABCDEFGH"]

    def gem(name: str) -> str:
        return rows[int(name[1:]) - 1]["ABCDEFGH".index(name[0])]

    for plus in names:
        for other in names:
            if other == plus or gem(other) == gem(plus):
                continue
            proof = f"Plus {plus}; Bend; Pick {plus} {other}"
            steps = engine.resolve(board, proof).steps
            kinds = [step["kind"] for step in steps]
            if kinds.count("remove") >= 4 and "activate" in kinds and "fall" in kinds:
                return proof, steps, other
    raise AssertionError("no deep proof on this board")


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


def open_page(login_context, name, match, viewport=DESKTOP, reduced=False):
    page = login_context(name)
    page.set_viewport_size(viewport)
    if reduced:
        page.emulate_media(reduced_motion="reduce")
    page.goto(match.get_absolute_url())
    expect(page.locator("#connection")).to_have_text("connected")
    return page


def arrow_to(page, cell: str) -> None:
    for _ in range(30):
        here = page.evaluate("document.activeElement.dataset.cell || ''")
        if here == cell:
            return
        column, row = "ABCDEFGH".index(here[0]), int(here[1:])
        want_column, want_row = "ABCDEFGH".index(cell[0]), int(cell[1:])
        if row != want_row:
            page.keyboard.press("ArrowDown" if want_row > row else "ArrowUp")
        else:
            page.keyboard.press("ArrowRight" if want_column > column else "ArrowLeft")
    raise AssertionError(f"the arrow keys never reached {cell}")


def board_box(page) -> dict:
    return page.locator("#bjdm-board .bjdm-grid").bounding_box()


def shoot_mid_burst(page, name: str) -> dict:
    """A screenshot while gems burst (the step player's ghosts are on the board); what the page
    showed at that moment: whether the board panel is animating, the result and the round wins
    visibility."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.bring_to_front()  # a window in the back may get no animation frames at all
    try:
        seen = page.wait_for_function(
            """() => document.querySelectorAll('.steps-ghost').length >= 3 && {
                 animating: document.getElementById('bjdm-board').classList.contains('animating'),
                 result: getComputedStyle(document.getElementById('bjdm-history')).visibility,
                 wins: getComputedStyle(document.querySelector('#bjdm-status .wins')).visibility,
               }""",
            timeout=45_000,
            polling=20,
        ).json_value()
    except Exception as error:
        state = page.evaluate(
            "() => ({playing: window.gemSteps.playing, last: window.gemSteps.last,"
            " speed: window.gemSteps.speedName, text: document.querySelector('.bjdm-step-text')"
            " && document.querySelector('.bjdm-step-text').textContent})"
        )
        raise AssertionError(f"{name}: no burst seen, {state}, {error}") from None
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), timeout=30_000)
    return seen


def test_a_deep_proof_plays_with_motion_and_sound_at_the_speed_set(login_context, seated_match):
    match, _, _ = seated_match("bejeweled-dm", "erin", "dmitri", settings=QUICK)
    proof, steps, other = a_deep_proof(match.state["board"])
    plus = proof.split()[1].rstrip(";")

    ec = open_page(login_context, "erin", match)
    dmo = open_page(login_context, "dmitri", match)
    watcher = open_page(login_context, None, match, PHONE)
    calm = open_page(login_context, None, match, PHONE, reduced=True)
    assert_coordinates_on_every_board(watcher)

    # Every cell of the board a finger's size on a phone.
    sides = watcher.locator("#bjdm-board [data-cell]").evaluate_all(
        "cells => cells.map((c) => { const r = c.getBoundingClientRect();"
        " return Math.min(r.width, r.height); })"
    )
    assert len(sides) == 56 and min(sides) >= TOUCH_PX, sides
    assert watcher.evaluate("document.documentElement.scrollWidth <= innerWidth")

    ec.locator("#match-banner [data-steps-speed]").select_option("fast")
    watcher.evaluate("window.gemSteps.setSpeed('slow')")
    ec.fill("#bjdm-claim-count", "3")
    ec.keyboard.press("Enter")
    dmo.locator("form[data-action=pass] button").click()
    expect(ec.locator("#bjdm-proof")).to_be_visible()

    # A refused proof (Pick takes two different cells): the refusal sounds, is told in
    # its form, and the board does not move.
    before = board_box(ec)
    listen(ec)
    ec.fill("#bjdm-proof", f"Plus {plus}; Bend; Pick {plus} {plus}")
    ec.keyboard.press("Enter")
    expect(ec.locator("#bjdm-actions")).to_contain_text("two different cells")
    assert board_box(ec) == before
    assert [s["name"] for s in ec.evaluate("window.heard")] == ["refused"]

    # The proof chosen on the board with the keyboard: the last cell played keeps the focus.
    ec.fill("#bjdm-proof", "")
    ec.locator(f'#bjdm-board [data-cell="{plus}"]').focus()
    ec.keyboard.press("Enter")
    arrow_to(ec, other)
    ec.keyboard.press("Enter")
    arrow_to(ec, plus)
    ec.keyboard.press("Enter")
    expect(ec.locator("#bjdm-proof")).to_have_value(f"Plus {plus}; Bend; Pick {other} {plus}")
    for page in (ec, watcher, calm):
        listen(page)
    # Sent as its form's Enter would send it, with the focus left on the board.
    ec.evaluate("document.querySelector('form[data-action=proof]').requestSubmit()")

    # Mid-animation: gems burst on the spectator's phone (slow); the result is not told yet.
    seen = shoot_mid_burst(watcher, "dm-motion-burst-phone")
    assert seen == {"animating": True, "result": "hidden", "wins": "hidden"}, seen  # wins tell too

    run = ec.evaluate("window.animationDone")
    (ARTIFACTS / "dm-motion-fast.json").write_text(json.dumps(run))
    removals = sum(step["kind"] == "remove" for step in steps)
    assert run["speed"] == "fast" and not run["skipped"], run
    assert run["frames"] >= len(steps) + removals, run
    assert run["ms"] >= rounds.animation_ms(steps) / 2 * 0.95, run
    assert run["ticks"] <= fast_frames(steps), (run, fast_frames(steps))
    expect(ec.locator(f'#bjdm-board [data-cell="{plus}"]')).to_be_focused()
    total = steps[-1]["count"]
    expect(ec.locator(".bjdm-counter .count")).to_have_text(str(total))
    expect(ec.locator("#bjdm-history .bjdm-result")).to_be_visible()

    heard = ec.evaluate("window.heard")
    names = [s["name"] for s in heard]
    assert names[:2] == ["swap", "swap"], names  # the Plus placed, then Pick
    assert "power" in names, names  # the Plus blast
    depths = [s["depth"] for s in heard if s["name"] in ("match", "power") and s["depth"]]
    assert depths == list(range(1, removals + 1)), heard  # each removal a step higher

    # The spectator's proof played out, replayed on a desktop: mid-burst, then Skip ends it at
    # once, on the final board, the result told.
    assert not watcher.evaluate("window.animationDone")["skipped"]
    watcher.set_viewport_size(DESKTOP)
    watcher.click(".bjdm-replay")
    shoot_mid_burst(watcher, "dm-motion-burst-desktop")
    # On a loaded machine the screenshot can outlast the replay, and Skip with it: start the
    # replay again, then skip it.
    watcher.evaluate("() => window.bejeweledDm.replay()")
    listen(watcher)
    watcher.locator("#match-banner [data-steps-skip]").click()
    done = watcher.evaluate("window.animationDone")
    assert done["skipped"] and done["speed"] == "slow", done
    expect(watcher.locator("#bjdm-history .bjdm-result")).to_be_visible()
    expect(watcher.locator(".bjdm-step-text")).to_contain_text(f"{total} gems removed in all")

    # Reduced motion: the last frame at once, nothing hidden.
    quiet = calm.evaluate("window.animationDone")
    assert quiet["ticks"] == 0, quiet
    expect(calm.locator(".bjdm-counter .count")).to_have_text(str(total))
    expect(calm.locator(".bjdm-step-text")).to_contain_text(f"{total} gems removed in all")
    expect(calm.locator("#bjdm-history .bjdm-result")).to_be_visible()
    final = steps[-1]["board"]
    shown = calm.locator("#bjdm-board [data-cell]").evaluate_all(
        "cells => cells.map((c) => c.dataset.gem).join('')"
    )
    assert shown == final.replace("\n", ""), (shown, final)
    assert serious_axe_violations(calm, within="#match-root") == []
