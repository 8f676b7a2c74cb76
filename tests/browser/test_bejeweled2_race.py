"""The Bejeweled 2 race in browsers: a player swaps gems by clicks on their own board (and sees no
other board), while bots race on theirs; a spectator and the host watch every board small, side
by side, with the live ranking, at a phone's and a desktop's size; at the end the player sees
the final ranking and every board."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from games.bejeweled2 import engine
from games.core.match import host_operations, seating
from games.core.models import Match
from tests.browser.pages import ARTIFACTS, serious_axe_violations, shoot_both_sizes

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SELECTED = re.compile(r"\bselected\b")
# Every small board laid out (a box of its own), and at least ``least`` of them on the first row.
SIDE_BY_SIDE = """(least) => {
  const minis = [...document.querySelectorAll(".race-mini")];
  if (!minis.length || minis.some((mini) => !mini.getClientRects().length)) return false;
  const tops = minis.map((mini) => Math.round(mini.getBoundingClientRect().top));
  return tops.filter((top) => top === tops[0]).length >= least;
}"""
BOTS = {1: "greedy", 2: "random", 3: "relaxed", 4: "greedy", 5: "random", 6: "relaxed"}


def start_race(make_user) -> Match:
    host, ada = make_user("hostess"), make_user("ada")
    match = seating.create_match(
        host=host,
        game_key="bejeweled-2-race",
        title="Browser race",
        settings={"mode": "classic_time", "minutes": 20, "spectators": "live"},
        roles=[""] * 7,
    )
    for index, level in BOTS.items():
        seating.seat_bot(match, index, level)
    seating.take_seat(match, ada, match.seats.get(index=0).invite_token)
    return Match.objects.with_seats().get(pk=match.pk)


def rows_text(board: str) -> str:
    return "/".join(board.split("\n"))


def test_a_player_races_by_clicks_while_spectators_watch_every_board(login_context, make_user):
    match = start_race(make_user)
    assert match.status == Match.Status.LIVE
    player = login_context("ada")
    spectator = login_context(None)
    host = login_context("hostess")
    for page in (player, spectator, host):
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
    expect(player.locator('#bj2-board [data-grid="board"] [data-cell]')).to_have_count(64)
    expect(player.locator(".race-mini")).to_have_count(0)
    privacy = "only you see your board; the ranking shows at the end"
    expect(player.locator("#bj2-actions")).to_contain_text(privacy)
    for page in (spectator, host):
        expect(page.locator(".race-mini")).to_have_count(7)
        expect(page.locator("#race-ranking tbody tr")).to_have_count(7)
        expect(page.locator("#bj2-board")).to_have_count(0)

    player.evaluate("window.gemSteps.setSpeed(4)")
    # The idle hint's pulse would keep a hinted gem from ever standing still for a click.
    player.emulate_media(reduced_motion="reduce")
    for n in range(2):
        match.refresh_from_db()
        board = match.state["boards"]["0"]["board"]
        a, b = engine.best_move(board)
        player.locator(f'#bj2-board [data-cell="{a}"]').click()
        if n == 0:  # a bot's move meanwhile leaves the player's chosen gem chosen
            seen = int(player.locator("#match-root").get_attribute("data-version"))
            player.wait_for_function(
                f"Number(document.getElementById('match-root').dataset.version) > {seen}"
            )
            expect(player.locator(f'#bj2-board [data-cell="{a}"]')).to_have_class(SELECTED)
        player.locator(f'#bj2-board [data-cell="{b}"]').click()
        expect(player.locator("#bj2-status .bj2-moves")).to_contain_text(str(n + 1))
        expect(player.locator("html.gem-animating")).to_have_count(0, timeout=30_000)
    match.refresh_from_db()
    mine = match.state["boards"]["0"]
    expect(player.locator("#bj2-status .bj2-score-value")).to_have_text(str(mine["score"]))
    # The player's page holds no other board: the bots' boards differ from theirs by now.
    html = player.content()
    others = {match.state["boards"][str(s)]["board"] for s in BOTS} - {mine["board"]}
    assert others and not any(rows_text(board) in html for board in others)
    # The spectator's small board of seat 0 is the player's board, live.
    for page in (spectator, host):
        expect(page.locator("#race-seat-0 .race-mini-grid")).to_have_attribute(
            "data-rows", rows_text(mine["board"]), timeout=20_000
        )
        expect(page.locator("#race-seat-0 .race-mini-line")).to_contain_text("2 moves")
    assert serious_axe_violations(spectator) == []
    shoot_both_sizes(spectator, "race-spectator")
    shoot_both_sizes(host, "race-host")
    shoot_both_sizes(player, "race-player")
    # The small boards sit side by side: two on a phone's row, more on a desktop's.
    # The bots race on meanwhile, and a read right after the resize once caught two of the seven
    # boards (the two just past level 1) at the page's top: the rows are read when every board
    # has a box and the first row holds enough of them (within the wait's patience).
    for size, least in (({"width": 375, "height": 812}, 2), ({"width": 1280, "height": 800}, 4)):
        spectator.set_viewport_size(size)
        try:
            spectator.wait_for_function(SIDE_BY_SIDE, arg=least)
        except PlaywrightTimeoutError:
            tops = spectator.eval_on_selector_all(
                ".race-mini", "els => els.map((e) => Math.round(e.getBoundingClientRect().top))"
            )
            raise AssertionError((size, tops)) from None
        width = spectator.evaluate("document.documentElement.scrollWidth")
        assert width <= size["width"], (size, width)

    host_operations.host_end_round(match, User.objects.get(username="hostess"), "test")
    expect(player.locator("#race-ranking")).to_contain_text("Final ranking")
    expect(player.locator(".race-mini")).to_have_count(7)
    expect(player.locator("#match-result")).to_contain_text("Elimination Candidate")
    expect(spectator.locator("#race-ranking")).to_contain_text("Final ranking")
    shoot_both_sizes(player, "race-player-end")
    assert (ARTIFACTS / "race-spectator-phone.png").exists()
    # The replay opens at the end and draws the boards small, side by side, as live.
    spectator.goto(f"/m/{match.public_id}/replay/")
    expect(spectator.locator(".race-mini")).to_have_count(7)
    for size, least in (({"width": 375, "height": 812}, 2), ({"width": 1280, "height": 800}, 4)):
        spectator.set_viewport_size(size)
        tops = spectator.eval_on_selector_all(
            ".race-mini", "els => els.map((e) => Math.round(e.getBoundingClientRect().top))"
        )
        assert tops.count(tops[0]) >= least, ("replay", size, tops)
    shoot_both_sizes(spectator, "race-replay")
