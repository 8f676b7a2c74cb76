"""The pure helpers every flow shares (games/core/flowkit.py)."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from games.core.flowkit import copy_json

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
