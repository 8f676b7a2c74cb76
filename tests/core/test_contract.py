"""The contract every game meets, checked the same way for every registered game declared as a
flow: the real games and Count to Ten, the fixture written in the contract's shape
(tests/fixture_flow.py), a new game by being registered (tests/registered.py). Its settings as
one table (form, defaults, cleaning), auto_start the core's, one refusal for an unknown action, a
match over refuses moves, a clock that is not running changes nothing, every award on offer is
accepted, and every view is JSON that a spectator may see without a seat's secrets."""

from __future__ import annotations

import json

import pytest

from games.core.forms import MatchSettingsForm
from games.core.game.contract import defaults
from games.core.game.gamedef import ActionError, SeatInfo, Viewer
from games.core.game.registry import get_game
from tests.flows import T0
from tests.registered import flow_games, real_games, seat_roles

GAMES = flow_games()


def test_every_real_game_and_count_to_ten_are_checked():
    """A real game not declared as a flow would leave the contract unchecked for it."""
    assert set(real_games()) <= set(GAMES)
    assert {"fixture-count", "bejeweled-2-race"} <= set(GAMES)


def started(key: str):
    game = get_game(key)
    roles = seat_roles(game, game.min_seats)
    seats = [
        SeatInfo(i, roles[i], name) for i, name in enumerate(["Ada", "Bob", "Cy"][: len(roles)])
    ]
    return game, game.start(game.clean_settings({}), seats, 7, T0).state, seats


@pytest.mark.parametrize("key", GAMES)
def test_the_settings_are_one_table_the_form_and_the_defaults_come_from(key):
    game = get_game(key)
    table = game.setting_table()
    assert table[-1].name == "auto_start"
    assert game.clean_settings({}) == defaults(table)
    form = MatchSettingsForm.for_game(game)()
    for setting in table:
        assert setting.name in form.fields, setting.name
        initial = form.fields[setting.name].initial
        expected = setting.default
        if setting.kind == "choice":
            expected = str(expected)
        if setting.kind == "several":
            expected = [str(value) for value in expected]
        assert initial == expected, setting.name


@pytest.mark.parametrize("key", GAMES)
def test_unknown_and_malformed_settings_are_refused(key):
    game = get_game(key)
    with pytest.raises(ValueError, match="unknown setting"):
        game.clean_settings({"colour_of_the_sky": "blue"})
    with pytest.raises(ValueError, match="auto_start"):
        game.clean_settings({"auto_start": "yes"})


@pytest.mark.parametrize("key", GAMES)
def test_cleaning_kept_settings_keeps_them(key):
    game = get_game(key)
    kept = game.clean_settings({})
    assert game.clean_settings(kept) == kept


@pytest.mark.parametrize("key", GAMES)
def test_an_unknown_action_gets_the_one_refusal(key):
    game, state, _ = started(key)
    for action in ({"type": "dance"}, {"no": "type"}):
        with pytest.raises(ActionError) as refused:
            game.act(state, 0, action, T0)
        assert refused.value.code == "unknown_action"


@pytest.mark.parametrize("key", GAMES)
def test_a_clock_that_is_not_running_changes_nothing(key):
    game, state, _ = started(key)
    outcome = game.timeout(state, "no_such_clock", T0, {})
    assert outcome.kind == "clock_ignored"
    assert {k: v for k, v in outcome.state.items() if k != "deadlines"} == {
        k: v for k, v in state.items() if k != "deadlines"
    }


@pytest.mark.parametrize("key", GAMES)
def test_every_award_on_offer_is_accepted_and_a_match_award_ends_the_match(key):
    game, state, seats = started(key)
    choices = game.award_choices(state, seats)
    assert choices
    for value, label in choices:
        award = json.loads(value)
        outcome = game.adjudicate(state, award, T0)
        if award.get("scope", "match") == "match" and "winner" in award:
            assert outcome.result is not None, label
            with pytest.raises(ActionError) as refused:
                game.act(outcome.state, 0, {"type": "anything"}, T0)
            assert refused.value.code in {"match_over", "unknown_action"}


@pytest.mark.parametrize("key", GAMES)
def test_every_view_is_json_and_a_spectator_sees_no_seats_secret(key):
    game, state, seats = started(key)
    spectator = game.view(state, Viewer.spectator())
    json.dumps(spectator)
    for seat in seats:
        json.dumps(game.view(state, Viewer(seat=seat.index)))
    json.dumps(game.view(state, Viewer.host()))
    assert "seed" not in spectator and "draft" not in spectator


@pytest.mark.parametrize("key", GAMES)
def test_a_setting_asked_only_for_some_values_of_another_names_real_ones(key):
    game = get_game(key)
    table = {setting.name: setting for setting in game.setting_table()}
    form = MatchSettingsForm.for_game(game)()
    for setting in table.values():
        attrs = form.fields[setting.name].widget.attrs
        if setting.shown_when is None:
            assert "data-shown-when" not in attrs, setting.name
            continue
        name, values = setting.shown_when
        assert values and set(values) <= {value for value, _ in table[name].choices}
        assert attrs["data-shown-when"] == name
        assert attrs["data-shown-values"].split() == [str(value) for value in values]


def test_the_forms_ask_for_pasted_boards_moves_and_puzzles_only_where_they_apply():
    def shown_when(key: str) -> dict[str, tuple]:
        table = get_game(key).setting_table()
        return {s.name: s.shown_when for s in table if s.shown_when is not None}

    pasted = ("boards", ("pasted",))
    assert shown_when("pointsweeper") == {f"board_{n}": pasted for n in (1, 2, 3)}
    assert shown_when("bejeweled-2-race") == {
        "moves": ("mode", ("classic_moves",)),
        "puzzle_first": ("mode", ("puzzles",)),
        "puzzle_count": ("mode", ("puzzles",)),
        "held_back_moves": ("spectators", ("held_back",)),
    }
    assert shown_when("bejeweled-2") == {"puzzle": ("mode", ("puzzle", "cognito"))}
