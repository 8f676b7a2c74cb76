"""The pure helpers every flow shares (games/core/game/flowkit.py)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.core.game.flowkit import copy_json, dmo_seat, handler_for, match_awarded, seats_kept
from games.core.game.gamedef import ActionError, SeatInfo

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@given(json_values)
def test_copy_json_equals_a_deep_copy(value: object) -> None:
    assert copy_json(value) == copy.deepcopy(value)


def test_changing_the_copy_leaves_the_original_alone() -> None:
    state = {"board": [["R", "G"], ["B", "Y"]], "seats": [{"wins": 1}], "round": 2}
    copied = copy_json(state)
    copied["board"][0][0] = "X"
    copied["seats"][0]["wins"] = 4
    copied["round"] = 3
    assert state == {"board": [["R", "G"], ["B", "Y"]], "seats": [{"wins": 1}], "round": 2}


@pytest.mark.parametrize(
    ("action", "shown"),
    [
        ({"type": "dance"}, "'dance'"),
        ({"type": {}}, "{}"),
        ({"type": ["swap"]}, "['swap']"),
        ({}, "None"),
        ("swap", "without a type"),
        (None, "without a type"),
    ],
)
def test_handler_for_refuses_anything_but_a_known_type_naming_what_the_game_takes(action, shown):
    with pytest.raises(ActionError) as refused:
        handler_for({"swap": len, "pass": len}, action)
    assert refused.value.code == "unknown_action"
    assert str(refused.value) == f"unknown action {shown}; this game takes pass, swap"


def test_handler_for_returns_the_handler_of_the_actions_type():
    assert handler_for({"swap": len, "pass": abs}, {"type": "pass", "x": 1}) is abs


def test_the_seats_are_kept_as_json_and_the_dmo_found_by_role_else_last():
    seats = [SeatInfo(0, "DMO", "Ada"), SeatInfo(1, "EC", "Bob", is_bot=True)]
    assert seats_kept(seats) == [
        {"index": 0, "role": "DMO", "name": "Ada", "is_bot": False},
        {"index": 1, "role": "EC", "name": "Bob", "is_bot": True},
    ]
    assert dmo_seat(seats) == 0
    assert dmo_seat([SeatInfo(0, "", "Ada"), SeatInfo(1, "", "Bob")]) == 1


def test_a_match_award_marks_a_copy_and_refuses_a_bad_winner_or_a_finished_match():
    state = {"phase": "play", "score": [1, 2]}
    new = match_awarded(state, {"winner": 1})
    assert new == {"phase": "play", "score": [1, 2], "awarded": True}
    assert "awarded" not in state
    for award in ({"winner": 2}, {"winner": True}, {}):
        with pytest.raises(ActionError) as bad:
            match_awarded(state, award)
        assert bad.value.code == "bad_award" and "seat 0 or seat 1" in bad.value.message
    with pytest.raises(ActionError) as over:
        match_awarded({"phase": "over"}, {"winner": 0})
    assert over.value.code == "match_over"
    assert match_awarded(state, {"winner": None}, seats=(0, None))["awarded"]
