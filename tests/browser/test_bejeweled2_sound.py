"""Bejeweled 2's motion and sound say what the server counted, in order (issue 36): during a move
that completes a level the level and the bar keep their values until the score has counted up,
and the level banner comes once the cascade's big word has faded, with the board dropping away
and falling in again; a move at "instant" speed still sounds; two clocks turning urgent together
warn once; a refused swap slides over and back; a game with no move left says "No More Moves" as
its board drops away."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.bejeweled2 import engine
from games.core.game.flowkit import derived_seed
from games.core.models import Match
from tests.browser.pages import ARTIFACTS, settled
from tests.browser.test_motion import a_four_cascade_move

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The page notes, every animation frame while a move plays, the level and the bar it shows, and
# whether a big word is over the board when the level banner comes.
RECORDER = """() => {
  window.seen = [];
  window.bannerOverWord = null;
  const look = () => {
    if (document.documentElement.classList.contains('gem-animating')) {
      const bar = document.querySelector('#bj2-status .bj2-action-bar');
      window.seen.push({level: document.querySelector('#bj2-status .bj2-level b').textContent,
                        bar: bar && bar.dataset.points});
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
  window.dropped = null;
  new MutationObserver(() => {
    const banner = document.querySelector('.level-up');
    if (window.bannerOverWord === null && banner) {
      window.banner = banner.textContent;
      window.bannerOverWord = Boolean(document.querySelector('.steps-float.steps-word'));
      requestAnimationFrame(() => { window.dropped = Array.from(
        document.querySelectorAll('#bj2-board [data-cell] .gem')).filter(
          (gem) => gem.getAnimations().length).length; });
    }
  }).observe(document.body, {subtree: true, childList: true});
  window.moveDone = new Promise((resolve) => document.addEventListener(
    'gem:steps-done', (event) => resolve(event.detail), {once: true}));
}"""


def test_a_level_completing_move_counts_first_then_levels_and_instant_moves_sound(
    login_context, make_user
):
    make_user("ada")
    page = login_context("ada")
    page.goto("/play/bejeweled-2/")
    page.get_by_role("button", name="Play Bejeweled 2 · Action").click()
    page.wait_for_url("**/m/*/")
    match = Match.objects.get(game_key="bejeweled-2")
    board, a, b = a_four_cascade_move(match.state["seed"])
    # The test's board, and a bar a few points short of full: the move completes level 1.
    bar = {"points": 990, "at": timezone.now().isoformat(), "level": 1}
    runs_out = (timezone.now() + timedelta(seconds=190)).isoformat()
    deadlines = {**match.state["deadlines"], "clock": runs_out}
    match.state = {**match.state, "board": board, "bar": bar, "deadlines": deadlines}
    match.save(update_fields=["state"])
    page.reload()
    expect(page.locator("#connection")).to_have_text("connected")
    page.evaluate("window.gemSteps.setSpeed('normal')")
    page.evaluate(RECORDER)

    page.locator(f'#bj2-board [data-cell="{a}"]').click()
    page.locator(f'#bj2-board [data-cell="{b}"]').click()
    settled(page, "window.moveDone")
    match.refresh_from_db()
    assert match.state["level"] == 2
    seen = page.evaluate("window.seen")
    assert seen, "nothing recorded while the move played"
    # While the score counted up the level and the bar stood where they were before the move.
    assert {entry["level"] for entry in seen} == {"1"}, seen[:3]
    assert {entry["bar"] for entry in seen} == {"990"}, seen[:3]
    expect(page.locator("#bj2-status .bj2-level b")).to_have_text("2")
    expect(page.locator("#bj2-status .bj2-action-bar")).to_have_attribute(
        "data-points", str(match.state["bar"]["points"])
    )
    expect(page.locator(".level-up")).to_have_count(1)
    assert page.evaluate("window.bannerOverWord") is False  # the banner waited for the word
    page.wait_for_function("window.dropped !== null")
    assert page.evaluate("window.dropped") == 64  # the whole board drops away and falls in
    page.screenshot(path=str(ARTIFACTS / "bejeweled2-level-banner.png"))

    # At "instant" speed the move is shown at once, and still heard.
    page.evaluate("window.gemSteps.setSpeed('instant'); window.gemSound.played.length = 0")
    expect(page.locator("html.gem-animating")).to_have_count(0)
    # The move is chosen on the board the page shows, as a player would. The test set the state
    # without an event: a frame the server draws again from the event log (a page lacking a
    # panel the layer's message left out) shows the board the log makes, not that state's.
    move = engine.best_move(page.evaluate("window.gemArena.view().game.board"))
    page.locator(f'#bj2-board [data-cell="{move[0]}"]').click()
    page.locator(f'#bj2-board [data-cell="{move[1]}"]').click()
    expect(page.locator("#bj2-board")).to_have_attribute("data-moves", "2")
    heard = page.evaluate("window.gemSound.played.slice()")
    assert len(heard) == 1 and heard[0] in ("match", "power", "hypercube"), heard

    # Two clocks turning urgent at the same moment warn once.
    page.evaluate(
        """() => { window.gemSound.played.length = 0;
             for (const n of [1, 2]) {
               const clock = document.createElement('span');
               clock.className = 'clock test-clock';
               document.body.appendChild(clock);
             }
             for (const clock of document.querySelectorAll('.test-clock')) {
               clock.classList.add('urgent');
             } }"""
    )
    page.wait_for_function("window.gemSound.played.includes('warning')")
    page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    assert page.evaluate("window.gemSound.played.filter((n) => n === 'warning').length") == 1


# One legal move whose new gems leave no move: the pattern's colours are shuffled until the
# match's first refill does.
NEARLY_STUCK = "\n".join(["PRYGBOWP", "YGBOWPRY", "BOWPRYGB"] * 2 + ["PRYGBOWP", "YYGOWPRY"])


def a_last_move(seed: int) -> tuple[str, str, str]:
    refill = derived_seed(seed, "refill", 0)
    for colours in itertools.permutations("PRYGBOW"):
        board = NEARLY_STUCK.translate(str.maketrans("PRYGBOW", "".join(colours)))
        moves = engine.legal_moves(board)
        if len(moves) == 1:
            after = engine.swap(board, *moves[0], refill).board
            if not engine.has_legal_move(engine.format_board(after)):
                return board, *moves[0]
    raise AssertionError("no last move found")


def test_a_refused_swap_slides_back_and_no_more_moves_drops_the_board(login_context, make_user):
    make_user("ada")
    page = login_context("ada")
    page.goto("/play/bejeweled-2/")
    page.get_by_role("button", name="Play Bejeweled 2 · Classic").click()
    page.wait_for_url("**/m/*/")
    match = Match.objects.get(game_key="bejeweled-2")
    board, a, b = a_last_move(match.state["seed"])
    match.state = {**match.state, "board": board}
    match.save(update_fields=["state"])
    page.reload()
    expect(page.locator("#connection")).to_have_text("connected")
    page.evaluate("window.gemSteps.setSpeed('slow')")
    page.evaluate(RECORDER)

    # A swap that makes no line: both gems slide toward each other's place and back.
    page.locator('#bj2-board [data-cell="A1"]').click()
    page.locator('#bj2-board [data-cell="B1"]').click()
    expect(page.locator("#bj2-board .bj2-refusal")).not_to_have_text("")
    sliding = page.evaluate(
        """() => ['A1', 'B1'].map((name) => document.querySelector(
             `#bj2-board [data-cell="${name}"] .gem`).getAnimations().length)"""
    )
    assert sliding == [1, 1], sliding

    page.locator(f'#bj2-board [data-cell="{a}"]').click()
    page.locator(f'#bj2-board [data-cell="{b}"]').click()
    settled(page, "window.moveDone")
    match.refresh_from_db()
    assert match.state["reason"] == "no_moves"
    page.wait_for_function("window.dropped !== null")
    assert page.evaluate("window.banner") == "No More Moves"
    assert page.evaluate("window.dropped") == 64
    expect(page.locator("#bj2-board .bj2-step-text")).to_contain_text("No more moves!")
    page.screenshot(path=str(ARTIFACTS / "bejeweled2-no-more-moves.png"))


def test_original_shows_once_the_player_goes_round_the_menu_eight_times(login_context, make_user):
    make_user("ada")
    page = login_context("ada")
    page.goto("/play/bejeweled-2/")
    original = page.get_by_role("button", name="Play Bejeweled 2 · Original")
    expect(original).to_be_hidden()
    cards = {
        mode: page.locator(f'.bj2-modes form:has(input[name=mode][value="{mode}"]) h2')
        for mode in ("classic", "action", "endless", "puzzle")
    }
    for _ in range(7):
        for card in cards.values():
            card.hover()
    expect(original).to_be_hidden()  # seven rounds are not enough
    for card in cards.values():
        card.hover()
    expect(original).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "bejeweled2-original-found.png"), full_page=True)
    original.click()
    page.wait_for_url("**/m/*/")
    assert Match.objects.get(game_key="bejeweled-2").state["mode"] == "original"
