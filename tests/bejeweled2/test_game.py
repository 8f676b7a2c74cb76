"""Bejeweled 2 wired into the core: the definition, its settings and form, and the view the page
draws (the grid, the level bar, the clock, the last move summed up). No database."""

from __future__ import annotations

import json

import pytest

from games.bejeweled2 import engine, flow, modes
from games.bejeweled2.game import GAME
from games.bejeweled2.page import board_grid, piece_css
from games.bejeweled2.puzzles import PUZZLES
from games.core.forms import MatchSettingsForm
from games.core.game.gamedef import ActionError, SeatInfo, Viewer
from games.core.game.registry import get_game
from tests.flows import T0, at

SEATS = [SeatInfo(0, "", "Ada")]


def started(**settings):
    return GAME.start(GAME.clean_settings(settings), SEATS, 11, T0).state


def played(state, when: float = 1):
    a, b = engine.best_move(state["board"])
    return GAME.act(state, 0, {"type": "swap", "a": a, "b": b}, at(when))


def test_it_is_registered_as_a_one_seat_game():
    assert get_game("bejeweled-2") is GAME
    assert (GAME.min_seats, GAME.max_seats, GAME.roles) == (1, 1, ())
    assert GAME.unversioned_actions == flow.UNVERSIONED_ACTIONS == {"swap"}
    assert set(GAME.bot_levels) == set(GAME.bot_level_help) == {"greedy", "random", "relaxed"}
    assert GAME.scripts[-1] == "js/bejeweled2.js" and "js/steps.js" in GAME.scripts


def test_settings_default_to_classic_and_take_each_mode():
    assert GAME.clean_settings({}) == {
        "auto_start": True,
        "mode": "classic",
        "puzzle": 0,
        "idle_minutes": 30,
    }
    for mode in modes.MODES:
        assert GAME.clean_settings({"mode": mode})["mode"] == mode
    assert GAME.clean_settings({"mode": "puzzle", "puzzle": "3"})["puzzle"] == 3


@pytest.mark.parametrize(
    "settings",
    [{"mode": "blitz"}, {"puzzle": len(PUZZLES)}, {"puzzle": -1}, {"colour": "red"}],
)
def test_bad_settings_are_refused_with_a_reason(settings):
    with pytest.raises(ValueError):
        GAME.clean_settings(settings)


def test_the_settings_form_offers_the_modes_and_the_puzzles():
    form_class = MatchSettingsForm.for_game(GAME)
    form = form_class(
        {"title": "", "seat_count": "1", "mode": "puzzle", "puzzle": "2", "idle_minutes": "20"}
    )
    assert form.is_valid(), form.errors
    assert form.match_settings() == {
        "mode": "puzzle",
        "puzzle": 2,
        "idle_minutes": 20,
        "auto_start": False,
    }
    assert not form_class({"seat_count": "1", "mode": "nope", "puzzle": "0"}).is_valid()
    assert not form_class({"seat_count": "2", "mode": "classic", "puzzle": "0"}).is_valid()


def test_the_view_draws_the_board_as_the_shared_grid():
    view = GAME.view(started(), Viewer(0))
    grid = view["grid"]
    assert grid["name"] == "board" and len(grid["rows"]) == 8
    assert [c["cell"] for c in grid["rows"][0]][:3] == ["A1", "B1", "C1"]
    first = view["board"][0]
    assert grid["rows"][0][0]["css"] == piece_css(first)
    assert grid["rows"][0][0]["label"].startswith("A1, ")
    assert "idle_hint" not in view  # searched when the idle page asks (GAME.idle_hint)
    assert view["level_percent"] == 0 and view["bar"] is None


def test_a_spectator_sees_what_the_player_sees_but_never_the_seed():
    state = played(started()).state
    player, spectator = GAME.view(state, Viewer(0)), GAME.view(state, Viewer.spectator())
    assert player["you"] and not spectator["you"]
    own = {"you"}
    assert {k: v for k, v in player.items() if k not in own} == {
        k: v for k, v in spectator.items() if k not in own
    }
    assert player["grid"] == spectator["grid"]
    assert str(state["seed"]) not in json.dumps(spectator)


def test_the_action_bar_is_shown_half_full_with_its_deadline():
    view = GAME.view(started(mode="action"), Viewer(0))
    assert view["deadline"] == at(100).isoformat()
    assert view["bar"]["percent"] == 50 and view["level_percent"] is None


def test_the_view_sums_up_the_last_move_and_leaves_its_steps_to_the_event():
    outcome = played(started())
    view = GAME.view(outcome.state, Viewer(0))
    last = view["last"]
    assert (last["score"], last["removed"]) == (outcome.public["score"], outcome.public["removed"])
    assert "steps" not in last and "frames" not in view
    assert outcome.public["steps"][-1]["board"] == view["board"]
    assert view["pieces"][view["board"][0]] == piece_css(view["board"][0])


def test_the_board_grid_marks_cells():
    grid = board_grid(engine.format_board(engine.generate_board(3)), {"B2": "hint"})
    assert grid["rows"][1][1]["marks"] == "hint"


def test_only_the_player_is_given_the_idle_hint():
    state = played(started()).state
    assert GAME.idle_hint(state, Viewer(0)) == list(engine.best_move(state["board"]))
    assert GAME.idle_hint(state, Viewer.spectator()) is None
    assert GAME.idle_hint(state, Viewer.host()) is None


def test_the_idle_hint_follows_the_modes_scoring_and_ends_with_the_game():
    state = played(started(mode="original")).state
    board = state["board"]
    assert GAME.idle_hint(state, Viewer(0)) == list(engine.best_move(board, specials=False))
    over = {**state, "phase": "over"}
    assert GAME.idle_hint(over, Viewer(0)) is None


def test_an_illegal_swap_is_refused():
    state = started()
    with pytest.raises(ActionError) as refused:
        GAME.act(state, 0, {"type": "swap", "a": "A1", "b": "C1"}, T0)
    assert refused.value.code == "illegal_swap"


def test_an_unstarted_state_has_an_empty_view():
    assert GAME.view({}, Viewer.spectator()) == {}
