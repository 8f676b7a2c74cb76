"""Replays and the words for events: every event said in a sentence (never a Python dict), the
replay's round marks, where it opens, and the export's descriptions."""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime, timedelta

import pytest

from games.core.game.gamedef import SeatInfo, Viewer
from games.core.game.registry import get_game, listed_games
from games.core.game.words import generic_description, host_words, marks_where, round_marks
from games.core.match import deadlines, seating, services
from games.core.match.replaying import replay_step
from games.core.models import Match

pytestmark = pytest.mark.django_db

DICT_REPR = re.compile(r"\{'|': |\{\"")

# Round 1 offers Pick, Bend and Plus, so "Plus D4; Bend; Pick D4" removes at least 9 gems.
CHOSEN = {
    "first_offer": "chosen",
    "offered_starters": ["Pick"],
    "offered_passives": ["Bend"],
    "offered_actives": ["Plus"],
}
PLUS_PROOF = "Plus D4; Bend; Pick D4"


def play_death_match(make_user, clock) -> Match:
    """A whole death match through services: claims, a counterclaim, proofs, picks, clocks run
    out; Ada wins 4-1 over five rounds."""
    host, ada, bob = make_user("dm-host"), make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host, game_key="bejeweled-dm", title="dm", settings=CHOSEN, roles=["EC", "DMO"]
    )
    seats = list(match.seats.order_by("index"))
    seating.take_seat(match, ada, seats[0].invite_token)
    seating.take_seat(match, bob, seats[1].invite_token)

    def pick(user, starter: str, passive: str, active: str) -> None:
        action = {"type": "pick", "starter": starter, "passive": passive, "active": active}
        services.submit_action(match, user, action)

    def run_out(seconds: int) -> None:
        clock.advance(seconds)
        deadlines.fire_due_deadlines()

    # Round 1: Ada claims 1, Bob passes, Ada proves it.
    services.submit_action(match, ada, {"type": "claim", "count": 1})
    services.submit_action(match, bob, {"type": "pass"})
    services.submit_action(match, ada, {"type": "proof", "proof": PLUS_PROOF})
    pick(ada, "Swap", "Chain", "Column")
    pick(bob, "Rotate", "Chain", "Refresh")
    # Round 2: Bob claims 2, Ada counterclaims 56 and cannot prove it.
    services.submit_action(match, bob, {"type": "claim", "count": 2})
    services.submit_action(match, ada, {"type": "counterclaim", "count": 56})
    run_out(121)
    pick(ada, "Pick", "Bend", "Plus")
    run_out(61)  # Bob never picks: his pick is drawn at random
    # Round 3: Ada claims 1, the counterclaim window closes, Ada proves it.
    services.submit_action(match, ada, {"type": "claim", "count": 1})
    run_out(31)
    services.submit_action(match, ada, {"type": "proof", "proof": PLUS_PROOF})
    pick(ada, "Swap", "Chain", "Column")
    pick(bob, "Swap", "Chain", "Column")
    # Rounds 4 and 5: Bob claims every cell, Ada passes, Bob cannot prove it.
    for _ in range(2):
        services.submit_action(match, bob, {"type": "claim", "count": 56})
        services.submit_action(match, ada, {"type": "pass"})
        run_out(121)
        match.refresh_from_db()
        if not match.is_over:
            pick(ada, "Pick", "Bend", "Plus")
            pick(bob, "Pick", "Bend", "Plus")
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    return match


@pytest.fixture
def death_match(make_user, clock) -> Match:
    return play_death_match(make_user, clock)


VIEWERS = [Viewer(seat=0), Viewer(seat=1), Viewer.host(), Viewer.spectator()]


def test_every_death_match_event_is_a_sentence_for_every_viewer(death_match):
    game = death_match.game
    for row in death_match.events.all():
        for viewer in VIEWERS:
            text = game.describe_event(row.seen_by(viewer), row.state)
            assert text and text.endswith(".") and not DICT_REPR.search(text), text


def test_every_tally_event_is_a_sentence_for_every_viewer(tally_match):
    match, ada, bob, _ = tally_match
    for user in (ada, bob, ada, bob):
        services.submit_action(match, user, {"type": "add", "amount": 3})
    match.refresh_from_db()
    assert match.is_over
    for row in match.events.all():
        for viewer in VIEWERS:
            text = match.game.describe_event(row.seen_by(viewer), row.state)
            assert text and not DICT_REPR.search(text), text


def test_the_generic_description_names_seats_and_skips_nested_data():
    state = {"seats": [{"index": 0, "name": "Ada"}, {"index": 1, "name": "Bob"}]}
    event = {
        "kind": "round_over",
        "seat": None,
        "data": {"winner": 1, "count": 3, "offer": {"starter": ["Swap"]}, "board": "RG\nBY"},
    }
    assert generic_description(event, state) == "Round over (winner Bob; count 3)."


@functools.cache
def _bot_played(game_key: str) -> list[tuple[dict, dict]]:
    """A whole match of ``game_key`` played by its first bot level in pure flow (no database):
    bots move when they will, clocks run out when no bot moves. (event as seen, state) pairs."""
    game = get_game(game_key)
    seats = 1 if game.max_seats == 1 else 2
    infos = [
        SeatInfo(index=i, role=game.roles[i] if game.roles else "", name=f"P{i + 1}", is_bot=True)
        for i in range(seats)
    ]
    now = datetime(2025, 1, 1, tzinfo=UTC)
    out = game.start(game.clean_settings({}), infos, 7, now)
    played = [(out.kind, out.public, out.state)]
    state, level = out.state, game.bot_levels[0]
    analysed = False
    for _ in range(3000):
        if out.result is not None:
            break
        job = game.analysis_job(state)
        if job is not None and not analysed:  # one analysis is enough here (they are slow)
            analysed = True
            out = game.record_analysis(state, job, game.run_analysis(job))
        else:
            moves = [
                (seat, game.bot_action(game.view(state, Viewer(seat=seat)), seat, level, now))
                for seat in range(seats)
            ]
            move = next(((seat, action) for seat, action in moves if action), None)
            due = sorted((state.get("deadlines") or {}).items(), key=lambda item: item[1])
            if move is not None:
                out = game.act(state, move[0], move[1], now)
            elif due and datetime.fromisoformat(due[0][1]) <= now:
                out = game.timeout(state, due[0][0], now, {})
            else:
                now += timedelta(seconds=3)
                continue
        state = out.state
        played.append((out.kind, out.public, state))
    return [
        ({"version": i + 1, "kind": kind, "seat": None, "data": public}, state)
        for i, (kind, public, state) in enumerate(played)
    ]


@pytest.mark.parametrize("game_key", [game.key for game in listed_games()])
def test_every_event_of_a_bot_played_match_is_a_sentence(game_key):
    game = get_game(game_key)
    played = _bot_played(game_key)
    assert len(played) > 3
    for event, state in played:
        text = game.describe_event(event, state)
        assert text and not DICT_REPR.search(text), (event["kind"], text)


@pytest.mark.parametrize("game_key", [game.key for game in listed_games()])
def test_the_marks_of_a_bot_played_match_start_at_its_first_event(game_key):
    marks = get_game(game_key).replay_marks([event for event, _ in _bot_played(game_key)])
    assert marks[0][0] == 1
    assert [version for version, _ in marks] == sorted({version for version, _ in marks})


def test_round_marks_follow_the_round_that_an_event_begins():
    events = [
        {"version": 1, "kind": "started", "data": {"round": 1}},
        {"version": 2, "kind": "moved", "data": {"next_round": {"round": 2}}},
        {"version": 3, "kind": "moved", "data": {}},
        {"version": 4, "kind": "round_started", "data": {"round": 3}},
    ]
    assert round_marks(events, {"started", "round_started"}, label="Round") == [
        (1, "Round 1"),
        (2, "Round 2"),
        (4, "Round 3"),
    ]


def test_the_death_match_replay_marks_every_round(death_match):
    step = replay_step(death_match, Viewer.spectator(), None)
    assert step.marks[0] == (1, "Start")  # the seats taken before round 1
    assert [label for _, label in step.marks[1:]] == [f"Round {n}" for n in range(1, 6)]


def test_the_replay_opens_at_the_start_of_the_last_round(death_match):
    step = replay_step(death_match, Viewer.spectator(), None)
    last_round = step.marks[-1][0]
    assert step.version == last_round
    assert death_match.events.get(version=last_round).kind == "round_started"


def test_the_replay_page_without_a_version_shows_the_last_round(client, death_match):
    response = client.get(f"/m/{death_match.public_id}/replay/")
    assert response.status_code == 200
    body = response.content.decode()
    last = replay_step(death_match, Viewer.spectator(), None).marks[-1][0]
    assert f'data-version="{last}"' in body
    assert "Round 5 begins" in body
    assert ">Round 1</option>" in body


def test_the_replay_page_prints_no_python_dict_at_any_step(client, death_match):
    for version in range(1, death_match.version + 1):
        response = client.get(f"/m/{death_match.public_id}/replay/?v={version}")
        body = response.content.decode()
        event_text = body.split('id="replay-event"', 1)[1].split("</p>", 1)[0]
        assert not DICT_REPR.search(event_text), event_text
        assert "event-data" not in body


def test_a_replay_step_asked_by_htmx_is_the_body_alone(client, death_match):
    response = client.get(f"/m/{death_match.public_id}/replay/?v=2", HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert 'id="replay-step" data-version="2"' in body
    assert "<html" not in body


def test_a_version_beyond_the_log_shows_the_last_event(client, death_match):
    response = client.get(f"/m/{death_match.public_id}/replay/?v=9999")
    assert f'data-version="{death_match.version}"' in response.content.decode()


def test_the_export_gives_each_event_its_sentence(client, death_match):
    events = client.get(f"/m/{death_match.public_id}/export.json").json()["events"]
    assert len(events) == death_match.version
    claimed = next(event for event in events if event["kind"] == "claimed")
    assert claimed["description"] == "Ada claims 1 gem."
    assert all(event["description"] for event in events)


def test_the_export_keeps_a_pick_private_until_both_are_in(client, death_match):
    """The sentences come from the event as the viewer sees it: a spectator's export says only
    that a seat has picked."""
    events = client.get(f"/m/{death_match.public_id}/export.json").json()["events"]
    picked = [event for event in events if event["kind"] == "picked"]
    assert picked and all(
        e["description"].endswith("has picked powerups for the next round.") for e in picked
    )


def test_marks_stand_where_the_game_names_an_event():
    events = [
        {"version": 1, "kind": "started", "data": {}},
        {"version": 2, "kind": "swapped", "data": {"level_up": 2}},
        {"version": 3, "kind": "swapped"},
    ]

    def level(kind: str, data: dict) -> str | None:
        if kind == "started":
            return "Start"
        return f"Level {data['level_up']}" if data.get("level_up") else None

    assert marks_where(events, level) == [(1, "Start"), (2, "Level 2")]


def test_a_host_operation_and_its_reason_read_as_one_sentence_each():
    paused = {"kind": "paused", "data": {"host_reason": "Bob's connection dropped."}}
    assert host_words(paused, {}) == (
        "The host paused the match; every clock stops: Bob's connection dropped."
    )
    summary = "The host awarded the match to Bob. Ada is the Elimination Candidate."
    corrected = {"kind": "result_corrected", "data": {"summary": summary}}
    assert host_words(corrected, {}) == f"The host corrected the result: {summary}"
    corrected["data"]["host_reason"] = "I awarded the wrong player"
    assert host_words(corrected, {}) == (
        f"The host corrected the result: {summary} The host's reason: I awarded the wrong player."
    )
    assert host_words({"kind": "claimed", "data": {}}, {}) is None
