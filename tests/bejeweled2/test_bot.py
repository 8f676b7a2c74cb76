"""The practice bot plays whole games through flow.act and flow.timeout, deciding from the view."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.bejeweled2 import bot, ending, engine, flow, levels
from games.bejeweled2 import view as gate
from games.bejeweled2.puzzles import PUZZLES
from games.bejeweled2.solver import solve
from games.core.game.flowkit import due
from games.core.game.gamedef import SeatInfo, Viewer
from tests.flows import T0, at

SEATS = [SeatInfo(0, "player", "Robo", is_bot=True)]
TICK = timedelta(seconds=0.5)


def begin(mode: str, seed: int = 3, **settings):
    return flow.start({"mode": mode, **settings}, SEATS, seed, T0).state


def seen(state) -> dict:
    return gate.view(state, Viewer(seat=0))


def play_out(state, level: str, max_ticks: int = 20_000):
    """Run the bot as the core would: every tick, fire a due clock, else ask the bot. Returns
    the last state, the result and the last event's public data."""
    now = T0
    for _ in range(max_ticks):
        now += TICK
        runs_out = due(state, levels.CLOCK)
        if runs_out is not None and now >= runs_out:
            outcome = flow.timeout(state, levels.CLOCK, now)
        else:
            action = bot.decide(seen(state), 0, level, now)
            if action is None:
                continue
            outcome = flow.act(state, 0, action, now)
        state = outcome.state
        if outcome.result is not None:
            return state, outcome.result, outcome.public
    raise AssertionError("the game did not end")


def test_the_bot_waits_its_pause_then_takes_the_hint() -> None:
    state = begin("classic")
    assert bot.decide(seen(state), 0, "greedy", at(1)) is None
    action = bot.decide(seen(state), 0, "greedy", at(2))
    a, b = engine.best_move(state["board"])
    assert action == {"type": "swap", "a": a, "b": b}


def test_the_random_bot_plays_a_legal_move_and_the_same_one_on_the_same_board() -> None:
    state = begin("classic")
    later = at(3)
    action = bot.decide(seen(state), 0, "random", later)
    assert (action["a"], action["b"]) in engine.legal_moves(state["board"])
    assert action == bot.decide(seen(state), 0, "random", later)


def test_a_relaxed_bot_waits_five_seconds() -> None:
    state = begin("classic")
    assert bot.decide(seen(state), 0, "relaxed", at(4.9)) is None
    assert bot.decide(seen(state), 0, "relaxed", at(5)) is not None


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        bot.decide(seen(begin("classic")), 0, "grandmaster", T0)


def test_the_bot_ends_a_stuck_puzzle_and_does_nothing_once_it_is_over() -> None:
    first_steps = next(i for i, p in enumerate(PUZZLES) if p.title == "First steps")
    stuck = flow.act(
        begin("puzzle", puzzle=first_steps), 0, {"type": "swap", "a": "F7", "b": "F8"}, T0
    ).state
    assert bot.decide(seen(stuck), 0, "greedy", T0) == {"type": "end"}
    over = flow.act(stuck, 0, {"type": "end"}, T0).state
    assert bot.decide(seen(over), 0, "greedy", T0 + timedelta(hours=1)) is None


@pytest.mark.parametrize(("level", "seed"), [("greedy", 1), ("greedy", 4), ("random", 2)])
def test_the_bot_plays_a_classic_game_to_the_end(level, seed) -> None:
    state, result, ended = play_out(begin("classic", seed), level)
    assert result["reason"] == "no_moves" and result["winner"] == 0
    assert not engine.has_legal_move(state["board"])
    assert result["score"] == state["score"] > 0 and state["moves"] > 1
    assert state["last"]["score"] == sum(step.get("points", 0) for step in ended["steps"])


def test_the_bot_plays_an_action_game_until_the_clock_runs_out() -> None:
    state, result, _ = play_out(begin("action", 5), "relaxed")
    assert result["reason"] == "time_up" and result["mode"] == "action"
    assert state["moves"] > 10 and state["deadlines"] == {}


def test_a_random_bot_levels_up_in_an_action_game_before_the_clock_runs_out() -> None:
    state, result, _ = play_out(begin("action", 6), "random")
    assert result["reason"] == "time_up"
    assert result["level"] >= 2


@pytest.mark.parametrize("index", [0, 7, 11])
def test_the_greedy_bot_solves_puzzles_in_par(index) -> None:
    state, result, _ = play_out(begin("puzzle", puzzle=index), "greedy")
    assert result["solved"] is True and state["moves"] == PUZZLES[index].par
    assert len(solve(PUZZLES[index].board).moves) == state["moves"]


def test_the_greedy_bot_solves_a_cognito_puzzle_in_par_and_earns_the_bonus() -> None:
    state, result, _ = play_out(begin("cognito", puzzle=3), "greedy")
    assert result["solved"] is True and result["at_par"] is True
    assert state["moves"] == PUZZLES[3].par
    assert result["score"] > ending.PAR_BONUS and result["hints"] == 0
