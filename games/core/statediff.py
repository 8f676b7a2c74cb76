"""Snapshots kept as changes, so a match's storage grows with its events, not their square.

A state carries what it needs to go on, which in most games includes the rounds or turns played
so far: a snapshot of the whole state every K events would keep that history again and again.
A snapshot instead keeps the operations that turn the previous snapshot's state into its own
(``diff``; ``apply`` plays them), and the whole state only when the patches since the last
whole one would weigh more than it (``keep``): the whole states kept then cost at most as many
bytes as the patches, which grow with the events, and rebuilding a snapshot reads at most about
two states' worth of JSON. Pure: plain JSON data in, plain JSON data out.

A patch is a list of operations, each ``[op, path, value]`` with ``path`` the keys and list
indexes from the state's root: ``"s"`` sets a value, ``"d"`` deletes a key (no value), ``"a"``
appends the items to a list, ``"t"`` cuts a list to a length.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

Patch = list[list[Any]]


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def diff(old: Any, new: Any) -> Patch:
    """The operations that make ``new`` from ``old`` (both JSON data; ``[]`` when equal)."""
    ops: Patch = []
    _diff(old, new, [], ops)
    return ops


def _same(a: Any, b: Any) -> bool:
    # 1, 1.0 and True are equal in Python, not in JSON: a value changes when its type does.
    # Inside containers Python calls equal nothing is looked at (a walk of the whole state);
    # ``keep`` checks every patch rebuilds its state's JSON exactly, and keeps it whole if not.
    return type(a) is type(b) and a == b


def _diff(old: Any, new: Any, path: list[Any], ops: Patch) -> None:
    if type(old) is dict and type(new) is dict:
        for key in old:
            if key not in new:
                ops.append(["d", [*path, key]])
        for key, value in new.items():
            if key not in old:
                ops.append(["s", [*path, key], value])
            elif not _same(old[key], value):
                _diff(old[key], value, [*path, key], ops)
        return
    if type(old) is list and type(new) is list:
        common = min(len(old), len(new))
        if old[:common] != new[:common]:
            changed = [i for i in range(common) if not _same(old[i], new[i])]
            if len(changed) * 2 > common:  # mostly new: said whole
                ops.append(["s", path, new])
                return
            for i in changed:
                _diff(old[i], new[i], [*path, i], ops)
        if len(new) > common:
            ops.append(["a", path, new[common:]])
        elif len(old) > common:
            ops.append(["t", path, common])
        return
    if not _same(old, new):
        ops.append(["s", path, new])


def apply(state: Any, ops: Patch) -> Any:
    """``state`` changed by ``ops`` (in place; the changed state is returned, as a patch may
    replace the root itself). The values set are ``ops``' own objects, not copies."""
    for op in ops:
        kind, path = op[0], op[1]
        if kind == "s" and not path:
            state = op[2]
            continue
        target = state
        for key in path[:-1] if kind in "sd" else path:
            target = target[key]
        if kind == "s":
            target[path[-1]] = op[2]
        elif kind == "d":
            del target[path[-1]]
        elif kind == "a":
            target.extend(op[2])
        elif kind == "t":
            del target[op[2] :]
        else:
            raise ValueError(f"unknown patch operation {kind!r}")
    return state


@dataclass(frozen=True)
class Kept:
    """What a snapshot keeps: the whole ``state`` (``patch`` None), or the ``patch`` of the
    previous snapshot's state (``state`` None); ``chain`` is the bytes of the patches since the
    last whole state, this one's included (0 for a whole state)."""

    state: Any = None
    patch: Patch | None = None
    chain: int = 0


def keep(previous: Any, chain: int, state: Any) -> Kept:
    """How to keep ``state`` as a snapshot after one holding ``previous`` (None: there is none)
    whose chain of patches weighs ``chain`` bytes. The patch is kept only when it rebuilds
    ``state`` to the same JSON exactly and the chain stays lighter than the whole state.
    ``previous`` is changed (patched) by the check; pass a copy to keep it."""
    stored = json.loads(json.dumps(state))  # as the database gives it back
    if previous is None:
        return Kept(state=stored)
    whole = _compact(stored)
    ops = diff(previous, stored)
    size = len(json.dumps(ops, separators=(",", ":")))
    if chain + size >= len(whole):
        return Kept(state=stored)
    if _compact(apply(previous, ops)) != whole:  # a type changed inside equal containers
        return Kept(state=stored)
    return Kept(patch=ops, chain=chain + size)


def rebuild(rows: list[tuple[Any, Patch | None]]) -> Any:
    """The state of the last snapshot of ``rows`` (each ``(state, patch)``, in version order,
    the first a whole state)."""
    state: Any = None
    for whole, patch in rows:
        state = whole if patch is None else apply(state, patch)
    return state
