"""games.core.render.jsondiff: a patch turns the data before into the data after, and no more; a
snapshot's patch rebuilds its state to the same JSON and a state that carries its history costs
bytes linear in its snapshots; a frame's patch is what it was (lists resized are set whole) and
the page (static/js/match.js) applies it as the server does; patches stored by earlier versions
still apply."""

from __future__ import annotations

import copy
import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from games.core.render import jsondiff
from games.core.render.jsondiff import PatchError, apply, diff, refer_to_event

MATCH_JS = Path(__file__).resolve().parents[2] / "static" / "js" / "match.js"

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
        ["a", ["log"], ["c"]],
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
        ["a", ["log"], ["b"]],
    ]
    held = json.loads(json.dumps(before))
    assert apply(held, ops) == json.loads(json.dumps(after))


def test_a_frame_sets_a_list_whole_when_it_shrank_or_changed_as_it_grew():
    """A frame's patch is what it was before the two diffs were one: no "t" to a client."""
    assert diff(BEFORE, {**BEFORE, "log": ["a"]}) == [["s", ["log"], ["a"]]]
    assert diff(BEFORE, {**BEFORE, "log": ["z", "b", "c"]}) == [["s", ["log"], ["z", "b", "c"]]]


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


# Patches that do not fit BEFORE.
MISFITS = [
    [["s", ["nowhere", "deep"], 1]],
    [["d", ["missing"]]],
    [["a", ["phase"], [1]]],
    [["t", ["phase"], 0]],
    [["t", ["log"], 3]],
    [["d", []]],
    [["s", ["board", 7], 1]],
    [["e", ["phase"], ["data"]]],
    [["x", ["log"], ["c"]]],  # the frames' append before the two diffs were one
]


@pytest.mark.parametrize("ops", MISFITS)
def test_a_patch_that_does_not_fit_the_view_is_refused(ops):
    with pytest.raises(PatchError):
        apply(copy.deepcopy(BEFORE), ops)


# Snapshots.


def text(data: Any) -> str:
    return json.dumps(data, sort_keys=True)


def roundtrip(old: Any, new: Any, smallest: bool = True) -> jsondiff.Patch:
    ops = json.loads(json.dumps(diff(old, new, smallest=smallest)))  # as the database gives it back
    rebuilt = apply(copy.deepcopy(old), ops)
    assert text(rebuilt) == text(new), (old, new, ops)
    return ops


def test_a_patch_names_only_what_changed():
    old = {"board": [[1, 2], [3, 4]], "turn": 0, "history": [{"p": 1}], "gone": "x"}
    new = {"board": [[1, 2], [3, 5]], "turn": 1, "history": [{"p": 1}, {"p": 2}], "new": None}
    ops = roundtrip(old, new)
    assert sorted(map(json.dumps, ops)) == sorted(
        map(
            json.dumps,
            [
                ["d", ["gone"]],
                ["s", ["board", 1, 1], 5],
                ["s", ["turn"], 1],
                ["a", ["history"], [{"p": 2}]],
                ["s", ["new"], None],
            ],
        )
    )
    assert diff(new, copy.deepcopy(new), smallest=True) == []


def test_json_types_that_python_calls_equal_are_changes():
    assert roundtrip({"a": 1, "b": 0}, {"a": True, "b": 1}) == [
        ["s", ["a"], True],
        ["s", ["b"], 1],
    ]
    assert roundtrip({"a": 0, "b": [1]}, {"a": 0.0, "b": [2]}) == [
        ["s", ["a"], 0.0],
        ["s", ["b", 0], 2],
    ]
    # Containers Python calls equal are not looked into (that would cost a walk of the whole
    # state): the snapshot's check finds the patch short and keeps the state whole.
    previous, state = {"a": [1, 2], "pad": "x" * 50}, {"a": [1.0, 2], "pad": "x" * 50}
    kept = jsondiff.keep(copy.deepcopy(previous), 0, state)
    assert kept.patch is None and text(kept.state) == text(state)
    state = {"a": [1, 3], "pad": "x" * 50}
    assert jsondiff.keep(previous, 0, state).patch == [["s", ["a", 1], 3]]


def test_a_snapshot_cuts_a_list_that_shrank_and_patches_one_that_changed_as_it_grew():
    assert roundtrip({"undo": [1, 2, 3]}, {"undo": [1]}) == [["t", ["undo"], 1]]
    history = [{"round": 0, "board": "RGB" * 20, "done": False}]
    grown = [{**history[0], "done": True}, {"round": 1, "board": "BGR" * 20, "done": False}]
    assert roundtrip({"h": history}, {"h": grown}) == [
        ["s", ["h", 0, "done"], True],
        ["a", ["h"], [grown[1]]],
    ]
    assert roundtrip([1], {"root": "replaced"}) == [["s", [], {"root": "replaced"}]]


def test_a_list_changed_everywhere_is_set_whole_when_that_is_shorter():
    assert roundtrip({"q": list(range(10))}, {"q": list(range(1, 11))}) == [
        ["s", ["q"], list(range(1, 11))]
    ]
    assert roundtrip({"q": list(range(10))}, {"q": list(range(1, 10))}) == [
        ["s", ["q"], list(range(1, 10))]
    ]
    after = {**BEFORE, "board": [[0] * 3 for _ in range(3)]}
    assert diff(BEFORE, after) == [["s", ["board"], after["board"]]]


def test_patches_stored_before_the_diffs_were_one_still_rebuild_their_states():
    """Snapshots kept since migration core/0016 (the old statediff's operations, as the
    database holds them) are read as written: set, delete, append, cut."""
    rows = [
        ({"round": 1, "history": [[1, 2]], "undo": [9, 8], "gone": 0}, None),
        (None, [["s", ["round"], 2], ["a", ["history"], [[3]]], ["t", ["undo"], 1]]),
        (None, [["d", ["gone"]], ["s", ["history", 0, 1], 5], ["s", ["undo"], []]]),
    ]
    assert jsondiff.rebuild(copy.deepcopy(rows[:2])) == {
        "round": 2,
        "history": [[1, 2], [3]],
        "undo": [9],
        "gone": 0,
    }
    assert jsondiff.rebuild(rows) == {"round": 2, "history": [[1, 5], [3]], "undo": []}


def random_json(rng: random.Random, depth: int = 0) -> Any:
    # No two leaves Python calls equal across types (0 and False, 1 and 1.0): see above.
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return rng.choice([-3, -2, 2, 3, 4])
    if kind == 1:
        return rng.choice([True, False, None, 1.5, 2.25])
    if kind == 2:
        return rng.choice(["a", "b", ""])
    if kind == 3:
        return rng.choice([5, 6, 7])
    if kind in (4, 5):
        return {rng.choice("abcde"): random_json(rng, depth + 1) for _ in range(rng.randrange(4))}
    return [random_json(rng, depth + 1) for _ in range(rng.randrange(5))]


def mutate(rng: random.Random, data: Any) -> Any:
    data = copy.deepcopy(data)
    if isinstance(data, dict) and data and rng.random() < 0.7:
        key = rng.choice(sorted(data))
        data[key] = mutate(rng, data[key])
        if rng.random() < 0.3:
            data[rng.choice("abcdefg")] = random_json(rng, 2)
        return data
    if isinstance(data, list) and data and rng.random() < 0.7:
        i = rng.randrange(len(data))
        data[i] = mutate(rng, data[i])
        if rng.random() < 0.3:
            data.append(random_json(rng, 2))
        elif rng.random() < 0.2:
            data.pop()
        return data
    return random_json(rng, 1)


@pytest.mark.parametrize("smallest", [True, False], ids=["snapshots", "frames"])
def test_random_changes_are_rebuilt_exactly(smallest):
    rng = random.Random(20)
    for _ in range(2000):
        old = random_json(rng)
        roundtrip(old, mutate(rng, old), smallest)
        roundtrip(old, random_json(rng), smallest)


def test_a_state_that_carries_its_history_costs_bytes_linear_in_its_snapshots():
    """Each snapshot appends one round to the history: kept whole every time the bytes would
    grow with the square of the rounds; as patches, with whole states only when the patches
    outweigh one, they grow with the rounds, and each snapshot is rebuilt exactly."""

    def state(rounds: int) -> dict[str, Any]:
        history = [{"round": r, "cells": [r * 7 % 11] * 20} for r in range(rounds)]
        return {"round": rounds, "board": [[rounds % 5] * 8] * 8, "history": history}

    def kept_bytes(snapshots: int) -> tuple[int, list[jsondiff.Kept]]:
        kept, previous, chain = [], None, 0
        for r in range(1, snapshots + 1):
            k = jsondiff.keep(copy.deepcopy(previous), chain, state(r))
            kept.append(k)
            previous, chain = state(r), k.chain
        size = sum(len(json.dumps(k.state if k.patch is None else k.patch)) for k in kept)
        return size, kept

    size_100, kept = kept_bytes(100)
    size_400, _ = kept_bytes(400)
    whole_400 = sum(len(json.dumps(state(r))) for r in range(1, 401))
    assert size_400 < 5 * size_100  # linear: 4x the rounds, not 16x the bytes
    assert size_400 < whole_400 / 20
    rows = [(k.state, json.loads(json.dumps(k.patch)) if k.patch else None) for k in kept]
    for end in range(1, 101):
        first = max(i for i in range(end) if rows[i][1] is None)
        rebuilt = jsondiff.rebuild(copy.deepcopy(rows[first:end]))
        assert text(rebuilt) == text(state(end)), end
    wholes = [i for i, k in enumerate(kept) if k.patch is None]
    assert 2 <= len(wholes) < 20  # whole states come back, ever more rarely


def _page_patched(cases: list[tuple[Any, jsondiff.Patch, Any]]) -> list[Any]:
    """What the page's own ``patched`` (static/js/match.js) makes of each ``(view, ops,
    event)``, run by node: the function's text, cut from the script."""
    script = MATCH_JS.read_text()
    start = script.index("  function patched(view, ops, event) {")
    end = script.index("\n  }\n", start) + len("\n  }\n")
    program = script[start:end] + (
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        "console.log(JSON.stringify(cases.map(([v, o, e]) => patched(v, o, e))));\n"
    )
    node = subprocess.run(
        ["node", "-e", program], input=json.dumps(cases), capture_output=True, text=True
    )
    assert node.returncode == 0, node.stderr
    return json.loads(node.stdout)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_page_applies_a_frames_patch_as_the_server_does():
    rng = random.Random(37)
    pairs = []
    for _ in range(200):
        old, new = random_json(rng), random_json(rng)
        pairs.append((old, mutate(rng, old), None))  # sets and deletes, mostly
        pairs.append(({"log": [old], "n": 0}, {"log": [old, new], "n": 1}, None))  # appends
        last = {"steps": new, "board": "RGB" * 30}
        pairs.append(({"last": old, "n": 0}, {"last": last, "n": 1}, {"data": last}))  # events
    cases = []
    for old, new, event in pairs:
        ops = refer_to_event(diff(old, new, ("game",)), event)
        cases.append((json.loads(json.dumps({"game": old, "match": 1})), ops, event))
    kinds = {op[0] for _, ops, _ in cases for op in ops}
    assert kinds == {"s", "d", "a", "e"}, kinds
    cases.extend((copy.deepcopy(BEFORE), ops, None) for ops in MISFITS)
    for (view, ops, event), made in zip(cases, _page_patched(cases), strict=True):
        try:
            expected = apply(copy.deepcopy(view), ops, event)
        except PatchError:
            assert made is None, ops
        else:
            assert text(made) == text(expected), ops


@pytest.mark.parametrize("smallest", [True, False], ids=["snapshots", "frames"])
def test_a_patch_applied_as_a_new_value_leaves_the_old_one_as_it_was(smallest):
    """``applied`` gives what ``apply`` gives, copying only what the patch changes: the value
    held before is the same afterwards, and shares whatever the patch did not touch."""
    rng = random.Random(21)
    for _ in range(2000):
        old = random_json(rng)
        new = mutate(rng, copy.deepcopy(old)) if rng.random() < 0.8 else random_json(rng)
        ops = json.loads(json.dumps(diff(old, new, smallest=smallest)))
        held = text(old)
        assert text(jsondiff.applied(old, ops)) == text(new), (old, new, ops)
        assert text(old) == held
    view = {"board": [[1, 2], [3, 4]], "scores": [5, 6], "me": {"seat": 0}}
    after = jsondiff.applied(view, [["s", ["board", 1, 0], 9], ["a", ["scores"], [7]]])
    assert after == {"board": [[1, 2], [9, 4]], "scores": [5, 6, 7], "me": {"seat": 0}}
    assert view == {"board": [[1, 2], [3, 4]], "scores": [5, 6], "me": {"seat": 0}}
    assert after["board"][0] is view["board"][0] and after["me"] is view["me"]


@pytest.mark.parametrize("ops", MISFITS)
def test_a_patch_that_does_not_fit_leaves_the_value_held_as_it_was(ops):
    held = copy.deepcopy(BEFORE)
    with pytest.raises(PatchError):
        jsondiff.applied(held, [["s", ["phase"], "changed first"], *ops])
    assert held == BEFORE
