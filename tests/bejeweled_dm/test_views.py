"""The death match's pages through Django's test client: the match page for players and
spectators, and the host's settings form."""

from __future__ import annotations

import json
import re

import pytest

from games.core.match import host_operations, seating, services
from games.core.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def live_match(clock, make_user):
    host, ada, bob = make_user("hostess"), make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host, game_key="bejeweled-dm", title="Final", settings={}, roles=["EC", "DMO"]
    )
    seats = list(match.seats.all())
    seating.take_seat(match, ada, seats[0].invite_token)
    seating.take_seat(match, bob, seats[1].invite_token)
    match.refresh_from_db()
    return match, ada, bob, host


def grid_cells(html: str) -> list[str]:
    """The board's cells: buttons a keyboard can reach (one tab stop), named by their cell."""
    return re.findall(r'<td><button data-cell="(\w\d)"(?: tabindex="0")?></button></td>', html)


def shown_board(html: str) -> str:
    """The board the page's script paints the cells from: the text in the page's view."""
    found = re.search(r'<script id="match-view" type="application/json">(.*?)</script>', html)
    assert found
    return json.loads(found.group(1))["game"]["board"]["text"]


def test_the_match_page_shows_a_player_the_board_and_the_claim_form(client, live_match):
    match, ada, *_ = live_match
    client.force_login(ada)
    html = client.get(match.get_absolute_url()).content.decode()
    assert len(grid_cells(html)) == 56
    assert grid_cells(html)[:3] == ["A1", "B1", "C1"]
    assert shown_board(html) == match.state["board"]
    assert 'data-action="claim"' in html
    assert 'id="bjdm-claim-count"' in html
    assert "Ada (you)" in html
    assert "Round clock" in html and "data-deadline=" in html
    assert "js/bejeweled_dm.js" in html and 'id="match-view"' in html


def test_the_match_page_shows_a_spectator_the_board_without_controls(client, live_match):
    match, *_ = live_match
    html = client.get(match.get_absolute_url()).content.decode()
    assert len(grid_cells(html)) == 56
    assert "data-action=" not in html
    assert "You are watching" in html
    assert "Waiting for a claim" in html


def test_every_panel_has_an_id_and_swaps_out_of_band(live_match):
    from games.core.game.gamedef import Viewer
    from games.core.render.rendering import render_panels, view_of

    match, *_ = live_match
    view = view_of(match, Viewer.spectator())
    html = render_panels(match, view, version=match.version, oob=True)
    tops = re.findall(r'^<section id="(bjdm-[a-z]+)"[^>]*hx-swap-oob="true"', html, re.M)
    assert tops == ["bjdm-status", "bjdm-board", "bjdm-actions", "bjdm-offer", "bjdm-history"]


def test_the_prover_sees_the_proof_builder_and_the_opponent_does_not(client, live_match):
    match, ada, bob, _ = live_match
    services.submit_action(match, ada, {"type": "claim", "count": 4})
    services.submit_action(match, bob, {"type": "pass"})
    client.force_login(ada)
    mine = client.get(match.get_absolute_url()).content.decode()
    assert '<div class="bjdm-proof-box">' in mine and "bjdm-builder" in mine
    assert "bjdm-grid clickable" in mine
    client.force_login(bob)
    theirs = client.get(match.get_absolute_url()).content.decode()
    # Bob's builder waits hidden (he is not proving this round).
    assert '<div class="bjdm-proof-box" hidden>' in theirs
    assert "Ada is showing proof" in theirs


def test_the_host_sets_up_a_match_with_a_chosen_offer_and_timers(client, make_user):
    client.force_login(make_user("hostess"))
    page = client.get("/matches/new/bejeweled-dm/").content.decode()
    assert "Round 1 powerups" in page and "Counterclaim window" in page
    response = client.post(
        "/matches/new/bejeweled-dm/",
        {
            "title": "Cup final",
            "seat_count": 2,
            "auto_start": "on",
            "first_offer": "chosen",
            "offered_starters": ["Swap", "Pick"],
            "offered_passives": ["Bend"],
            "offered_actives": ["Plus"],
            "claim_window_seconds": 20,
            "proof_seconds": 90,
            "round_seconds": 300,
            "pick_seconds": 45,
            "no_claim_round_to": "DMO",
        },
    )
    assert response.status_code == 302
    match = Match.objects.get(title="Cup final")
    assert match.settings["offered_starters"] == ["Swap", "Pick"]
    assert match.settings["proof_seconds"] == 90
    assert [seat.role for seat in match.seats.all()] == ["EC", "DMO"]


def test_a_chosen_offer_without_every_type_is_refused_by_the_form(client, make_user):
    client.force_login(make_user("hostess"))
    response = client.post(
        "/matches/new/bejeweled-dm/",
        {
            "seat_count": 2,
            "first_offer": "chosen",
            "offered_starters": ["Swap"],
            "claim_window_seconds": 30,
            "proof_seconds": 120,
            "round_seconds": 600,
            "pick_seconds": 60,
            "no_claim_round_to": "DMO",
        },
    )
    assert response.status_code == 200
    assert "choose at least one" in response.content.decode()
    assert not Match.objects.exists()


def test_the_replay_pages_render_before_and_after_the_start(client, live_match):
    match, ada, bob, host = live_match
    services.submit_action(match, ada, {"type": "claim", "count": 4})
    host_operations.host_adjudicate(match, host, {"winner": 1, "scope": "match"})
    match.refresh_from_db()
    before = client.get(f"{match.get_absolute_url()}replay/?v=1").content.decode()
    assert "has not started yet" in before
    after = client.get(f"{match.get_absolute_url()}replay/?v={match.version}").content.decode()
    assert len(grid_cells(after)) == 56
    assert "awarded the match to Bob" in after


PLUS = {
    "first_offer": "chosen",
    "offered_starters": ["Pick"],
    "offered_passives": ["Bend"],
    "offered_actives": ["Plus"],
}


def both_pick(match, ada, bob) -> None:
    allowed = Match.objects.get(pk=match.pk).state["allowed"]
    choice = {kind: names[0] for kind, names in allowed.items()}
    for user in (ada, bob):
        services.submit_action(match, user, {"type": "pick", **choice})


@pytest.fixture
def proved_round(clock, make_user):
    """Round 1 claimed, passed and proved by Ada: the players are picking."""
    host, ada, bob = make_user("hostess"), make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host, game_key="bejeweled-dm", title="Final", settings=PLUS, roles=["EC", "DMO"]
    )
    seats = list(match.seats.all())
    seating.take_seat(match, ada, seats[0].invite_token)
    seating.take_seat(match, bob, seats[1].invite_token)
    services.submit_action(match, ada, {"type": "claim", "count": 5})
    services.submit_action(match, bob, {"type": "pass"})
    services.submit_action(match, ada, {"type": "proof", "proof": "Plus D4; Bend; Pick D4"})
    return match, ada, bob, host


def board_panel(page: str) -> str:
    return page[page.index('id="bjdm-board"') : page.index('id="bjdm-actions"')]


def test_the_result_animation_has_a_speed_setting_a_skip_and_the_pick_clock(client, proved_round):
    match, ada, _, _ = proved_round
    client.force_login(ada)
    page = client.get(match.get_absolute_url()).content.decode()
    board = board_panel(page)
    assert "Replay the animation" in board and "data-steps-skip" in board
    assert "data-steps-speed" in page  # the speed of every game's animations, in the banner
    # The pick clock counts down during the animation, and says so.
    assert "Picking time" in board and "(already running)" in board
    assert "it starts when the animation ends" not in board


def test_last_rounds_animation_leaves_with_the_new_rounds_board(client, proved_round):
    match, ada, bob, _ = proved_round
    both_pick(match, ada, bob)
    client.force_login(ada)
    board = board_panel(client.get(match.get_absolute_url()).content.decode())
    assert "Round 2&#x27;s board" in board or "Round 2's board" in board
    # The controls of last round's animation wait hidden for this round's end.
    assert '<div class="bjdm-anim" hidden>' in board


def test_the_rounds_table_scrolls_in_its_own_box(client, proved_round):
    match, ada, _, _ = proved_round
    client.force_login(ada)
    page = client.get(match.get_absolute_url()).content.decode()
    assert re.search(
        r'<div class="bjdm-rounds-box"[^>]*tabindex="0">\s*<table class="bjdm-rounds">', page
    )


def test_the_end_of_the_match_states_the_score_the_same_way_twice(client, live_match):
    match, ada, bob, host = live_match
    for winner in (1, 1, 0, 1, 0, 1):
        host_operations.host_adjudicate(match, host, {"winner": winner, "scope": "round"})
        if not Match.objects.get(pk=match.pk).is_over:
            both_pick(match, ada, bob)
    client.force_login(ada)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Bob wins the match by 4 round wins to 2" in page
    assert "Final score: Bob 4, Ada 2." in page
    assert "Final score 2" not in page


def test_the_claim_form_names_its_round_and_sends_the_count_as_typed(client, live_match):
    match, ada, _, _ = live_match
    client.force_login(ada)
    page = client.get(match.get_absolute_url()).content.decode()
    form = page[
        page.index('<form data-action="claim"') : page.index(
            "</form>", page.index('<form data-action="claim"')
        )
    ]
    assert '<input type="hidden" name="round" value="1">' in form
    assert 'inputmode="numeric"' in form and "data-int" not in form
