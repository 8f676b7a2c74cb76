"""Patches of a viewer's view: what changed between two views, as small operations.

An update frame carries a patch from the view the viewer holds (the version before) to the view
after the event, never the whole view (docs/protocol.md). Operations are JSON arrays:

- ``["s", path, value]``: set the value at ``path`` (a list of object keys and list indices);
- ``["d", path]``: delete the object key at ``path``;
- ``["x", path, items]``: append ``items`` to the list at ``path``;
- ``["e", path, from]``: set the value at ``path`` to the event's own value at ``from`` (the
  animation steps a move produces travel once, in the event, not again in the patch).

Pure: standard library only. ``apply`` is what a client does (static/js/match.js does the same);
a patch that does not apply (a path the view lacks) raises ``PatchError`` and the client asks
for the whole view again.
"""

from __future__ import annotations

import json
from typing import Any

Path = list[str | int]
Op = list[Any]

# A value shared with the event is sent by reference only when its text is at least this long.
SHARED_MIN_CHARS = 64
# Past this many operations on one list, setting the list whole may be shorter: compare.
MANY_OPS = 8


class PatchError(ValueError):
    """A patch that does not fit the view it was applied to."""


def _text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _key(key: Any) -> str:
    """An object key as JSON says it (a whole-number key ``3`` is ``"3"``)."""
    if isinstance(key, str):
        return key
    return json.dumps(key) if isinstance(key, bool) or key is None else str(key)


def diff(before: Any, after: Any, path: tuple[str | int, ...] = ()) -> list[Op]:
    """The operations that turn ``before`` into ``after``: JSON-shaped data as a game's view
    makes it (a tuple is a list to a client, a whole-number key a string key), compared as
    made, both from the same code; the operations' paths name keys as a client holds them."""
    if type(before) is type(after) and before == after:
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        ops: list[Op] = [["d", [*path, _key(key)]] for key in before if key not in after]
        for key, value in after.items():
            if key not in before:
                ops.append(["s", [*path, _key(key)], value])
            else:
                ops.extend(diff(before[key], value, (*path, _key(key))))
        return ops
    if isinstance(before, list | tuple) and type(before) is type(after):
        kept = len(before)
        if len(after) > kept and after[:kept] == before:
            return [["x", list(path), after[kept:]]]
        if len(after) == kept:
            ops = []
            for index, (old, new) in enumerate(zip(before, after, strict=True)):
                ops.extend(diff(old, new, (*path, index)))
            if len(ops) <= MANY_OPS or len(_text(ops)) < len(_text(after)):
                return ops
    return [["s", list(path), after]]


def _shared_values(data: Any, path: tuple[str | int, ...], found: dict[str, Path]) -> None:
    """Index the lists, objects and long strings inside the event by their JSON text."""
    if isinstance(data, dict):
        items: Any = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        if isinstance(data, str) and len(data) >= SHARED_MIN_CHARS:
            found.setdefault(_text(data), list(path))
        return
    text = _text(data)
    if len(text) >= SHARED_MIN_CHARS:
        found.setdefault(text, list(path))
    for key, value in items:
        _shared_values(value, (*path, key), found)


def refer_to_event(ops: list[Op], event: dict[str, Any] | None) -> list[Op]:
    """``ops`` with every value set whole that the event itself carries (a move's steps, its
    path, a board's text) replaced by a reference into the event."""
    if not event:
        return ops
    # The values long enough to refer to, by their text: mostly none (a score, a phase), and
    # then the event is not indexed at all.
    texts = {
        index: text
        for index, op in enumerate(ops)
        if op[0] == "s"
        and isinstance(op[2], dict | list | tuple | str)
        and len(text := _text(op[2])) >= SHARED_MIN_CHARS
    }
    if not texts:
        return ops
    shared: dict[str, Path] = {}
    _shared_values(event, (), shared)
    referred = list(ops)
    for index, text in texts.items():
        source = shared.get(text)
        if source is not None:
            referred[index] = ["e", ops[index][1], source]
    return referred


def _at(value: Any, path: list[Any]) -> Any:
    for key in path:
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            raise PatchError(f"no {key!r} on the way to {path}") from None
    return value


def apply(view: Any, ops: list[Op], event: dict[str, Any] | None = None) -> Any:
    """Apply ``ops`` to ``view`` in place and return it; raises PatchError if one does not fit."""
    for op in ops:
        kind, path = op[0], op[1]
        if not path:
            if kind not in {"s", "e"}:
                raise PatchError(f"{kind!r} needs a path")
            view = op[2] if kind == "s" else _at(event, op[2])
            continue
        parent, key = _at(view, path[:-1]), path[-1]
        if kind == "s" or kind == "e":
            value = op[2] if kind == "s" else _at(event, op[2])
            if isinstance(parent, list):
                if not isinstance(key, int) or not 0 <= key < len(parent):
                    raise PatchError(f"no index {key!r} in the list at {path[:-1]}")
            elif not isinstance(parent, dict):
                raise PatchError(f"nothing to set {key!r} on at {path[:-1]}")
            parent[key] = value
        elif kind == "d":
            if not isinstance(parent, dict) or key not in parent:
                raise PatchError(f"no {key!r} to delete at {path[:-1]}")
            del parent[key]
        elif kind == "x":
            target = _at(parent, [key])
            if not isinstance(target, list):
                raise PatchError(f"no list to extend at {path}")
            target.extend(op[2])
        else:
            raise PatchError(f"unknown patch operation {kind!r}")
    return view


def as_sent(view: dict[str, Any], page_only: tuple[str, ...]) -> dict[str, Any]:
    """A viewer's view (match facts, viewer, the game's view) as clients get it: the game's
    view without its ``page_only`` parts (what only the page's templates draw)."""
    if not page_only or not view.get("game"):
        return view
    return {**view, "game": without(view["game"], page_only)}


def without(data: Any, paths: tuple[str, ...]) -> Any:
    """``data`` without the parts at ``paths`` (dotted keys, ``*`` for every item of a list or
    object): what the page draws from the view but a client never reads. ``data`` is not
    changed; the parts on the way to a removed one are copied."""
    for path in paths:
        data = _without(data, path.split("."))
    return data


def _without(data: Any, keys: list[str]) -> Any:
    key, rest = keys[0], keys[1:]
    if key == "*":
        if isinstance(data, list):
            return [_without(item, rest) if rest else item for item in data]
        return data
    if not isinstance(data, dict) or key not in data:
        return data
    copied = dict(data)
    if rest:
        copied[key] = _without(data[key], rest)
    else:
        del copied[key]
    return copied
