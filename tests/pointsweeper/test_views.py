"""The Pointsweeper match page: it renders for each seat, a spectator and the host, shows a seat
its own scout results only, and the new-match page creates the game."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest

from games.core.match import host_operations, services
from games.core.models import Match
from games.pointsweeper import engine

pytestmark = pytest.mark.django_db

EC, DMO = 0, 1
NOTE = 'class="ps-note"'


def page(client, match, user=None) -> str:
    client.logout()
    if user is not None:
        client.force_login(user)
    response = client.get(match.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def test_the_chooser_sees_the_order_buttons_and_the_others_do_not(client, ps):
    match, ada, bob, host = ps
    chooser = page(client, match, bob)
    assert 'id="ps-board"' in chooser and 'data-cell="a8"' in chooser
    assert 'class="ps-first"' in chooser and 'data-deadline="' in chooser
    for who in (ada, host, None):
        html = page(client, match, who)
        assert 'id="ps-board"' in html
        assert 'class="ps-first"' not in html


def test_the_player_to_move_gets_the_move_forms_and_the_other_seat_has_them_hidden(client, ps):
    match, ada, bob, _ = ps
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    match.refresh_from_db()
    mover = page(client, match, bob)
    assert '<form data-action="scout" class="ps-scout">' in mover
    assert '<form data-action="pass" class="ps-pass" data-confirm=' in mover
    assert "Waiting for your opponent" not in visible(mover)
    assert 'id="ps-notebook"' in mover and 'class="ps-bank"' in mover
    other = page(client, match, ada)
    # Between its turns a seat's forms stay, hidden, so that its turn coming swaps a few
    # attributes, not the whole panel.
    assert '<form data-action="scout" class="ps-scout" hidden>' in other
    assert '<form data-action="pass" class="ps-pass" hidden data-confirm=' in other
    assert "Waiting for your opponent" in visible(other)
    assert 'id="ps-notebook"' in other
    spectator = page(client, match)
    assert 'data-action="scout"' not in spectator and 'id="ps-notebook"' not in spectator


def visible(html: str) -> str:
    """The page without its hidden elements' opening tags and text up to their next tag."""
    return re.sub(r"<[^>]*\shidden[^>]*>[^<]*", "", html)


def test_a_scout_result_appears_only_on_the_scouting_players_page(client, ps):
    match, ada, bob, host = ps
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    services.submit_action(match, bob, {"type": "scout", "piece": "K", "square": "e4"})
    match.refresh_from_db()
    note = match.state["play"]["notebooks"][str(DMO)][0]
    mine = page(client, match, bob)
    assert NOTE in mine and f"sum <b>{note['sum']}</b>" in mine
    for who in (ada, None):
        html = page(client, match, who)
        assert NOTE not in html
        assert "scouted with K on e4" in html  # the public log
    export = client.get(f"{match.get_absolute_url()}export.json")
    assert export.status_code == 200
    assert '"sum"' not in export.content.decode()


def test_the_new_match_page_creates_a_pointsweeper_match(client, make_user):
    client.force_login(make_user("hostess"))
    assert client.get("/matches/new/pointsweeper/").status_code == 200
    form = {
        "title": "Sweep",
        "seat_count": 2,
        "auto_start": "on",
        "boards": "random",
        "move_seconds": 60,
        "bank_seconds": 120,
        "order_seconds": 60,
        "scout_turns": 3,
        "tie_to": "DMO",
    }
    response = client.post("/matches/new/pointsweeper/", form)
    assert response.status_code == 302
    match = Match.objects.get(title="Sweep")
    assert match.game_key == "pointsweeper"
    assert [seat.role for seat in match.seats.all()] == ["EC", "DMO"]
    assert match.settings["scout_turns"] == 3


def test_after_a_pass_ends_the_board_everyone_sees_it_whole_and_the_result_at_the_end(client, ps):
    match, ada, bob, host = ps
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    services.submit_action(match, bob, {"type": "pass"})
    services.submit_action(match, ada, {"type": "pass"})
    match.refresh_from_db()
    assert match.state["board_no"] == 2 and match.state["phase"] == "order"
    html = page(client, match)
    assert "Board 1 as it was (finished)" in html and "ps-hidden" not in html
    assert "Board 1:" in html  # the finished boards list
    chooser = page(client, match, ada)  # the EC chooses on board 2
    assert 'class="ps-first"' in chooser
    host_operations.host_adjudicate(match, host, {"winner": EC})
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    html = page(client, match, bob)
    assert "Match over" in html and match.result["summary"] in html


def test_the_analysis_of_a_finished_board_is_shown_to_everyone(client, ps):
    match, ada, bob, _ = ps
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    services.submit_action(match, bob, {"type": "pass"})
    services.submit_action(match, ada, {"type": "pass"})
    while services.run_analyses():
        pass
    match.refresh_from_db()
    assert match.state["history"][0]["analysis"] is not None
    for who in (ada, bob, None):
        html = page(client, match, who)
        assert 'id="ps-review"' in html and "passed (worth 0)" in html


def test_the_board_number_is_shown_once(client, ps):
    match, ada, bob, _ = ps
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    match.refresh_from_db()
    for who in (ada, bob, None):
        assert page(client, match, who).count("Board 1 of 3") == 1


def test_the_movers_bank_runs_out_at_the_turn_deadline_after_the_move_time(client, ps):
    match, ada, bob, _ = ps
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    match.refresh_from_db()
    state = match.state
    html = page(client, match, ada)
    move_ends = datetime.fromisoformat(state["turn_started"]) + timedelta(seconds=60)
    assert 'data-clock="move"' in html and f'data-deadline="{move_ends.isoformat()}"' in html
    mover = re.search(r'<div class="ps-player to-move[^"]*" data-seat="1">.*?</div>', html, re.S)
    waiting = re.search(r'<div class="ps-player[^"]*" data-seat="0">.*?</div>', html, re.S)
    assert f'data-runs-out="{state["deadlines"]["turn"]}"' in mover.group(0)
    assert 'data-bank="120.0"' in mover.group(0) and ">2:00<" in mover.group(0)
    assert "data-runs-out" not in waiting.group(0) and ">2:00<" in waiting.group(0)


def test_a_paused_match_shows_the_running_bank_as_it_stood_when_paused(client, ps, clock):
    match, ada, bob, host = ps
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    clock.advance(60 + 9)  # the free minute, then 9 s of the 2:00 bank
    host_operations.host_pause(match, host)
    clock.advance(30)  # the pause stops the bank
    match.refresh_from_db()
    html = page(client, match, ada)
    mover = re.search(r'<div class="ps-player to-move[^"]*" data-seat="1">.*?</div>', html, re.S)
    assert ">1:51<" in mover.group(0) and "data-runs-out" not in mover.group(0)


def test_the_finished_match_lists_the_last_boards_moves_not_no_moves_yet(client, ps):
    match, ada, bob, _ = ps
    users = {EC: ada, DMO: bob}
    while match.state["phase"] != "over":  # three boards: a scout, then both pass
        chooser = users[match.state["chooser"]]
        services.submit_action(match, chooser, {"type": "choose_order", "first": True})
        match.refresh_from_db()
        mover = users[match.state["turn"]]
        services.submit_action(match, mover, {"type": "scout", "piece": "K", "square": "a1"})
        match.refresh_from_db()
        while match.state["phase"] == "play":
            services.submit_action(match, users[match.state["turn"]], {"type": "pass"})
            match.refresh_from_db()
    log = page(client, match, ada).split('id="ps-log"')[1].split("</section>")[0]
    assert "No moves yet" not in log and "Moves on board 3 (finished)" in log
    assert "scouted with K on a1" in log


def test_each_scout_can_be_shown_again_on_the_board(client, ps):
    match, ada, bob, _ = ps
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    services.submit_action(match, bob, {"type": "scout", "piece": "K", "square": "a1"})
    match.refresh_from_db()
    shown = 'class="link ps-show" data-squares="a1 b1 a2 b2" data-origin="a1"'
    assert page(client, match, bob).count(shown) == 2  # the notebook and the moves list
    assert page(client, match, ada).count(shown) == 1  # the moves list only


def test_a_finished_board_lists_both_players_scouts_with_their_results(client, ps):
    match, ada, bob, _ = ps
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    services.submit_action(match, bob, {"type": "scout", "piece": "K", "square": "a1"})
    services.submit_action(match, ada, {"type": "scout", "piece": "Q", "square": "h8"})
    match.refresh_from_db()
    notes = match.state["play"]["notebooks"]
    said = [
        f"{n['piece']} on {n['square']}: sum {n['sum']}, {n['mines']} mine"
        + ("s" if n["mines"] != 1 else "")
        for n in (notes["1"][0], notes["0"][0])
    ]
    assert not any(s in page(client, match) for s in said)
    services.submit_action(match, bob, {"type": "pass"})
    services.submit_action(match, ada, {"type": "pass"})
    match.refresh_from_db()
    html = page(client, match)
    assert 'id="ps-history"' in html and "Board 1: both players passed" in html
    assert all(s in html for s in said)


def test_the_host_sees_both_notebooks_and_what_is_under_each_hidden_square(client, ps):
    match, ada, bob, host = ps
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    services.submit_action(match, bob, {"type": "scout", "piece": "K", "square": "a1"})
    match.refresh_from_db()
    board = engine.parse_board(match.state["boards"][0])
    note = match.state["play"]["notebooks"]["1"][0]
    html = page(client, match, host)
    assert 'id="ps-host-notebooks"' in html and f"sum <b>{note['sum']}</b>" in html
    assert f'aria-label="e4, hidden {board["e4"]}"' in html and "ps-truth" in html
    for who in (ada, bob, None):
        other = page(client, match, who)
        assert "ps-host-notebooks" not in other and "ps-truth" not in other


def test_the_move_log_says_each_kind_of_move_with_its_player_and_escapes_names():
    """The log panel's items (the log_entries macro of pointsweeper/_log.html): a scout with its
    squares to show, a claim's mines or points, a pass and a pass the clock made."""
    from django.template import engines

    log_entries = engines["jinja2"].env.get_template("pointsweeper/_log.html").module.log_entries

    log = [
        {"seat": 0, "type": "scout", "piece": "N1", "square": "b1", "squares": ["a3", "c3"]},
        {"seat": 1, "type": "claim", "piece": "R1", "start": "a1", "end": "a4", "mines": 1},
        {"seat": 0, "type": "claim", "piece": "B1", "start": "c1", "end": "e3", "points": 1},
        {"seat": 1, "type": "claim", "piece": "Q", "start": "d1", "end": "d2", "points": 0},
        {"seat": 0, "type": "pass", "reason": "passed"},
        {"seat": 1, "type": "pass", "reason": "time"},
    ]
    html = log_entries(log, ["<Ada>", "Bob"])
    items = [re.sub(r"\s+", " ", item).strip() for item in html.split("</li>")[:-1]]
    assert items == [
        '<li class="ps-entry ps-scout">&lt;Ada&gt; scouted with N1 on b1 <button type="button" '
        'class="link ps-show" data-squares="a3 c3" data-origin="b1" aria-pressed="false">'
        "show</button>",
        '<li class="ps-entry ps-claim">Bob claimed with R1 a1–a4: 1 mine',
        '<li class="ps-entry ps-claim">&lt;Ada&gt; claimed with B1 c1–e3: 1 point',
        '<li class="ps-entry ps-claim">Bob claimed with Q d1–d2: 0 points',
        '<li class="ps-entry ps-pass">&lt;Ada&gt; passed',
        '<li class="ps-entry ps-pass">Bob ran out of time (passed)',
    ]
