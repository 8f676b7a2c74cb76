"""The death match's flow: its phase machine and its view (what each viewer may see) over JSON
state, with a hand-moved ``now``: no database.

Most tests play on a hand-made board whose gems are all in the bottom row (rocks above), so every
count can be checked on paper: ``Plus C7; Bend; Pick C7`` picks C7, the Plus goes off and removes
A7 B7 D7 E7: 5 gems.
"""

from __future__ import annotations

import copy
import itertools
import json
from datetime import timedelta
from functools import partial
from typing import Any

import pytest

from games.bejeweled_dm import engine, flow, picks, powerups, rounds, whose_move
from games.bejeweled_dm import view as gate
from games.bejeweled_dm.steps import compact_steps, step_board
from games.core.game.flowkit import derived_seed
from games.core.game.gamedef import ActionError, SeatInfo, State, Viewer
from tests import flows
from tests.flows import T0, at

SEATS = [SeatInfo(0, "EC", "Ada"), SeatInfo(1, "DMO", "Bob")]
EC, DMO = 0, 1
ROW_BOARD = "\n".join(["########"] * 6 + ["RGBYPRGB"])
OFFER = {"starter": ["Swap", "Pick"], "passive": ["Chain", "Bend"], "active": ["Plus", "Refresh"]}
PLUS_PROOF = "Plus C7; Bend; Pick C7"  # 5 gems


def started(seed: int = 7, **settings: Any) -> State:
    return flow.start(settings, SEATS, seed, T0).state


def on_row_board(state: State | None = None) -> State:
    state = copy.deepcopy(state or started())
    state["board"] = ROW_BOARD
    state["offer"] = copy.deepcopy(OFFER)
    return state


def act(state: State, seat: int, when: float = 0, **action: Any) -> State:
    return flow.act(state, seat, action, at(when)).state


refused = partial(flows.refused, flow.act)


def proving(prover: int = EC, count: int = 5) -> State:
    """The row board, ``prover`` claimed ``count`` and the opponent passed."""
    state = act(on_row_board(), prover, type="claim", count=count)
    return act(state, 1 - prover, type="pass")


def picking(winner_proof: str = PLUS_PROOF) -> State:
    """Round 1 won by the EC's proof; both players now pick."""
    return act(proving(EC), EC, type="proof", proof=winner_proof)


# --- the start ---------------------------------------------------------------------------------


def test_it_starts_in_the_claim_phase_with_a_round_clock():
    state = started()
    assert state["phase"] == "claim"
    assert state["round"] == 1 and state["score"] == [0, 0]
    assert state["deadlines"] == {"round": at(600).isoformat()}
    assert not engine.has_match(engine.parse_board(state["board"]))


def test_it_offers_one_random_powerup_of_each_type_by_default():
    offer = started()["offer"]
    assert [len(offer[kind]) for kind in powerups.TYPES] == [1, 1, 1]
    assert offer["starter"][0] in engine.STARTERS
    assert offer["active"][0] in engine.ACTIVES


def test_the_same_seed_gives_the_same_board_and_offer():
    assert started(seed=99) == started(seed=99)
    assert started(seed=99)["board"] != started(seed=100)["board"]


def test_the_host_may_choose_the_first_offer():
    state = started(
        first_offer="chosen",
        offered_starters=["Pick", "Swap"],
        offered_passives=["Bend"],
        offered_actives=["Column", "Plus", "Refresh"],
    )
    assert state["offer"] == {
        "starter": ["Swap", "Pick"],
        "passive": ["Bend"],
        "active": ["Column", "Plus", "Refresh"],
    }


def test_timer_settings_set_the_clocks():
    state = started(round_seconds=90)
    assert state["deadlines"] == {"round": at(90).isoformat()}


# --- claims ------------------------------------------------------------------------------------


def test_a_claim_opens_the_counterclaim_window():
    state = act(started(), DMO, 10, type="claim", count=12)
    assert state["phase"] == "counterclaim"
    assert state["claim"] == {"seat": DMO, "count": 12, "name": "Bob"}
    assert state["deadlines"] == {"claim_window": at(40).isoformat()}


@pytest.mark.parametrize("count", [0, -3, 57, "ten", None, True, 2.5])
def test_a_claim_must_be_a_whole_number_from_1(count):
    assert refused(started(), EC, {"type": "claim", "count": count}).code == "bad_number"


def test_a_second_claim_is_refused_once_one_stands():
    state = act(started(), EC, type="claim", count=5)
    error = refused(state, DMO, {"type": "claim", "count": 9})
    assert error.code == "claim_exists"
    assert "Ada already claimed 5" in error.message


def test_a_claim_after_the_round_clock_is_refused():
    assert refused(started(), EC, {"type": "claim", "count": 5}, now=at(600)).code == "time_up"


def test_a_higher_counterclaim_makes_the_counterclaimer_prove():
    state = act(started(), EC, type="claim", count=5)
    state = act(state, DMO, 20, type="counterclaim", count=6)
    assert state["phase"] == "proof"
    assert state["prover"] == DMO
    assert rounds.target(state) == {"seat": DMO, "count": 6, "name": "Bob"}
    assert state["deadlines"] == {"proof": at(140).isoformat()}


@pytest.mark.parametrize("count", [4, 5])
def test_a_counterclaim_not_higher_is_refused(count):
    state = act(started(), EC, type="claim", count=5)
    error = refused(state, DMO, {"type": "counterclaim", "count": count})
    assert error.code == "not_higher"
    assert "higher than 5" in error.message


def test_the_claimant_cannot_counterclaim_or_pass():
    state = act(started(), EC, type="claim", count=5)
    assert refused(state, EC, {"type": "counterclaim", "count": 9}).code == "own_claim"
    assert refused(state, EC, {"type": "pass"}).code == "own_claim"


def test_there_is_only_one_counterclaim():
    state = act(started(), EC, type="claim", count=5)
    state = act(state, DMO, type="counterclaim", count=6)
    assert refused(state, EC, {"type": "counterclaim", "count": 7}).code == "wrong_phase"


def test_a_counterclaim_without_a_claim_is_refused():
    assert refused(started(), EC, {"type": "counterclaim", "count": 3}).code == "wrong_phase"


def test_a_pass_sends_the_claimant_to_the_proof():
    state = act(started(), EC, type="claim", count=5)
    state = act(state, DMO, 3, type="pass")
    assert (state["phase"], state["prover"]) == ("proof", EC)
    assert state["deadlines"] == {"proof": at(123).isoformat()}


def test_the_counterclaim_window_closing_sends_the_claimant_to_the_proof():
    state = act(started(), EC, type="claim", count=5)
    outcome = flow.timeout(state, "claim_window", at(30))
    assert outcome.kind == "claim_window_closed"
    assert (outcome.state["phase"], outcome.state["prover"]) == ("proof", EC)
    assert outcome.state["deadlines"] == {"proof": at(150).isoformat()}


def test_a_counterclaim_after_the_window_is_refused():
    state = act(started(), EC, type="claim", count=5)
    assert refused(state, DMO, {"type": "counterclaim", "count": 9}, now=at(30)).code == "time_up"


def test_an_unknown_action_is_refused():
    assert refused(started(), EC, {"type": "dance"}).code == "unknown_action"


# --- proofs ------------------------------------------------------------------------------------


def test_a_proof_that_reaches_the_claim_wins_the_round():
    outcome = flow.act(proving(EC, 5), EC, {"type": "proof", "proof": PLUS_PROOF}, at(50))
    state = outcome.state
    assert outcome.kind == "round_over"
    assert outcome.public["winner"] == EC and outcome.public["removed"] == 5
    assert state["score"] == [1, 0]
    assert state["phase"] == "pick"
    assert state["last"]["steps"] == engine.resolve(ROW_BOARD, PLUS_PROOF).steps
    assert state["carry"].splitlines()[-1] == "#####RGB"


def test_a_proof_that_falls_short_gives_the_round_to_the_opponent():
    state = act(proving(EC, 6), EC, type="proof", proof=PLUS_PROOF)
    assert state["score"] == [0, 1]
    assert state["history"][-1]["reason"] == "fell_short"
    assert state["carry"].splitlines()[-1] == "#####RGB"  # the proof's board carries over


def test_an_illegal_proof_is_refused_with_the_engines_reason_and_may_be_corrected():
    state = proving(EC, 5)
    error = refused(state, EC, {"type": "proof", "proof": "Plus C7; Bend; Pick A7 F7"}, now=at(10))
    assert error.code == "illegal_proof"
    assert "both gems are red" in error.message
    error = refused(state, EC, {"type": "proof", "proof": "Plus C6; Bend; Pick C7"}, now=at(20))
    assert "C6 is a rock" in error.message
    assert act(state, EC, 30, type="proof", proof=PLUS_PROOF)["score"] == [1, 0]


def test_a_proof_with_a_powerup_not_offered_is_refused():
    error = refused(proving(EC), EC, {"type": "proof", "proof": "Column C7; Bend; Pick C7"})
    assert error.code == "not_offered"
    assert "Plus or Refresh" in error.message


def test_a_proof_from_the_other_player_is_refused():
    assert refused(proving(EC), DMO, {"type": "proof", "proof": PLUS_PROOF}).code == "not_prover"


def test_a_proof_before_the_proof_phase_is_refused():
    state = act(on_row_board(), EC, type="claim", count=5)
    assert refused(state, EC, {"type": "proof", "proof": PLUS_PROOF}).code == "wrong_phase"


def test_a_proof_after_the_time_is_refused():
    assert (
        refused(proving(EC), EC, {"type": "proof", "proof": PLUS_PROOF}, now=at(120)).code
        == "time_up"
    )


def test_no_proof_in_time_gives_the_round_to_the_opponent_and_keeps_the_board():
    outcome = flow.timeout(proving(EC), "proof", at(120))
    assert outcome.state["score"] == [0, 1]
    assert outcome.public["reason"] == "no_proof"
    assert outcome.state["carry"] == ROW_BOARD
    assert outcome.state["allowed"] == {
        kind: list(powerups.CHOICES[kind]) for kind in powerups.TYPES
    }


# --- Refresh's second starter ------------------------------------------------------------------


REFRESH_PROOF = "Refresh A7; Bend; Pick A7"


def test_refresh_waits_for_the_second_starter_and_shows_the_board_so_far():
    outcome = flow.act(proving(EC, 3), EC, {"type": "proof", "proof": REFRESH_PROOF}, at(10))
    state = outcome.state
    assert outcome.kind == "refresh_activated"
    assert state["phase"] == "second_starter"
    assert state["pending"]["removed"] == 1
    assert state["pending"]["steps"][-1]["kind"] == "refresh"
    assert state["deadlines"] == {"proof": at(120).isoformat()}  # the same proof clock
    view = gate.view(state, Viewer.spectator())
    assert view["board"].splitlines()[-1] == "#GBYPRGB"
    assert view["pending"]["removed"] == 1
    assert view["steps_from"] == ROW_BOARD
    assert view["steps"] == outcome.public["steps"]
    assert full_steps(ROW_BOARD, view["steps"]) == state["pending"]["steps"]


def test_the_second_starter_resolves_the_whole_proof_from_the_rounds_board():
    state = act(proving(EC, 3), EC, type="proof", proof=REFRESH_PROOF)
    outcome = flow.act(state, EC, {"type": "second_starter", "clause": "B7 C7"}, at(60))
    whole = engine.resolve(ROW_BOARD, REFRESH_PROOF + "; Pick B7 C7")
    assert outcome.public["removed"] == whole.removed == 3
    assert outcome.public["proof"] == "Refresh A7; Bend; Pick A7; Pick B7 C7"
    assert outcome.state["score"] == [1, 0]
    assert outcome.state["last"]["steps"] == whole.steps
    assert outcome.state["carry"] == engine.format_board(whole.board)


def test_an_illegal_second_starter_is_refused_and_may_be_corrected():
    state = act(proving(EC, 3), EC, type="proof", proof=REFRESH_PROOF)
    assert (
        "A7 is a rock" in refused(state, EC, {"type": "second_starter", "clause": "A7 B7"}).message
    )
    error = refused(state, EC, {"type": "second_starter", "clause": "Swap B7 C7"})
    assert "must be Pick again" in error.message
    assert refused(state, EC, {"type": "proof", "proof": PLUS_PROOF}).code == "wrong_phase"
    assert refused(state, DMO, {"type": "second_starter", "clause": "B7 C7"}).code == "not_prover"
    assert act(state, EC, type="second_starter", clause="Pick B7 C7")["score"] == [1, 0]


def test_the_prover_may_end_the_turn_at_the_refresh():
    state = act(proving(EC, 3), EC, type="proof", proof=REFRESH_PROOF)
    state = act(state, EC, type="skip_second_starter")
    assert state["score"] == [0, 1]  # 1 removed, 3 claimed
    assert state["history"][-1]["removed"] == 1


def test_the_proof_clock_ending_after_refresh_ends_the_turn_there():
    state = act(proving(EC, 1), EC, type="proof", proof=REFRESH_PROOF)
    outcome = flow.timeout(state, "proof", at(120))
    assert outcome.state["score"] == [1, 0]
    assert outcome.public["removed"] == 1 and outcome.public["reason"] == "proved"


def test_a_proof_may_give_both_starter_uses_at_once():
    state = act(proving(EC, 3), EC, type="proof", proof=REFRESH_PROOF + "; Pick B7 C7")
    assert state["score"] == [1, 0] and state["phase"] == "pick"


# --- the round clock ---------------------------------------------------------------------------


def test_no_claim_within_the_round_clock_gives_the_round_to_the_dmo():
    outcome = flow.timeout(started(), "round", at(600))
    assert outcome.state["score"] == [0, 1]
    assert outcome.public["reason"] == "no_claim"
    assert outcome.state["phase"] == "pick"


def test_the_host_may_give_no_claim_rounds_to_the_ec():
    outcome = flow.timeout(started(no_claim_round_to="EC"), "round", at(600))
    assert outcome.state["score"] == [1, 0]


def test_a_stale_clock_changes_nothing_but_itself():
    state = act(started(), EC, type="claim", count=4)
    outcome = flow.timeout(state, "round", at(600))
    assert outcome.kind == "clock_ignored"
    assert outcome.state["phase"] == "counterclaim"


# --- picks and the next round ------------------------------------------------------------------


def test_picks_exclude_the_powerups_used_in_the_proof():
    state = picking()
    assert state["allowed"] == {
        "starter": ["Swap", "Rotate"],
        "passive": ["Recolor", "Chain"],
        "active": ["Column", "Refresh"],
    }
    error = refused(
        state, EC, {"type": "pick", "starter": "Pick", "passive": "Chain", "active": "Column"}
    )
    assert error.code == "bad_pick"
    assert "Swap, Rotate" in error.message


def test_the_same_picks_offer_that_powerup_alone():
    state = act(picking(), EC, type="pick", starter="Swap", passive="Chain", active="Column")
    state = act(state, DMO, type="pick", starter="Swap", passive="Chain", active="Column")
    assert state["round"] == 2 and state["phase"] == "claim"
    assert state["offer"] == {"starter": ["Swap"], "passive": ["Chain"], "active": ["Column"]}


def test_different_picks_offer_both():
    state = act(picking(), EC, type="pick", starter="Swap", passive="Chain", active="Column")
    outcome = flow.act(
        state,
        DMO,
        {"type": "pick", "starter": "Rotate", "passive": "Chain", "active": "Refresh"},
        at(30),
    )
    assert outcome.kind == "round_started"
    assert outcome.state["offer"] == {
        "starter": ["Swap", "Rotate"],
        "passive": ["Chain"],
        "active": ["Column", "Refresh"],
    }
    assert outcome.state["deadlines"] == {"round": at(630).isoformat()}


def test_a_player_may_change_a_pick_until_both_have_picked():
    state = act(picking(), EC, type="pick", starter="Swap", passive="Chain", active="Column")
    state = act(state, EC, type="pick", starter="Rotate", passive="Chain", active="Column")
    state = act(state, DMO, type="pick", starter="Rotate", passive="Chain", active="Column")
    assert state["offer"]["starter"] == ["Rotate"]


def test_no_pick_in_time_draws_a_random_allowed_pick_from_the_seed():
    state = act(picking(), EC, type="pick", starter="Swap", passive="Chain", active="Column")
    outcome = flow.timeout(state, "pick", at(60))
    again = flow.timeout(state, "pick", at(60))
    assert outcome.kind == "pick_time_up"
    drawn = outcome.public["random_picks"]["1"]
    assert set(drawn) == set(powerups.TYPES)
    assert all(drawn[kind] in state["allowed"][kind] for kind in powerups.TYPES)
    assert outcome.state == again.state  # the generator is the seed and a counter in the state
    assert outcome.state["draws"] == state["draws"] + 3
    assert outcome.state["history"][-1]["random_picks"] == ["1"]
    assert outcome.state["phase"] == "claim" and outcome.state["round"] == 2


def test_a_pick_after_the_pick_clock_is_refused():
    state = picking()
    late = 60 + rounds.animation_ms(state["last"]["steps"]) / 1000
    error = refused(
        state,
        EC,
        {"type": "pick", "starter": "Swap", "passive": "Chain", "active": "Column"},
        now=at(late),
    )
    assert error.code == "time_up"


def test_the_next_board_is_the_carried_board_with_its_rocks_refilled():
    state = picking()
    carry = state["carry"]
    state = act(state, EC, type="pick", starter="Swap", passive="Chain", active="Column")
    state = act(state, DMO, type="pick", starter="Swap", passive="Chain", active="Column")
    expected = engine.refill_rocks(
        engine.parse_board(carry), derived_seed(state["seed"], "refill", 2)
    )
    assert state["board"] == engine.format_board(expected)
    assert "#" not in state["board"]
    old, new = carry.replace("\n", ""), state["board"].replace("\n", "")
    assert all(a == b for a, b in zip(old, new, strict=True) if a != "#")


def test_the_first_to_four_round_wins_takes_the_match():
    state = started()
    for round_winner in [EC, DMO, EC, DMO, EC]:
        state = flow.adjudicate(state, {"winner": round_winner, "scope": "round"}, T0).state
        if state["phase"] == "pick":
            pick = {"starter": "Swap", "passive": "Chain", "active": "Column"}
            state = act(state, EC, type="pick", **pick)
            state = act(state, DMO, type="pick", **pick)
    state = act(state, DMO, type="claim", count=50)
    state = act(state, EC, type="pass")
    outcome = flow.timeout(state, "proof", at(130))
    assert outcome.result == {"winner": EC, "score": [4, 2], "garnets": 5}
    assert outcome.state["phase"] == "over" and outcome.state["deadlines"] == {}
    assert outcome.public["match_winner"] == EC
    assert refused(outcome.state, EC, {"type": "claim", "count": 3}).code == "match_over"


# --- the host ----------------------------------------------------------------------------------


def test_the_host_may_award_the_current_round():
    state = act(started(), EC, type="claim", count=4)
    outcome = flow.adjudicate(state, {"winner": DMO, "scope": "round"}, T0)
    assert outcome.kind == "adjudicated"
    assert outcome.state["score"] == [0, 1] and outcome.state["phase"] == "pick"
    assert outcome.result is None


def test_the_host_may_award_the_match():
    outcome = flow.adjudicate(started(), {"winner": EC, "scope": "match"}, T0)
    assert outcome.result == {"winner": EC, "score": [0, 0], "garnets": 5}
    assert outcome.state["phase"] == "over"
    view = gate.view(outcome.state, Viewer.spectator())
    assert view["board"] == outcome.state["board"]
    assert view["awarded"] and view["winner_name"] == "Ada"


def test_there_is_no_round_to_award_while_picking():
    with pytest.raises(ActionError) as error:
        flow.adjudicate(picking(), {"winner": EC, "scope": "round"}, T0)
    assert error.value.code == "no_round"


# --- the analysis after the round -------------------------------------------------------------


def test_a_played_round_waits_for_its_optimum_found_from_its_own_board_and_offer():
    state = picking()
    job = flow.analysis_job(state)
    assert job == {"round": 1, "board": ROW_BOARD, "offer": OFFER}
    result = flow.run_analysis(json.loads(json.dumps(job)))
    assert result["count"] >= 5  # the round's own proof removed 5
    assert engine.resolve(ROW_BOARD, result["proof"]).removed == result["count"]
    assert result["steps"] == engine.resolve(ROW_BOARD, result["proof"]).steps


def test_the_optimum_is_kept_with_its_round_for_every_viewer_and_asked_for_once():
    assert flow.analysis_job(started()) is None  # no round played yet
    state = picking()
    job = flow.analysis_job(state)
    result = flow.run_analysis(job)
    outcome = flow.record_analysis(state, job, result)
    best = {"count": result["count"], "proof": result["proof"]}
    assert outcome.kind == "optimum_found"
    steps = compact_steps(ROW_BOARD, result["steps"])
    assert outcome.public == {"round": 1, **best, "steps": steps}
    assert outcome.state["history"][0]["optimum"] == best
    assert outcome.state["last"]["optimum"] == result
    assert "optimum" not in state["history"][0]  # the state is not mutated
    assert flow.analysis_job(outcome.state) is None
    for viewer in (Viewer(seat=EC), Viewer.spectator()):
        assert gate.view(outcome.state, viewer)["history"][0]["optimum"] == best


# --- what each viewer sees ---------------------------------------------------------------------


def test_a_changed_pick_says_so_to_its_player_alone():
    """The core leaves a replaced sealed move out of everyone else's frames and exports."""
    first = {"type": "pick", "starter": "Rotate", "passive": "Recolor", "active": "Refresh"}
    once = flow.act(picking(), EC, first, T0)
    again = flow.act(once.state, EC, {**first, "starter": "Swap"}, T0)
    assert (once.private[EC]["replaced"], again.private[EC]["replaced"]) == (False, True)
    assert again.public == once.public == {"seat": EC, "picked": True}


def test_a_pending_pick_is_seen_only_by_its_player_and_the_host():
    state = picking()
    outcome = flow.act(
        state,
        EC,
        {"type": "pick", "starter": "Rotate", "passive": "Recolor", "active": "Refresh"},
        T0,
    )
    assert outcome.public == {"seat": EC, "picked": True}
    assert outcome.private == {
        EC: {
            "pick": {"starter": "Rotate", "passive": "Recolor", "active": "Refresh"},
            "replaced": False,
        }
    }
    mine = gate.view(outcome.state, Viewer(seat=EC))
    assert mine["picks"]["mine"] == {"starter": "Rotate", "passive": "Recolor", "active": "Refresh"}
    for viewer in (Viewer(seat=DMO), Viewer.spectator()):
        view = gate.view(outcome.state, viewer)
        assert view["picks"]["picked"] == [True, False]
        assert view["picks"]["mine"] is None and "all" not in view["picks"]
        assert all(entry["picks"] is None for entry in view["history"])
        assert '"Recolor"' not in json.dumps({k: v for k, v in view.items() if k != "picks"})
    assert gate.view(outcome.state, Viewer.host())["picks"]["all"]["0"]["starter"] == "Rotate"


def test_no_view_shows_the_match_seed_that_draws_later_boards():
    state = started(seed=918273645)
    for viewer in (Viewer(seat=EC), Viewer(seat=DMO), Viewer.spectator(), Viewer.host()):
        view = gate.view(state, viewer)
        assert "seed" not in view and "draws" not in view
        assert "918273645" not in json.dumps(view)


def test_both_picks_are_public_once_the_next_round_starts():
    state = act(picking(), EC, type="pick", starter="Rotate", passive="Recolor", active="Refresh")
    outcome = flow.act(
        state, DMO, {"type": "pick", "starter": "Swap", "passive": "Chain", "active": "Column"}, T0
    )
    assert outcome.public["picks"]["0"]["starter"] == "Rotate"
    spectator = gate.view(outcome.state, Viewer.spectator())
    assert [p["starter"] for p in spectator["history"][0]["picks"]] == ["Rotate", "Swap"]


def test_the_view_says_whose_move_it_is_and_what_they_may_do():
    state = act(started(), EC, type="claim", count=5)
    ada, bob = gate.view(state, Viewer(seat=EC)), gate.view(state, Viewer(seat=DMO))
    spectator = gate.view(state, Viewer.spectator())
    assert ada["to_move"] == bob["to_move"] == spectator["to_move"] == [DMO]
    assert ada["actions"] == [] and bob["actions"] == ["counterclaim", "pass"]
    assert spectator["actions"] == []
    assert bob["clock"] == {"key": "claim_window", "due": at(30).isoformat()}
    assert bob["claim"] == {"seat": EC, "count": 5, "name": "Ada"}


def test_the_view_carries_the_last_rounds_steps_for_the_animation():
    state = picking()
    view = gate.view(state, Viewer.spectator())
    last = view["last_round"]
    assert last["winner_name"] == "Ada" and last["removed"] == 5 and last["target"] == 5
    assert [step["kind"] for step in view["steps"]][:2] == ["place", "starter"]
    assert view["steps_from"] == ROW_BOARD
    assert view["board"] == state["carry"]
    json.dumps(view)  # JSON-ready


def test_actions_never_mutate_the_state_they_are_given():
    state = proving(EC)
    before = copy.deepcopy(state)
    flow.act(state, EC, {"type": "proof", "proof": PLUS_PROOF}, T0)
    flow.timeout(state, "proof", at(200))
    assert state == before


# --- who may act: said once by the flow, read by the view and by every refusal -----------------

ALL_ACTIONS = {
    "claim": {"count": 5},
    "counterclaim": {"count": 9},
    "pass": {},
    "proof": {"proof": PLUS_PROOF},
    "second_starter": {"clause": "Pick A7"},
    "skip_second_starter": {},
    "pick": {"starter": "Swap", "passive": "Chain", "active": "Column"},
}


def phases() -> list[State]:
    claimed = act(on_row_board(), EC, type="claim", count=5)
    return [on_row_board(), claimed, proving(EC), picking()]


@pytest.mark.parametrize("index", range(4))
def test_the_view_offers_exactly_the_actions_the_flow_accepts(index):
    state = phases()[index]
    for seat in (EC, DMO):
        offered = gate.view(state, Viewer(seat=seat))["actions"]
        assert offered == whose_move.open_actions(state, seat)
        for kind, fields in ALL_ACTIONS.items():
            if kind not in offered:
                assert refused(state, seat, {"type": kind, **fields}).code != "unknown_action"


def test_the_view_says_who_is_to_move_as_the_flow_does():
    for state in phases():
        assert gate.view(state, Viewer.spectator())["to_move"] == whose_move.to_move(state)
    assert whose_move.to_move(picking()) == [EC, DMO]


def test_a_late_counterclaim_is_told_the_window_closed_and_who_proves():
    state = act(on_row_board(), EC, type="claim", count=5)
    state = flow.timeout(state, "claim_window", at(30)).state
    error = refused(state, DMO, {"type": "counterclaim", "count": 9}, now=at(31))
    assert error.code == "wrong_phase"
    assert error.message == "you cannot counterclaim now: the counterclaim window has closed; " + (
        "Ada is proving 5"
    )


def test_a_claim_sent_for_a_finished_round_is_refused():
    error = refused(started(), EC, {"type": "claim", "count": 5, "round": 2})
    assert error.code == "stale_round"
    assert "round 1 is being played" in error.message
    assert act(started(), EC, type="claim", count=5, round="1")["claim"]["count"] == 5


@pytest.mark.parametrize("count", ["٣", "３", "²"])
def test_a_claim_in_other_digits_is_refused_with_a_clear_message(count):
    error = refused(started(), EC, {"type": "claim", "count": count})
    assert error.code == "bad_number"
    assert error.message == f"write the count with the digits 0-9 (you sent {count!r})"


def test_a_claim_in_ascii_digits_with_spaces_is_accepted():
    assert act(started(), EC, type="claim", count=" 12 ")["claim"]["count"] == 12


# --- the result animation does not eat the picking time ----------------------------------------


def test_the_pick_clock_starts_when_the_results_animation_ends():
    outcome = flow.act(proving(EC, 5), EC, {"type": "proof", "proof": PLUS_PROOF}, at(50))
    steps = engine.resolve(ROW_BOARD, PLUS_PROOF).steps
    shown_ms = rounds.STEP_MS["start"] + sum(rounds.STEP_MS[step["kind"]] for step in steps)
    assert rounds.animation_ms(steps) == shown_ms > 4000
    due = at(50) + timedelta(milliseconds=shown_ms, seconds=60)
    assert outcome.state["deadlines"] == {"pick": due.isoformat()}


def test_a_round_without_a_proof_starts_the_pick_clock_at_once():
    state = flow.timeout(on_row_board(), "round", at(600)).state
    assert state["deadlines"] == {"pick": at(660).isoformat()}


# --- drafted picks -----------------------------------------------------------------------------


def test_a_ticked_pick_is_kept_as_a_draft_of_this_round():
    draft = picks.clean_draft(picking(), DMO, {"pick": {"starter": "Rotate"}})
    assert draft == {"round": 1, "pick": {"starter": "Rotate"}}


def test_a_draft_may_name_only_allowed_powerups():
    with pytest.raises(ActionError) as error:
        picks.clean_draft(picking(), DMO, {"pick": {"starter": "Dance"}})
    assert error.value.code == "bad_pick"


@pytest.mark.parametrize("meant", [0, 2, "1", True, None])
def test_a_draft_for_another_round_is_refused_not_kept_as_this_ones(meant):
    """A pick drafted for round 0 (or a round that is not a number) was kept as this round's
    draft, to be sealed as this round's pick (issue 34, item 12)."""
    with pytest.raises(ActionError) as error:
        picks.clean_draft(picking(), DMO, {"round": meant, "pick": {"starter": "Rotate"}})
    assert error.value.code in {"wrong_round", "bad_draft"}


def test_drafts_are_kept_only_while_picking():
    with pytest.raises(ActionError) as error:
        picks.clean_draft(started(), EC, {"pick": {"starter": "Swap"}})
    assert error.value.code == "no_draft"


def test_a_complete_draft_is_sealed_as_the_pick_when_the_picking_time_ends():
    state = act(picking(), EC, type="pick", starter="Swap", passive="Chain", active="Column")
    draft = picks.clean_draft(state, DMO, {"pick": {"starter": "Rotate", "passive": "Recolor"}})
    draft["pick"]["active"] = "Refresh"
    outcome = flow.timeout(state, "pick", at(300), {DMO: draft})
    assert outcome.drafts_sealed == (DMO,)
    assert outcome.state["history"][-1]["picks"]["1"] == {
        "starter": "Rotate",
        "passive": "Recolor",
        "active": "Refresh",
    }
    assert "random_picks" not in outcome.state["history"][-1]
    assert outcome.state["draws"] == state["draws"]


def test_an_incomplete_draft_gets_a_random_pick_and_is_not_sealed():
    state = act(picking(), EC, type="pick", starter="Swap", passive="Chain", active="Column")
    draft = picks.clean_draft(state, DMO, {"pick": {"starter": "Rotate"}})
    outcome = flow.timeout(state, "pick", at(300), {DMO: draft})
    assert outcome.drafts_sealed == ()
    assert outcome.state["history"][-1]["random_picks"] == ["1"]


def test_a_draft_from_an_earlier_round_is_not_sealed():
    state = act(picking(), EC, type="pick", starter="Swap", passive="Chain", active="Column")
    old = {"round": 0, "pick": {"starter": "Rotate", "passive": "Recolor", "active": "Refresh"}}
    outcome = flow.timeout(state, "pick", at(300), {DMO: old})
    assert outcome.drafts_sealed == ()


def full_steps(start: str, shown: list[dict]) -> list[dict]:
    """What the page's script does with steps as they travel (bejeweled_dm.js fullSteps)."""

    def cells_in(text: str) -> list[str]:
        return [text[i : i + 2] for i in range(0, len(text), 2)]

    steps, board, active, count = [], start, None, 0
    for short in shown:
        step = dict(short)
        if step["kind"] == "remove":
            runs = short["cells"]
            step["cells"] = {cell: cause for cause, text in runs for cell in cells_in(text)}
        elif "cells" in step:
            step["cells"] = cells_in(short["cells"])
        if "rocks" in step:
            step["rocks"] = cells_in(short["rocks"])
        if "moves" in step:
            pairs = cells_in(short["moves"])
            step["moves"] = [pairs[i : i + 2] for i in range(0, len(pairs), 2)]
        if step["kind"] == "remove":
            count += len(step["cells"])
        full = {"active_cell": active, "count": count, **step}
        if "board" not in full:
            full["board"] = step_board(board, full)
        steps.append(full)
        board, active, count = full["board"], full["active_cell"], full["count"]
    return steps


def test_steps_travel_without_the_boards_the_page_draws_from_the_step_before():
    clauses = (
        ("Column H1", "Plus D4", "Refresh F4"),
        ("Bend", "Chain R", "Recolor R B"),
        ("Swap A7 B7", "Rotate A6", "Pick A7", "Pick A7 B7"),
    )
    checked, sent, whole = 0, 0, 0
    for seed in range(12):
        board = engine.format_board(engine.generate_board(seed))
        for proof in itertools.product(*clauses):
            try:
                steps = engine.resolve(board, "; ".join(proof)).steps
            except ValueError:
                continue
            shown = compact_steps(board, steps)
            assert full_steps(board, shown) == steps
            assert len(json.dumps(shown)) < len(json.dumps(steps))
            checked += 1
            sent, whole = sent + len(json.dumps(shown)), whole + len(json.dumps(steps))
    assert checked > 200
    assert sent < whole * 0.4  # cells packed in texts, counts and active cells left out
    assert sum("board" in step for step in shown) < len(shown) / 2


def test_steps_travel_the_same_whatever_order_the_state_holds_their_fields_and_cells_in():
    # A state read back from the database (jsonb) may hold an object's keys in another order.
    board = engine.format_board(engine.generate_board(3))
    steps = engine.resolve(board, "Plus D4; Bend; Pick D4").steps
    reordered = [
        {
            key: dict(sorted(value.items(), reverse=True)) if isinstance(value, dict) else value
            for key, value in sorted(step.items(), reverse=True)
        }
        for step in steps
    ]
    assert json.dumps(reordered) != json.dumps(steps)
    shown = compact_steps(board, steps)
    assert json.dumps(compact_steps(board, reordered)) == json.dumps(shown)
    removal = next(step for step in shown if step["kind"] == "remove")
    assert removal["cells"] and all(isinstance(run[1], str) for run in removal["cells"])
