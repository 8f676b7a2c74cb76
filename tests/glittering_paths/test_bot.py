"""The practice bot: it decides from its seat's view alone, paces itself, and two bots play whole
matches through flow.act and flow.timeout."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.core.game.flowkit import due
from games.core.game.gamedef import SeatInfo, Viewer
from games.glittering_paths import bot, engine, flow
from games.glittering_paths import view as gate
from tests.flows import T0

SEATS = [SeatInfo(0, "EC", "Rita", is_bot=True), SeatInfo(1, "DMO", "Sam", is_bot=True)]


def play(levels: tuple[str, str], seed: int, **settings: object) -> tuple[dict, int]:
    """Two bots play a whole match; the clock moves a second at a time and fires what is due."""
    state = flow.start(dict(settings), SEATS, seed=seed, now=T0).state
    now = T0
    actions = 0
    for _ in range(20_000):
        if state["phase"] == "over":
            return state, actions
        for seat in (0, 1):
            action = bot.decide(gate.view(state, Viewer(seat=seat)), seat, levels[seat], now)
            if action is not None:
                state = flow.act(state, seat, action, now).state
                actions += 1
                break
        else:
            now += timedelta(seconds=1)
            for key in list(state["deadlines"]):
                when = due(state, key)
                if when is not None and now >= when:
                    state = flow.timeout(state, key, now).state
                    break
    raise AssertionError("the match did not end")


def test_two_best_bots_play_a_whole_match() -> None:
    state, actions = play((bot.BEST, bot.BEST), seed=3)
    assert state["result"]["winner"] in (0, 1)
    assert len(state["history"]) == 3
    assert actions > 6


def test_a_best_bot_beats_a_casual_bot_over_a_few_matches() -> None:
    wins = 0
    for seed in range(3):
        state, _ = play((bot.BEST, bot.CASUAL), seed=seed, interval_seconds=0)
        wins += state["winner"] == 0
    assert wins >= 2


def test_every_path_a_bot_plays_is_legal_and_made() -> None:
    state, _ = play((bot.CASUAL, bot.CASUAL), seed=5)
    made = [m for h in state["history"] for m in h["moves"] if m["kind"] == "path"]
    assert made
    for move in made:
        assert engine.path_problem(move["board_before"], move["player"], move["cells"]) is None


def test_the_bot_thinks_before_it_moves() -> None:
    state = flow.start({}, SEATS, seed=1, now=T0).state
    view = gate.view(state, Viewer(seat=0))
    assert bot.decide(view, 0, bot.BEST, T0 + timedelta(seconds=1)) is None
    action = bot.decide(view, 0, bot.BEST, T0 + timedelta(seconds=30))
    assert action is not None and action["type"] == "path" and action["turn"] == 1
    assert action["cells"] == engine.best_path(state["board"], "red")[1]


def test_the_bot_waits_for_its_turn() -> None:
    state = flow.start({}, SEATS, seed=1, now=T0).state
    cells = engine.best_path(state["board"], "red")[1]
    state = flow.act(state, 0, {"type": "path", "cells": cells}, T0).state
    view = gate.view(state, Viewer(seat=0))
    assert bot.decide(view, 0, bot.BEST, T0 + timedelta(seconds=50)) is None


def test_the_bot_thinks_at_most_a_third_of_a_short_clock() -> None:
    state = flow.start({"race_seconds": 6, "turn_seconds": 6}, SEATS, seed=1, now=T0).state
    view = gate.view(state, Viewer(seat=1))
    assert bot.think_time(view, 1, bot.CASUAL) <= timedelta(seconds=2)


def test_a_bot_without_a_path_passes_and_agrees_to_end() -> None:
    state = flow.start({}, SEATS, seed=1, now=T0).state
    state = flow.timeout(state, "race", T0 + timedelta(seconds=120)).state
    # A late position: blue has A1 B1 B2 (lapis, ruby, lapis); red has no path at all.
    state = {**state, "board": "LR..\n.L.R", "turn": 0}
    view = gate.view(state, Viewer(seat=0))
    action = bot.decide(view, 0, bot.BEST, T0 + timedelta(seconds=170))
    assert action == {"type": "pass", "turn": 1}
    state = flow.act(state, 1, {"type": "agree_end"}, T0 + timedelta(seconds=121)).state
    view = gate.view(state, Viewer(seat=0))
    assert bot.decide(view, 0, bot.BEST, T0 + timedelta(seconds=122)) == {"type": "agree_end"}


def test_an_unknown_level_is_refused() -> None:
    state = flow.start({}, SEATS, seed=1, now=T0).state
    with pytest.raises(ValueError, match="unknown bot level"):
        bot.decide(gate.view(state, Viewer(seat=0)), 0, "grandmaster", T0)


def test_the_levels_describe_themselves() -> None:
    assert set(bot.BOT_LEVELS) == {bot.BEST, bot.CASUAL}
    assert all(text.endswith(".") for text in bot.BOT_LEVELS.values())
