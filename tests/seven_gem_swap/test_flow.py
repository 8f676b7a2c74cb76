"""The Seven Gem Swap match flow with a hand-advanced clock: every phase, clock, refusal and end,
a whole match, and the privacy of bids and sequences in every view."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import pytest

from games.core.game.contract import settled
from games.core.game.gamedef import ActionError, Outcome, SeatInfo, Viewer
from games.seven_gem_swap import engine, flow, submissions
from games.seven_gem_swap import view as gate
from tests import flows
from tests.flows import T0

# Column A is ten red gems, B ten orange, ... G ten violet; H-J rocks.
COLUMNS_BOARD = "\n".join(["ROYGBIV###"] * 10)


def seats(n: int) -> list[SeatInfo]:
    return [SeatInfo(index=i, role="player", name=f"P{i}") for i in range(n)]


def started(n: int = 2, **settings: Any) -> dict[str, Any]:
    return flow.start({"round_seconds": 600, "bid_seconds": 300, **settings}, seats(n), 7, T0).state


def act(state: dict, seat: int, action: dict, now: datetime = T0) -> Outcome:
    before = copy.deepcopy(state)
    outcome = flow.act(state, seat, action, now)
    assert state == before, "act mutated its input"
    json.dumps(outcome.state)
    return outcome


def bid(state: dict, seat: int, points: int, colours: str, now: datetime = T0) -> dict:
    return act(state, seat, {"type": "bid", "bid": points, "colours": colours}, now).state


refused = partial(flows.refused, flow.act)


def in_rounds(n: int = 2, **settings: Any) -> dict[str, Any]:
    """Bids in on the column board: seat 0 red, seat 1 orange, seat 2 yellow, ..."""
    state = started(n, board=COLUMNS_BOARD, **settings)
    for seat in range(n):
        colours = (
            engine.COLOURS[seat] + engine.COLOURS[(seat + 1) % 7] + engine.COLOURS[(seat + 2) % 7]
        )
        state = bid(state, seat, -seat, colours)
    return state


def submit(seat: int, gem: str, moves: str = "", card: str | None = None, **more: Any) -> dict:
    return {"type": "submit", "gem": gem, "moves": moves, "card": card, **more}


# --- settings and the start ----------------------------------------------------------------------


def test_it_has_defaults_of_a_day_per_round_and_a_generated_grid() -> None:
    assert settled(flow.SETTINGS, {}) == {
        "bid_seconds": 86400,
        "round_seconds": 86400,
        "board": "",
        "no_card_scores": "own_colour",
        "auto_start": True,
    }


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"round_seconds": 5}, "round_seconds must be a whole number from 10"),
        ({"bid_seconds": "soon"}, "whole number"),
        ({"board": "ROYGBIV###"}, "board: the grid has 1 rows"),
        ({"board": COLUMNS_BOARD.replace("#", "R", 1)}, "board: a starting grid"),
        ({"no_card_scores": "double"}, "no_card_scores"),
        ({"colour_count": 3}, "unknown setting"),
    ],
)
def test_it_refuses_a_bad_setting(settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        settled(flow.SETTINGS, settings)


def test_it_keeps_the_cores_auto_start_setting() -> None:
    assert settled(flow.SETTINGS, {"auto_start": False})["auto_start"] is False


def test_it_starts_with_the_bidding_clock_running() -> None:
    outcome = flow.start({"bid_seconds": 300}, seats(3), 7, T0)
    state = outcome.state
    assert state["phase"] == "bidding"
    assert state["deadlines"] == {"bidding": (T0 + timedelta(seconds=300)).isoformat()}
    assert outcome.public["board"] == state["board"]
    engine.check_standard(state["board"])


def test_it_generates_the_same_grid_from_the_same_seed() -> None:
    one = flow.start({}, seats(2), 7, T0).state["board"]
    assert one == flow.start({}, seats(2), 7, T0).state["board"]
    assert one != flow.start({}, seats(2), 8, T0).state["board"]


def test_it_plays_on_the_hosts_grid() -> None:
    state = started(2, board="\n\n" + COLUMNS_BOARD + "\n")
    assert state["board"] == COLUMNS_BOARD and state["board_source"] == "host"


@pytest.mark.parametrize("n", [1, 8])
def test_it_refuses_fewer_than_two_or_more_than_seven_seats(n: int) -> None:
    with pytest.raises(ValueError, match="2 to 7 players"):
        flow.start({}, seats(n), 7, T0)


# --- bidding -------------------------------------------------------------------------------------


def test_it_keeps_a_bid_sealed() -> None:
    outcome = act(started(3), 1, {"type": "bid", "bid": -4, "colours": "rgb"})
    assert outcome.kind == "bid_received"
    assert outcome.public == {"seat": 1, "bids_in": [1]}
    assert outcome.private == {1: {"bid": {"bid": -4, "colours": "RGB"}, "replaced": False}}


def test_it_lets_a_bid_be_replaced() -> None:
    state = bid(started(3), 1, -4, "RGB")
    outcome = act(state, 1, {"type": "bid", "bid": -9, "colours": "VIB"})
    assert outcome.private[1]["replaced"] is True
    assert outcome.state["bids"]["1"] == {"bid": -9, "colours": "VIB"}


@pytest.mark.parametrize(
    "action",
    [
        {"type": "bid", "bid": 3, "colours": "RGB"},
        {"type": "bid", "bid": -3, "colours": "RRB"},
        {"type": "bid", "bid": -3, "colours": "RG"},
        {"type": "bid", "colours": "RGB"},
        {"type": "bid", "bid": -3},
    ],
)
def test_it_refuses_a_malformed_bid(action: dict) -> None:
    refused(started(2), 0, action, "bad_bid")


def test_it_refuses_a_bid_after_the_clock() -> None:
    refused(
        started(2),
        0,
        {"type": "bid", "bid": 0, "colours": "RGB"},
        "time_up",
        T0 + timedelta(seconds=300),
    )


def test_it_refuses_an_unseated_player() -> None:
    refused(started(2), 5, {"type": "bid", "bid": 0, "colours": "RGB"}, "not_seated")


def test_it_refuses_a_submission_during_the_bidding() -> None:
    refused(started(2), 0, submit(0, "A1"), "wrong_phase")


def test_it_refuses_an_unknown_action() -> None:
    refused(started(2), 0, {"type": "swap"}, "unknown_action")


def test_it_allocates_once_every_bid_is_in() -> None:
    state = bid(started(3), 0, -13, "RGB")
    state = bid(state, 1, -20, "RGB")
    outcome = act(state, 2, {"type": "bid", "bid": -13, "colours": "OGY"})
    assert outcome.kind == "colours_allocated"
    # R to seat 1 (-20); O to seat 2 (-13); G second choice of seat 0: -13 / 2 -> -6.
    assert outcome.public["colours"] == {"0": "G", "1": "R", "2": "O"}
    assert outcome.public["starting_scores"] == {"0": -6, "1": -20, "2": -13}
    assert outcome.state["scores"] == {"0": -6, "1": -20, "2": -13}
    assert outcome.state["phase"] == "round" and outcome.state["round"] == 1
    assert outcome.state["deadlines"] == {"round": (T0 + timedelta(seconds=600)).isoformat()}
    assert not secret_keys_outside(outcome.public, None)


def test_it_allocates_at_the_deadline_with_free_colours_for_missing_bids() -> None:
    state = bid(started(3), 0, -2, "RGB")
    outcome = flow.timeout(state, "bidding", T0 + timedelta(seconds=300))
    assert outcome.kind == "bidding_closed"
    colours = outcome.state["colours"]
    assert colours["0"] == "R"
    assert colours["1"] != "R" and colours["2"] != "R" and colours["1"] != colours["2"]
    assert outcome.state["scores"] == {"0": -2, "1": 0, "2": 0}
    assert outcome.public["no_bid"] == ["1", "2"]
    # The same seed draws the same free colours.
    assert flow.timeout(state, "bidding", T0 + timedelta(seconds=300)).state["colours"] == colours


def test_it_ignores_a_clock_that_is_not_running() -> None:
    state = started(2)
    outcome = flow.timeout(state, "round", T0)
    assert outcome.kind == "clock_ignored" and outcome.state["phase"] == "bidding"


# --- submissions ---------------------------------------------------------------------------------


def test_it_takes_a_sealed_submission() -> None:
    state = in_rounds(2)
    outcome = act(state, 0, submit(0, "a3", "rrd", premove=True))
    assert outcome.kind == "submitted"
    assert outcome.public == {"seat": 0, "submitted": [0]}
    assert outcome.private[0]["submission"] == {
        "gem": "A3",
        "moves": "RRD",
        "card": None,
        "premove": True,
    }
    assert outcome.private[0]["premove_price"] == 2


def test_it_refuses_a_gem_of_another_colour() -> None:
    error = refused(in_rounds(2), 0, submit(0, "B3"), "not_your_gem")
    assert "orange" in error.message


def test_it_refuses_a_rock() -> None:
    refused(in_rounds(2), 0, submit(0, "J3"), "not_your_gem")


def test_it_refuses_an_unknown_cell() -> None:
    refused(in_rounds(2), 0, submit(0, "K3"), "bad_gem")


@pytest.mark.parametrize("moves", ["UUX", "U" * 41, 12])
def test_it_refuses_a_bad_sequence(moves: Any) -> None:
    refused(in_rounds(2), 0, submit(0, "A3", moves), "bad_moves")


def test_it_refuses_a_card_in_round_one() -> None:
    refused(in_rounds(2), 0, submit(0, "A3", card="R"), "no_card_yet")


def test_it_refuses_a_premove_that_is_not_true_or_false() -> None:
    refused(in_rounds(2), 0, submit(0, "A3", premove="yes"), "bad_premove")


def test_it_refuses_a_submission_meant_for_another_round() -> None:
    refused(in_rounds(2), 0, submit(0, "A3", round=2), "wrong_round")


def test_it_lets_a_submission_be_replaced() -> None:
    state = act(in_rounds(3), 0, submit(0, "A3", "R")).state
    outcome = act(state, 0, submit(0, "A4", "L"))
    assert outcome.private[0]["replaced"] is True
    assert outcome.state["submissions"]["0"]["gem"] == "A4"


def test_it_refuses_a_submission_after_the_round_clock() -> None:
    refused(in_rounds(2), 0, submit(0, "A3"), "time_up", T0 + timedelta(seconds=600))


def round_two(n: int = 2, **settings: Any) -> dict:
    state = in_rounds(n, **settings)
    for seat in range(n):
        state = act(state, seat, submit(seat, f"{'ABCDEFG'[seat]}1")).state
    assert state["round"] == 2
    return state


def test_it_needs_a_card_from_round_two() -> None:
    refused(round_two(), 0, submit(0, "A3"), "card_needed")


def test_it_refuses_an_unknown_card() -> None:
    refused(round_two(), 0, submit(0, "A3", card="X"), "bad_card")


def test_it_refuses_a_card_already_played() -> None:
    state = round_two()
    state = act(state, 0, submit(0, "A3", card="O")).state
    state = act(state, 1, submit(1, "B3", card="O")).state
    refused(state, 0, submit(0, "A3", card="O"), "card_played")


# --- resolving and scoring -----------------------------------------------------------------------


def test_it_resolves_once_everyone_has_submitted() -> None:
    state = in_rounds(2)
    state = act(state, 0, submit(0, "A1", "R")).state
    outcome = act(state, 1, submit(1, "B2", "R"))
    assert outcome.kind == "round_resolved"
    after = engine.parse_board(outcome.state["board"])
    # Seat 0's red A1 swapped with orange B1; seat 1's orange B2 swapped with yellow C2.
    assert after["B1"] == "R" and after["A1"] == "O"
    assert after["C2"] == "O" and after["B2"] == "Y"
    assert outcome.public["changed"] == ["A1", "B1", "B2", "C2"]
    assert outcome.public["points"]["0"] == {"group": 0, "multiplier": 0, "penalty": 0, "points": 0}
    assert outcome.state["round"] == 2 and outcome.public["next_round"] == 2
    assert outcome.state["deadlines"] == {"round": (T0 + timedelta(seconds=600)).isoformat()}


def test_it_takes_a_point_for_a_failed_sequence_even_in_round_one() -> None:
    state = in_rounds(2)
    state = act(state, 0, submit(0, "A1", "U")).state
    outcome = act(state, 1, submit(1, "B5", ""))
    assert outcome.public["points"]["0"]["points"] == -1
    assert outcome.state["scores"] == {"0": -1, "1": -1}  # seat 1 bid -1 for orange


def test_it_scores_round_times_the_group_of_own_colour_and_card() -> None:
    state = round_two()
    state = act(state, 0, submit(0, "A5", card="O")).state
    outcome = act(state, 1, submit(1, "B5", card="B"))
    # Red column A joins orange column B: 20 gems, x2. Orange B alone with blue E: 10, x2.
    assert outcome.public["points"]["0"] == {
        "group": 20,
        "multiplier": 2,
        "penalty": 0,
        "points": 40,
    }
    assert outcome.public["points"]["1"]["points"] == 20
    assert outcome.public["cards"] == {"0": "O", "1": "B"}
    assert outcome.state["played"] == {"0": ["O"], "1": ["B"]}


def test_it_triples_the_own_card() -> None:
    state = round_two()
    state = act(state, 0, submit(0, "A5", card="R")).state
    outcome = act(state, 1, submit(1, "B5", card="Y"))
    assert outcome.public["points"]["0"]["points"] == 2 * 3 * 10


def test_it_scores_the_own_colour_alone_without_a_submission() -> None:
    state = act(round_two(), 1, submit(1, "B5", card="Y")).state
    outcome = flow.timeout(state, "round", T0 + timedelta(seconds=600))
    assert outcome.kind == "round_time_up"
    assert outcome.public["cards"] == {"0": None, "1": "Y"}
    assert outcome.public["points"]["0"]["points"] == 2 * 10
    assert outcome.state["played"]["0"] == []


def test_it_scores_nothing_without_a_submission_when_the_host_says_so() -> None:
    state = act(round_two(no_card_scores="nothing"), 1, submit(1, "B5", card="Y")).state
    outcome = flow.timeout(state, "round", T0 + timedelta(seconds=600))
    assert outcome.public["points"]["0"]["points"] == 0


def test_a_rounds_event_tells_a_seat_only_what_no_earlier_event_did() -> None:
    """The round's event goes to the host with every seat's private part: it holds the
    sequence of the submission that closed the round (its own event) and each premove's price;
    the other sequences were told in their submissions' events."""
    state = act(in_rounds(3), 0, submit(0, "A1", "R", premove=True)).state
    state = act(state, 1, submit(1, "B1", "D")).state
    outcome = act(state, 2, submit(2, "C1", "DD"))
    assert outcome.kind == "round_resolved"
    assert outcome.private == {
        0: {"premove_price": 2},
        2: {"submission": {"gem": "C1", "moves": "DD", "card": None, "premove": False}},
    }


def test_it_charges_a_premove_two_garnets_doubling_each_use() -> None:
    state = in_rounds(2)
    outcome = act(state, 0, submit(0, "A1", "", premove=True))
    assert outcome.prizes == {0: {"garnets": -2, "reason": "premove in round 1"}}
    outcome = act(outcome.state, 1, submit(1, "B1"))
    assert outcome.prizes == {}  # the round charges nothing: the submission paid
    assert outcome.private[0]["premove_price"] == 2
    assert "premove" not in json.dumps(outcome.public)
    outcome = act(outcome.state, 0, submit(0, "A1", card="O", premove=True))
    assert outcome.prizes == {0: {"garnets": -4, "reason": "premove in round 2"}}
    outcome = act(outcome.state, 1, submit(1, "B1", card="R"))
    assert gate.view(outcome.state, Viewer(seat=0))["me"]["premove_price"] == 8


def test_it_refunds_the_premove_of_a_replaced_submission_that_drops_it() -> None:
    state = act(in_rounds(2), 0, submit(0, "A1", "D", premove=True)).state
    outcome = act(state, 0, submit(0, "A1", "DD"))
    assert outcome.prizes == {0: {"garnets": 2, "reason": "premove in round 1 withdrawn"}}
    assert outcome.private[0]["premove_price"] == 0
    outcome = act(outcome.state, 0, submit(0, "A1", "D", premove=True))
    assert outcome.prizes == {0: {"garnets": -2, "reason": "premove in round 1"}}


def test_it_charges_nothing_more_for_a_replacement_that_keeps_the_premove() -> None:
    state = act(in_rounds(2), 0, submit(0, "A1", "D", premove=True)).state
    outcome = act(state, 0, submit(0, "A1", "DD", premove=True))
    assert outcome.prizes == {}
    assert outcome.private[0]["premove_price"] == 2


def test_it_prices_a_submission_by_what_it_adds_to_the_seats_charges() -> None:
    state = in_rounds(2)
    premove = submit(0, "A1", "D", premove=True)
    assert flow.action_cost(state, 0, premove) == {"garnets": 2}
    assert flow.action_cost(state, 0, submit(0, "A1", "D")) == {}
    state = act(state, 0, premove).state
    assert flow.action_cost(state, 0, premove) == {}
    assert flow.action_cost(state, 0, {"type": "bid", "premove": True}) == {}


def test_the_submission_that_closes_a_round_pays_its_premove() -> None:
    state = act(in_rounds(2), 0, submit(0, "A1")).state
    outcome = act(state, 1, submit(1, "B1", premove=True))
    assert outcome.kind == "round_resolved"
    assert outcome.prizes == {1: {"garnets": -2, "reason": "premove in round 1"}}
    assert outcome.state["premoves"] == {"0": 0, "1": 1}


def test_the_submission_that_closes_the_last_round_pays_its_premove_beside_the_result() -> None:
    outcomes = play_out(in_rounds(2), {})
    state = outcomes[-3].state  # round 8, nobody has submitted yet
    assert state["round"] == 8 and state["submissions"] == {}
    state = act(state, 0, submit(0, "A1", card="V")).state
    last = act(state, 1, submit(1, "B1", card="V", premove=True))
    assert last.state["phase"] == "over"
    # Orange's 6 garnets for the result less the 2 of the premove, in one entry.
    assert last.prizes[1] == {
        "garnets": 6 - 2,
        "tokens": 2,
        "reason": "the result, less 2 garnets for the premove in round 8",
    }
    assert last.prizes[0] == {"garnets": 5, "tokens": 0}


def test_a_winner_named_mid_round_gives_back_the_premoves_that_never_ran() -> None:
    state = act(round_two(3), 0, submit(0, "A1", card="O", premove=True)).state
    outcome = flow.adjudicate(state, {"winner": 2}, T0)
    assert outcome.prizes[0]["garnets"] == 2
    assert (
        outcome.prizes[0]["reason"] == "the result, and 2 garnets back for the premove in round 2"
    )
    assert outcome.prizes[1] == {"garnets": 0, "tokens": 0}
    assert flow.refunds_on_abort(state) == {
        0: {"garnets": 2, "reason": "premove in round 2 given back: it never ran"}
    }


def test_it_runs_the_premovers_moves_one_step_ahead() -> None:
    # Seat 0 premoves A1 -> B1; seat 1's B2 -> B1 then meets seat 0's controlled gem and fails.
    state = in_rounds(2)
    state = act(state, 0, submit(0, "A1", "R", premove=True)).state
    outcome = act(state, 1, submit(1, "B2", "U"))
    last = gate.view(outcome.state, Viewer.host())["host"]["last_round"]
    assert last["failed"] == {"0": False, "1": True}
    assert engine.parse_board(outcome.state["board"])["B1"] == "R"


# --- the clock and the host ----------------------------------------------------------------------


def test_it_extends_the_running_deadline() -> None:
    state = in_rounds(2)
    outcome = flow.extend_deadline(state, 120, T0 + timedelta(seconds=10))
    assert outcome.kind == "deadline_extended"
    assert outcome.state["deadlines"] == {"round": (T0 + timedelta(seconds=720)).isoformat()}
    assert outcome.public == {
        "clock": "round",
        "deadline": outcome.state["deadlines"]["round"],
        "seconds": 120,
        "round": 1,
    }
    # A submission after the old deadline is now on time.
    act(outcome.state, 0, submit(0, "A1"), T0 + timedelta(seconds=650))


def test_it_extends_the_bidding_deadline() -> None:
    outcome = flow.extend_deadline(started(2), 60, T0)
    assert outcome.state["deadlines"] == {"bidding": (T0 + timedelta(seconds=360)).isoformat()}


@pytest.mark.parametrize("seconds", [0, -5, 1.5, True, 31 * 86400])
def test_it_refuses_a_bad_extension(seconds: Any) -> None:
    with pytest.raises(ActionError) as info:
        flow.extend_deadline(started(2), seconds, T0)
    assert info.value.code == "bad_seconds"


def test_it_lets_the_host_end_the_match_with_a_winner() -> None:
    outcome = flow.adjudicate(round_two(3), {"winner": 2}, T0)
    assert outcome.kind == "adjudicated"
    assert outcome.result["winner"] == 2
    assert outcome.state["phase"] == "over" and outcome.state["deadlines"] == {}
    assert outcome.prizes[2]["tokens"] == 2 and outcome.prizes[0]["tokens"] == 0


def test_it_refuses_an_award_to_no_seat() -> None:
    with pytest.raises(ActionError) as info:
        flow.adjudicate(round_two(2), {"winner": 4}, T0)
    assert info.value.code == "bad_award"


# --- a whole match -------------------------------------------------------------------------------


def play_out(state: dict, moves_of: dict[int, str], now: datetime = T0) -> list[Outcome]:
    """Every seat submits each round (its own first gem, ``moves_of[seat]``, the next card)."""
    outcomes = []
    while state["phase"] == "round":
        board = engine.parse_board(state["board"])
        for seat in range(len(state["seats"])):
            key = str(seat)
            colour = state["colours"][key]
            gem = next(engine.cell_name(i) for i, c in enumerate(board.cells) if c == colour)
            card = None if state["round"] == 1 else submissions.cards_left(state, key)[0]
            outcome = act(state, seat, submit(seat, gem, moves_of.get(seat, ""), card), now)
            outcomes.append(outcome)
            state = outcome.state
    return outcomes


def test_it_plays_a_whole_match_to_its_result() -> None:
    state = in_rounds(3)
    outcomes = play_out(state, {0: "D", 1: "", 2: "U"})
    last = outcomes[-1]
    state = last.state
    assert state["phase"] == "over" and state["deadlines"] == {}
    assert len(state["history"]) == 8
    assert all(sorted(cards) == sorted(engine.COLOURS) for cards in state["played"].values())
    totals = state["scores"]
    best = max(totals.values())
    top = [int(k) for k, v in totals.items() if v == best]
    assert last.result["winner"] == (top[0] if len(top) == 1 else None)
    for seat in range(3):
        assert last.prizes[seat]["garnets"] == max(0, totals[str(seat)]) // 75
    assert sum(p["tokens"] for p in last.prizes.values()) in (2, 3)
    assert "Elimination Candidate" in last.result["summary"]
    refused(state, 0, submit(0, "A1"), "match_over")


def test_it_checks_every_round_total_by_hand_on_the_column_grid() -> None:
    # Nobody moves; both play their cards in the order R O Y G B I V from round 2.
    # Seat 0 (red, bid 0): R x3 = 2*10*3; O joins column B: 3*20; Y G B I V lie apart: 10 each.
    # Seat 1 (orange, bid -1): R joins: 2*20; O x3 = 3*10*3; Y joins column C: 4*20; then 10.
    outcomes = play_out(in_rounds(2), {})
    final = outcomes[-1]
    red = 60 + 60 + (4 + 5 + 6 + 7 + 8) * 10
    orange = -1 + 40 + 90 + 80 + (5 + 6 + 7 + 8) * 10
    assert final.state["scores"] == {"0": red, "1": orange}
    assert (red, orange) == (420, 469)
    assert final.prizes == {0: {"garnets": 5, "tokens": 0}, 1: {"garnets": 6, "tokens": 2}}
    assert final.result["winner"] == 1
    assert final.state["result"]["elimination_candidate"] == 0


def test_it_shows_the_host_every_step_and_every_submission() -> None:
    state = in_rounds(2)
    state = act(state, 0, submit(0, "A1", "RD")).state
    host = gate.view(state, Viewer.host())["host"]
    assert host["submissions"]["0"]["moves"] == "RD"
    assert host["bids"]["1"] == {"bid": -1, "colours": "OYG"}
    state = act(state, 1, submit(1, "B5", "")).state
    last = gate.view(state, Viewer.host())["host"]["last_round"]
    assert [len(step["moves"]) for step in last["steps"]] == [1, 1]
    assert last["steps"][0]["moves"][0] == ["0", "A1", "B1", "R", None]
    assert [step["locks"] for step in last["steps"]] == [["A1"], ["B1"]]
    assert last["steps"][-1]["board"] == state["history"][-1]["public"]["board_after"]


def test_it_shows_a_seat_its_own_submission_and_cards() -> None:
    state = act(round_two(), 0, submit(0, "A4", "DD", card="V")).state
    me = gate.view(state, Viewer(seat=0))["me"]
    assert me["submission"] == {"gem": "A4", "moves": "DD", "card": "V", "premove": False}
    assert me["cards_left"] == list("ROYGBIV")
    assert me["rounds"][0]["submission"]["gem"] == "A1"
    assert gate.view(state, Viewer(seat=1))["me"]["submission"] is None
    assert gate.view(state, Viewer.spectator())["submitted"] == [0]


def test_it_lets_the_host_name_the_elimination_candidate_in_a_tie() -> None:
    state = in_rounds(3)
    state["scores"] = {"0": 0, "1": 0, "2": 0}
    # Seats 1 (orange) and 2 (yellow) play the same kind of cards and score alike.
    final = play_out(state, {})[-1].state
    forced = copy.deepcopy(final)
    forced["result"]["ec_tied"] = [1, 2]
    forced["result"]["elimination_candidate"] = None
    with pytest.raises(ActionError) as info:
        flow.adjudicate(forced, {"elimination_candidate": 0}, T0)
    assert info.value.code == "bad_award"
    outcome = flow.adjudicate(forced, {"elimination_candidate": 2}, T0)
    assert outcome.kind == "ec_named"
    assert outcome.state["elimination_candidate"] == 2
    assert outcome.state["result"]["ec_tied"] == []


# --- privacy -------------------------------------------------------------------------------------

SECRET_KEYS = {
    "bid",
    "bids",
    "gem",
    "moves",
    "premove",
    "submission",
    "submissions",
    "steps",
    "positions",
    "made",
    "failed",
    "won_by",
    "premove_price",
    "premoves",
    "premoves_used",
    "allocation",
    "preview",
}


def secret_keys_outside(view: dict, allowed: str | None) -> list[str]:
    """Every secret key found anywhere in ``view`` except under the top-level ``allowed`` key."""
    found: list[str] = []

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                if key in SECRET_KEYS:
                    found.append(f"{path}.{key}")
                walk(inner, f"{path}.{key}")
        elif isinstance(value, list):
            for i, inner in enumerate(value):
                walk(inner, f"{path}[{i}]")

    walk({k: v for k, v in view.items() if k != allowed}, "view")
    return found


# Distinct sequences (never a substring of a grid, which has no U, D or L) and bids.
SEQUENCES = {
    0: "UULDDRRU",
    1: "DDLUURDL",
    2: "LLURRDDLU",
    3: "RRULLDDRU",
    4: "UDUDLRLRDD",
    5: "DLDLURUR",
    6: "LURDLURDL",
}
BIDS = {0: (-3, "RGB"), 1: (-7, "OYV"), 2: (-1, "YBI"), 3: (-2, "GIV"), 4: (-11, "BRO"),
        5: (0, "IVR"), 6: (-4, "VOG")}  # fmt: skip


def test_no_view_ever_shows_another_seats_bid_gem_or_sequence() -> None:
    n = 7
    now = T0
    outcomes = [flow.start({"round_seconds": 600, "bid_seconds": 300}, seats(n), 11, now)]
    state = outcomes[0].state
    gems: dict[int, list[str]] = {seat: [] for seat in range(n)}
    views_checked = 0

    def check(state: dict, outcome: Outcome) -> None:
        nonlocal views_checked
        secrets = {
            seat: [f'"{SEQUENCES[seat]}"', f'"{BIDS[seat][1]}"']
            + [f'"gem": "{gem}"' for gem in gems[seat]]
            for seat in range(n)
        }
        assert not secret_keys_outside(outcome.public, None), outcome.kind
        public_text = json.dumps(outcome.public)
        for seat in range(n):
            for secret in secrets[seat]:
                assert secret not in public_text, (outcome.kind, secret)
        for viewer in [Viewer(seat=s) for s in range(n)] + [Viewer.spectator()]:
            shown = gate.view(state, viewer)
            text = json.dumps(shown)
            # A seat's own gems may share a cell name with another seat's gem of another round.
            outside_me = json.dumps({k: v for k, v in shown.items() if k != "me"})
            mine = "me" if viewer.seat is not None else None
            assert not secret_keys_outside(shown, mine), (viewer, secret_keys_outside(shown, mine))
            for seat in range(n):
                if seat == viewer.seat:
                    continue
                for secret in secrets[seat]:
                    assert secret not in (outside_me if '"gem"' in secret else text), (
                        outcome.kind,
                        viewer,
                        secret,
                    )
            if viewer.seat is not None:
                me = shown["me"]
                shown_gems = [r["submission"]["gem"] for r in me["rounds"]]
                if me["submission"]:
                    shown_gems.append(me["submission"]["gem"])
                assert set(shown_gems) <= set(gems[viewer.seat])
                assert me["bid"] in (
                    None,
                    {"bid": BIDS[viewer.seat][0], "colours": BIDS[viewer.seat][1]},
                )
            views_checked += 1
        # The host sees everything submitted so far: the search above can find what it hides.
        host_text = json.dumps(gate.view(state, Viewer.host()))
        for seat in range(n):
            if seat in [int(k) for k in state["bids"]]:
                assert f'"{BIDS[seat][1]}"' in host_text

    check(state, outcomes[0])
    for seat in range(n):
        points, colours = BIDS[seat]
        outcome = act(state, seat, {"type": "bid", "bid": points, "colours": colours}, now)
        state = outcome.state
        check(state, outcome)
    while state["phase"] == "round":
        board = engine.parse_board(state["board"])
        for seat in range(n):
            if seat == 3 and state["round"] % 3 == 0:
                continue  # sometimes a seat sends nothing and the clock ends the round
            colour = state["colours"][str(seat)]
            options = [engine.cell_name(i) for i, c in enumerate(board.cells) if c == colour]
            gem = options[(seat + state["round"]) % len(options)]
            gems[seat].append(gem)
            card = None if state["round"] == 1 else submissions.cards_left(state, str(seat))[0]
            action = submit(seat, gem, SEQUENCES[seat], card, premove=seat in (2, 5))
            outcome = act(state, seat, action, now)
            state = outcome.state
            check(state, outcome)
        if state["phase"] == "round" and state["submissions"]:
            now += timedelta(seconds=600)
            outcome = flow.timeout(state, "round", now)
            state = outcome.state
            check(state, outcome)
    assert state["phase"] == "over"
    assert views_checked > 60 * (n + 1)
    # A seat does see its own sequence and bid.
    own = json.dumps(gate.view(state, Viewer(seat=4)))
    assert f'"{SEQUENCES[4]}"' in own and f'"{BIDS[4][1]}"' in own


def test_it_never_makes_the_hosts_winner_the_elimination_candidate() -> None:
    state = round_two(3)
    state["scores"] = {"0": -5, "1": 3, "2": 1}
    outcome = flow.adjudicate(state, {"winner": 0}, T0)
    assert outcome.result["winner"] == 0
    assert outcome.state["result"]["elimination_candidate"] == 2
    assert "P2 is the Elimination Candidate" in outcome.result["summary"]


def test_it_cleans_a_draft_without_playing_it() -> None:
    state = round_two()
    kept = flow.clean_draft(state, 0, {"gem": "a4", "moves": "ud", "card": "v"})
    assert {k: v for k, v in kept.items() if k != "preview"} == {
        "gem": "A4",
        "moves": "UD",
        "card": "V",
    }
    assert state == round_two()
    with pytest.raises(ActionError) as info:
        flow.clean_draft(state, 0, {"moves": "UX"})
    assert info.value.code == "bad_moves"
    outcome = flow.timeout(state, "round", T0 + timedelta(seconds=600), drafts={0: {"gem": "A4"}})
    assert outcome.public["submitted"] == []


# --- the preview of a draft ----------------------------------------------------------------------


def test_a_draft_keeps_its_path_and_the_grid_it_would_leave() -> None:
    # Red is column A, orange column B: A1 goes right to B1, then down to B2.
    preview = flow.clean_draft(in_rounds(2), 0, {"gem": "A1", "moves": "RD"})["preview"]
    assert preview["path"] == ["A1", "B1", "B2"] and preview["end"] == "B2"
    assert preview["failed"] is None
    rows = preview["board"].splitlines()
    assert rows[0] == "OOYGBIV###" and rows[1] == "RRYGBIV###" and rows[2] == "ROYGBIV###"
    # Round 1 scores no group; the preview still says the largest red group: A2-A10 and B2.
    assert (preview["colours"], preview["group"], preview["multiplier"]) == ("R", 10, 0)
    assert preview["next"] == {"B1": "U", "B3": "D", "A2": "L", "C2": "R"}


def test_a_draft_preview_names_the_move_that_would_fail_and_stops_there() -> None:
    state = in_rounds(2)
    back = flow.clean_draft(state, 0, {"gem": "A1", "moves": "RLD"})["preview"]
    assert back["failed"] == {"move": 2, "direction": "L", "cell": "A1", "reason": "locked"}
    assert back["path"] == ["A1", "B1"] and back["end"] == "B1"
    off = flow.clean_draft(state, 0, {"gem": "A1", "moves": "U"})["preview"]
    assert off["failed"] == {"move": 1, "direction": "U", "cell": None, "reason": "off_grid"}
    assert off["path"] == ["A1"] and off["board"] == state["board"]
    assert off["next"] == {"A2": "D", "B1": "R"}


def test_a_draft_preview_scores_the_group_with_the_card_chosen() -> None:
    state = round_two()
    draft = {"round": 2, "gem": "A1", "moves": "RD"}
    violet = flow.clean_draft(state, 0, {**draft, "card": "V"})["preview"]
    assert (violet["colours"], violet["group"], violet["multiplier"]) == ("RV", 10, 2)
    red = flow.clean_draft(state, 0, {**draft, "card": "R"})["preview"]
    assert (red["colours"], red["group"], red["multiplier"]) == ("R", 10, 6)
    none = flow.clean_draft(state, 0, draft)["preview"]
    assert (none["colours"], none["group"], none["multiplier"]) == ("R", 10, None)


def test_a_draft_without_a_gem_has_no_preview() -> None:
    assert "preview" not in flow.clean_draft(in_rounds(2), 0, {"moves": "UD"})


def test_a_draft_refuses_a_gem_that_is_not_the_seats_own() -> None:
    with pytest.raises(ActionError) as info:
        flow.clean_draft(in_rounds(2), 0, {"gem": "B1", "moves": "D"})
    assert info.value.code == "not_your_gem" and "orange gem" in info.value.message


def test_a_seat_sees_what_its_sent_sequence_would_do_and_no_one_else_does() -> None:
    state = act(in_rounds(3), 0, submit(0, "A1", "RD")).state
    mine = gate.view(state, Viewer(seat=0))["me"]["preview"]
    assert mine == flow.clean_draft(state, 0, {"gem": "A1", "moves": "RD"})["preview"]
    assert gate.view(state, Viewer(seat=1))["me"]["preview"] is None
    for viewer in (Viewer(seat=1), Viewer(seat=2), Viewer.spectator(), Viewer.host()):
        assert '"preview"' not in json.dumps(
            {k: v for k, v in gate.view(state, viewer).items() if k != "me"}
        )
        assert mine["board"] not in json.dumps(gate.view(state, viewer))


def test_the_host_replays_a_round_kept_before_steps_carried_their_grid() -> None:
    state = act(in_rounds(2), 0, submit(0, "A1", "RD")).state
    state = act(state, 1, submit(1, "B5", "")).state
    shown = gate.view(state, Viewer.host())["host"]["last_round"]["steps"]
    for step in state["history"][-1]["secret"]["steps"]:
        del step["board"]
    assert gate.view(state, Viewer.host())["host"]["last_round"]["steps"] == shown


def test_it_takes_bids_and_submissions_whatever_version_the_player_saw() -> None:
    assert {"bid", "submit"} == set(flow.UNVERSIONED_ACTIONS)
