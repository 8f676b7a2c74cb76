"""Bejeweled 2's Action and hidden modes in a browser: a player whose past games opened the hidden
modes starts each from the play page, plays a few moves by clicking gems, and sees what the mode
is about (Twilight's gravity turning, Hyper's quick streak and faster bar, Cognito's hint that
makes the puzzle score 0, Finity's rule that only blasts score); on a phone the sticky match
banner never covers the game's numbers and bar."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.bejeweled2 import engine, flow, levels, modes, solver
from games.bejeweled2.puzzles import PUZZLES
from games.core.models import Match, Seat
from tests.browser.pages import DESKTOP, PHONE, shoot_both_sizes
from tests.waiting import until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_every_hidden_mode(user) -> None:
    """The finished games that open the hidden modes (``modes.UNLOCKS``), written to the database
    as the server records them: Classic level 17, Action level 8, Endless level 280, and every
    puzzle solved."""
    results = [
        {"mode": source, "level": reach, "score": 1_000}
        for source, reach in modes.UNLOCKS.values()
        if source != "puzzle"
    ] + [
        {"mode": "puzzle", "puzzle": index, "solved": True, "moves": p.par, "level": 1}
        for index, p in enumerate(PUZZLES)
    ]
    first = timezone.now() - timedelta(days=1)
    matches = Match.objects.bulk_create(
        Match(
            game_key="bejeweled-2",
            title="Bejeweled 2",
            host=user,
            status=Match.Status.FINISHED,
            result={"winner": 0, "summary": "Game over.", "moves": 1, **result},
            finished_at=first + timedelta(seconds=n),
        )
        for n, result in enumerate(results)
    )
    Seat.objects.bulk_create(Seat(match=match, index=0, user=user) for match in matches)


@pytest.fixture
def ada(make_user):
    user = make_user("ada")
    open_every_hidden_mode(user)
    return user


def start(page, mode: str, puzzle: int | None = None) -> Match:
    """From the play page, as the player does: the mode's button (and its puzzle)."""
    page.set_viewport_size(PHONE)
    # A hinted gem pulses; with reduced motion it is marked without moving, so it can be clicked.
    page.emulate_media(reduced_motion="reduce")
    page.goto("/play/bejeweled-2/")
    if puzzle is not None:
        page.select_option("#bj2-puzzle-cognito", str(puzzle))
    page.get_by_role("button", name=f"Play Bejeweled 2 · {modes.MODE_TITLES[mode]}").click()
    page.wait_for_url("**/m/*/")
    expect(page.locator("#connection")).to_have_text("connected")
    expect(page.locator('#bj2-board [data-grid="board"] [data-cell]')).to_have_count(64)
    page.evaluate("window.gemSteps.setSpeed('instant')")
    match = Match.objects.filter(game_key="bejeweled-2", status="live").latest("pk")
    assert match.state["mode"] == mode
    return match


def moves_made(match: Match, count: int) -> Match:
    """The match once the server has played ``count`` moves (polled, as the page's frames are)."""

    def played() -> bool:
        match.refresh_from_db()
        return match.state["moves"] >= count

    until(played, f"the server to play move {count}")
    return match


def click_swap(page, match: Match, move: tuple[str, str] | None = None) -> Match:
    """Click a legal move's two gems (the engine's best move on the board the server holds) and
    wait for the server to play it."""
    before = match.state["moves"]
    a, b = move or engine.best_move(match.state["board"])
    # As a player: once the page shows the board after the last move.
    expect(page.locator("#bj2-board")).to_have_attribute("data-moves", str(before))
    expect(page.locator("html.gem-animating")).to_have_count(0, timeout=30_000)
    page.locator(f'#bj2-board [data-cell="{a}"]').click()
    page.locator(f'#bj2-board [data-cell="{b}"]').click()
    return moves_made(match, before + 1)


def settled(page, match: Match) -> None:
    """The page has drawn the server's latest move: no animation, its score and move count."""
    expect(page.locator("html.gem-animating")).to_have_count(0, timeout=30_000)
    expect(page.locator("#bj2-status .bj2-moves b")).to_have_text(str(match.state["moves"]))
    expect(page.locator("#bj2-status .bj2-score-value")).to_have_text(str(match.state["score"]))


def assert_banner_clear_of(page, selector: str) -> None:
    """On a phone the sticky match banner (connection, speed) does not cover ``selector`` where
    the page is scrolled now (the top of the page, or wherever playing has scrolled it)."""
    page.set_viewport_size(PHONE)
    banner = page.locator(".match-banner").bounding_box()
    target = page.locator(selector).bounding_box()
    assert banner and target, (banner, target)
    apart = (
        banner["y"] + banner["height"] <= target["y"]
        or target["y"] + target["height"] <= banner["y"]
    )
    assert apart, (page.evaluate("window.scrollY"), banner, target)


def test_action_fills_its_bar_as_gems_go(login_context, ada):
    player = login_context("ada")
    match = start(player, "action")
    bar = player.locator("#bj2-status .bj2-action-bar")
    expect(bar).to_contain_text("Fill the bar for level 2")
    assert_banner_clear_of(player, "#bj2-status .bj2-action-bar")
    for _ in range(3):
        match = click_swap(player, match)
    settled(player, match)
    assert match.state["score"] > 0
    expect(bar).to_have_attribute("data-points", str(match.state["bar"]["points"]))
    assert_banner_clear_of(player, "#bj2-status .bj2-action-bar")
    shoot_both_sizes(player, "bejeweled2-mode-action")


def test_twilights_gravity_turns_with_each_move(login_context, ada):
    player = login_context("ada")
    match = start(player, "twilight")
    gravity = player.locator("#bj2-status .bj2-gravity")
    expect(gravity).to_have_text("Next move: gems fall down ↓")
    assert_banner_clear_of(player, "#bj2-status .bj2-level-bar")
    match = click_swap(player, match)
    settled(player, match)
    assert match.state["gravity"] == "up" and match.state["score"] > 0
    expect(gravity).to_have_text("Next move: gems fall up ↑")
    shoot_both_sizes(player, "bejeweled2-mode-twilight")
    score = match.state["score"]
    match = click_swap(player, match)
    settled(player, match)
    assert match.state["score"] > score
    expect(gravity).to_have_text("Next move: gems fall down ↓")


def test_hyper_has_a_faster_bar_and_a_streak_for_quick_moves(login_context, ada):
    player = login_context("ada")
    match = start(player, "hyper")
    bar = player.locator("#bj2-status .bj2-action-bar")
    action_drain = levels.bar_drain("action", 1)
    hyper_drain = levels.bar_drain("hyper", 1)
    assert hyper_drain[0] / hyper_drain[1] > action_drain[0] / action_drain[1]
    expect(bar).to_have_attribute(
        "title", re.compile(f"drains {hyper_drain[0] / hyper_drain[1]:g} points a second")
    )
    assert_banner_clear_of(player, "#bj2-status .bj2-action-bar")
    # Two moves one after the other, well within 3 s: the second extends a streak.
    match = click_swap(player, match)
    match = click_swap(player, match)
    settled(player, match)
    assert match.state["streak"] >= 1, match.state
    expect(player.locator("#bj2-status .bj2-streak")).to_have_text(
        f"Quick streak ×{match.state['streak']}"
    )
    assert match.state["last"]["bonus"] == flow.QUICK_BONUS * match.state["streak"]
    expect(player.locator("#bj2-board .bj2-step-text")).to_contain_text(
        f"+{match.state['last']['score']}"
    )
    shoot_both_sizes(player, "bejeweled2-mode-hyper")


def test_cognito_scores_a_puzzle_and_a_hint_makes_it_score_0(login_context, ada):
    index = next(i for i, p in enumerate(PUZZLES) if p.par >= 3)
    player = login_context("ada")
    match = start(player, "cognito", puzzle=index)
    expect(player.locator("#bj2-status h2")).to_contain_text(PUZZLES[index].title)
    hint = player.get_by_role("button", name=re.compile(r"^Hint"))
    expect(hint).to_contain_text("this puzzle then scores 0")
    assert_banner_clear_of(player, "#bj2-status .bj2-numbers")
    first = solver.solve(match.state["board"]).moves[0]
    match = click_swap(player, match, first)
    settled(player, match)
    assert match.state["score"] > 0
    shoot_both_sizes(player, "bejeweled2-mode-cognito")

    hint.click()
    a, b = solver.first_move(match.state["board"])
    expect(player.locator("#bj2-actions .bj2-hint-text")).to_have_text(f"Hint: swap {a} and {b}.")
    expect(player.locator("#bj2-status .bj2-moves")).to_contain_text("hints 1")
    expect(player.locator("#bj2-status .bj2-zeroed")).to_contain_text("this puzzle will score 0")
    shoot_both_sizes(player, "bejeweled2-mode-cognito-hint")
    match.refresh_from_db()
    for move in solver.solve(match.state["board"]).moves:
        match = click_swap(player, match, move)
    expect(player.locator("#match-result")).to_contain_text("solved")
    match.refresh_from_db()
    assert match.result["solved"] is True and match.result["score"] == 0
    expect(player.locator("#match-result")).to_contain_text(": 0 points")


def test_finity_scores_only_blasts(login_context, ada):
    player = login_context("ada")
    match = start(player, "finity")
    expect(player.locator("#bj2-status .bj2-rule")).to_contain_text("Only blasts score")
    assert_banner_clear_of(player, "#bj2-status .bj2-action-bar")
    for _ in range(3):
        match = click_swap(player, match)
    settled(player, match)
    # Gems went, and the score is what blasts made (a plain line scores nothing here).
    assert match.state["last"]["removed"] >= 3
    expect(player.locator("#bj2-board .bj2-step-text")).to_contain_text(
        f"+{match.state['last']['score']}"
    )
    player.set_viewport_size(DESKTOP)
    shoot_both_sizes(player, "bejeweled2-mode-finity")
