"""Pointsweeper in three browsers (the EC, the DMO and a spectator): the DMO chooses to move first
and scouts by clicks; the result shows only in the DMO's notebook while the spectator follows; the
scout's squares are shown again from the notebook; the EC claims by clicks with the legal ends
outlined; the bank of the player to move counts down once their move time is over."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.core.match import host_operations
from tests.browser.pages import shoot_both_sizes

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shoot(page, name: str) -> None:
    shoot_both_sizes(page, f"ps-{name}")


NO_MINE_ON_RANK_1 = "\n".join(
    [
        "1 2 3 4 5 0 -1 -2",
        "2 3 4 5 0 1 2 3",
        "M M M M M M M M",
        "M M 0 1 2 3 4 5",
        "3 4 5 0 1 2 3 4",
        "4 5 0 1 2 3 4 5",
        "5 0 1 2 3 4 5 -2",
        "1 2 3 4 5 -1 0 1",
    ]
)


def test_the_dmo_scouts_by_clicks_and_only_their_notebook_shows_it(login_context, seated_match):
    # No mine on rank 1, so the claim a1-c1 below always reveals its three tiles.
    # A 2-second move time, so that the bank of the player to move soon starts to run.
    settings = {
        "scout_turns": 0,
        "move_seconds": 2,
        "boards": "pasted",
        **dict.fromkeys(("board_1", "board_2", "board_3"), NO_MINE_ON_RANK_1),
    }
    match, _, host = seated_match("pointsweeper", "erin", "dmitri", settings=settings)
    url = match.get_absolute_url()

    dmo_page = login_context("dmitri")
    dmo_page.goto(url)
    ec_page = login_context("erin")
    ec_page.goto(url)
    spectator = login_context(None)
    spectator.goto(url)

    # The chooser is told it is their turn; then everyone learns the order and the pawns' ways.
    expect(dmo_page.locator("#banner-turn")).to_be_visible()
    expect(ec_page.locator("#banner-turn")).to_be_hidden()
    dmo_page.click("button.ps-first[data-first='true']")
    expect(dmo_page.locator("form[data-action='scout']")).to_be_visible()
    expect(dmo_page.locator(".ps-order-text")).to_have_text(
        "You move first on this board: your pawns go up, toward rank 8; "
        "Erin’s go down, toward rank 1."
    )
    expect(spectator.locator(".ps-order-text")).to_contain_text("Dmitri moves first")
    dmo_page.select_option("form[data-action='scout'] select[name=piece]", "K")
    dmo_page.click("form[data-action='scout'] input[name=square]")
    dmo_page.click('#ps-board [data-grid="board"] [data-cell="e4"]')
    expect(dmo_page.locator("form[data-action='scout'] input[name=square]")).to_have_value("e4")
    dmo_page.click("form[data-action='scout'] button[type=submit]")
    expect(dmo_page.locator("#ps-notebook .ps-note")).to_have_count(1)
    expect(dmo_page.get_by_text("Board 1 of 3")).to_have_count(1)
    dmo_page.click("#ps-notebook button.ps-show")
    scouted = dmo_page.locator("#ps-board .cell.ps-scouted")
    expect(scouted).to_have_count(9)  # a king on e4: e4 and its eight neighbours
    expect(dmo_page.locator("#ps-board .cell.ps-scout-origin")).to_have_attribute("data-cell", "e4")
    expect(dmo_page.locator("form[data-action='scout']")).to_be_hidden()
    expect(ec_page.locator("form[data-action='scout']")).to_be_visible()
    expect(spectator.locator("#ps-log")).to_contain_text("scouted with K on e4")
    expect(ec_page.locator("#ps-log")).to_contain_text("scouted with K on e4")
    assert ec_page.locator(".ps-note").count() == 0
    assert spectator.locator(".ps-note").count() == 0
    shoot(dmo_page, "dmo-after-scout")

    # The EC's free move time (2 s here) runs out: their bank counts down from 2:00.
    ec_bank = ec_page.locator(".ps-player[data-seat='0'] .ps-bank")
    expect(ec_bank).to_have_class(re.compile(r"\brunning\b"))
    expect(spectator.locator(".ps-player[data-seat='0'] .ps-bank")).to_have_class(
        re.compile(r"\brunning\b")
    )
    expect(ec_bank.locator(".ps-bank-left")).to_have_text(re.compile(r"^1:[45]\d$"))
    waiting = ec_page.locator(".ps-player[data-seat='1'] .ps-bank")  # stands still
    expect(waiting).not_to_have_class(re.compile(r"\brunning\b"))
    shoot(ec_page, "ec-bank-running")

    ec_page.select_option("form[data-action='claim'] select[name=piece]", "R1")
    ec_page.click("form[data-action='claim'] input[name=start]")
    ec_page.click('#ps-board [data-grid="board"] [data-cell="a1"]')
    ends = ec_page.locator("#ps-board .cell.ps-dest")
    expect(ends).to_have_count(14)  # a rook on a1: the a-file and the first rank
    expect(ec_page.locator("#ps-board .cell.ps-start")).to_have_attribute("data-cell", "a1")
    shoot(ec_page, "ec-claim-ends")
    ec_page.click('#ps-board [data-grid="board"] [data-cell="c1"]')
    expect(ec_page.locator("form[data-action='claim'] input[name=end]")).to_have_value("c1")
    ec_page.click("form[data-action='claim'] button[type=submit]")
    expect(spectator.locator("#ps-log")).to_contain_text("claimed with R1 a1")
    revealed = spectator.locator("#ps-board .cell.ps-tile, #ps-board .cell.ps-mine")
    expect(revealed).to_have_count(3)
    shoot(spectator, "spectator-after-claim")
    shoot(ec_page, "ec-after-claim")

    # A refused claim is answered beside its form, and goes when the player changes the claim.
    claim = dmo_page.locator("form[data-action='claim']")
    claim.locator("select[name=piece]").select_option("R1")
    claim.locator("input[name=start]").fill("a1")
    claim.locator("input[name=end]").fill("b2")
    claim.locator("button[type=submit]").click()
    refusal = claim.locator(".action-error")
    expect(refusal).to_contain_text("cannot move")
    claim.locator("select[name=piece]").select_option("R2")
    expect(refusal).to_be_hidden()
    # A claim up the d-file hits the mine on d6: d1 to d5 stay hidden but are marked tiles.
    claim.locator("input[name=start]").fill("d1")
    claim.locator("input[name=end]").fill("d6")
    claim.locator("button[type=submit]").click()
    expect(spectator.locator("#ps-log")).to_contain_text("claimed with R2 d1–d6: 1 mine")
    for page in (spectator, ec_page, dmo_page):
        proven = page.locator("#ps-board .cell.ps-hidden.ps-proven")
        expect(proven).to_have_count(5)
    shoot(spectator, "spectator-proven-tiles")

    # Passing for the rest of the board asks first.
    questions = []
    ec_page.once("dialog", lambda dialog: (questions.append(dialog.message), dialog.dismiss()))
    ec_page.get_by_role("button", name="Pass for the rest of this board").click()
    expect(ec_page.get_by_role("button", name="Pass for the rest of this board")).to_be_enabled()
    assert questions and questions[0].startswith("Pass for the rest of board 1?")
    match.refresh_from_db()
    assert match.state["play"]["passed"] == [False, False]
    ec_page.once("dialog", lambda dialog: dialog.accept())
    ec_page.get_by_role("button", name="Pass for the rest of this board").click()
    expect(spectator.locator("#ps-log")).to_contain_text("Erin passed")

    # An aborted match: no one is told to move and no clock runs.
    expect(dmo_page.locator("#banner-turn")).to_be_visible()
    host_operations.host_abort(match, host, "testing the abort")
    for page in (dmo_page, ec_page, spectator):
        expect(page.locator("#match-result")).to_contain_text("Match aborted")
        expect(page.get_by_text("Your move")).to_have_count(0)
        expect(page.locator("#banner-turn")).to_be_hidden()
        expect(page.locator(".ps-bank.running, .ps-clock")).to_have_count(0)
    shoot(dmo_page, "dmo-aborted")
