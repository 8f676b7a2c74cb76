"""Glittering Paths pages through Django's test client: the match page for a player, a spectator
and the host; the panels; the new-match page; the replay."""

from __future__ import annotations

import re

import pytest

from games.core.game.gamedef import Viewer
from games.core.match import deadlines, host_operations, seating, services
from games.core.models import Match
from games.core.render.rendering import render_panels, view_of
from games.glittering_paths import engine

pytestmark = pytest.mark.django_db

TINY = "RSG\nLRS"
TINY_BOARDS = "\n\n".join([TINY] * 3)


@pytest.fixture
def live_match(clock, make_user):
    host, rita, sam = make_user("hostess"), make_user("rita"), make_user("sam")
    match = seating.create_match(
        host=host,
        game_key="glittering-paths",
        title="Final",
        settings={"boards": TINY_BOARDS, "interval_seconds": 30},
        roles=["EC", "DMO"],
    )
    seats = list(match.seats.all())
    seating.take_seat(match, rita, seats[0].invite_token)
    seating.take_seat(match, sam, seats[1].invite_token)
    match.refresh_from_db()
    return match, rita, sam, host


def board_cells(html: str) -> list[str]:
    board = html[html.index('data-grid="board"') :]
    board = board[: board.index("</table>")]
    return re.findall(r'data-cell="([A-Z]\d+)"', board)


def test_a_player_sees_the_board_the_drawing_controls_and_the_race_clock(client, live_match):
    match, rita, *_ = live_match
    client.force_login(rita)
    html = client.get(match.get_absolute_url()).content.decode()
    assert board_cells(html) == ["A1", "B1", "C1", "A2", "B2", "C2"]
    assert 'aria-label="A1, ruby (red)"' in html
    assert "Race: draw your path" in html and 'data-gp="submit"' in html
    assert 'data-action="agree_end"' in html
    assert 'data-action="pass"' not in html  # no one passes in the race
    assert "Rita (you)" in html
    assert "Race clock" in html and "data-deadline=" in html
    for asset in ("js/grid.js", "js/steps.js", "js/glittering_paths.js", "glittering_paths.css"):
        assert asset in html
    assert 'id="match-view"' in html


def test_a_spectator_sees_the_board_without_controls(client, live_match):
    match, *_ = live_match
    html = client.get(match.get_absolute_url()).content.decode()
    assert len(board_cells(html)) == 6
    assert "data-action=" not in html and 'data-gp="submit"' not in html
    assert "You are watching" in html and "Race for the first move" in html


def test_the_host_sees_the_seats_drafts(client, live_match):
    match, rita, sam, host = live_match
    services.save_draft(match, rita, {"cells": ["A1", "B1"]})
    client.force_login(host)
    html = client.get(match.get_absolute_url()).content.decode()
    assert "Paths being drawn (only you see them)" in html and "A1 B1" in html
    client.force_login(sam)
    assert "A1 B1" not in client.get(match.get_absolute_url()).content.decode()


def test_a_player_reloading_gets_their_draft_and_its_problem_back(client, live_match):
    match, rita, *_ = live_match
    services.save_draft(match, rita, {"cells": ["A1", "C1"]})
    client.force_login(rita)
    html = client.get(match.get_absolute_url()).content.decode()
    assert "A1 → C1" in html
    assert 'class="gp-problem broken"' in html and "✗ A1 and C1 are not side by side" in html


def test_a_draft_checked_on_an_older_board_is_checked_again_not_shown_as_it_was(
    client, clock, make_user
):
    host, rita, sam = make_user("hostess"), make_user("rita"), make_user("sam")
    match = seating.create_match(
        host=host, game_key="glittering-paths", title="t", settings={}, roles=["EC", "DMO"]
    )
    for user, seat in zip([rita, sam], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    match.refresh_from_db()
    board = match.state["board"]
    kept = services.save_draft(match, sam, {"cells": engine.best_path(board, "blue")[1]})
    assert kept["verdict"] == "A legal path: submit it."
    red = engine.best_path(board, "red")[1]
    services.submit_action(match, rita, {"type": "path", "cells": red, "turn": 1})
    client.force_login(sam)
    html = client.get(match.get_absolute_url()).content.decode()
    line = re.search(r'<p class="gp-problem[^"]*"[^>]*>[^<]*</p>', html).group(0)
    assert 'class="gp-problem pending"' in line and "checking…" in line


def test_after_a_path_the_mover_is_named_with_the_score_and_the_round_result(client, live_match):
    match, rita, sam, _ = live_match
    services.submit_action(match, rita, {"type": "path", "cells": ["A1", "B1", "B2"], "turn": 1})
    html = client.get(match.get_absolute_url()).content.decode()
    assert "won the race with" in html and '<b class="score">2</b>' in html
    assert "Round 1: totals 2.00 – 0.00" in html
    # The round's board and analysis are not on the page: they come when the round is opened.
    assert 'data-grid="analysis-1"' not in html
    round_url = f"/m/{match.public_id}/glittering-paths/round/1/"
    assert f'hx-get="{round_url}"' in html and f'href="{round_url}"' in html


def test_a_finished_round_opened_shows_its_board_then_every_turn_beside_the_best(
    client, live_match
):
    match, rita, sam, _ = live_match
    services.submit_action(match, rita, {"type": "path", "cells": ["A1", "B1", "B2"], "turn": 1})
    round_url = f"/m/{match.public_id}/glittering-paths/round/1/"
    opened = client.get(round_url, headers={"HX-Request": "true"}).content.decode()
    assert 'data-grid="analysis-1"' in opened and "<html" not in opened
    assert "Finding the best path of every turn" in opened
    services.run_analyses()
    opened = client.get(round_url, headers={"HX-Request": "true"}).content.decode()
    assert "Finding the best path" not in opened
    best = re.search(r'<button[^>]*data-turn="1" data-which="best"[^>]*>', opened).group(0)
    assert 'data-cells="A1 B1 B2"' in best and 'data-score="2"' in best
    row = re.search(r'<tr class="gp-red matched" data-turn="1"[^>]*>', opened).group(0)
    assert 'data-name="Rita"' in row and 'data-board="RSG\nLRS"' in row
    # Without a script, the link opens the same round as a page.
    page = client.get(round_url).content.decode()
    assert "<html" in page and 'data-grid="analysis-1"' in page


def test_a_round_not_finished_or_of_another_game_is_not_found(client, live_match, make_user):
    match, *_ = live_match
    assert client.get(f"/m/{match.public_id}/glittering-paths/round/1/").status_code == 404
    other = seating.create_match(
        host=make_user("other"),
        game_key="bejeweled-dm",
        title="t",
        settings={},
        roles=["EC", "DMO"],
    )
    assert client.get(f"/m/{other.public_id}/glittering-paths/round/1/").status_code == 404


def test_when_it_is_not_your_turn_you_see_who_is_moving(client, make_user, clock):
    host, rita, sam = make_user("h2"), make_user("rita"), make_user("sam")
    match = seating.create_match(
        host=host, game_key="glittering-paths", title="t", settings={}, roles=["EC", "DMO"]
    )
    for user, seat in zip([rita, sam], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    clock.advance(121)
    deadlines.fire_due_deadlines()
    match.refresh_from_db()
    mover = match.state["turn"]
    waiting = [rita, sam][1 - mover]
    client.force_login(waiting)
    html = client.get(match.get_absolute_url()).content.decode()
    assert "is moving" in html
    # The drawing controls wait hidden for the player's turn (a move's frame shows them).
    assert re.search(r'<div class="gp-drawing" hidden[^>]*>', html)
    assert re.search(r'<p class="hint" hidden>Click your cells', html)
    assert "a random draw gave" in html
    client.force_login([rita, sam][mover])
    html = client.get(match.get_absolute_url()).content.decode()
    assert 'data-action="pass"' in html and 'name="turn" value="1"' in html


def test_every_panel_has_an_id_and_swaps_out_of_band(live_match):
    match, *_ = live_match
    view = view_of(match, Viewer.spectator())
    html = render_panels(match, view, version=match.version, oob=True)
    tops = re.findall(r'^<section id="(gp-[a-z]+)"[^>]*hx-swap-oob="true"', html, re.M)
    assert tops == ["gp-status", "gp-board", "gp-draw", "gp-moves", "gp-history"]


def test_the_host_creates_a_match_on_the_new_match_page(client, make_user):
    client.force_login(make_user("hostess"))
    listing = client.get("/matches/new/").content.decode()
    assert "Glittering Paths" in listing
    page = client.get("/matches/new/glittering-paths/").content.decode()
    assert "Race for the first move" in page and "Your own boards" in page
    response = client.post(
        "/matches/new/glittering-paths/",
        {
            "title": "Cup final",
            "seat_count": 2,
            "auto_start": "on",
            "race_seconds": 90,
            "turn_seconds": 45,
            "interval_seconds": 10,
            "board_area": 48,
            "boards": "",
            "tie_to": "EC",
        },
    )
    assert response.status_code == 302
    match = Match.objects.get(title="Cup final")
    assert match.game_key == "glittering-paths"
    assert match.settings["turn_seconds"] == 45 and match.settings["tie_to"] == "EC"
    assert [seat.role for seat in match.seats.all()] == ["EC", "DMO"]


def test_a_broken_pasted_board_is_refused_on_the_new_match_page(client, make_user):
    client.force_login(make_user("hostess"))
    response = client.post(
        "/matches/new/glittering-paths/",
        {
            "seat_count": 2,
            "race_seconds": 90,
            "turn_seconds": 45,
            "interval_seconds": 10,
            "board_area": 64,
            "boards": "RSG\nLRS",
            "tie_to": "DMO",
        },
    )
    assert response.status_code == 200
    assert "give exactly 3 boards" in response.content.decode()
    assert not Match.objects.exists()


def test_the_host_may_seat_a_practice_bot_on_the_match_page(client, make_user):
    host = make_user("hostess")
    match = seating.create_match(
        host=host, game_key="glittering-paths", title="Practice", settings={}, roles=["EC", "DMO"]
    )
    client.force_login(host)
    page = client.get(match.get_absolute_url()).content.decode()
    assert '<option value="best"' in page and '<option value="casual"' in page
    client.post(f"{match.get_absolute_url()}seat/1/bot/", {"level": "casual"})
    seat = match.seats.get(index=1)
    assert seat.bot_level == "casual"


def test_the_replay_pages_render_before_and_after_the_start(client, live_match):
    match, rita, sam, host = live_match
    services.submit_action(match, rita, {"type": "path", "cells": ["A1", "B1", "B2"], "turn": 1})
    host_operations.host_adjudicate(match, host, {"winner": 0})
    match.refresh_from_db()
    before = client.get(f"{match.get_absolute_url()}replay/?v=1").content.decode()
    assert "has not started yet" in before
    after = client.get(f"{match.get_absolute_url()}replay/?v={match.version}").content.decode()
    assert len(board_cells(after)) == 6
    assert "the host awarded the match" in after
