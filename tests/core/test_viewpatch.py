"""games.core.viewpatch: a patch turns the view before into the view after, and no more."""

from __future__ import annotations

import copy
import json

import pytest

from games.core.viewpatch import PatchError, apply, diff, refer_to_event

BEFORE = {
    "phase": "play",
    "board": [[1, 2, 3], [4, 5, 6], [7, 8, 9]],
    "log": ["a", "b"],
    "last": None,
    "gone": 1,
}


def test_a_patch_sets_what_changed_extends_a_list_and_deletes_what_went():
    after = copy.deepcopy(BEFORE)
    after["board"][1][1] = 0
    after["log"].append("c")
    after["last"] = {"seat": 0}
    del after["gone"]
    ops = diff(BEFORE, after)
    assert ops == [
        ["d", ["gone"]],
        ["s", ["board", 1, 1], 0],
        ["x", ["log"], ["c"]],
        ["s", ["last"], {"seat": 0}],
    ]
    assert apply(copy.deepcopy(BEFORE), ops) == after


def test_a_view_as_the_game_made_it_is_patched_as_a_client_holds_it():
    """A game's view may hold tuples and whole-number keys; the patch of two such views, sent
    as JSON, turns the view a client holds (lists, string keys) into the next one."""
    before = {"scores": {0: 3, 1: 4}, "cells": ((1, 2), (3, 4)), "log": ("a",), "flag": {True: 1}}
    after = {"scores": {0: 3, 1: 5, 2: 0}, "cells": ((1, 2), (3, 9)), "log": ("a", "b")}
    ops = json.loads(json.dumps(diff(before, after)))
    assert ops == [
        ["d", ["flag"]],
        ["s", ["scores", "1"], 5],
        ["s", ["scores", "2"], 0],
        ["s", ["cells", 1, 1], 9],
        ["x", ["log"], ["b"]],
    ]
    held = json.loads(json.dumps(before))
    assert apply(held, ops) == json.loads(json.dumps(after))


def test_a_list_changed_everywhere_is_set_whole_when_that_is_shorter():
    after = {**BEFORE, "board": [[0] * 3 for _ in range(3)]}
    assert diff(BEFORE, after) == [["s", ["board"], after["board"]]]


def test_a_value_the_event_carries_is_sent_as_a_reference_into_it():
    steps = [{"board": "x" * 40, "cleared": [1, 2, 3]}, {"board": "y" * 40, "cleared": [4]}]
    event = {"version": 3, "kind": "swapped", "data": {"steps": steps}}
    after = {**BEFORE, "last": {"steps": steps}}
    ops = refer_to_event(diff(BEFORE, after), event)
    assert ops == [["e", ["last"], ["data"]]]  # "last" is the event's data, sent once
    assert apply(copy.deepcopy(BEFORE), ops, event) == after
    patched = refer_to_event([["s", ["last", "steps"], steps]], event)
    assert patched == [["e", ["last", "steps"], ["data", "steps"]]]
    assert "x" * 40 not in json.dumps(patched)
    assert apply({"last": {}}, patched, event) == {"last": {"steps": steps}}


def test_a_long_text_the_event_carries_is_sent_as_a_reference_and_a_short_one_is_not():
    board = "RGBYOPW\n" * 10
    event = {"version": 4, "kind": "round_resolved", "data": {"board": board, "round": 2}}
    after = {**BEFORE, "board": board, "round": 2}
    ops = refer_to_event(diff(BEFORE, after), event)
    assert ["e", ["board"], ["data", "board"]] in ops
    assert board not in json.dumps(ops)
    assert apply(copy.deepcopy(BEFORE), ops, event) == after
    short = refer_to_event([["s", ["phase"], "bidding"]], {"data": {"phase": "bidding"}})
    assert short == [["s", ["phase"], "bidding"]]


@pytest.mark.parametrize(
    "ops",
    [
        [["s", ["nowhere", "deep"], 1]],
        [["d", ["missing"]]],
        [["x", ["phase"], [1]]],
        [["s", ["board", 7], 1]],
        [["q", ["phase"], 1]],
    ],
)
def test_a_patch_that_does_not_fit_the_view_is_refused(ops):
    with pytest.raises(PatchError):
        apply(copy.deepcopy(BEFORE), ops)
