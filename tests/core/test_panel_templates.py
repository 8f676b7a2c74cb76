"""Every game's panels are Jinja2 templates (games/<app>/jinja2/), drawn for every audience of
a short match played by the game's own bots: each audience gets its panels, each seat sees
itself named "(you)" and no one else does, nothing of a template is left undrawn, and no panel
is written out in Python. (That the templates draw the same HTML as the panels they replaced is
benchmarks/panel_corpus.py's job, run before and after a change.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games.core.match.replaying import state_at
from games.core.render.rendering import audiences, render_panel_list, view_of
from tests.bot_matches import TABLES, play

pytestmark = pytest.mark.django_db

CORE = {"match-version", "match-status"}
# The panels each kind of audience gets while a match is live: (a seat, a spectator, the host).
PANELS = {
    "bejeweled-2": (
        {"bj2-status", "bj2-board", "bj2-actions"},
        {"bj2-status", "bj2-board", "bj2-actions"},
        {"bj2-status", "bj2-board", "bj2-actions", "host-panel"},
    ),
    "bejeweled-2-race": (
        {"bj2-status", "bj2-board", "bj2-actions"},
        {"race-head"},
        {"race-head", "race-ranking", "race-seat-0", "race-seat-1", "host-panel"},
    ),
    "bejeweled-dm": (
        {"bjdm-status", "bjdm-board", "bjdm-actions", "bjdm-offer", "bjdm-history"},
        {"bjdm-status", "bjdm-board", "bjdm-actions", "bjdm-offer", "bjdm-history"},
        {"bjdm-status", "bjdm-board", "bjdm-actions", "host-panel"},
    ),
    "glittering-paths": (
        {"gp-status", "gp-board", "gp-draw", "gp-moves", "gp-history"},
        {"gp-status", "gp-board", "gp-draw", "gp-moves", "gp-history"},
        {"gp-status", "gp-board", "gp-draw", "host-panel"},
    ),
    "pointsweeper": (
        {"ps-status", "ps-board", "ps-moves", "ps-pieces", "ps-notebook", "ps-log"},
        {"ps-status", "ps-board", "ps-pieces", "ps-log"},
        {"ps-status", "ps-board", "ps-host-notebooks", "ps-log", "host-panel"},
    ),
    "seven-gem-swap": (
        {"sgs-status", "sgs-board", "sgs-play", "sgs-players"},
        {"sgs-status", "sgs-board", "sgs-players"},
        {"sgs-status", "sgs-board", "sgs-players", "sgs-host", "host-panel"},
    ),
}
# The panel that names the viewer's own seat "(you)".
OWN_SEAT = {
    "bejeweled-2": "bj2-status",
    "bejeweled-dm": "bjdm-status",
    "glittering-paths": "gp-status",
    "pointsweeper": "ps-status",
}


@pytest.fixture(scope="module")
def drawn(django_db_setup, django_db_blocker):
    """Each game's match of 12 events, and every version of it drawn for every audience as a
    live frame's panels: {game: {version: {audience: {panel id: html}}}}."""
    from django.contrib.auth import get_user_model

    from tests.conftest import FakeClock

    drawings = {}
    with django_db_blocker.unblock(), pytest.MonkeyPatch.context() as patch:
        clock = FakeClock()
        patch.setattr("games.core.match.clock.now", clock)
        host = get_user_model().objects.create_user("panels-hostess")
        for game in sorted(TABLES):
            match = play(game, host, clock.advance, events=12, seed=1129).match
            versions = {}
            for version in range(match.version + 1):
                state = state_at(match, version)
                versions[version] = {
                    viewer: dict(
                        render_panel_list(
                            match, view_of(match, viewer, state), version=version, oob=True
                        )
                    )
                    for viewer in audiences(match)
                }
            drawings[game] = versions
            match.delete()
        host.delete()
    return drawings


def test_every_game_has_its_panels_listed_here():
    assert set(PANELS) == set(TABLES)


@pytest.mark.parametrize("game", sorted(PANELS))
def test_every_audience_gets_its_games_panels(drawn, game):
    seat, spectator, host = PANELS[game]
    last = drawn[game][max(drawn[game])]
    for viewer, panels in last.items():
        wanted = host if viewer.is_host else spectator if viewer.seat is None else seat
        assert CORE | wanted <= set(panels), (viewer.audience, sorted(panels))
        if not viewer.is_host:
            assert "host-panel" not in panels


@pytest.mark.parametrize("game", sorted(OWN_SEAT))
def test_a_seat_sees_itself_named_you_and_no_one_else_does(drawn, game):
    panel, checked = OWN_SEAT[game], 0
    for panels_by_viewer in drawn[game].values():
        for viewer, panels in panels_by_viewer.items():
            if 'data-phase="' not in panels.get(panel, ""):
                continue  # not started: no seat is named yet
            assert ("(you)" in panels[panel]) == (viewer.seat is not None), viewer.audience
            checked += 1
    assert checked


@pytest.mark.parametrize("game", sorted(PANELS))
def test_every_panel_is_drawn_whole_with_an_id_and_a_live_frames_swap(drawn, game):
    for panels_by_viewer in drawn[game].values():
        for panels in panels_by_viewer.values():
            for panel_id, html in panels.items():
                assert re.match(rf'<\w+ id="{re.escape(panel_id)}"', html), html[:80]
                assert 'hx-swap-oob="true"' in html.split(">", 1)[0]
                for left in ("{{", "{%", "Undefined", "jinja2"):
                    assert left not in html, (panel_id, left)


def test_no_panel_is_written_out_in_python():
    """Template tags and panel helpers hold no HTML of a panel: panels are templates."""
    root = Path(__file__).resolve().parents[2] / "games"
    helpers = [*root.glob("*/templatetags/*.py"), *root.glob("*/panels.py")]
    for path in helpers:
        text = path.read_text()
        for tag in ("<section", "hx-swap-oob", "<form", "<table", "<div"):
            assert tag not in text, f"{path.relative_to(root)} writes {tag}"
