"""A click on the board while a move is animated is an input like any other, in every game: the
animation ends (its last frame: the board as the server has it) and the click then does what it
would have done a moment later (static/js/grid.js). Each game's page is made to animate by a move
the way its players see one (the opponent's path, a cascade, a race's own cascade, the
opponent's scout, a round's resolution, a replayed proof); the page itself clicks once its own
step player has been playing for two animation frames (slow speed, so a frame lasts at least a
quarter of a second), never after a fixed time."""

from __future__ import annotations

import json
import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.bejeweled2 import engine as bj2_engine
from games.bejeweled2 import flow as bj2_flow
from games.bejeweled_dm import engine as dm_engine
from games.core.game.registry import get_game
from games.core.match import seating, services
from games.core.models import Match
from games.glittering_paths import engine as gp_engine
from tests.browser.pages import settled
from tests.browser.test_pointsweeper import NO_MINE_ON_RANK_1

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_slow(login_context, name: str, match: Match):
    page = login_context(name)
    page.goto(match.get_absolute_url())
    expect(page.locator("#connection")).to_have_text("connected")
    page.evaluate("gemSteps.setSpeed('slow')")
    return page


def click_when_animating(page, target: str) -> None:
    """Once the page's step player has played two animation frames of its next run, the page
    clicks the cell ``target`` selects (a JS expression, read at that moment); ``window.clicked``
    resolves to {cell, playing} (whether the run was still playing at the click)."""
    page.evaluate(
        """(target) => { window.clicked = new Promise((resolve) => {
             const observer = new MutationObserver(() => {
               if (!window.gemSteps.playing) return;
               observer.disconnect();
               requestAnimationFrame(() => requestAnimationFrame(() => {
                 const element = document.querySelector(eval(target));
                 const playing = window.gemSteps.playing;
                 element.click();
                 resolve({cell: element.dataset.cell, playing: playing});
               }));
             });
             observer.observe(document.documentElement,
               {attributes: true, attributeFilter: ["class"]}); }); }""",
        target,
    )


def told(page) -> None:
    """A move made here, in the test's process, reaches the live worker's database but not its
    channel layer (each process has its own): the page asks for what it missed with a ping, as
    it does by itself every 10 s."""
    page.evaluate("gemArena.sendMessage({type: 'ping'})")


def clicked(page) -> str:
    done = settled(page, "window.clicked")
    assert done["playing"], done
    return done["cell"]


def test_a_click_during_an_animation_acts_in_every_game(login_context, make_user):
    host = make_user("hostess")

    def seated_match(game_key: str, *names: str, settings: dict) -> tuple[Match, list, None]:
        """A started match of ``game_key``, a new user of each name in its seats in order."""
        users = [make_user(name) for name in names]
        roles = [*get_game(game_key).roles, *[""] * len(names)][: len(names)]
        match = seating.create_match(
            host=host, game_key=game_key, title="t", settings=settings, roles=roles
        )
        for user, seat in zip(users, match.seats.order_by("index"), strict=True):
            seating.take_seat(match, user, seat.invite_token)
        return Match.objects.with_seats().get(pk=match.pk), users, None

    # Glittering Paths: the opponent's path animates; the first cell of ours counts.
    match, (erin, _), _ = seated_match(
        "glittering-paths",
        "erin",
        "dmitri",
        settings={"race_seconds": 600, "turn_seconds": 600, "interval_seconds": 600},
    )
    _, path = gp_engine.best_path(match.state["board"], "red")
    free = next(f"{c}{r}" for r in range(1, 9) for c in "ABCDEFGH" if f"{c}{r}" not in path)
    dmo = open_slow(login_context, "dmitri", match)
    click_when_animating(dmo, f"'#gp-board [data-cell=\"{free}\"]'")
    services.submit_action(match, erin, {"type": "path", "cells": path})
    told(dmo)
    assert clicked(dmo) == free
    expect(dmo.locator("#gp-draw .gp-path-cells")).to_have_text(free)

    # Bejeweled 2: a cascade plays; a quick next swap (a gem picked during it, then its
    # neighbour) is made.
    match, (ada,), _ = seated_match("bejeweled-2", "ada", settings={})
    first = bj2_engine.legal_moves(match.state["board"])[0]
    action = {"type": "swap", "a": first[0], "b": first[1]}
    after = bj2_flow.act(match.state, 0, action, timezone.now()).state["board"]
    second = bj2_engine.legal_moves(after)[0]
    page = open_slow(login_context, "ada", match)
    click_when_animating(page, f"'#bj2-board [data-cell=\"{second[0]}\"]'")
    services.submit_action(match, ada, action)
    told(page)
    assert clicked(page) == second[0]
    page.locator(f'#bj2-board [data-cell="{second[1]}"]').click()
    expect(page.locator("#bj2-status .bj2-moves b")).to_have_text("2")
    match.refresh_from_db()
    assert match.state["moves"] == 2

    # The Bejeweled 2 race: our own board's cascade plays; a gem picked meanwhile is picked.
    race = {"mode": "classic_time", "minutes": 20, "spectators": "live"}
    match, (racer, _), _ = seated_match("bejeweled-2-race", "racer1", "racer2", settings=race)
    own = match.state["boards"]["0"]["board"]
    first = bj2_engine.legal_moves(own)[0]
    page = open_slow(login_context, "racer1", match)
    click_when_animating(page, "'#bj2-board [data-cell=\"A1\"]'")
    services.submit_action(match, racer, {"type": "swap", "a": first[0], "b": first[1]})
    told(page)
    assert clicked(page) == "A1"
    expect(page.locator('#bj2-board [data-cell="A1"]')).to_have_class(re.compile(r"\bselected\b"))

    # Pointsweeper: the opponent's scout plays; the square clicked fills the scout's field.
    settings = {
        "scout_turns": 0,
        "boards": "pasted",
        **dict.fromkeys(("board_1", "board_2", "board_3"), NO_MINE_ON_RANK_1),
    }
    match, (erin, dmitri), _ = seated_match("pointsweeper", "ps1", "ps2", settings=settings)
    services.submit_action(match, dmitri, {"type": "choose_order", "first": True})
    page = open_slow(login_context, "ps1", match)
    click_when_animating(page, "'#ps-board [data-cell=\"a1\"]'")
    services.submit_action(match, dmitri, {"type": "scout", "piece": "K", "square": "e4"})
    told(page)
    assert clicked(page) == "a1"
    expect(page.locator("form.ps-scout input[name=square]")).to_have_value("a1")

    # Seven Gem Swap: round 2 resolves; one of our gems clicked meanwhile is round 3's gem.
    settings = {"bid_seconds": 3600, "round_seconds": 3600}
    match, (ada, bob), _ = seated_match("seven-gem-swap", "sgs1", "sgs2", settings=settings)
    services.submit_action(match, ada, {"type": "bid", "bid": -4, "colours": "ROY"})
    services.submit_action(match, bob, {"type": "bid", "bid": 0, "colours": "GBR"})
    for round_no in (1, 2):
        match.refresh_from_db()
        board = match.state["board"].replace("\n", "")
        for user, colour in ((ada, "R"), (bob, "G")):
            index = board.index(colour)
            gem = "ABCDEFGHIJ"[index % 10] + str(index // 10 + 1)
            action = {"type": "submit", "round": round_no, "gem": gem, "moves": ""}
            if round_no == 2:
                action["card"] = colour
            if (round_no, colour) == (2, "G"):
                page = open_slow(login_context, "sgs1", match)
                own_gem = """(() => { const g = gemArena.view().game;
                  const i = g.board.replace(/\\n/g, "").indexOf(g.me.colour);
                  const name = "ABCDEFGHIJ"[i % 10] + (Math.floor(i / 10) + 1);
                  return `[data-grid="sgs"] [data-cell="${name}"]`; })()"""
                click_when_animating(page, own_gem)
            services.submit_action(match, user, action)
    told(page)
    gem = clicked(page)
    expect(page.locator("#sgs-play .sgs-gem-name")).to_have_text(gem)

    # The death match: a proof replayed while the prover builds theirs; the gem clicked
    # meanwhile is the proof's active cell.
    quick = {
        "first_offer": "chosen",
        "offered_starters": ["Pick"],
        "offered_passives": ["Bend"],
        "offered_actives": ["Plus"],
    }
    match, (erin, dmitri), _ = seated_match("bejeweled-dm", "dm1", "dm2", settings=quick)
    services.submit_action(match, erin, {"type": "claim", "count": 1})
    services.submit_action(match, dmitri, {"type": "pass"})
    match.refresh_from_db()
    board = match.state["board"]
    steps = dm_engine.resolve(board, "Plus A7; Bend; Pick A7").steps
    rows = board.splitlines()
    gem = next(
        f"{c}{r + 1}"
        for r in range(len(rows))
        for i, c in enumerate("ABCDEFGH")
        if rows[r][i] not in "#." and f"{c}{r + 1}" != "A7"
    )
    page = open_slow(login_context, "dm1", match)
    expect(page.locator("#bjdm-proof")).to_be_visible()
    click_when_animating(page, f"'#bjdm-board [data-cell=\"{gem}\"]'")
    page.evaluate(
        "([board, steps]) => bejeweledDm.play(board, steps)", [board, json.loads(json.dumps(steps))]
    )
    assert clicked(page) == gem
    expect(page.locator("#bjdm-actions .b-active-cell")).to_have_text(gem)
