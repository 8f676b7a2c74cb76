"""One JSON diff: what changed between two JSON values, as small operations, and how to apply them.

Two things are kept or sent as such patches:

- **snapshots** (``keep``, ``rebuild``): a match's state every K events is kept as the patch
  from the snapshot before, and whole only when the patches since the last whole state would
  weigh more than it, so that a match's storage grows with its events, not their square (a
  state carries its rounds so far); rebuilding a snapshot reads at most about two states' worth
  of JSON. Patches stored in the database since migration core/0016 are read by ``apply`` as
  they were written: the letters below are theirs.
- **update frames** (``refer_to_event``, ``as_sent``, ``without``): a frame carries the patch
  from the view the viewer holds (the version before) to the view after the event, never the
  whole view (docs/protocol.md); ``static/js/match.js`` applies it as ``apply`` does.

A patch is a list of operations, each a JSON array, applied in order; ``path`` is a list of
object keys and list indexes from the root (an empty path is the root itself):

- ``["s", path, value]``: set the value at ``path``;
- ``["d", path]``: delete the object key at ``path``;
- ``["a", path, items]``: append ``items`` to the list at ``path``;
- ``["t", path, length]``: cut the list at ``path`` to ``length`` items (snapshots only: a
  frame sets a list that shrank whole);
- ``["e", path, from]``: set the value at ``path`` to the event's own value at ``from``
  (frames only: the animation steps a move produces travel once, in the event).

Pure: standard library only. A patch that does not fit what it is applied to raises
``PatchError``; a client then asks for the whole view again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from json.encoder import encode_basestring_ascii as _string  # what dumps says a str as
from typing import Any

Path = list[str | int]
Op = list[Any]
Patch = list[Op]

# A value shared with the event is sent by reference only when its text is at least this long.
SHARED_MIN_CHARS = 64
# Past this many operations on one list, setting the list whole may be shorter: compare.
MANY_OPS = 8


class PatchError(ValueError):
    """A patch that does not fit the data it was applied to."""


def _text(value: Any) -> str:
    return _ENCODER.encode(value)


# What json.dumps(value, separators=(",", ":")) would make for each call, made once.
_ENCODER = json.JSONEncoder(separators=(",", ":"))


def _key(key: Any) -> str:
    """An object key as JSON says it (a whole-number key ``3`` is ``"3"``)."""
    if isinstance(key, str):
        return key
    return json.dumps(key) if isinstance(key, bool) or key is None else str(key)


def diff(
    before: Any, after: Any, path: tuple[str | int, ...] = (), *, smallest: bool = False
) -> Patch:
    """The operations that turn ``before`` into ``after`` (``[]`` when equal): JSON-shaped data
    as code makes it (a tuple is a list to JSON, a whole-number key a string key), compared as
    made; the operations' paths, under ``path``, name keys as JSON holds them. 1, 1.0 and True
    are equal in Python, not in JSON: a value changes when its type does (inside containers
    Python calls equal, nothing is looked at: ``keep`` checks what a patch rebuilds).

    A list that only grew is appended to. Without ``smallest`` (frames: made for every viewer on
    every action, and measured as they are), a list of the same length is patched item by item,
    or set whole when that is shorter than more than MANY_OPS operations, and any other list is
    set whole. With ``smallest`` (snapshots: kept for good), a list that grew or shrank is
    patched too, its changed items then what was appended or cut (a history whose last round
    changed as one more was added), and each list's operations are weighed against setting it
    whole: the shorter is kept."""
    if type(before) is type(after) and before == after:
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        ops: Patch = [["d", [*path, _key(key)]] for key in before if key not in after]
        for key, value in after.items():
            if key not in before:
                ops.append(["s", [*path, _key(key)], value])
                continue
            old = before[key]
            if type(old) is not type(value) or old != value:  # most keys are alike: no call
                ops.extend(diff(old, value, (*path, _key(key)), smallest=smallest))
        return ops
    if isinstance(before, list | tuple) and type(before) is type(after):
        kept = len(before)
        if len(after) > kept and after[:kept] == before:
            return [["a", list(path), after[kept:]]]
        if len(after) == kept or smallest:
            ops = []
            for index, (old, new) in enumerate(zip(before, after, strict=False)):
                if type(old) is not type(new) or old != new:
                    ops.extend(diff(old, new, (*path, index), smallest=smallest))
            if len(after) > kept:
                ops.append(["a", list(path), after[kept:]])
            elif len(after) < kept:
                ops.append(["t", list(path), len(after)])
            if smallest:
                whole = [["s", list(path), after]]
                return ops if len(_text(ops)) <= len(_text(whole)) else whole
            if len(ops) <= MANY_OPS or len(_text(ops)) < len(_text(after)):
                return ops
    return [["s", list(path), after]]


def _at(value: Any, path: list[Any]) -> Any:
    for key in path:
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            raise PatchError(f"no {key!r} on the way to {path}") from None
    return value


def apply(data: Any, ops: Patch, event: dict[str, Any] | None = None) -> Any:
    """``data`` changed by ``ops`` (in place; the changed data is returned, as a patch may
    replace the root itself). ``event``: what ``e`` operations read from. The values set are
    ``ops``' own objects, not copies. Raises PatchError if an operation does not fit."""
    return _patched(data, ops, event, copying=False)


def applied(data: Any, ops: Patch, event: dict[str, Any] | None = None) -> Any:
    """``data`` changed by ``ops`` as ``apply`` changes it, but as a new value: ``data`` is left
    as it was, whether the patch fits or raises PatchError. Only the objects and lists on the
    operations' paths are copied (each once, shallowly); the rest is shared with ``data``. A
    client (games/core/live/client.py) keeps the view it holds whole when a patch does not fit,
    without copying the whole view for every frame."""
    return _patched(data, ops, event, copying=True)


def _patched(data: Any, ops: Patch, event: dict[str, Any] | None, *, copying: bool) -> Any:
    holder = [data]  # the root, copied (``copying``) as any container on a path is
    copied: set[int] = set()

    def reached(path: list[Any]) -> Any:
        """The value at ``path``; with ``copying``, each container on the way is copied unless
        this call copied it already."""
        if not copying:
            return _at(holder[0], path)
        node: Any = holder
        for key in [0, *path]:
            try:
                child = node[key]
            except (KeyError, IndexError, TypeError):
                raise PatchError(f"no {key!r} on the way to {path}") from None
            if id(child) not in copied and isinstance(child, dict | list):
                child = dict(child) if isinstance(child, dict) else list(child)
                node[key] = child
                copied.add(id(child))
            node = child
        return node

    for op in ops:
        kind, path = op[0], op[1]
        if kind == "s" or kind == "e":
            value = op[2] if kind == "s" else _at(event, op[2])
            if not path:
                holder[0] = value
                continue
            parent, key = reached(path[:-1]), path[-1]
            if isinstance(parent, list):
                if not isinstance(key, int) or not 0 <= key < len(parent):
                    raise PatchError(f"no index {key!r} in the list at {path[:-1]}")
            elif not isinstance(parent, dict):
                raise PatchError(f"nothing to set {key!r} on at {path[:-1]}")
            parent[key] = value
        elif kind == "d":
            parent = reached(path[:-1]) if path else None
            if not isinstance(parent, dict) or path[-1] not in parent:
                raise PatchError(f"nothing to delete at {path}")
            del parent[path[-1]]
        elif kind == "a" or kind == "t":
            target = reached(path)
            if not isinstance(target, list):
                raise PatchError(f"no list at {path}")
            if kind == "a":
                target.extend(op[2])
            elif isinstance(op[2], int) and 0 <= op[2] <= len(target):
                del target[op[2] :]
            else:
                raise PatchError(f"no cut of {len(target)} items to {op[2]!r} at {path}")
        else:
            raise PatchError(f"unknown patch operation {kind!r}")
    return holder[0]


# Snapshots.


@dataclass(frozen=True)
class Kept:
    """What a snapshot keeps: the whole ``state`` (``patch`` None), or the ``patch`` of the
    previous snapshot's state (``state`` None); ``chain`` is the bytes of the patches since the
    last whole state, this one's included (0 for a whole state)."""

    state: Any = None
    patch: Patch | None = None
    chain: int = 0


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def keep(previous: Any, chain: int, state: Any) -> Kept:
    """How to keep ``state`` as a snapshot after one holding ``previous`` (None: there is none)
    whose chain of patches weighs ``chain`` bytes. The patch is kept only when it rebuilds
    ``state`` to the same JSON exactly and the chain stays lighter than the whole state (the
    whole states kept then cost at most as many bytes as the patches, which grow with the
    events). ``previous`` is changed (patched) by the check; pass a copy to keep it."""
    stored = json.loads(json.dumps(state))  # as the database gives it back
    if previous is None:
        return Kept(state=stored)
    whole = _compact(stored)
    ops = diff(previous, stored, smallest=True)
    size = len(_text(ops))
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


# Update frames.


def _indexed(data: Any, path: tuple[Any, ...], entries: list[tuple[str, Path] | None]) -> str:
    """The JSON text of ``data``, made from its parts' texts (each part said once, where saying
    every list and object of the event again inside its parent's text took three times as
    long); each list and object whose text, and each string whose own length, is at least
    SHARED_MIN_CHARS put in ``entries`` as (text, path), in the order a walk from the root
    meets them."""
    kind = type(data)
    if kind is str:
        text = _string(data)
        if len(data) >= SHARED_MIN_CHARS:
            entries.append((text, list(path)))
        return text
    if kind is int:
        return int.__repr__(data)
    if data is None or data is True or data is False:
        return _CONSTANTS[data]
    slot = len(entries)
    if isinstance(data, dict):
        entries.append(None)
        plain = kind is dict
        parts = []
        for key, value in data.items():
            inner = _indexed(value, (*path, key), entries)
            if plain and type(key) is str:
                parts.append(f"{_string(key)}:{inner}")
            else:
                plain = False
        text = "{" + ",".join(parts) + "}" if plain else _text(data)
    elif isinstance(data, list):
        entries.append(None)
        items = [_indexed(value, (*path, index), entries) for index, value in enumerate(data)]
        text = "[" + ",".join(items) + "]" if kind is list else _text(data)
    else:
        text = _text(data)
        if isinstance(data, str) and len(data) >= SHARED_MIN_CHARS:
            entries.append((text, list(path)))
        return text
    if len(text) >= SHARED_MIN_CHARS:
        entries[slot] = (text, list(path))
    return text


_CONSTANTS = {None: "null", True: "true", False: "false"}


def _shared_values(data: Any) -> dict[str, Path]:
    """The lists, objects and long strings inside the event by their JSON text (the first met
    of equal ones)."""
    entries: list[tuple[str, Path] | None] = []
    _indexed(data, (), entries)
    found: dict[str, Path] = {}
    for entry in entries:
        if entry is not None:
            found.setdefault(entry[0], entry[1])
    return found


def refer_to_event(ops: Patch, event: dict[str, Any] | None) -> Patch:
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
    shared = _shared_values(event)
    referred = list(ops)
    for index, text in texts.items():
        source = shared.get(text)
        if source is not None:
            referred[index] = ["e", ops[index][1], source]
    return referred


def as_sent(view: dict[str, Any], page_only: tuple[str, ...]) -> dict[str, Any]:
    """A viewer's view (match facts, viewer, the game's view) as clients get it: the game's
    view without its ``page_only`` parts (what only the page's templates draw)."""
    if not page_only or not view.get("game"):
        return view
    return {**view, "game": without(view["game"], page_only)}


def without(data: Any, paths: tuple[str, ...]) -> Any:
    """``data`` without the parts at ``paths`` (dotted keys, ``*`` for every item of a list or
    object): what the page draws from the view but a client never reads. ``data`` is not
    changed; the parts on the way to a removed one are copied (each once, however many paths
    go through it: a Seven Gem Swap view has 28)."""
    return _pruned(data, _tree(paths)) if paths else data


# A path's end: the part there is removed.
_REMOVED: dict[str, Any] = {}


@lru_cache(maxsize=64)
def _tree(paths: tuple[str, ...]) -> dict[str, Any]:
    """``paths`` as a tree of keys: each key's subtree, or _REMOVED at a path's end (a removed
    part's own paths are moot); ``*`` (a list's every item) ends in an empty tree."""
    tree: dict[str, Any] = {}
    for path in paths:
        node = tree
        *keys, last = path.split(".")
        for key in keys:
            node = node.setdefault(key, {})
            if node is _REMOVED:
                break
        else:
            if last == "*":
                node.setdefault("*", {})
            else:
                node[last] = _REMOVED
    return tree


def _pruned(data: Any, tree: dict[str, Any]) -> Any:
    if isinstance(data, list):
        inner = tree.get("*")
        if inner is None:
            return data
        return [_pruned(item, inner) if inner else item for item in data]
    if not isinstance(data, dict) or not any(key in data for key in tree if key != "*"):
        return data
    pruned = {}
    for key, value in data.items():
        inner = tree.get(key) if key != "*" else None
        if inner is None:
            pruned[key] = value
        elif inner is not _REMOVED:
            pruned[key] = _pruned(value, inner)
    return pruned
