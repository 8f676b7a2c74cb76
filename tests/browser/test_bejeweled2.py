"""Bejeweled 2 in two browsers: the player starts a game from its page and swaps gems by clicks
(an illegal swap shakes back with the server's reason, a legal one plays its cascade step by step
and the score climbs), while a spectator's page follows; a swap made by dragging one gem onto its
neighbour; the play page's puzzle progress."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from games.bejeweled2 import engine, solver
from games.bejeweled2.puzzles import PUZZLES
from games.core.match import services
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
    grid = player.locator('#bj2-board [data-grid="board"]')
    before = grid.bounding_box()
    bad_a, bad_b = an_illegal_pair(board)
    cell(f'#bj2-board [data-cell="{bad_a}"]').click()
    expect(cell(f'#bj2-board [data-cell="{bad_a}"]')).to_have_class(SELECTED)
    cell(f'#bj2-board [data-cell="{bad_b}"]').click()
    refusal = player.locator("#bj2-board .bj2-refusal")
    expect(refusal).to_contain_text("no line of three")
    expect(cell(f'#bj2-board [data-cell="{bad_a}"]')).to_have_class(SHAKING)
    # Said once, under the board: the banner above it stays empty and the board stays put.
    expect(player.locator("#match-error")).to_have_text("")
    assert grid.bounding_box() == before
    shoot(player, f"refused-{size[0]}")
    # The next tap answers the refusal: it goes.
    cell(f'#bj2-board [data-cell="{bad_a}"]').click()
    expect(refusal).to_have_text("")
    cell(f'#bj2-board [data-cell="{bad_a}"]').click()

    a, b = engine.best_move(board)
    player.evaluate("window.gemSteps.setSpeed(0.5)")
    # Every line the step player writes under the board, as it writes it (a window in the back
    # gets few animation frames, and the step player then shows several steps in one).
    player.evaluate(
        """() => { window.told = []; new MutationObserver(() => {
             const line = document.querySelector('#bj2-board .bj2-step-text');
             const text = line && line.textContent;
             if (text && text !== window.told.at(-1)) window.told.push(text);
           }).observe(document.getElementById('match-root'),
                      {childList: true, subtree: true, characterData: true}); }"""
    )
    cell(f'#bj2-board [data-cell="{a}"]').click()
    cell(f'#bj2-board [data-cell="{b}"]').click()
    expect(player.locator("html.gem-animating")).to_have_count(1)
    shoot(player, f"cascade-{size[0]}")
    # The first match of the move is told while it plays (a line, or a power gem or hypercube
    # made by it, as the board dealt allows).
    made = re.compile(r"A line of|A power gem|A hypercube")
    player.wait_for_function(
        "(pattern) => window.told.some((line) => new RegExp(pattern).test(line))",
        arg=made.pattern,
    )
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

    # Ending the game asks first; saying no keeps it going.
    questions = []
    player.once("dialog", lambda dialog: (questions.append(dialog.message), dialog.dismiss()))
    player.get_by_role("button", name="End the game").click()
    expect(player.get_by_role("button", name="End the game")).to_be_enabled()
    assert questions and "End this game" in questions[0]
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    player.once("dialog", lambda dialog: dialog.accept())
    player.get_by_role("button", name="End the game").click()
    result = player.locator("#match-result")
    expect(result).to_contain_text("Game over")
    expect(spectator.locator("#match-result")).to_contain_text("Game over")
    expect(spectator.locator("#bj2-status .bj2-score-value")).to_have_text(score)
    # One result, said once: no winner named in a game played alone.
    match.refresh_from_db()
    summary = match.result["summary"]
    for page in (player, spectator):
        text = page.locator("main").inner_text()
        assert text.count(summary) == 1, text
        assert text.count("Game over") == 1 and "wins" not in text and "Match over" not in text
    expect(player.get_by_role("link", name="Play again")).to_be_visible()
    shoot(player, f"over-{size[0]}")


def test_an_idle_players_page_marks_the_servers_hint_and_a_spectators_marks_none(
    login_context, make_user
):
    """The hint is searched when the idle page asks (docs/protocol.md, "hint"), not carried by
    every frame: after six idle seconds the player's two gems of the best swap are marked."""
    make_user("ada")
    player = login_context("ada")
    player.goto("/play/bejeweled-2/")
    player.get_by_role("button", name="Play Bejeweled 2 · Classic").click()
    player.wait_for_url("**/m/*/")
    match = Match.objects.get(game_key="bejeweled-2")
    spectator = login_context(None)
    spectator.goto(match.get_absolute_url())
    for page in (player, spectator):
        expect(page.locator("#connection")).to_have_text("connected")
    hinted = player.locator("#bj2-board .cell.idle-hint")
    expect(hinted).to_have_count(2, timeout=30_000)
    marked = {hinted.nth(n).get_attribute("data-cell") for n in range(2)}
    assert marked == set(engine.best_move(match.state["board"]))
    shoot(player, "idle-hint")
    expect(spectator.locator("#bj2-board .cell.idle-hint")).to_have_count(0)
    # A click takes the mark away; the page waits to be idle again before asking again.
    player.locator("#bj2-board [data-cell]").first.click()
    expect(hinted).to_have_count(0)


def test_the_action_bar_drains_and_a_puzzle_offers_restart(login_context, make_user):
    make_user("ada")
    player = login_context("ada")
    player.set_viewport_size({"width": 375, "height": 812})
    player.goto("/play/bejeweled-2/")
    player.get_by_role("button", name="Play Bejeweled 2 · Action").click()
    player.wait_for_url("**/m/*/")
    expect(player.locator("#connection")).to_have_text("connected")
    # The Action bar starts half full and drains (issue 22's bar replaced the clock).
    bar = player.locator("#bj2-status .bj2-action-bar")
    expect(bar).to_contain_text("Fill the bar for level 2")
    expect(bar).to_have_attribute("title", re.compile("drains 5 points a second"))
    width = bar.locator(".fill").evaluate("e => e.style.width")
    assert 40 < float(width.rstrip("%")) <= 50
    shoot(player, "action-375")

    player.goto("/play/bejeweled-2/")
    player.select_option("#bj2-puzzle", "0")
    player.get_by_role("button", name="Play Bejeweled 2 · Puzzle").click()
    player.wait_for_url("**/m/*/")
    expect(player.locator("#bj2-status")).to_contain_text(PUZZLES[0].title)
    expect(player.get_by_role("button", name="Restart the puzzle")).to_be_visible()
    shoot(player, "puzzle-375")

    # Solved: the next puzzle is one tap away, on screen without scrolling on a phone.
    puzzle = Match.objects.filter(game_key="bejeweled-2", status="live").latest("pk")
    for a, b in solver.solve(puzzle.state["board"]).moves:
        services.submit_action(
            puzzle, User.objects.get(username="ada"), {"type": "swap", "a": a, "b": b}
        )
    player.evaluate("window.gemSteps && window.gemSteps.stop()")
    upcoming = player.get_by_role("button", name="Next puzzle: 2")
    expect(upcoming).to_be_visible()
    box = upcoming.bounding_box()
    assert box["y"] + box["height"] <= 812, box
    shoot(player, "puzzle-solved-375")
    upcoming.click()
    expect(player.locator("#bj2-status")).to_contain_text("puzzle 2 of")
    assert player.url.rstrip("/") != puzzle.get_absolute_url().rstrip("/")

    # The puzzle chips of the play page start their puzzle.
    player.goto("/play/bejeweled-2/")
    player.get_by_role("button", name=re.compile(r"^Play puzzle 3,")).click()
    player.wait_for_url("**/m/*/")
    expect(player.locator("#bj2-status")).to_contain_text("puzzle 3 of")


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
    # Your own unfinished game is yours to resume, in the lobby too.
    expect(player.locator(".bj2-live").get_by_role("link", name="Resume")).to_have_count(1)
    expect(player.locator(".bj2-live").get_by_role("link", name="Watch")).to_have_count(0)
    expect(player.locator(".bj2-progress")).to_contain_text("Next unsolved: puzzle 1")
    shoot(player, "play-page-1280")
    player.goto("/")
    expect(player.get_by_role("link", name="Resume")).to_have_attribute(
        "href", match.get_absolute_url()
    )
    player.set_viewport_size({"width": 375, "height": 812})
    shoot(player, "play-page-375")


@pytest.mark.parametrize("size", [(1280, 800), (375, 812)], ids=["desktop", "phone"])
def test_a_puzzle_played_with_a_hint_and_undo(login_context, make_user, size):
    make_user("ada")
    player = login_context("ada")
    player.set_viewport_size({"width": size[0], "height": size[1]})
    # A hinted gem pulses; with reduced motion it is marked without moving, so it can be clicked.
    player.emulate_media(reduced_motion="reduce")
    index = next(i for i, p in enumerate(PUZZLES) if p.title == "First steps")  # world 1, par 3
    player.goto("/play/bejeweled-2/")
    player.select_option("#bj2-puzzle", str(index))
    player.get_by_role("button", name="Play Bejeweled 2 · Puzzle").click()
    player.wait_for_url("**/m/*/")
    expect(player.locator("#connection")).to_have_text("connected")
    match = Match.objects.get(game_key="bejeweled-2")
    start = match.state["board"]
    player.evaluate("window.gemSteps.setSpeed(0.5)")

    def cell(name: str):
        return player.locator(f'#bj2-board [data-cell="{name}"]')

    def swap(a: str, b: str) -> None:
        cell(a).click()
        cell(b).click()
        expect(player.locator("html.gem-animating")).to_have_count(0, timeout=30_000)

    # The hint (free in Puzzle mode) marks the first move of a shortest solution.
    player.get_by_role("button", name=re.compile(r"^Hint")).click()
    a, b = solver.solve(start).moves[0]
    expect(player.locator("#bj2-actions .bj2-hint-text")).to_have_text(f"Hint: swap {a} and {b}.")
    expect(cell(a)).to_have_class(re.compile(r"\bhint\b"))
    shoot(player, f"puzzle-hint-{size[0]}")
    swap(a, b)
    expect(player.locator("#bj2-status .bj2-moves")).to_contain_text("Moves 1")

    # Undo takes the move back: the board is the puzzle's start again.
    player.get_by_role("button", name="Undo").click()
    expect(player.locator("#bj2-status .bj2-moves")).to_contain_text("Moves 0")
    expect(player.get_by_role("button", name="Undo")).to_have_count(0)
    match.refresh_from_db()
    assert match.state["board"] == start and match.state["undos"] == 1
    first = start.split("\n")[int(a[1:]) - 1]["ABCDEFGH".index(a[0])]
    expect(cell(a)).to_have_class(re.compile(engine.COLOUR_NAMES.get(first.upper(), "gem")))
    shoot(player, f"puzzle-undone-{size[0]}")

    # The move again, then the hint comes from the board as it now is (not from the start).
    swap(a, b)
    expect(player.locator("#bj2-status .bj2-moves")).to_contain_text("Moves 1")
    match.refresh_from_db()
    rest = solver.solve(match.state["board"]).moves
    assert len(rest) == PUZZLES[index].par - 1
    player.get_by_role("button", name=re.compile(r"^Hint")).click()
    expect(player.locator("#bj2-actions .bj2-hint-text")).to_have_text(
        f"Hint: swap {rest[0][0]} and {rest[0][1]}."
    )
    shoot(player, f"puzzle-hint-again-{size[0]}")
    match.refresh_from_db()
    assert (match.state["hints"], match.state["moves"], match.state["undos"]) == (2, 1, 1)
