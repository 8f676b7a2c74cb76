"""Every game's match page as a seated player sees it on a phone (375x812) and a desktop
(1280x800): no sideways scroll, the whole board on the first screen and the panel holding the
player's main action control starting on it (the control itself on the desktop's first screen),
every running clock of the game on the first screen,
the coordinates round every board, cells big enough to touch, no serious or critical axe-core
violation anywhere on the page, and a screenshot each
(test-artifacts/page-<game>-<size>.png, the whole page in ...-full.png, the figures in .json)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import expect

from games.core.match import seating
from games.core.models import Match
from games.glittering_paths import engine as glittering_paths_engine
from tests.browser.pages import (
    ARTIFACTS,
    DESKTOP,
    PHONE,
    assert_coordinates_on_every_board,
    serious_axe_violations,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = {"375x812": PHONE, "1280x800": DESKTOP}


@dataclass(frozen=True)
class Game:
    key: str
    roles: list[str]
    settings: dict[str, Any]
    player: str  # the seated player whose page is checked
    board: str  # the board's grid
    # The game's main control (it may wait, disabled, for a path or a sequence); when None, the
    # first enabled form[data-action] submit button.
    control: str | None


GAMES = [
    Game(
        "bejeweled-dm",
        ["EC", "DMO"],
        {"pick_seconds": 300},
        "erin",
        "#bjdm-board [data-grid]",
        None,
    ),
    Game("bejeweled-2", [""], {}, "erin", "#bj2-board [data-grid]", None),
    Game(
        "bejeweled-2-race",
        ["", ""],
        {"mode": "classic_time", "minutes": 60},
        "erin",
        "#bj2-board [data-grid]",
        None,
    ),
    Game(
        "glittering-paths",
        ["EC", "DMO"],
        # The tallest shape of the default area (10 rows of 7): the hardest to fit on a phone.
        {
            "race_seconds": 600,
            "turn_seconds": 600,
            "interval_seconds": 600,
            "boards": "\n\n".join(
                glittering_paths_engine.format_board(
                    glittering_paths_engine.generate_board(seed, round_no, 10, 7)
                )
                for seed, round_no in ((11, 1), (12, 2), (13, 3))
            ),
        },
        "erin",
        "#gp-board [data-grid]",
        '[data-gp="submit"]',
    ),
    Game(
        "pointsweeper",
        ["EC", "DMO"],
        {"scout_turns": 0},
        "dmitri",  # the DMO chooses who moves first
        "#ps-board [data-grid]",
        "button.ps-first",
    ),
    Game(
        "seven-gem-swap",
        ["", ""],
        {"bid_seconds": 3600, "round_seconds": 3600},
        "erin",
        "#sgs-board [data-grid]",
        ".sgs-bid-form button[type=submit]",
    ),
]


def live_match(game: Game, make_user: Any) -> Match:
    """Created and seated through the services as a host would: it starts once every seat is
    taken (a one-seat game at once)."""
    host = make_user("host1")
    players = [make_user(name) for name in ("erin", "dmitri")[: len(game.roles)]]
    match = seating.create_match(
        host=host,
        game_key=game.key,
        title=f"Page check · {game.key}",
        settings=game.settings,
        roles=game.roles,
    )
    for user, seat in zip(players, match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    match.refresh_from_db()
    return match


def measure(page: Any, game: Game) -> dict[str, Any]:
    """From the top of the page: the sideways overflow, the board's box, the main control's (the
    game's own, else the first enabled form[data-action] submit button) and its panel's."""
    page.evaluate("window.scrollTo(0, 0)")
    return page.evaluate(
        """([board, control]) => {
          const shown = (el) => el && el.getClientRects().length > 0;
          const enabled = (el) => shown(el) && !el.disabled;
          const box = (el) => {
            if (!el) return null;
            const r = el.getBoundingClientRect();
            return {top: r.top + scrollY, bottom: r.bottom + scrollY, text: el.textContent.trim()};
          };
          const submits = [...document.querySelectorAll(
            'form[data-action] button[type=submit], form[data-action] button:not([type])')];
          const main = control
            ? [...document.querySelectorAll(control)].find(shown)
            : submits.find(enabled);
          const clocks = [...document.querySelectorAll(
            '#match-root .clock, #match-root [data-deadline]')].filter(shown).map(box);
          return {
            clocks: clocks,
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: window.innerWidth,
            height: window.innerHeight,
            board: box(document.querySelector(board)),
            control: box(main),
            panel: box(main && main.closest('section')),
          };
        }""",
        [game.board, game.control],
    )


@pytest.mark.parametrize("game", GAMES, ids=[game.key for game in GAMES])
def test_a_seated_players_page_fits_a_phone_and_a_desktop_and_passes_axe(
    game, login_context, make_user
):
    match = live_match(game, make_user)
    page = login_context(game.player)
    ARTIFACTS.mkdir(exist_ok=True)
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
        expect(page.locator(game.board)).to_be_visible()
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(ARTIFACTS / f"page-{game.key}-{size}.png"))
        page.screenshot(path=str(ARTIFACTS / f"page-{game.key}-{size}-full.png"), full_page=True)
        found = measure(page, game)
        found["boards"] = assert_coordinates_on_every_board(page)
        (ARTIFACTS / f"page-{game.key}-{size}.json").write_text(json.dumps(found, indent=1))
        where = f"{game.key} at {size}: {found}"
        assert found["scrollWidth"] <= found["innerWidth"], f"sideways scroll, {where}"
        assert found["board"]["bottom"] <= found["height"], f"board below the fold, {where}"
        assert found["control"] is not None, f"no main control, {where}"
        assert found["panel"]["top"] < found["height"], f"action panel below the fold, {where}"
        for clock in found["clocks"]:
            assert clock["bottom"] <= found["height"], f"a clock off the first screen, {where}"
        if size == "1280x800":
            assert found["control"]["top"] < found["height"], f"control below the fold, {where}"
        # A cell is a touch target: 36 px or more on a phone for a board of eight rows and
        # columns (the board and the main control share the first screen), bigger on a desktop
        # (a board of ten rows is held to the screen's height).
        main = found["boards"][0]
        small = len(main["letters"]) <= 8 and len(main["numbers"]) <= 8
        least = (36 if small else 29) if size == "375x812" else (46 if small else 34)
        assert main["cell"] >= least, f"cells of {main['cell']} px, {where}"
        assert serious_axe_violations(page) == [], f"{game.key} at {size}"


def test_the_host_sees_the_invites_open_before_the_start_and_a_player_sees_them_folded(
    login_context, make_user
):
    host, erin = make_user("host1"), make_user("erin")
    match = seating.create_match(
        host=host, game_key="bejeweled-dm", title="Open table", settings={}, roles=["EC", "DMO"]
    )
    seating.take_seat(match, erin, match.seats.get(index=0).invite_token)
    host_page, player = login_context("host1"), login_context("erin")
    for page in (host_page, player):
        page.set_viewport_size(SIZES["375x812"])
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
    invite = host_page.locator('.invites [data-seat="1"]')
    expect(invite.locator("code")).to_contain_text(match.seats.get(index=1).get_invite_url())
    expect(invite.get_by_role("button", name="Copy")).to_be_visible()
    host_page.screenshot(path=str(ARTIFACTS / "page-host-open-375x812.png"))
    found = host_page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert found[0] <= found[1], f"sideways scroll {found}"
    assert serious_axe_violations(host_page) == []
    expect(player.locator("#spectator-link")).to_be_hidden()
    player.get_by_text("Invite & share").click()
    expect(player.locator("#spectator-link")).to_be_visible()
