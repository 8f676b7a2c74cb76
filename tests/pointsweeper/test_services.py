"""Pointsweeper through the one action path (games.core.match.services) with the ``clock`` fixture:
bots play a whole match with the clocks fired by the scheduler, and a scout's result reaches only
the seat that scouted."""

from __future__ import annotations

import json
import re

import pytest

from games.core.game.gamedef import ActionError, Viewer
from games.core.match import deadlines, seating, services
from games.core.models import Match
from games.core.render.rendering import view_of

pytestmark = pytest.mark.django_db

EC, DMO = 0, 1


def test_two_bots_play_a_whole_three_board_match(clock, make_user):
    match = seating.create_match(
        host=make_user("bot-host"),
        game_key="pointsweeper",
        title="bots",
        settings={"move_seconds": 20, "bank_seconds": 10, "order_seconds": 10},
        roles=["EC", "DMO"],
    )
    seating.seat_bot(match, EC, "club")
    seating.seat_bot(match, DMO, "beginner")
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    for _ in range(3000):
        clock.advance(4)
        deadlines.fire_due_deadlines()
        services.run_bots()
        match.refresh_from_db()
        if match.is_over:
            break
    assert match.status == Match.Status.FINISHED
    assert len(match.state["history"]) == 3
    assert match.result["winner"] in (0, 1)
    kinds = set(match.events.values_list("kind", flat=True))
    assert {"scouted", "claimed"} <= kinds


def test_a_scout_result_reaches_only_the_scouting_seat(clock, client, ps):
    match, ada, bob, host = ps
    services.submit_action(match, bob, {"type": "choose_order", "first": True})
    services.submit_action(match, bob, {"type": "scout", "piece": "K", "square": "e4"})
    match.refresh_from_db()
    note = match.state["history"][0]["notebooks"] if match.state["history"] else None
    assert note is None  # the board is still in play
    secret = match.state["play"]["notebooks"][str(DMO)][0]
    assert {"sum", "mines"} <= set(secret)

    mine = view_of(match, Viewer(seat=DMO))
    assert mine["game"]["play"]["notebook"] == [secret]
    for viewer in (Viewer(seat=EC), Viewer.spectator()):
        seen = view_of(match, viewer)
        assert not seen["game"]["play"]["notebook"]
        assert '"sum"' not in json.dumps(seen)
        assert [e["type"] for e in seen["game"]["play"]["log"]] == ["scout"]

    url = f"/m/{match.public_id}/"
    client.force_login(bob)
    bobs_page = client.get(url).content.decode()
    assert 'class="ps-note"' in bobs_page
    # Bob's notebook line (the scout's sum and mines, in words) is found nowhere else.
    note = re.search(r'class="ps-note"[^>]*>(.*?)</', bobs_page, re.S).group(1).strip()
    assert note
    for who in (ada, None):
        client.logout()
        if who is not None:
            client.force_login(who)
        page = client.get(url).content.decode()
        assert 'class="ps-note"' not in page
        assert note not in page
        export = client.get(f"/m/{match.public_id}/export.json")
        if export.status_code == 200:
            assert '"sum"' not in export.content.decode()


def test_a_refused_action_changes_nothing(clock, ps):
    match, ada, bob, _ = ps
    version = match.version
    with pytest.raises(ActionError):
        services.submit_action(match, ada, {"type": "choose_order", "first": True})
    services.submit_action(match, bob, {"type": "choose_order", "first": False})
    match.refresh_from_db()
    version = match.version
    with pytest.raises(ActionError):
        services.submit_action(match, bob, {"type": "scout", "piece": "K", "square": "e4"})
    with pytest.raises(ActionError):
        services.submit_action(
            match, ada, {"type": "claim", "piece": "K", "start": "e4", "end": "e5"}
        )
    match.refresh_from_db()
    assert match.version == version


def test_an_unanswered_order_and_an_unplayed_turn_are_fired_by_the_scheduler(clock, ps):
    match, *_ = ps
    clock.advance(61)
    assert deadlines.fire_due_deadlines() == 1
    match.refresh_from_db()
    assert match.state["phase"] == "play"
    mover = match.state["turn"]
    clock.advance(60 + 120 + 1)
    assert deadlines.fire_due_deadlines() == 1
    match.refresh_from_db()
    assert match.state["play"]["passed"][mover] is True
