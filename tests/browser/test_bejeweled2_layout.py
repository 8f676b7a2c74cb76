"""Bejeweled 2's board stays where it is through a game's end: the last move's cascade plays out,
then the game's end shows, and nothing above the board moves it (its box is read on every
animation frame of the page from the last swap to the end shown), at a phone's size and a
desktop's. On the phone the Hint, Undo and Restart buttons are on screen without scrolling."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from games.bejeweled2 import solver
from games.bejeweled2.puzzles import PUZZLES
from games.core.match import seating, services
from games.core.models import Match
from tests.browser.pages import ARTIFACTS, DESKTOP, PHONE, settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RECORD_BOARD = """() => { window.boardTops = []; window.recording = true;
  const grid = () => document.querySelector('#bj2-board [data-grid="board"]');
  const shown = (selector) => [...document.querySelectorAll(selector)].some(
    (element) => element.checkVisibility({visibilityProperty: true}));
  const note = () => {
    const box = grid().getBoundingClientRect();
    window.boardTops.push([Math.round(box.top), Math.round(box.left),
      shown('#match-result, .bj2-next'), window.gemSteps.playing]);
    if (window.recording) requestAnimationFrame(note);
  };
  requestAnimationFrame(note); }"""


def a_puzzle(ada: User, index: int) -> Match:
    match = seating.create_match(
        host=ada,
        game_key="bejeweled-2",
        title="Puzzle",
        settings={"mode": "puzzle", "puzzle": index},
        roles=[""],
    )
    seating.take_seat(match, ada, match.seats.get().invite_token)
    match.refresh_from_db()
    return match


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_board_stays_put_through_the_games_end(login_context, make_user, size):
    ada = make_user("ada")
    index = next(i for i, p in enumerate(PUZZLES) if p.par >= 2)
    match = a_puzzle(ada, index)
    moves = solver.solve(match.state["board"]).moves
    for a, b in moves[:-1]:
        services.submit_action(match, ada, {"type": "swap", "a": a, "b": b})
    page = login_context("ada")
    page.set_viewport_size(size)
    page.goto(match.get_absolute_url())
    expect(page.locator("#connection")).to_have_text("connected")
    page.evaluate("gemSteps.setSpeed('slow')")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"bejeweled2-puzzle-{size['width']}.png"))
    if size == PHONE:
        for name in ("Hint", "Undo", "Restart the puzzle"):
            box = page.get_by_role("button", name=name).bounding_box()
            assert box["y"] + box["height"] <= PHONE["height"], (name, box)

    # The last swap, by clicks; the board's box on every frame until the end has shown.
    page.evaluate(RECORD_BOARD)
    a, b = moves[-1]
    page.click(f'#bj2-board [data-cell="{a}"]')
    page.click(f'#bj2-board [data-cell="{b}"]')
    expect(page.locator("#match-result")).to_be_visible()
    settled(page, "new Promise((done) => requestAnimationFrame(() => done(true)))")
    page.screenshot(path=str(ARTIFACTS / f"bejeweled2-end-{size['width']}.png"))
    tops = page.evaluate("window.recording = false, window.boardTops")
    assert any(playing for *_, playing in tops), "the last move was not animated"
    assert tops[-1][2], "the game's end was not shown"
    assert {(top, left) for top, left, *_ in tops} == {tuple(tops[0][:2])}, tops
    # The end showed once the cascade was over, not during it.
    assert not any(shown and playing for _, _, shown, playing in tops), tops
    if size == PHONE:  # what to play next is on the first screen
        box = page.get_by_role("button", name=f"Next puzzle: {index + 2}").bounding_box()
        assert box["y"] + box["height"] <= PHONE["height"], box
