"""The death match through the one action path (games.core.match.services), with the ``clock``
fixture: deadlines become rows, the scheduler fires them, racing claims are ordered by the
database."""

from __future__ import annotations

import json
import threading

import pytest
from django.db import connection

from games.bejeweled_dm import engine, rounds
from games.core.game.flowkit import derived_seed
from games.core.game.gamedef import Viewer
from games.core.match import deadlines, host_operations, seating, services
from games.core.models import Deadline, Event, LedgerEntry, Match
from games.core.render import jsondiff
from games.core.render.rendering import Announcement, update_frames, view_of

pytestmark = pytest.mark.django_db

# Round 1 offers Pick, Bend and Plus: picking the Plus removes it and it goes off, so the proof
# below removes at least 9 gems on any board without rocks.
CHOSEN = {
    "first_offer": "chosen",
    "offered_starters": ["Pick"],
    "offered_passives": ["Bend"],
    "offered_actives": ["Plus"],
}
PLUS_PROOF = "Plus D4; Bend; Pick D4"


@pytest.fixture
def dm(make_user):
    """A started death match: (match, the EC's user, the DMO's user, the host)."""

    def make(**settings):
        host, ada, bob = make_user("hostess"), make_user("ada"), make_user("bob")
        match = seating.create_match(
            host=host, game_key="bejeweled-dm", title="dm", settings=settings, roles=["EC", "DMO"]
        )
        seats = list(match.seats.all())
        seating.take_seat(match, ada, seats[0].invite_token)
        seating.take_seat(match, bob, seats[1].invite_token)
        match.refresh_from_db()
        return match, ada, bob, host

    return make


def pending_deadlines(match: Match) -> dict[str, object]:
    rows = Deadline.objects.filter(match=match, fired_at=None, cancelled=False)
    return {row.key: row.due_at for row in rows}


def state_of(match: Match) -> dict:
    match.refresh_from_db()
    return match.state


def pick(match, user, starter, passive, active):
    action = {"type": "pick", "starter": starter, "passive": passive, "active": active}
    services.submit_action(match, user, action)


def test_it_starts_live_with_the_round_clock_as_a_deadline_row(clock, dm):
    match, *_ = dm(**CHOSEN)
    assert match.status == Match.Status.LIVE
    assert match.state["phase"] == "claim"
    assert match.state["offer"] == {"starter": ["Pick"], "passive": ["Bend"], "active": ["Plus"]}
    assert list(pending_deadlines(match)) == ["round"]


def test_a_claim_replaces_the_round_clock_with_the_counterclaim_window(clock, dm):
    match, ada, bob, _ = dm()
    services.submit_action(match, ada, {"type": "claim", "count": 7})
    assert list(pending_deadlines(match)) == ["claim_window"]
    clock.advance(29)
    assert deadlines.fire_due_deadlines() == 0
    clock.advance(2)
    assert deadlines.fire_due_deadlines() == 1
    state = state_of(match)
    assert (state["phase"], state["prover"]) == ("proof", 0)
    assert match.events.last().kind == "claim_window_closed"


def test_a_refusal_carries_the_games_code_and_reason(clock, dm):
    match, ada, bob, _ = dm()
    services.submit_action(match, ada, {"type": "claim", "count": 7})
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, bob, {"type": "counterclaim", "count": 7})
    assert refused.value.code == "not_higher"
    assert refused.value.message == "a counterclaim must be higher than 7"


def test_a_proof_after_the_proof_clock_is_refused_even_before_the_scheduler_runs(clock, dm):
    match, ada, bob, _ = dm(**CHOSEN)
    services.submit_action(match, ada, {"type": "claim", "count": 5})
    services.submit_action(match, bob, {"type": "pass"})
    clock.advance(121)
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, ada, {"type": "proof", "proof": PLUS_PROOF})
    assert refused.value.code == "wrong_phase"
    state = state_of(match)
    assert state["score"] == [0, 1]
    assert state["history"][-1]["reason"] == "no_proof"


@pytest.mark.django_db(transaction=True)
def test_two_claims_at_once_leave_exactly_one_standing(clock, dm):
    match, ada, bob, _ = dm()
    barrier = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def claim(user, count: int) -> None:
        barrier.wait()
        try:
            services.submit_action(match, user, {"type": "claim", "count": count})
            outcomes[user.username] = "accepted"
        except services.ActionError as refusal:
            outcomes[user.username] = refusal.code
        finally:
            connection.close()

    threads = [
        threading.Thread(target=claim, args=(ada, 5)),
        threading.Thread(target=claim, args=(bob, 9)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes.values()) == ["accepted", "claim_exists"]
    assert Event.objects.filter(match=match, kind="claimed").count() == 1
    state = state_of(match)
    winner = next(name for name, result in outcomes.items() if result == "accepted")
    assert state["claim"]["seat"] == (0 if winner == "ada" else 1)
    assert state["counterclaim"] is None


def test_the_claim_race_loser_is_told_which_claim_stands_not_the_version(clock, dm):
    match, ada, bob, _ = dm()
    seen = match.version
    services.submit_action(match, ada, {"type": "claim", "count": 31}, expected_version=seen)
    with pytest.raises(services.ActionError) as lost:
        services.submit_action(match, bob, {"type": "claim", "count": 9}, expected_version=seen)
    assert lost.value.code == "claim_exists"
    assert lost.value.message == "Ada already claimed 31; counterclaim a higher number or pass"


def test_a_late_counterclaim_is_answered_by_the_rules_not_the_version(clock, dm):
    match, ada, bob, _ = dm()
    services.submit_action(match, ada, {"type": "claim", "count": 5})
    seen = match.events.last().version
    clock.advance(31)
    deadlines.fire_due_deadlines()
    with pytest.raises(services.ActionError) as late:
        services.submit_action(
            match, bob, {"type": "counterclaim", "count": 9}, expected_version=seen
        )
    assert late.value.code == "wrong_phase"
    assert "the counterclaim window has closed; Ada is proving 5" in late.value.message


def test_a_complete_drafted_pick_is_sealed_when_the_picking_time_ends(clock, dm):
    match, ada, bob, _ = dm(**CHOSEN)
    services.submit_action(match, ada, {"type": "claim", "count": 5})
    services.submit_action(match, bob, {"type": "pass"})
    services.submit_action(match, ada, {"type": "proof", "proof": PLUS_PROOF})
    pick(match, ada, "Swap", "Chain", "Column")
    drafted = {"starter": "Rotate", "passive": "Recolor", "active": "Refresh"}
    services.save_draft(match, bob, {"pick": drafted})
    clock.advance(600)
    deadlines.fire_due_deadlines()
    state = state_of(match)
    assert state["round"] == 2
    assert state["history"][-1]["picks"]["1"] == drafted
    assert "random_picks" not in state["history"][-1]
    assert match.seats.get(index=1).draft is None


def test_a_complete_match_through_services(clock, dm):
    match, ada, bob, host = dm(**CHOSEN)

    # Round 1: Ada claims 5, Bob passes, Ada's proof reaches it.
    services.submit_action(match, ada, {"type": "claim", "count": 5})
    services.submit_action(match, bob, {"type": "pass"})
    services.submit_action(match, ada, {"type": "proof", "proof": PLUS_PROOF})
    state = state_of(match)
    assert state["score"] == [1, 0] and state["last"]["removed"] >= 9
    carry = state["carry"]
    pick(match, ada, "Swap", "Chain", "Column")
    pick(match, bob, "Rotate", "Chain", "Refresh")
    state = state_of(match)
    assert state["round"] == 2
    assert state["offer"] == {
        "starter": ["Swap", "Rotate"],
        "passive": ["Chain"],
        "active": ["Column", "Refresh"],
    }
    refill_seed = derived_seed(match.state["seed"], "refill", 2)
    refilled = engine.refill_rocks(engine.parse_board(carry), refill_seed)
    assert state["board"] == engine.format_board(refilled)

    # Round 2: Bob claims 2, Ada counterclaims 50 and cannot prove it in time.
    services.submit_action(match, bob, {"type": "claim", "count": 2})
    services.submit_action(match, ada, {"type": "counterclaim", "count": 50})
    clock.advance(121)
    assert deadlines.fire_due_deadlines() == 1
    assert state_of(match)["score"] == [1, 1]
    pick(match, ada, "Pick", "Bend", "Plus")  # no proof was made: anything may be picked
    pick(match, bob, "Pick", "Bend", "Plus")

    # Round 3: Ada claims 3, the counterclaim window closes, Ada proves it.
    services.submit_action(match, ada, {"type": "claim", "count": 3})
    clock.advance(31)
    deadlines.fire_due_deadlines()
    services.submit_action(match, ada, {"type": "proof", "proof": PLUS_PROOF})
    assert state_of(match)["score"] == [2, 1]
    pick(match, ada, "Swap", "Recolor", "Column")
    animation = rounds.animation_ms(state_of(match)["last"]["steps"]) / 1000
    clock.advance(61 + animation)  # Bob never picks: a random allowed pick
    deadlines.fire_due_deadlines()
    state = state_of(match)
    assert match.events.last().kind == "pick_time_up"
    assert state["history"][-1]["random_picks"] == ["1"]

    # Round 4: no one claims; the round goes to the DMO.
    clock.advance(601)
    deadlines.fire_due_deadlines()
    assert state_of(match)["score"] == [2, 2]
    pick(match, ada, "Pick", "Bend", "Plus")
    pick(match, bob, "Pick", "Bend", "Plus")

    # Round 5: Ada claims 1 and proves it.
    services.submit_action(match, ada, {"type": "claim", "count": 1})
    services.submit_action(match, bob, {"type": "pass"})
    services.submit_action(match, ada, {"type": "proof", "proof": PLUS_PROOF})
    assert state_of(match)["score"] == [3, 2]
    pick(match, ada, "Rotate", "Recolor", "Column")
    pick(match, bob, "Rotate", "Recolor", "Column")

    # Round 6: Bob claims every cell and cannot prove it: Ada's fourth round.
    services.submit_action(match, bob, {"type": "claim", "count": 56})
    services.submit_action(match, ada, {"type": "pass"})
    clock.advance(121)
    deadlines.fire_due_deadlines()
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result == {"winner": 0, "score": [4, 2], "garnets": 5}
    assert [entry["winner"] for entry in match.state["history"]] == [0, 1, 0, 1, 0, 0]
    assert not pending_deadlines(match)
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, bob, {"type": "claim", "count": 3})
    assert refused.value.code == "match_over"


def sent(match, viewer, event) -> dict:
    """The update frame about ``event`` as a connection of ``viewer`` would send it, with the
    view its patch makes of the view before (``view``)."""
    stored = Announcement.stored(match, event)
    [(_, frame)] = update_frames(stored, [viewer])
    update = json.loads(frame.text(with_html=True, sent=None))
    before = json.loads(json.dumps(view_of(match, viewer, stored.before)))
    return {**update, "view": jsondiff.apply(before, update["patch"], update["event"])}


def test_a_pending_pick_never_reaches_the_opponent_or_spectators(clock, dm):
    match, ada, bob, host = dm(**CHOSEN)
    services.submit_action(match, ada, {"type": "claim", "count": 5})
    services.submit_action(match, bob, {"type": "pass"})
    services.submit_action(match, ada, {"type": "proof", "proof": PLUS_PROOF})
    pick(match, ada, "Rotate", "Recolor", "Refresh")
    match.refresh_from_db()
    event = match.events.last()
    secret = {"starter": "Rotate", "passive": "Recolor", "active": "Refresh"}
    for viewer in (Viewer(seat=1), Viewer.spectator()):
        assert event.seen_by(viewer)["data"] == {"seat": 0, "picked": True}
        frame = sent(match, viewer, event)
        assert frame["view"]["game"]["picks"]["mine"] is None
        assert "all" not in frame["view"]["game"]["picks"]
        assert "You picked" not in frame["html"]
    assert event.seen_by(Viewer(seat=0))["data"]["pick"] == secret
    assert event.seen_by(Viewer.host())["data"]["private"] == {
        "0": {"pick": secret, "replaced": False}
    }
    assert view_of(match, Viewer(seat=0))["game"]["picks"]["mine"] == secret
    assert "You picked Rotate, Recolor and Refresh" in sent(match, Viewer(seat=0), event)[
        "html"
    ].replace("\n", " ")


def test_a_changed_pick_reaches_no_one_else_live_or_in_the_log(clock, dm):
    """A player who changes a pending pick: their opponent and the spectators read one
    "picked", live and in the export; the player and the host read both."""
    match, ada, bob, host = dm(**CHOSEN)
    services.submit_action(match, ada, {"type": "claim", "count": 5})
    services.submit_action(match, bob, {"type": "pass"})
    services.submit_action(match, ada, {"type": "proof", "proof": PLUS_PROOF})
    pick(match, ada, "Rotate", "Recolor", "Refresh")
    pick(match, ada, "Rotate", "Recolor", "Refresh")
    match.refresh_from_db()
    first, changed = match.events.order_by("-version")[1], match.events.last()
    assert (first.kind, changed.kind) == ("picked", "picked")
    for viewer in (Viewer(seat=1), Viewer.spectator()):
        assert changed.kept_from(viewer) and not first.kept_from(viewer)
        assert sent(match, viewer, changed)["event"] is None
    for viewer in (Viewer(seat=0), Viewer.host()):
        assert not changed.kept_from(viewer)
        assert sent(match, viewer, changed)["event"]["kind"] == "picked"


def test_the_host_can_award_a_round_and_then_the_match(clock, dm):
    match, ada, bob, host = dm()
    services.submit_action(match, ada, {"type": "claim", "count": 5})
    host_operations.host_adjudicate(match, host, {"winner": 1, "scope": "round"})
    state = state_of(match)
    assert state["score"] == [0, 1] and state["phase"] == "pick"
    with pytest.raises(services.ActionError) as refused:
        host_operations.host_adjudicate(match, host, {"winner": 1, "scope": "round"})
    assert refused.value.code == "no_round"
    host_operations.host_adjudicate(match, host, {"winner": 1, "scope": "match"})
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result == {"winner": 1, "score": [0, 1], "garnets": 5}


def test_the_match_winner_is_credited_five_garnets_once(clock, dm, client):
    match, ada, bob, host = dm()
    host_operations.host_adjudicate(match, host, {"winner": 1, "scope": "match"})
    assert LedgerEntry.balance(bob) == {"garnets": 5, "tokens_of_life": 0}
    assert LedgerEntry.balance(ada) == {"garnets": 0, "tokens_of_life": 0}
    assert LedgerEntry.objects.get(user=bob).match == match
    client.force_login(bob)
    assert "Your ledger: <b>5</b> garnets" in client.get("/").content.decode()


def test_two_bots_play_a_complete_match_and_every_round_gets_its_optimum(clock, make_user):
    match = seating.create_match(
        host=make_user("bot-host"),
        game_key="bejeweled-dm",
        title="bots",
        settings={},
        roles=["EC", "DMO"],
    )
    seating.seat_bot(match, 0, "expert")
    seating.seat_bot(match, 1, "beginner")
    for _ in range(2000):
        clock.advance(2)
        deadlines.fire_due_deadlines()
        services.run_bots()
        match.refresh_from_db()
        if match.is_over:
            break
    assert match.status == Match.Status.FINISHED
    assert max(match.result["score"]) == 4
    while services.run_analyses():
        pass
    match.refresh_from_db()
    for entry in match.state["history"]:
        best, proof = engine.best_claim(
            entry["start_board"],
            entry["offer"]["starter"],
            entry["offer"]["passive"],
            entry["offer"]["active"],
        )
        assert entry["optimum"] == {"count": best, "proof": proof}
    kinds = list(match.events.values_list("kind", flat=True))
    assert kinds.count("optimum_found") == len(match.state["history"])
    assert not LedgerEntry.objects.exists()  # bots earn no garnets
