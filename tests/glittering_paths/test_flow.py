"""The Glittering Paths match flow, driven with a hand-moved clock: the race, the random start,
turns, skips, passes, each way a round ends, three rounds and the result."""

from __future__ import annotations

import copy
import json
from datetime import timedelta
from functools import partial
from typing import Any

import pytest

from games.core.game.contract import settled
from games.core.game.gamedef import ActionError, Outcome, SeatInfo, Viewer
from games.glittering_paths import analysis, engine, flow, players, rounds
from games.glittering_paths import view as gate
from tests import flows
from tests.flows import T0, at

SEATS = [SeatInfo(0, "EC", "Rita"), SeatInfo(1, "DMO", "Sam")]

# Six cells, symmetric: red's A1 B1 B2 (ruby, sapphire, ruby) leaves no path for anyone.
#   A B C
# 1 R S G
# 2 L R S
TINY = "RSG\nLRS"
TINY_BOARDS = "\n\n".join([TINY] * 3)


def begin(**settings: Any) -> dict:
    return flow.start(settings, SEATS, seed=42, now=T0).state


def tiny(**settings: Any) -> dict:
    return begin(boards=TINY_BOARDS, **settings)


def act(state: dict, seat: int, action: dict, seconds: float = 1) -> Outcome:
    before = copy.deepcopy(state)
    outcome = flow.act(state, seat, action, at(seconds))
    assert state == before, "act never changes the state it is given"
    return outcome


refused = partial(flows.refused, flow.act)


def best(state: dict, seat: int) -> list[str]:
    return engine.best_path(state["board"], players.COLOURS[seat])[1]


def in_turns(state: dict | None = None) -> dict:
    """A generated-board match where red won the race with its best path: blue to move."""
    state = state or begin()
    return act(state, 0, {"type": "path", "cells": best(state, 0)}).state


# --- the start and the race ------------------------------------------------------------------


def test_it_starts_round_one_with_the_race_clock() -> None:
    state = begin()
    assert state["phase"] == "race" and state["round"] == 1
    assert state["deadlines"] == {"race": (T0 + timedelta(seconds=120)).isoformat()}
    board = engine.parse_board(state["board"])
    assert engine.is_symmetric(board)
    assert board.count("J") == board.count("A") == 0


def test_seat_zero_plays_red_and_seat_one_blue() -> None:
    state = begin()
    assert [seat["colour"] for seat in state["seats"]] == ["red", "blue"]
    assert state["dmo"] == 1


def test_the_first_legal_path_in_the_race_is_made_and_its_player_moves_first() -> None:
    state = begin()
    outcome = act(state, 1, {"type": "path", "cells": best(state, 1)}, seconds=30)
    new = outcome.state
    assert outcome.kind == "race_won"
    assert new["first"] == 1 and new["start_kind"] == "race"
    assert new["phase"] == "turns" and new["turn"] == 0 and new["turn_number"] == 2
    assert new["deadlines"] == {"turn": at(90).isoformat()}
    assert new["totals"][0] == "0.00" and new["totals"][1] != "0.00"


def test_an_illegal_race_path_is_refused_and_the_race_goes_on() -> None:
    state = tiny()
    error = refused(state, 0, {"type": "path", "cells": ["A1", "B1", "B2", "C2"]})
    assert error.code == "illegal_path" and "odd number" in error.message


def test_a_path_starting_on_the_opponents_gem_is_refused() -> None:
    state = tiny()
    error = refused(state, 1, {"type": "path", "cells": ["B2", "B1", "A1"]})
    assert "blue's paths start on a sapphire" in error.message


def test_of_two_race_paths_sent_together_only_the_first_accepted_stands() -> None:
    state = begin()
    red = {"type": "path", "cells": best(state, 0), "turn": 1}
    blue = {"type": "path", "cells": best(state, 1), "turn": 1}
    assert "path" in flow.UNVERSIONED_ACTIONS
    after_red = act(state, 0, red).state
    error = refused(after_red, 1, blue)
    assert error.code == "race_lost"
    assert "Rita (red) moved first" in error.message
    assert len(after_red["moves"]) == 1


def test_a_race_path_after_two_minutes_is_refused() -> None:
    state = tiny()
    error = refused(state, 0, {"type": "path", "cells": ["A1", "B1", "B2"]}, now=at(120))
    assert error.code == "time_up"


def test_no_path_in_the_race_starts_a_seeded_random_player() -> None:
    firsts = set()
    for seed in range(8):
        state = flow.start({}, SEATS, seed=seed, now=T0).state
        outcome = flow.timeout(state, "race", at(120))
        again = flow.timeout(state, "race", at(120))
        assert outcome.state == again.state
        assert outcome.kind == "random_start"
        new = outcome.state
        assert new["start_kind"] == "random" and new["turn"] == new["first"]
        assert new["turn_number"] == 1 and new["moves"] == []
        assert new["deadlines"] == {"turn": at(180).isoformat()}
        firsts.add(new["first"])
    assert firsts == {0, 1}


def test_no_one_passes_in_the_race() -> None:
    assert refused(begin(), 0, {"type": "pass"}).code == "wrong_phase"


# --- turns -------------------------------------------------------------------------------------


def test_only_the_player_to_move_may_move() -> None:
    state = in_turns()
    error = refused(state, 0, {"type": "path", "cells": best(state, 0)})
    assert error.code == "not_your_turn" and "Sam (blue)" in error.message
    assert refused(state, 0, {"type": "pass"}).code == "not_your_turn"


def test_a_path_adds_its_score_to_the_total_rounded_to_two_places() -> None:
    state = in_turns()
    cells = best(state, 1)
    score = engine.score_fraction(state["board"], "blue", cells)
    new = act(state, 1, {"type": "path", "cells": cells}).state
    assert new["totals"][1] == str(engine.add_to_total("0.00", score))
    assert new["moves"][-1]["score"] == str(engine.as_decimal(score))
    assert new["moves"][-1]["board_before"] == state["board"]
    assert new["turn"] == 0 and new["turn_number"] == 3


def test_a_path_empties_its_cells() -> None:
    state = tiny()
    new = act(state, 0, {"type": "path", "cells": ["A1", "B1", "B2"]}).state
    assert new["history"][0]["end_board"] == "..G\nL.S"


def test_no_move_in_time_is_a_skip() -> None:
    state = in_turns()
    outcome = flow.timeout(state, "turn", at(61))
    new = outcome.state
    assert outcome.kind == "skipped"
    assert new["moves"][-1]["kind"] == "skip" and new["moves"][-1]["seat"] == 1
    assert new["streak"] == [0, 1]
    assert new["turn"] == 0 and new["deadlines"] == {"turn": at(121).isoformat()}


def test_a_timeout_never_makes_the_drawn_path() -> None:
    state = in_turns()
    drafts = {1: {"cells": best(state, 1)}}
    new = flow.timeout(state, "turn", at(61), drafts=drafts).state
    assert new["moves"][-1]["kind"] == "skip"
    assert new["totals"][1] == "0.00"


def test_a_move_after_the_minute_is_refused() -> None:
    state = in_turns()
    error = refused(state, 1, {"type": "pass"}, now=at(61))
    assert error.code == "time_up"


def test_a_pass_hands_the_turn_over() -> None:
    state = in_turns()
    outcome = act(state, 1, {"type": "pass"})
    assert outcome.kind == "passed"
    assert outcome.state["turn"] == 0 and outcome.state["streak"] == [0, 1]


def test_a_move_meant_for_an_earlier_turn_is_refused() -> None:
    state = in_turns()
    error = refused(state, 1, {"type": "pass", "turn": 5})
    assert error.code == "stale_turn"
    assert act(state, 1, {"type": "pass", "turn": 2}).kind == "passed"


def test_a_clock_that_does_not_belong_to_the_phase_is_ignored() -> None:
    state = in_turns()
    outcome = flow.timeout(state, "race", at(5))
    assert outcome.kind == "clock_ignored"
    assert outcome.state["moves"] == state["moves"]


# --- the end of a round --------------------------------------------------------------------------


def pass_or_skip(state: dict, kinds: list[str]) -> dict:
    seconds = 2.0
    for kind in kinds:
        if kind == "pass":
            state = flow.act(state, state["turn"], {"type": "pass"}, at(seconds)).state
        else:
            state = flow.timeout(state, "turn", at(seconds)).state
        seconds += 1
    return state


def test_the_round_ends_when_each_player_skipped_or_passed_twice_in_a_row() -> None:
    state = in_turns()
    before = pass_or_skip(state, ["pass", "skip", "skip"])
    assert before["phase"] == "turns"
    new = pass_or_skip(before, ["pass"])
    assert new["phase"] == "interval"
    assert new["history"][0]["reason"] == "skips"
    assert new["deadlines"] == {"next_round": at(2 + 15).isoformat()}


def test_a_path_breaks_the_run_of_passes() -> None:
    state = pass_or_skip(in_turns(), ["pass", "pass", "pass"])  # blue, red, blue
    assert state["streak"] == [1, 2]
    cells = best(state, 0)
    assert cells, "red still has a path on this 8x8 board"
    state = flow.act(state, 0, {"type": "path", "cells": cells}, at(9)).state
    assert state["streak"] == [0, 2]
    state = pass_or_skip(state, ["pass", "pass"])
    assert state["phase"] == "turns"


def test_the_round_ends_when_neither_player_has_a_legal_path() -> None:
    outcome = act(tiny(), 0, {"type": "path", "cells": ["A1", "B1", "B2"]})
    assert outcome.state["phase"] == "interval"
    assert outcome.state["history"][0]["reason"] == "no_paths"
    assert outcome.public["reason"] == "no_paths"


def test_the_round_ends_when_both_players_agree() -> None:
    state = in_turns()
    offered = act(state, 1, {"type": "agree_end"})
    assert offered.kind == "end_offered" and offered.state["agreed"] == [False, True]
    ended = act(offered.state, 0, {"type": "agree_end"})
    assert ended.kind == "agreed_end"
    assert ended.state["history"][0]["reason"] == "agreed"


def test_players_may_agree_to_end_during_the_race() -> None:
    state = act(begin(), 0, {"type": "agree_end"}).state
    assert act(state, 1, {"type": "agree_end"}).state["phase"] == "interval"


def test_an_agreement_can_be_withdrawn() -> None:
    state = act(in_turns(), 0, {"type": "agree_end"}).state
    state = act(state, 0, {"type": "withdraw_end"}).state
    assert state["agreed"] == [False, False]
    assert refused(state, 0, {"type": "withdraw_end"}).code == "not_agreed"


def test_agreeing_twice_is_refused() -> None:
    state = act(in_turns(), 0, {"type": "agree_end"}).state
    assert refused(state, 0, {"type": "agree_end"}).code == "already_agreed"


def test_a_path_clears_standing_agreements() -> None:
    state = act(in_turns(), 0, {"type": "agree_end"}).state
    new = act(state, 1, {"type": "path", "cells": best(state, 1)}).state
    assert new["agreed"] == [False, False]


# --- three rounds and the result -----------------------------------------------------------------


def finish_round_by_agreement(state: dict, seconds: float) -> dict:
    state = flow.act(state, 0, {"type": "agree_end"}, at(seconds)).state
    return flow.act(state, 1, {"type": "agree_end"}, at(seconds)).state


def test_the_next_round_starts_when_the_pause_ends() -> None:
    state = finish_round_by_agreement(begin(), 5)
    outcome = flow.timeout(state, "next_round", at(20))
    new = outcome.state
    assert outcome.kind == "round_started"
    assert new["round"] == 2 and new["phase"] == "race"
    assert new["deadlines"] == {"race": at(140).isoformat()}
    assert new["board"] != state["board"]


def test_round_three_has_jasper_or_aquamarine_and_round_boards_are_about_equal() -> None:
    state = begin()
    areas = []
    for round_no in (1, 2, 3):
        board = rounds.round_board(state, round_no)
        areas.append(board.height * board.width)
    assert max(areas) - min(areas) <= 64 // 5
    third = rounds.round_board(state, 3)
    assert third.count("J") + third.count("A") > 0


def test_with_no_pause_the_next_round_starts_at_once() -> None:
    state = finish_round_by_agreement(begin(interval_seconds=0), 5)
    assert state["round"] == 2 and state["phase"] == "race"


def play_three_rounds_of_tiny(state: dict) -> Outcome:
    outcome = None
    for round_no in (1, 2, 3):
        seconds = 100 * round_no
        outcome = flow.act(state, 0, {"type": "path", "cells": ["A1", "B1", "B2"]}, at(seconds))
        state = outcome.state
        if round_no < 3:
            state = flow.timeout(state, "next_round", at(seconds + 15)).state
    assert outcome is not None
    return outcome


def test_after_three_rounds_the_higher_total_wins() -> None:
    outcome = play_three_rounds_of_tiny(tiny())
    assert outcome.state["phase"] == "over"
    assert outcome.state["totals"] == ["6.00", "0.00"]
    assert outcome.result is not None and outcome.result["winner"] == 0
    assert "Rita (red) wins" in outcome.result["summary"]
    assert outcome.prizes[0] == {"garnets": 5, "tokens": 0}
    assert outcome.result["garnets"] == 5
    assert outcome.state["deadlines"] == {}
    assert len(outcome.state["history"]) == 3


def test_a_tie_goes_to_the_death_match_opponent() -> None:
    state = begin()
    for round_no in (1, 2, 3):
        state = finish_round_by_agreement(state, 100 * round_no)
        if round_no < 3:
            state = flow.timeout(state, "next_round", at(100 * round_no + 15)).state
    assert state["totals"] == ["0.00", "0.00"]
    assert state["winner"] == 1
    assert "a tie goes to the DMO" in state["result"]["summary"]


def test_the_host_may_give_ties_to_the_ec_instead() -> None:
    state = begin(tie_to="EC", interval_seconds=0)
    for round_no in (1, 2, 3):
        state = finish_round_by_agreement(state, 100 * round_no)
    assert state["winner"] == 0


def test_the_dmo_may_sit_in_seat_zero() -> None:
    seats = [SeatInfo(0, "DMO", "Dora"), SeatInfo(1, "EC", "Eli")]
    state = flow.start({"interval_seconds": 0}, seats, seed=1, now=T0).state
    for round_no in (1, 2, 3):
        state = finish_round_by_agreement(state, 100 * round_no)
    assert state["winner"] == 0


def test_nothing_is_accepted_once_the_match_is_over() -> None:
    state = play_three_rounds_of_tiny(tiny()).state
    assert refused(state, 0, {"type": "pass"}).code == "match_over"


def test_a_whole_match_with_best_paths_reaches_a_result() -> None:
    state = begin()
    seconds = 0.0
    while state["phase"] != "over":
        seconds += 3
        if state["phase"] == "interval":
            state = flow.timeout(state, "next_round", at(seconds)).state
            continue
        seat = 0 if state["phase"] == "race" else state["turn"]
        cells = best(state, seat)
        action = {"type": "path", "cells": cells} if cells else {"type": "pass"}
        state = flow.act(state, seat, action, at(seconds)).state
    assert [entry["round"] for entry in state["history"]] == [1, 2, 3]
    assert state["result"]["winner"] in (0, 1)
    totals = [
        sum(float(m["score"]) for h in state["history"] for m in h["moves"] if m["seat"] == s)
        for s in (0, 1)
    ]
    assert all(abs(float(state["totals"][s]) - totals[s]) < 0.05 for s in (0, 1))


# --- the host ------------------------------------------------------------------------------------


def test_the_host_may_award_the_match() -> None:
    outcome = flow.adjudicate(in_turns(), {"winner": 1}, at(5))
    assert outcome.state["phase"] == "over" and outcome.result["winner"] == 1
    assert "host awarded" in outcome.result["summary"]


def test_the_host_may_end_the_round() -> None:
    outcome = flow.adjudicate(in_turns(), {"end_round": True}, at(5))
    assert outcome.state["history"][0]["reason"] == "host"
    assert outcome.state["phase"] == "interval"


def test_a_bad_award_is_refused() -> None:
    with pytest.raises(ActionError):
        flow.adjudicate(in_turns(), {"winner": 2}, at(5))


# --- settings ------------------------------------------------------------------------------------


def test_pasted_boards_are_used_round_by_round() -> None:
    state = tiny()
    assert state["board"] == TINY


def test_a_pasted_board_that_is_not_symmetric_is_refused_with_the_cell() -> None:
    with pytest.raises(ValueError, match="round 2's board is not symmetric: A1"):
        settled(flow.SETTINGS, {"boards": f"{TINY}\n\nRSG\nLRR\n\n{TINY}"})


def test_pasted_boards_must_be_three() -> None:
    with pytest.raises(ValueError, match="exactly 3 boards"):
        settled(flow.SETTINGS, {"boards": f"{TINY}\n\n{TINY}"})


def test_a_pasted_ragged_board_is_refused() -> None:
    with pytest.raises(ValueError, match="round 1's board: row 2"):
        settled(flow.SETTINGS, {"boards": f"RSG\nLR\n\n{TINY}\n\n{TINY}"})


def test_pasted_boards_must_have_about_equal_area() -> None:
    big = engine.format_board(engine.generate_board(1, 3, 4, 4))
    with pytest.raises(ValueError, match="about equal area"):
        settled(flow.SETTINGS, {"boards": f"{TINY}\n\n{TINY}\n\n{big}"})


def test_unknown_or_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown"):
        settled(flow.SETTINGS, {"colour": "green"})
    with pytest.raises(ValueError, match="turn_seconds"):
        settled(flow.SETTINGS, {"turn_seconds": 0})
    with pytest.raises(ValueError, match="tie_to is one of"):
        settled(flow.SETTINGS, {"tie_to": "red"})
    with pytest.raises(ValueError, match="board_area"):
        settled(flow.SETTINGS, {"board_area": 5})


def test_the_clocks_follow_the_settings() -> None:
    state = begin(race_seconds=30, turn_seconds=20)
    assert state["deadlines"] == {"race": at(30).isoformat()}
    state = act(state, 0, {"type": "path", "cells": best(state, 0)}, seconds=3).state
    assert state["deadlines"] == {"turn": at(23).isoformat()}


# --- drafts ---------------------------------------------------------------------------------


def test_a_draft_reports_the_rule_it_breaks_and_nothing_of_the_score() -> None:
    state = tiny()
    ok = flow.clean_draft(state, 0, {"cells": ["a1", "B1"]})
    assert ok == {
        "cells": ["A1", "B1"],
        "problem": None,
        "complete": False,
        "verdict": "No rule broken so far; a path has an odd number of cells, at least 3.",
        "round": 1,
        "turn": 1,
    }
    done = flow.clean_draft(state, 0, {"cells": ["A1", "B1", "B2"]})
    assert done["complete"] and done["verdict"] == "A legal path: submit it."
    assert "score" not in json.dumps(done) and "point" not in json.dumps(done)
    broken = flow.clean_draft(state, 0, {"cells": ["A1", "B1", "C1"]})
    assert "right angle" in broken["problem"] and not broken["complete"]
    assert broken["verdict"] == broken["problem"]


def test_an_empty_draft_has_nothing_to_say() -> None:
    empty = flow.clean_draft(tiny(), 1, {"cells": []})
    assert empty["verdict"] == "" and empty["problem"] is None and not empty["complete"]


def test_a_draft_names_the_turn_whose_board_it_was_checked_on() -> None:
    state = in_turns()
    draft = flow.clean_draft(state, 1, {"cells": best(state, 1)})
    assert (draft["round"], draft["turn"]) == (1, 2) and draft["complete"]


@pytest.mark.parametrize(
    "cells", [["ZZ99"], ["A1", "ZZ99"], ["A0"], ["A99"], ["K1"], ["A1", ""], ["1A"]]
)
def test_a_draft_with_a_cell_not_on_the_board_is_refused(cells: list[str]) -> None:
    """The page draws only cells of the board: anything else is not a path being drawn (issue
    34, item 12; "ZZ99" was kept, with its problem as the verdict)."""
    with pytest.raises(ActionError) as refused:
        flow.clean_draft(tiny(), 0, {"cells": cells})
    assert refused.value.code == "bad_cell"
    assert "cell" in refused.value.message


def test_a_malformed_draft_is_refused() -> None:
    with pytest.raises(ActionError):
        flow.clean_draft(tiny(), 0, {"cells": "A1"})
    with pytest.raises(ActionError):
        flow.clean_draft(tiny(), 0, {"path": []})


# --- the analysis ---------------------------------------------------------------------------


def test_the_analysis_shows_the_best_path_beside_each_turn() -> None:
    state = in_turns()
    state = pass_or_skip(state, ["pass"])
    state = finish_round_by_agreement(state, 9)
    rows = analysis.round_analysis(state)
    assert [row["turn"] for row in rows] == [1, 2]
    first, second = rows
    assert first["player"] == "red" and first["played_cells"] == first["best_cells"]
    assert first["best_score"] == first["played_score"]
    assert second["kind"] == "pass" and second["played_cells"] == []
    board_before = state["history"][0]["moves"][1]["board_before"]
    assert second["best_score"] == str(engine.best_path(board_before, "blue")[0])
    assert analysis.round_analysis(state["history"][0]) == rows


def test_the_view_shows_each_analysed_turn_on_the_board_it_was_played_on() -> None:
    state = in_turns()
    state = flow.act(state, 1, {"type": "path", "cells": best(state, 1)}, at(3)).state
    state = finish_round_by_agreement(state, 9)
    job = flow.analysis_job(state)
    state = flow.record_analysis(state, job, flow.run_analysis(job)).state
    board = state["history"][0]["start_board"]
    expected = []
    for move in state["history"][0]["moves"]:
        expected.append(board)
        board = engine.format_board(engine.play_path(board, move["player"], move["cells"]).board)
    for viewer in (Viewer(seat=0), Viewer.spectator()):
        rows = gate.view(state, viewer)["history"][0]["analysis"]
        assert [row["board"] for row in rows] == expected
    assert "board" not in state["history"][0]["analysis"][0]  # shown, not stored twice


def test_the_analysis_is_recorded_as_an_informational_event() -> None:
    state = finish_round_by_agreement(in_turns(), 5)
    job = flow.analysis_job(state)
    assert job is not None and job["round"] == 1
    assert job["moves"] == state["history"][0]["moves"]
    outcome = flow.record_analysis(state, job, flow.run_analysis(json.loads(json.dumps(job))))
    assert outcome.informational
    assert outcome.state["history"][0]["analysis"][0]["turn"] == 1
    assert flow.analysis_job(outcome.state) is None


# --- what each viewer sees ------------------------------------------------------------------


def test_no_view_reveals_a_later_rounds_board_or_the_seed() -> None:
    state = in_turns()
    later = [engine.format_board(rounds.round_board(state, r)) for r in (2, 3)]
    viewers = [Viewer(seat=0), Viewer(seat=1), Viewer.spectator(), Viewer.host()]
    for viewer in viewers:
        text = json.dumps(gate.view(state, viewer))
        for board in later:
            assert board.replace("\n", "") not in text.replace("\\n", "")
            assert json.dumps(board) not in text
        assert '"seed"' not in text and "pasted" not in text


def test_no_view_shows_the_pasted_boards() -> None:
    state = tiny()
    text = json.dumps(gate.view(state, Viewer.host()))
    assert "pasted" not in text and text.count(json.dumps(TINY)) == 2  # board and start_board


def test_a_player_sees_their_colour_and_actions() -> None:
    state = in_turns()
    mine = gate.view(state, Viewer(seat=1))
    assert mine["your_colour"] == "blue" and mine["actions"] == ["path", "pass", "agree_end"]
    theirs = gate.view(state, Viewer(seat=0))
    assert theirs["actions"] == ["agree_end"]
    assert gate.view(state, Viewer.spectator())["actions"] == []


def test_the_view_is_json_and_hides_each_turns_board_before() -> None:
    state = in_turns()
    shown = gate.view(state, Viewer(seat=0))
    json.dumps(shown)
    assert "board_before" not in json.dumps(shown)
    assert shown["moves"][0]["cells"] == state["moves"][0]["cells"]
