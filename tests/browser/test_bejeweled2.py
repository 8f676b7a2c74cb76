"""Bejeweled 2 in two browsers: the player starts a game from its page and swaps gems by clicks
(an illegal swap shakes back with the server's reason, a legal one plays its cascade step by step
and the score climbs), while a spectator's page follows; a swap made by dragging one gem onto its
neighbour; the play page's puzzle progress."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from games.bejeweled2 import engine
from games.core.models import Match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path("test-artifacts")
SELECTED = re.compile(r"\bselected\b")
SHAKING = re.compile(r"\bshake\b")


def an_illegal_pair(board: str) -> tuple[str, str]:
    legal = {frozenset(move) for move in engine.legal_moves(board)}
    for row in range(1, 9):
        for col in range(7):
            a, b = f"{'ABCDEFGH'[col]}{row}", f"{'ABCDEFGH'[col + 1]}{row}"
            if frozenset((a, b)) not in legal:
                return a, b
    raise AssertionError("every pair is legal")


def shoot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"bejeweled2-{name}.png"), full_page=True)


@pytest.mark.parametrize("size", [(1280, 800), (375, 812)], ids=["desktop", "phone"])
def test_a_player_swaps_by_clicks_and_a_spectator_follows(login_context, make_user, size):
    make_user("ada")
    player = login_context("ada")
    player.set_viewport_size({"width": size[0], "height": size[1]})
    player.goto("/play/bejeweled-2/")
    shoot(player, f"start-{size[0]}")
    player.get_by_role("button", name="Play Bejeweled 2 · Classic").click()
    player.wait_for_url("**/m/*/")
    match = Match.objects.get(game_key="bejeweled-2")
    board = match.state["board"]

    spectator = login_context(None)
    spectator.set_viewport_size({"width": size[0], "height": size[1]})
    for page in (player, spectator):
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
        expect(page.locator('#bj2-board [data-grid="board"] [data-cell]')).to_have_count(64)
    expect(spectator.locator("#bj2-actions")).to_contain_text("You are watching Ada play")

    cell = player.locator
    bad_a, bad_b = an_illegal_pair(board)
    cell(f'#bj2-board [data-cell="{bad_a}"]').click()
    expect(cell(f'#bj2-board [data-cell="{bad_a}"]')).to_have_class(SELECTED)
    cell(f'#bj2-board [data-cell="{bad_b}"]').click()
    expect(player.locator("#bj2-board .bj2-refusal")).to_contain_text("no line of three")
    expect(cell(f'#bj2-board [data-cell="{bad_a}"]')).to_have_class(SHAKING)

    a, b = engine.best_move(board)
    player.evaluate("window.gemSteps.setSpeed(0.5)")
    cell(f'#bj2-board [data-cell="{a}"]').click()
    cell(f'#bj2-board [data-cell="{b}"]').click()
    expect(player.locator("html.gem-animating")).to_have_count(1)
    expect(player.locator("#bj2-board .bj2-step-text")).to_contain_text("removed by lines")
    shoot(player, f"cascade-{size[0]}")
    expect(player.locator("html.gem-animating")).to_have_count(0, timeout=30_000)
    match.refresh_from_db()
    score = str(match.state["score"])
    assert match.state["moves"] == 1 and score != "0"
    expect(player.locator("#bj2-status .bj2-score-value")).to_have_text(score)
    expect(player.locator("#bj2-board .bj2-refusal")).to_have_text("")
    expect(spectator.locator("#bj2-status .bj2-score-value")).to_have_text(score, timeout=30_000)
    expect(spectator.locator("#bj2-status .bj2-moves")).to_contain_text("1")
    shoot(player, f"after-{size[0]}")
    shoot(spectator, f"spectator-{size[0]}")

    player.get_by_role("button", name="End the game").click()
    expect(player.locator("#bj2-over")).to_contain_text("Game over")
    expect(spectator.locator("#bj2-over .bj2-final-score")).to_have_text(score)
    shoot(player, f"over-{size[0]}")


def test_the_action_clock_counts_down_and_a_puzzle_offers_restart(login_context, make_user):
    make_user("ada")
    player = login_context("ada")
    player.set_viewport_size({"width": 375, "height": 812})
    player.goto("/play/bejeweled-2/")
    player.get_by_role("button", name="Play Bejeweled 2 · Action").click()
    player.wait_for_url("**/m/*/")
    expect(player.locator("#connection")).to_have_text("connected")
    clock = player.locator("#bj2-status .bj2-clock-bar [data-deadline] .left")
    expect(clock).to_have_text(re.compile(r"^(1:00|0:5\d)$"))
    width = player.locator("#bj2-status .bj2-clock-bar .fill").evaluate("e => e.style.width")
    assert 60 < float(width.rstrip("%")) <= 67
    shoot(player, "action-375")

    player.goto("/play/bejeweled-2/")
    player.select_option("#bj2-puzzle", "0")
    player.get_by_role("button", name="Play Bejeweled 2 · Puzzle").click()
    player.wait_for_url("**/m/*/")
    expect(player.locator("#bj2-status")).to_contain_text("First steps")
    expect(player.get_by_role("button", name="Restart the puzzle")).to_be_visible()
    shoot(player, "puzzle-375")


def neighbours_of(cell: str) -> list[str]:
    col, row = "ABCDEFGH".index(cell[0]), int(cell[1:])
    found = []
    for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if 0 <= col + dc < 8 and 1 <= row + dr <= 8:
            found.append(f"{'ABCDEFGH'[col + dc]}{row + dr}")
    return found


def drag(page, source: str, target: str) -> None:
    """Press on one gem, move onto the other with the button held, release there."""
    start = page.locator(f'#bj2-board [data-cell="{source}"]').bounding_box()
    end = page.locator(f'#bj2-board [data-cell="{target}"]').bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=6)
    page.mouse.up()


def test_a_player_swaps_by_dragging_a_gem_onto_its_neighbour(login_context, make_user):
    make_user("ada")
    player = login_context("ada")
    player.set_viewport_size({"width": 1280, "height": 800})
    player.goto("/play/bejeweled-2/")
    player.get_by_role("button", name="Play Bejeweled 2 · Endless").click()
    player.wait_for_url("**/m/*/")
    expect(player.locator("#connection")).to_have_text("connected")
    match = Match.objects.get(game_key="bejeweled-2")
    a, b = engine.best_move(match.state["board"])
    # A gem picked by a click beside the dragged one: the drag starts afresh from where it begins.
    beside = next(cell for cell in neighbours_of(a) if cell != b)
    player.locator(f'#bj2-board [data-cell="{beside}"]').click()
    expect(player.locator(f'#bj2-board [data-cell="{beside}"]')).to_have_class(SELECTED)

    player.evaluate("window.gemSteps.setSpeed(0.5)")
    drag(player, a, b)
    expect(player.locator("html.gem-animating")).to_have_count(1)
    expect(player.locator("html.gem-animating")).to_have_count(0, timeout=30_000)
    match.refresh_from_db()
    assert match.state["moves"] == 1
    assert {match.state["last"]["a"], match.state["last"]["b"]} == {a, b}
    expect(player.locator("#bj2-status .bj2-score-value")).to_have_text(str(match.state["score"]))
    expect(player.locator("#bj2-board .bj2-refusal")).to_have_text("")
    shoot(player, "drag-1280")

    player.goto("/play/bejeweled-2/")
    expect(player.locator(".bj2-live")).to_contain_text("Ada")
    expect(player.locator(".bj2-progress")).to_contain_text("Next unsolved: puzzle 1")
    shoot(player, "play-page-1280")
    player.set_viewport_size({"width": 375, "height": 812})
    shoot(player, "play-page-375")
