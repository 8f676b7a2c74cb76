"""The pure helpers every flow shares (games/core/flowkit.py)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.core.flowkit import copy_json, handler_for
from games.core.gamedef import ActionError

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
