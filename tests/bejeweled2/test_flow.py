"""The Bejeweled 2 match flow: every mode, clock, refusal and end, with a hand-advanced clock."""

from __future__ import annotations

import copy
import json
from functools import partial

import pytest

from games.bejeweled2 import ending, engine, flow, levels, modes
from games.bejeweled2 import page as pages
from games.bejeweled2 import view as gate
from games.bejeweled2.puzzles import PUZZLES
from games.bejeweled2.solver import solve
from games.core.game.contract import settled
from games.core.game.flowkit import derived_seed
from games.core.game.gamedef import ActionError, SeatInfo, Viewer
from tests import flows
from tests.flows import T0, at

SEATS = [SeatInfo(0, "player", "Ann")]
SEED = 987_654_321_987
# A stuck pattern with one legal move (C7-C8); with seed 0 the new gems leave it stuck again.
FIRST_STEPS = next(i for i, p in enumerate(PUZZLES) if p.title == "First steps")
TIDEPOOL = next(i for i, p in enumerate(PUZZLES) if p.title == "Tidepool")  # par 5
NEARLY_STUCK = "\n".join(["PRYGBOWP", "YGBOWPRY", "BOWPRYGB"] * 2 + ["PRYGBOWP", "YYGOWPRY"])


def begin(mode: str = "classic", seed: int = SEED, **settings):
    return flow.start({"mode": mode, **settings}, SEATS, seed, T0).state


def act(state, action: dict, seconds: float = 1.0):
    """Play ``action`` and check that the input state was left alone."""
    before = copy.deepcopy(state)
    outcome = flow.act(state, 0, action, at(seconds))
    assert state == before
    json.dumps(outcome.state)
    return outcome


refused = partial(flows.refused, flow.act)


def first_move(state) -> dict:
    a, b = engine.legal_moves(state["board"])[0]
    return {"type": "swap", "a": a, "b": b}


# --- settings and the start ----------------------------------------------------------------------


def test_it_completes_the_settings_with_their_defaults() -> None:
    assert settled(flow.SETTINGS, {}) == {
        "mode": "classic",
        "puzzle": 0,
        "idle_minutes": 30,
        "auto_start": True,
    }
    assert settled(flow.SETTINGS, {"mode": "puzzle", "puzzle": "3"})["puzzle"] == 3


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"mode": "blitz"}, "mode is one of"),
        ({"mode": "puzzle", "puzzle": len(PUZZLES)}, "puzzle is one of"),
        ({"colour": "red"}, "unknown setting"),
    ],
)
def test_it_refuses_bad_settings(settings, message) -> None:
    with pytest.raises(ValueError, match=message):
        settled(flow.SETTINGS, settings)


def test_it_is_played_by_one_player() -> None:
    assert flow.MIN_SEATS == flow.MAX_SEATS == 1
    with pytest.raises(ValueError, match="one player"):
        flow.start({}, [SeatInfo(0, "a", "Ann"), SeatInfo(1, "b", "Bo")], SEED, T0)


def test_a_classic_game_starts_on_a_new_board_from_the_match_seed() -> None:
    state = begin()
    board = engine.parse_board(state["board"])
    assert board.is_full and not engine.has_match(board) and engine.has_legal_move(board)
    assert state["board"] == begin()["board"]
    assert state["board"] != begin(seed=1)["board"]
    assert (state["phase"], state["score"], state["level"]) == ("playing", 0, 1)
    # No clock of play in Classic: only the one that ends a game left alone.
    assert state["deadlines"] == {"idle": at(30 * 60).isoformat()}


def test_every_accepted_action_restarts_the_idle_clock_and_its_end_is_abandoned() -> None:
    state = act(begin(idle_minutes=5), {"type": "hint"}, seconds=100).state
    assert state["deadlines"] == {"idle": at(100 + 5 * 60).isoformat()}
    early = flow.timeout(state, "idle", at(100 + 5 * 60 - 1))
    assert early.kind == "clock_not_due" and early.state == state
    over = flow.timeout(state, "idle", at(100 + 5 * 60))
    assert over.state["phase"] == "over" and over.state["deadlines"] == {}
    assert over.result["reason"] == "abandoned" and over.result["winner"] is None


def test_only_swap_is_unversioned() -> None:
    assert frozenset({"swap"}) == flow.UNVERSIONED_ACTIONS


# --- swaps ---------------------------------------------------------------------------------------


def test_a_swap_plays_the_move_and_scores_it() -> None:
    state = begin()
    move = first_move(state)
    outcome = act(state, move)
    turn = engine.swap(state["board"], move["a"], move["b"], None)
    new = outcome.state
    assert outcome.kind == "swapped"
    assert new["moves"] == 1 and new["score"] == outcome.public["score"] > 0
    steps = outcome.public["steps"]
    assert new["score"] == new["last"]["score"] == sum(step.get("points", 0) for step in steps)
    assert engine.parse_board(new["board"]).is_full
    assert turn.score <= new["score"]  # the new gems can only add cascades
    assert steps[-1]["board"] == outcome.public["board"] == new["board"]


def test_the_same_seed_replays_the_same_game() -> None:
    one, two = begin(), begin()
    for _ in range(5):
        one = act(one, first_move(one)).state
        two = act(two, first_move(two)).state
    assert one == two


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "swap", "a": "A1", "b": "C1"}, "illegal_swap"),
        ({"type": "swap", "a": "A1"}, "bad_cell"),
        ({"type": "swap", "a": 4, "b": "A2"}, "bad_cell"),
        ({"type": "dance"}, "unknown_action"),
        ({"type": "restart"}, "not_puzzle"),
        ({"type": "solution"}, "not_puzzle"),
    ],
)
def test_it_refuses_bad_actions_and_changes_nothing(action, code) -> None:
    refused(begin(), 0, action, code)


def test_it_refuses_a_seat_that_is_not_playing() -> None:
    state = begin()
    refused(state, 1, first_move(state), "not_your_game")


def test_a_hint_shows_the_best_immediate_move_until_the_next_swap() -> None:
    state = begin()
    state["score"] = 250
    outcome = act(state, {"type": "hint"})
    a, b = engine.best_move(state["board"])
    assert outcome.state["hint"] == {"a": a, "b": b}
    assert outcome.public == {"a": a, "b": b, "cost": 100}
    assert outcome.state["hints"] == 1 and outcome.state["score"] == 150
    after = act(outcome.state, {"type": "swap", "a": a, "b": b}).state
    assert after["hint"] is None


def test_a_requested_hint_never_takes_the_score_below_the_levels_start() -> None:
    state = begin("endless")
    state.update(score=1_040, level=2)
    outcome = act(state, {"type": "hint"})
    assert outcome.public["cost"] == 40 and outcome.state["score"] == 1_000
    free = act(outcome.state, {"type": "hint"})
    assert free.public["cost"] == 0 and free.state["hints"] == 2


def test_levels_last_a_thousand_points_times_the_level() -> None:
    assert [levels.level_for(s) for s in (0, 999, 1000, 2999, 3000, 6000)] == [1, 1, 2, 2, 3, 4]
    assert levels.level_progress(1500, 2) == {"points": 500, "needed": 2000}


def test_a_swap_that_crosses_a_threshold_levels_up() -> None:
    state = begin()
    state["score"] = 990
    outcome = act(state, first_move(state))
    assert outcome.state["level"] == 2 and outcome.public["level_up"] == 2


# --- the ends of Classic and Endless -------------------------------------------------------------


def test_a_classic_game_ends_when_no_legal_move_remains() -> None:
    state = begin(seed=0)
    state["board"] = NEARLY_STUCK
    outcome = act(state, {"type": "swap", "a": "C7", "b": "C8"})
    assert outcome.kind == "game_over"
    assert not engine.has_legal_move(outcome.state["board"])
    assert outcome.result["winner"] == 0
    assert outcome.result["reason"] == "no_moves"
    assert outcome.result["score"] == outcome.state["score"] > 0
    assert outcome.result["mode"] == "classic" and outcome.result["level"] == 1
    assert "no legal move" in outcome.result["summary"]
    assert outcome.state["phase"] == "over"
    refused(outcome.state, 0, {"type": "hint"}, "match_over")


def test_an_endless_game_reshuffles_a_stuck_board_from_the_seed() -> None:
    state = begin("endless", seed=0)
    state["board"] = NEARLY_STUCK
    outcome = act(state, {"type": "swap", "a": "C7", "b": "C8"})
    new = outcome.state
    assert outcome.result is None and new["phase"] == "playing"
    assert new["reshuffles"] == 1 and new["last"]["reshuffled"] == new["board"]
    assert engine.has_legal_move(new["board"]) and not engine.has_match(new["board"])
    stuck = engine.swap(NEARLY_STUCK, "C7", "C8", derived_seed(0, "refill", 0)).board
    assert sorted(new["board"].replace("\n", "")) == sorted(stuck.cells)
    assert new == act(state, {"type": "swap", "a": "C7", "b": "C8"}).state


def test_the_player_may_end_the_game() -> None:
    state = act(begin(), {"type": "resign"}).state
    assert state["phase"] == "over" and state["result"]["reason"] == "ended"
    outcome = act(begin(), {"type": "end"})
    assert outcome.result["winner"] == 0
    assert outcome.prizes == {0: {"garnets": 0, "tokens": 0}}
    assert "prizes" not in outcome.result
    refused(outcome.state, 0, {"type": "end"}, "match_over")


# --- Action: one bar that gems fill and time drains ------------------------------------------


def bar_points(state, seconds: float) -> int:
    return levels.bar_left(state, at(seconds))


def test_the_action_bar_starts_half_full_and_runs_empty_on_its_deadline() -> None:
    state = begin("action")
    assert state["bar"] == {"points": 500, "at": at(0).isoformat(), "level": 1}
    # Level 1 drains 5 points a second: 500 points last 100 seconds.
    assert state["deadlines"]["clock"] == at(100).isoformat()
    assert bar_points(state, 40) == 300


def test_the_points_a_move_scores_fill_the_bar() -> None:
    state = begin("action")
    outcome = act(state, first_move(state), seconds=10)
    scored = outcome.public["score"]
    assert scored > 0
    assert outcome.state["bar"] == {"points": 450 + scored, "at": at(10).isoformat(), "level": 1}
    left_seconds = (450 + scored) / 5
    assert outcome.state["deadlines"]["clock"] == at(10 + left_seconds).isoformat()
    assert outcome.public["deadline"] == outcome.state["deadlines"]["clock"]


def test_a_full_bar_completes_the_level_and_the_next_starts_half_full() -> None:
    state = begin("action")
    state["bar"]["points"] = 995
    outcome = act(state, first_move(state), seconds=0)
    assert outcome.public["level_up"] == 2 and outcome.state["level"] == 2
    assert outcome.state["bar"]["points"] == 1000  # half of level 2's 2,000
    # Level 2 drains 12.5 points a second: 1,000 points last 80 seconds.
    assert outcome.state["deadlines"]["clock"] == at(80).isoformat()


def test_the_bar_drains_faster_each_level() -> None:
    numbers = (1, 2, 3, 5)
    rates = [levels.bar_drain("action", level) for level in numbers]
    assert [num / den for num, den in rates] == [5, 12.5, 22.5, 50]
    # A full bar empties sooner each level: 200 s, 160 s, 133 s, 100 s.
    seconds = [
        levels.bar_size(level) * den / num for level, (num, den) in zip(numbers, rates, strict=True)
    ]
    assert seconds == sorted(seconds, reverse=True) and seconds[0] == 200 and seconds[-1] == 100


def test_the_level_of_an_action_game_is_the_bars_not_the_scores() -> None:
    state = begin("action")
    state["score"] = 50_000
    outcome = act(state, first_move(state), seconds=1)
    assert outcome.state["level"] == 1 and "level_up" not in outcome.public


def test_an_empty_bar_ends_the_game_and_a_move_after_it_is_refused() -> None:
    state = begin("action")
    message = refused(state, 0, first_move(state), "time_up", now=at(100)).message
    assert "bar ran empty" in message
    refused(state, 0, {"type": "hint"}, "time_up", now=at(101))
    early = flow.timeout(state, "clock", at(99))
    assert early.kind == "clock_not_due" and early.state == state
    over = flow.timeout(state, "clock", at(100), drafts=None)
    assert over.kind == "game_over"
    assert over.result["reason"] == "time_up" and over.result["winner"] == 0
    assert over.state["deadlines"] == {} and over.state["phase"] == "over"
    assert over.state["bar"]["points"] == 0
    assert "bar ran empty" in over.result["summary"]


def test_a_swap_moves_the_deadline_so_the_old_firing_time_is_not_due() -> None:
    state = begin("action")
    moved = act(state, first_move(state), seconds=30).state
    assert flow.timeout(moved, "clock", at(100)).kind == "clock_not_due"


def test_an_unknown_clock_is_ignored() -> None:
    state = begin("action")
    outcome = flow.timeout(state, "round", at(100))
    assert outcome.kind == "clock_ignored" and outcome.state["phase"] == "playing"


def test_an_action_hint_costs_a_tenth_of_the_bar() -> None:
    state = begin("action")
    outcome = act(state, {"type": "hint"}, seconds=20)
    assert outcome.public["bar_cost"] == 100
    assert outcome.state["bar"]["points"] == 500 - 100 - 100  # 20 s drained 100, the hint 100
    assert outcome.state["deadlines"]["clock"] == at(20 + 300 / 5).isoformat()
    assert outcome.state["score"] == 0 and outcome.state["hints"] == 1


def test_an_action_hint_is_refused_when_the_bar_is_too_low() -> None:
    state = begin("action")
    message = refused(
        state, 0, {"type": "hint"}, "bar_too_low", now=at(80)
    ).message  # 100 points left
    assert "too low" in message


# --- Puzzle --------------------------------------------------------------------------------------


def test_a_puzzle_starts_on_its_board_without_levels_or_clock() -> None:
    state = begin("puzzle", puzzle=2)
    assert state["board"] == engine.format_board(engine.parse_board(PUZZLES[2].board))
    view = gate.view(state, Viewer(seat=0))
    assert view["puzzle"]["title"] == PUZZLES[2].title and view["puzzle"]["number"] == 3
    assert view["level"] is None and view["level_progress"] is None and view["deadline"] is None
    assert view["actions"] == ["swap", "hint", "restart", "end"]
    assert view["puzzle"]["world"] == 1


def test_clearing_the_board_solves_the_puzzle_and_ends_the_match() -> None:
    state = begin("puzzle", puzzle=FIRST_STEPS)
    for a, b in solve(state["board"]).moves:
        outcome = act(state, {"type": "swap", "a": a, "b": b})
        state = outcome.state
    assert outcome.kind == "puzzle_solved"
    assert outcome.result["solved"] is True and outcome.result["winner"] == 0
    assert outcome.result["next_puzzle"] == FIRST_STEPS + 1
    assert outcome.result["mode"] == "puzzle"
    assert "solved in 3 moves" in outcome.result["summary"]


def test_no_new_gems_fall_in_a_puzzle() -> None:
    state = begin("puzzle", puzzle=FIRST_STEPS)
    outcome = act(state, {"type": "swap", "a": "D7", "b": "D8"})
    assert not any(step["kind"] == "new" for step in outcome.public["steps"])
    assert (
        outcome.state["board"].count(".") == state["board"].count(".") + outcome.public["removed"]
    )


def stuck_puzzle():
    return act(begin("puzzle", puzzle=FIRST_STEPS), {"type": "swap", "a": "F7", "b": "F8"})


def test_a_stuck_puzzle_fails_and_offers_restart_and_the_solution() -> None:
    outcome = stuck_puzzle()
    assert outcome.kind == "puzzle_failed" and outcome.result is None
    state = outcome.state
    assert state["phase"] == "failed" and state["failures"] == 1
    assert gate.view(state, Viewer(seat=0))["actions"] == ["undo", "restart", "solution", "end"]
    refused(state, 0, {"type": "swap", "a": "D7", "b": "D8"}, "wrong_phase")
    refused(state, 0, {"type": "hint"}, "wrong_phase")


def test_the_solution_is_refused_before_a_failure() -> None:
    refused(begin("puzzle"), 0, {"type": "solution"}, "no_failure_yet")


def test_after_a_failure_the_player_may_see_the_solution() -> None:
    outcome = act(stuck_puzzle().state, {"type": "solution"})
    expected = [list(move) for move in PUZZLES[FIRST_STEPS].solution]
    assert outcome.state["solution"] == expected == outcome.public["solution"]
    assert gate.view(outcome.state, Viewer.spectator())["solution"] == expected


def test_a_puzzle_solved_after_the_solution_was_shown_counts_as_assisted() -> None:
    state = act(stuck_puzzle().state, {"type": "solution"}).state
    state = act(state, {"type": "restart"}).state
    for a, b in PUZZLES[FIRST_STEPS].solution:
        outcome = act(state, {"type": "swap", "a": a, "b": b})
        state = outcome.state
    assert outcome.result["solved"] is True and outcome.result["assisted"] is True
    assert outcome.result["at_par"] is False
    assert "after the solution was shown" in outcome.result["summary"]


def test_undo_takes_back_moves_one_at_a_time_back_to_the_start() -> None:
    start = begin("puzzle", puzzle=TIDEPOOL)
    moves = PUZZLES[TIDEPOOL].solution[:3]
    states = [start]
    for a, b in moves:
        states.append(act(states[-1], {"type": "swap", "a": a, "b": b}).state)
    assert "undo" in flow.available_actions(states[-1])
    state = states[-1]
    for back in range(3, 0, -1):
        outcome = act(state, {"type": "undo"})
        state = outcome.state
        earlier = states[back - 1]
        assert (state["board"], state["moves"], state["score"]) == (
            earlier["board"],
            earlier["moves"],
            earlier["score"],
        )
        assert outcome.public == {"board": earlier["board"], "moves": back - 1}
    assert state["undos"] == 3 and "undo" not in flow.available_actions(state)
    assert (
        refused(state, 0, {"type": "undo"}, "nothing_to_undo").message == "there is no move to undo"
    )


def test_undo_unsticks_a_failed_puzzle() -> None:
    failed = stuck_puzzle().state
    state = act(failed, {"type": "undo"}).state
    assert state["phase"] == "playing" and state["board"] == failed["start_board"]
    assert state["failures"] == 1  # the solution stays on offer


def test_undo_and_restart_are_only_for_the_puzzles() -> None:
    state = begin()
    refused(state, 0, {"type": "undo"}, "not_puzzle")
    refused(state, 0, {"type": "restart"}, "not_puzzle")


def test_a_puzzle_hint_is_the_next_move_of_a_solution_from_the_board_as_it_is() -> None:
    state = begin("puzzle", puzzle=TIDEPOOL)
    a, b = PUZZLES[TIDEPOOL].solution[0]
    state = act(state, {"type": "swap", "a": a, "b": b}).state
    hinted = act(state, {"type": "hint"})
    rest = solve(state["board"]).moves
    assert len(rest) == PUZZLES[TIDEPOOL].par - 1
    assert hinted.public == {"a": rest[0][0], "b": rest[0][1]}
    assert hinted.state["score"] == state["score"]  # free in Puzzle mode


def test_a_puzzle_hint_on_a_board_that_cannot_be_cleared_says_to_undo() -> None:
    state = begin("puzzle", puzzle=FIRST_STEPS)
    # A legal move after which the puzzle can no longer be cleared (though moves remain).
    for a, b in engine.legal_moves(state["board"]):
        after = act(state, {"type": "swap", "a": a, "b": b}).state
        if after["phase"] == "playing" and not solve(after["board"]).solvable:
            break
    else:
        raise AssertionError("the puzzle has no move that leaves it unclearable")
    assert "undo or restart" in refused(after, 0, {"type": "hint"}, "no_solution").message


def test_restart_puts_the_puzzle_back_as_it_started() -> None:
    failed = stuck_puzzle().state
    state = act(failed, {"type": "restart"}, seconds=5).state
    assert state["board"] == failed["start_board"]
    assert (state["phase"], state["moves"], state["score"], state["restarts"]) == (
        "playing",
        0,
        0,
        1,
    )
    assert state["failures"] == 1


def test_a_puzzle_hint_is_the_first_move_of_a_shortest_solution() -> None:
    state = begin("puzzle", puzzle=FIRST_STEPS)
    first = solve(state["board"]).moves[0]
    assert act(state, {"type": "hint"}).public == {"a": first[0], "b": first[1]}


def test_a_puzzle_ended_unsolved_has_no_winner() -> None:
    outcome = act(stuck_puzzle().state, {"type": "end"})
    assert outcome.result["solved"] is False and outcome.result["winner"] is None
    assert outcome.result["next_puzzle"] is None


def test_bombs_count_down_in_a_puzzle_and_restart_resets_them() -> None:
    index = next(i for i, p in enumerate(PUZZLES) if "3" in p.board)
    state = begin("puzzle", puzzle=index)
    a, b = engine.legal_moves(state["board"])[0]
    swapped = act(state, {"type": "swap", "a": a, "b": b})
    moved = swapped.state
    assert any(step["kind"] == "countdown" for step in swapped.public["steps"])
    assert act(moved, {"type": "restart"}).state["board"] == state["board"]


# --- the hidden modes ---------------------------------------------------------------------------


def fall_directions(public: dict) -> set[str]:
    """Which way the pieces of a move fell: "down" (toward row 8) or "up" (toward row 1)."""
    found = set()
    for step in public["steps"]:
        for origin, target in step.get("moves", []) if step["kind"] == "fall" else []:
            found.add("down" if int(target[1:]) > int(origin[1:]) else "up")
    return found


def test_twilights_gravity_alternates_down_and_up_with_each_move() -> None:
    state = begin("twilight")
    assert state["gravity"] == "down"
    seen = []
    for second in range(1, 5):
        outcome = act(state, first_move(state), seconds=second)
        seen.append((state["gravity"], fall_directions(outcome.public)))
        state = outcome.state
    assert [gravity for gravity, _ in seen] == ["down", "up", "down", "up"]
    for gravity, directions in seen:
        assert directions == {gravity}
    assert gate.view(state, Viewer(seat=0))["gravity"] == "down"


def test_twilights_new_gems_come_in_from_the_side_they_fall_from() -> None:
    state = begin("twilight")
    state = act(state, first_move(state)).state  # the next move pulls up
    outcome = act(state, first_move(state), seconds=2)
    rows: dict[str, set[int]] = {}
    for step in outcome.public["steps"]:
        if step["kind"] == "new":
            for cell in step["cells"]:
                rows.setdefault(cell[0], set()).add(int(cell[1:]))
    assert rows
    for column in rows.values():  # each column's new gems fill it from row 8 up
        assert column == set(range(min(column), 9))


def test_twilight_ends_like_classic_when_no_move_is_left() -> None:
    state = begin("twilight", seed=0)
    state["board"] = NEARLY_STUCK
    outcome = act(state, {"type": "swap", "a": "C7", "b": "C8"})
    # Seed 0's new gems leave no move (the refill is drawn from the seed: the same every run).
    assert not engine.has_legal_move(outcome.state["board"]), "seed 0's new gems unstuck it"
    assert outcome.kind == "game_over" and outcome.result["mode"] == "twilight"


def test_hyper_drains_half_as_fast_again_as_action() -> None:
    for level in (1, 2, 5):
        num, den = levels.bar_drain("hyper", level)
        anum, aden = levels.bar_drain("action", level)
        assert num / den == 1.5 * anum / aden
    # 500 points at 7.5 a second: 66.667 s (to the millisecond, rounded up).
    assert begin("hyper")["deadlines"]["clock"] == at(66.667).isoformat()


def test_hyper_pays_a_bonus_for_quick_moves_one_after_another() -> None:
    state = begin("hyper")
    bonuses = []
    for second in (1, 3, 5.5, 20, 22):
        outcome = act(state, first_move(state), seconds=second)
        bonuses.append(outcome.public.get("bonus", 0))
        gained = outcome.state["score"] - state["score"]
        points = sum(s.get("points", 0) for s in outcome.public["steps"])
        assert gained == points + bonuses[-1] == outcome.public["score"]
        state = outcome.state
    # The first move starts nothing; each within 3 s of the one before extends the streak.
    assert bonuses == [0, 20, 40, 0, 20]


def test_cognito_scores_a_solved_puzzle_with_a_bonus_at_par() -> None:
    state = begin("cognito", puzzle=FIRST_STEPS)
    for a, b in PUZZLES[FIRST_STEPS].solution:
        outcome = act(state, {"type": "swap", "a": a, "b": b})
        state = outcome.state
    points = sum(step.get("points", 0) for step in outcome.public["steps"])
    assert outcome.result["solved"] is True and outcome.result["mode"] == "cognito"
    assert outcome.result["score"] > points + ending.PAR_BONUS  # every move's points, and the bonus
    assert outcome.result["at_par"] is True


def test_cognitos_game_over_says_the_score_the_board_shows_with_the_par_bonus_once() -> None:
    state = begin("cognito", puzzle=FIRST_STEPS)
    for a, b in PUZZLES[FIRST_STEPS].solution:
        outcome = act(state, {"type": "swap", "a": a, "b": b})
        state = outcome.state
    moved = outcome.state["history"][-1]["score"] + outcome.public["score"]
    assert outcome.result["score"] == moved + ending.PAR_BONUS == state["score"]
    assert outcome.result["summary"].endswith(f": {outcome.result['score']:,} points.")


def test_a_hint_in_cognito_makes_that_puzzle_score_zero() -> None:
    state = begin("cognito", puzzle=FIRST_STEPS)
    state = act(state, {"type": "hint"}).state
    for a, b in PUZZLES[FIRST_STEPS].solution:
        outcome = act(state, {"type": "swap", "a": a, "b": b})
        state = outcome.state
    assert outcome.result["solved"] is True and outcome.result["score"] == 0
    assert outcome.result["hints"] == 1
    assert "0 points" in outcome.result["summary"]


def test_finity_scores_only_blasts_while_every_point_fills_the_bar() -> None:
    state = begin("finity")
    state["board"] = engine.format_board(
        engine.parse_board(
            "\n".join(["PRYGBOWP", "YGBOWPRY", "BOWPRYGB"] * 2 + ["PRYGBOWP", "yYGOWPRY"])
        )
    )
    plain = act(state, {"type": "swap", "a": "C7", "b": "C8"}, seconds=0)
    steps = plain.public["steps"]
    blasts = sum(s["points"] for s in steps if s.get("cause") in ("blast", "hypercube", "bomb"))
    everything = sum(s.get("bar_points", 0) for s in steps)
    assert blasts > 0 and everything > blasts
    assert plain.state["score"] == blasts == plain.public["score"]
    assert plain.state["bar"]["points"] == 500 + everything


def test_original_plays_a_line_of_four_with_no_power_gem() -> None:
    four = engine.format_board(
        engine.parse_board("\n".join(["." * 8] * 6 + ["..R.....", "RRGR...."]))
    )
    made = {}
    for mode in ("classic", "original"):
        state = {**begin(mode), "board": four}
        played = act(state, {"type": "swap", "a": "C7", "b": "C8"}).public
        made[mode] = [s["made"] for s in played["steps"] if s["kind"] == "special"]
        assert sum(s.get("points", 0) for s in played["steps"]) == played["score"]
    assert made == {"classic": ["power_gem"], "original": []}
    assert not modes.MODES["original"].hidden and modes.MODES["original"].secret


def test_finity_steps_show_only_the_points_the_score_counts() -> None:
    state = begin("finity")
    state["board"] = engine.format_board(
        engine.parse_board(
            "\n".join(["PRYGBOWP", "YGBOWPRY", "BOWPRYGB"] * 2 + ["PRYGBOWP", "yYGOWPRY"])
        )
    )
    played = act(state, {"type": "swap", "a": "C7", "b": "C8"}, seconds=0).public
    lines = [s for s in played["steps"] if s.get("cause") == "line"]
    assert lines and all(s["points"] == 0 for s in lines)  # a plain line floats no points
    assert sum(s.get("points", 0) for s in played["steps"]) == played["score"]
    assert played["steps"][-1]["score"] == played["score"]  # what the page counts up to
    assert max(s["score"] for s in played["steps"]) == played["score"]  # and never past it


# --- the host and the view -----------------------------------------------------------------------


def test_the_host_may_end_the_game_naming_the_winner_or_no_one() -> None:
    state = begin()
    outcome = flow.adjudicate(state, {"winner": None}, at(5))
    assert outcome.result["winner"] is None and outcome.state["phase"] == "over"
    assert flow.adjudicate(state, {"winner": 0}, at(5)).result["winner"] == 0
    with pytest.raises(ActionError) as bad:
        flow.adjudicate(state, {"winner": 1}, at(5))
    assert bad.value.code == "bad_award"
    with pytest.raises(ActionError) as over:
        flow.adjudicate(outcome.state, {"winner": 0}, at(6))
    assert over.value.code == "match_over"


def test_there_are_no_drafts() -> None:
    with pytest.raises(ActionError) as caught:
        flow.clean_draft(begin(), 0, {"cells": []})
    assert caught.value.code == "no_drafts"


@pytest.mark.parametrize("mode", modes.MODES)
def test_everyone_sees_the_same_table_and_no_one_sees_the_seed(mode) -> None:
    state = begin(mode)
    state = act(state, first_move(state)).state
    views = [
        gate.view(state, Viewer(seat=0)),
        gate.view(state, Viewer.host()),
        gate.view(state, Viewer.spectator()),
    ]
    texts = [json.dumps(view) for view in views]
    for view in views[1:]:
        assert {**view, "you": True} == views[0]
    for text in texts:
        assert str(SEED) not in text and '"seed"' not in text
    assert views[0]["board"] == state["board"] and views[0]["last"]["removed"] > 0


def test_the_view_holds_what_the_page_needs() -> None:
    state = begin("action")
    state = act(state, first_move(state), seconds=3).state
    view = gate.view(state, Viewer(seat=0))
    assert view["deadline"] == state["deadlines"]["clock"]
    assert view["bar"]["drain_per_second"] == "5" and view["bar"]["size"] == 1000
    assert view["bar"]["points"] == state["bar"]["points"]
    assert len(view["rows"]) == 8 and view["score"] == state["score"]
    assert view["level_progress"] is None  # the bar is the level's progress
    assert view["turn_started"] == at(3).isoformat()
    assert (view["over"], view["reason"], view["moves"]) == (False, None, 1)
    assert view["actions"] == ["swap", "hint", "end"]


def test_one_whole_puzzle_match_from_start_to_result_with_a_failure_and_a_restart() -> None:
    state = begin("puzzle", puzzle=FIRST_STEPS)
    state = act(state, {"type": "swap", "a": "F7", "b": "F8"}, 2).state
    state = act(state, {"type": "solution"}, 3).state
    state = act(state, {"type": "restart"}, 4).state
    outcome = None
    for k, (a, b) in enumerate(state["solution"]):
        outcome = act(state, {"type": "swap", "a": a, "b": b}, 5 + k)
        state = outcome.state
    assert outcome.result["solved"] is True
    assert state["phase"] == "over" and gate.view(state, Viewer(seat=0))["actions"] == []


def test_a_bomb_is_labelled_with_the_moves_it_has_left():
    assert pages.piece_label("1") == "bomb, 1 move left"
    assert pages.piece_label("7") == "bomb, 7 moves left"
