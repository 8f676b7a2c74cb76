"""Glittering Paths in three browsers (the EC, the DMO and a spectator): the EC draws a path by
clicks, first one the server refuses, then a legal one, while the spectator watches it made; the
DMO's path drawn in the race is checked again on the board the EC's path changed; the DMO drags
a path; the round result, opened, draws each turn's path on the board that turn was played on."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.core.match import seating
from games.glittering_paths import engine
from tests.browser.pages import DESKTOP, PHONE, shoot_both_sizes

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shoot(page, name: str) -> None:
    shoot_both_sizes(page, f"gp-{name}")


def straight_line(board: str) -> list[str]:
    """Three cells in a row that break only the right-angle rule (a path turns at every cell)."""
    rows = board.splitlines()
    for r, line in enumerate(rows):
        for c in range(len(line) - 2):
            cells = [engine.cell_name(r, c + i) for i in range(3)]
            if "right angle" in (engine.path_problem(board, "red", cells) or ""):
                return cells
    raise AssertionError("no straight line breaking only the right-angle rule")


def click_cells(page, cells: list[str]) -> None:
    for cell in cells:
        page.click(f'#gp-board [data-grid="board"] [data-cell="{cell}"]')


def test_a_path_is_drawn_by_clicks_refused_then_made_while_a_spectator_watches(
    login_context, make_user
):
    host, ec, dmo = make_user("host1"), make_user("erin"), make_user("dmitri")
    match = seating.create_match(
        host=host,
        game_key="glittering-paths",
        title="Browser paths",
        settings={"race_seconds": 600, "turn_seconds": 600, "interval_seconds": 600},
        roles=["EC", "DMO"],
    )
    for user, seat in zip([ec, dmo], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    match.refresh_from_db()
    board = match.state["board"]
    cell_count = len(board.replace("\n", ""))
    wrong = straight_line(board)
    score, legal = engine.best_path(board, "red")

    ec_page, dmo_page, spectator = (
        login_context("erin"),
        login_context("dmitri"),
        login_context(None),
    )
    for page in (ec_page, dmo_page, spectator):
        page.set_viewport_size(DESKTOP)
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
        expect(page.locator('#gp-board [data-grid="board"] [data-cell]')).to_have_count(cell_count)
    expect(spectator.locator("#gp-status [data-deadline]")).to_contain_text(":")
    expect(spectator.locator("#gp-status .phase-label")).to_have_text("Race for the first move")
    expect(spectator.locator('[data-gp="submit"]')).to_have_count(0)

    # A straight line: the page shows the rule it breaks while it is drawn, the server refuses it.
    click_cells(ec_page, wrong)
    expect(ec_page.locator("#gp-draw .gp-path-cells")).to_have_text(" → ".join(wrong))
    expect(ec_page.locator("#gp-draw .gp-problem")).to_have_class("gp-problem broken")
    expect(ec_page.locator("#gp-draw .gp-problem")).to_contain_text("right angle")
    expect(ec_page.locator(f'#gp-board [data-cell="{wrong[2]}"]')).to_have_attribute(
        "data-step", "3"
    )
    shoot(ec_page, "drawing-refused")
    ec_page.click('[data-gp="submit"]')
    # Refused where the path is told, not in the banner above the board (it would push it down).
    expect(ec_page.locator("#gp-draw .gp-problem")).to_contain_text("Refused")
    expect(ec_page.locator("#gp-draw .gp-problem")).to_contain_text("right angle")
    expect(ec_page.locator("#match-error")).to_be_hidden()

    # Undo takes the last cell back; a reload keeps the path being drawn (it is the seat's draft).
    ec_page.click('[data-gp="undo"]')
    expect(ec_page.locator("#gp-draw .gp-path-cells")).to_have_text(" → ".join(wrong[:2]))
    expect(ec_page.locator("#gp-draw .gp-problem")).not_to_contain_text("right angle")
    expect(ec_page.locator("#gp-draw .gp-problem")).not_to_have_class("gp-problem pending")
    ec_page.reload()
    expect(ec_page.locator("#connection")).to_have_text("connected")
    expect(ec_page.locator("#gp-draw .gp-path-cells")).to_have_text(" → ".join(wrong[:2]))
    # ... listed and drawn on the board, numbered.
    for step, cell in enumerate(wrong[:2], start=1):
        expect(ec_page.locator(f'#gp-board [data-cell="{cell}"]')).to_have_attribute(
            "data-step", str(step)
        )
    # On a phone the numbers sit small in a corner of their cell, leaving the gem in sight.
    ec_page.set_viewport_size({"width": 375, "height": 812})
    badge = ec_page.locator(f'#gp-board [data-cell="{wrong[0]}"]').evaluate(
        """cell => {
             const after = getComputedStyle(cell, '::after');
             const box = cell.getBoundingClientRect();
             return {share: parseFloat(after.width) * parseFloat(after.height) /
                            (box.width * box.height),
                     inside: parseFloat(after.top) >= 0 && parseFloat(after.right) >= 0};
           }"""
    )
    assert badge["share"] < 0.2 and badge["inside"], badge
    shoot(ec_page, "draft-after-reload")
    ec_page.set_viewport_size(DESKTOP)
    ec_page.click('[data-gp="clear"]')
    expect(ec_page.locator("#gp-draw .gp-path-cells")).to_have_text("no cell yet")

    # The DMO starts a path in the race on the EC's first cell: the server says which rule it
    # breaks (a red gem), and says it again, differently, once the EC's path has emptied it.
    click_cells(dmo_page, legal[:1])
    expect(dmo_page.locator("#gp-draw .gp-problem")).to_contain_text("a red gem")

    # The best path, cell by cell: no rule broken on the way, then legal.
    click_cells(ec_page, legal[:2])
    expect(ec_page.locator("#gp-draw .gp-problem")).to_contain_text("No rule broken so far")
    click_cells(ec_page, legal[2:])
    expect(ec_page.locator("#gp-draw .gp-problem")).to_contain_text("A legal path")
    for word in ("point", "score"):  # no score help while drawing
        expect(ec_page.locator("#gp-draw")).not_to_contain_text(word)
    shoot(ec_page, "drawing-legal")
    ec_page.click('[data-gp="submit"]')

    # Everyone sees the path made (animated: looked at first, while it plays), the score and
    # whose turn it is.
    expect(spectator.locator("#gp-board")).to_have_class("panel gp-board-panel animating")
    for page in (ec_page, dmo_page, spectator):
        expect(page.locator("#gp-board .gp-last")).to_contain_text("won the race with")
        expect(page.locator("#gp-board .gp-last .score")).to_have_text(str(score))
        expect(page.locator("#gp-moves tbody tr")).to_have_count(1)
    # Meanwhile the DMO's draft keeps its numbers off the EC's path while it plays out.
    shown = dmo_page.locator("#gp-board [data-step]").evaluate_all(
        """cells => document.documentElement.classList.contains('gem-animating') ? cells.filter(
             (c) => getComputedStyle(c, '::after').display !== 'none').length : 0"""
    )
    assert shown == 0
    shoot(spectator, "spectator-path-animating")
    expect(spectator.locator("#gp-board")).not_to_have_class(
        "panel gp-board-panel animating", timeout=30_000
    )
    for cell in legal:
        expect(spectator.locator(f'#gp-board [data-cell="{cell}"]')).to_have_class(
            "cell gp-empty gp-last-path"
        )
    expect(spectator.locator("#gp-status .phase-label")).to_have_text("Turns")
    expect(spectator.locator("#gp-draw h2")).to_contain_text("Dmitri is moving")
    expect(dmo_page.locator('#gp-draw form[data-action="pass"]')).to_be_visible()
    expect(dmo_page.locator("#gp-draw .gp-path-cells")).to_have_text(legal[0])
    expect(dmo_page.locator("#gp-draw .gp-problem")).to_contain_text(f"{legal[0]} is empty")
    expect(dmo_page.locator("#gp-draw .gp-problem")).to_have_class("gp-problem broken")
    expect(ec_page.locator('[data-gp="submit"]')).to_be_hidden()
    expect(ec_page.locator("#gp-draw .gp-path-cells")).to_be_hidden()
    shoot(dmo_page, "dmo-turn")

    # The DMO drags across a path instead of clicking: each cell entered joins it.
    match.refresh_from_db()
    dragged = engine.best_path(match.state["board"], "blue")[1]

    def centre(cell: str) -> tuple[float, float]:
        # Read where the cell is now, as a hand follows the screen: a panel above the board
        # may change height while the path is drawn.
        box = dmo_page.locator(f'#gp-board [data-grid="board"] [data-cell="{cell}"]').bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    dmo_page.click('[data-gp="clear"]')
    dmo_page.mouse.move(*centre(dragged[0]))
    dmo_page.mouse.down()
    path_cells = dmo_page.locator("#gp-draw .gp-path-cells")
    for count, cell in enumerate(dragged[1:], start=2):
        dmo_page.mouse.move(*centre(cell), steps=4)
        expect(path_cells).to_have_text(" → ".join(dragged[:count]))
    dmo_page.mouse.up()
    expect(dmo_page.locator("#gp-draw .gp-path-cells")).to_have_text(" → ".join(dragged))
    expect(dmo_page.locator("#gp-draw .gp-problem")).to_contain_text("A legal path")
    dmo_page.click('[data-gp="submit"]')
    expect(spectator.locator("#gp-moves tbody tr")).to_have_count(2)
    # The DMO's own page has drawn the turn (its panels come in one frame) before the DMO
    # clicks again: a click on a panel as the frame replaces it would be lost, as a hand's is.
    expect(dmo_page.locator("#gp-moves tbody tr")).to_have_count(2)

    # Both agree to end the round; its result shows every turn beside the best path.
    dmo_page.click('#gp-draw form[data-action="agree_end"] button')
    expect(ec_page.locator("#gp-draw .gp-offer")).to_be_visible()
    ec_page.click('#gp-draw form[data-action="agree_end"] button')
    # The round's analysis is drawn when it is opened (asked of the server, never pushed): on
    # the EC's desktop and on the spectator's phone.
    spectator.set_viewport_size(PHONE)
    for page in (ec_page, spectator):
        finished = page.locator('#gp-history .gp-round-result[data-round="1"]')
        expect(finished).to_be_visible()
        expect(finished.locator(".gp-analysis-table")).to_have_count(0)
        finished.locator("summary").click()
        expect(page.locator("#gp-history .gp-analysis-table")).to_be_visible(timeout=20_000)
    analysis = spectator.locator('#gp-history [data-grid="analysis-1"]')
    spectator.click('#gp-history [data-gp-animate][data-turn="1"][data-which="best"]')
    expect(analysis.locator(f'[data-cell="{legal[-1]}"]')).to_have_attribute(
        "data-played", str(len(legal)), timeout=30_000
    )
    expect(spectator.locator("#gp-history .gp-analysis-caption")).to_contain_text("the best path")
    shoot(spectator, "spectator-round-result")
    # Turn 2 is drawn on the board it was played on: the EC's cells empty, the DMO's path on it.
    spectator.click('#gp-history [data-gp-animate][data-turn="2"][data-which="played"]')
    expect(analysis.locator(f'[data-cell="{dragged[-1]}"]')).to_have_attribute(
        "data-played", str(len(dragged)), timeout=30_000
    )
    for cell in legal:
        expect(analysis.locator(f'[data-cell="{cell}"]')).to_have_class("cell gp-empty")
        expect(analysis.locator(f'[data-cell="{cell}"]')).to_have_attribute(
            "aria-label", f"{cell}, empty"
        )
    expect(spectator.locator("#gp-history .gp-analysis-caption")).to_contain_text("Turn 2")
    shoot(spectator, "spectator-turn-2-on-its-board")
    match.refresh_from_db()
    assert match.state["history"][0]["moves"][0]["cells"] == legal
    assert match.state["totals"][0] == str(engine.round_total(score))
