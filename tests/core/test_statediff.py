"""Snapshots kept as patches (games/core/statediff.py): a patch rebuilds the new state exactly,
to the same JSON, and a state that carries its history costs bytes linear in its snapshots."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from games.core import statediff


def text(data: Any) -> str:
    return json.dumps(data, sort_keys=True)


def roundtrip(old: Any, new: Any) -> statediff.Patch:
    ops = json.loads(json.dumps(statediff.diff(old, new)))  # as the database gives it back
    rebuilt = statediff.apply(copy.deepcopy(old), ops)
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
    assert statediff.diff(new, copy.deepcopy(new)) == []


def test_json_types_that_python_calls_equal_are_changes():
    assert roundtrip({"a": 1}, {"a": True}) == [["s", ["a"], True]]
    assert roundtrip({"a": 0, "b": 1}, {"a": 0.0, "b": 1}) == [["s", ["a"], 0.0]]
    # Deeper, containers Python calls equal are not looked into (that would cost a walk of the
    # whole state): the snapshot's check finds the patch short and keeps the state whole.
    previous, state = {"a": [1, 2], "pad": "x" * 50}, {"a": [1.0, 2], "pad": "x" * 50}
    kept = statediff.keep(copy.deepcopy(previous), 0, state)
    assert kept.patch is None and text(kept.state) == text(state)
    state = {"a": [1, 3], "pad": "x" * 50}
    assert statediff.keep(previous, 0, state).patch == [["s", ["a", 1], 3]]


def test_lists_shrink_and_lists_mostly_new_are_set_whole():
    assert roundtrip({"undo": [1, 2, 3]}, {"undo": [1]}) == [["t", ["undo"], 1]]
    assert roundtrip({"q": [1, 2, 3, 4]}, {"q": [2, 3, 4, 5]}) == [["s", ["q"], [2, 3, 4, 5]]]
    assert roundtrip([1], {"root": "replaced"}) == [["s", [], {"root": "replaced"}]]


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


def test_random_changes_are_rebuilt_exactly():
    rng = random.Random(20)
    for _ in range(2000):
        old = random_json(rng)
        roundtrip(old, mutate(rng, old))
        roundtrip(old, random_json(rng))


def test_a_state_that_carries_its_history_costs_bytes_linear_in_its_snapshots():
    """Each snapshot appends one round to the history: kept whole every time the bytes would
    grow with the square of the rounds; as patches, with whole states only when the patches
    outweigh one, they grow with the rounds, and each snapshot is rebuilt exactly."""

    def state(rounds: int) -> dict[str, Any]:
        history = [{"round": r, "cells": [r * 7 % 11] * 20} for r in range(rounds)]
        return {"round": rounds, "board": [[rounds % 5] * 8] * 8, "history": history}

    def kept_bytes(snapshots: int) -> tuple[int, list[statediff.Kept]]:
        kept, previous, chain = [], None, 0
        for r in range(1, snapshots + 1):
            k = statediff.keep(copy.deepcopy(previous), chain, state(r))
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
        rebuilt = statediff.rebuild(copy.deepcopy(rows[first:end]))
        assert text(rebuilt) == text(state(end)), end
    wholes = [i for i, k in enumerate(kept) if k.patch is None]
    assert 2 <= len(wholes) < 20  # whole states come back, ever more rarely
