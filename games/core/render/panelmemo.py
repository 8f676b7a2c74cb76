"""Panels remembered by what they read: a panel is drawn once for every audience and version
that gives it the same inputs.

When a panel's template (a Jinja2 template, games/core/render/jinja.py) is compiled, its block is
read to list every value it reads from outside itself (``gv.score``, ``view.viewer.seat``,
``oob``...): each longest path of names, attributes and constant keys, leaving out the names the
block binds itself (a loop's variables, a ``set``, a ``with``). The compiled panel evaluates
those paths where it stands and they are its key: the same values give the same HTML, so a
drawing kept under that key is reused. A block whose inputs cannot all be listed (an include,
a macro defined in it) or whose values are not plain data (a model, a queryset) is drawn every
time. The key holds the values themselves, read from the viewer's own context, so a remembered
panel is exactly what a fresh drawing for that viewer would be: nothing of another viewer's can
come back from it.

With the ``PANEL_MEMO_CHECK`` setting (the tests) every reuse is drawn again and compared.
"""

from __future__ import annotations

import itertools
import json
import marshal
import re
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.safestring import SafeData
from jinja2 import Undefined, nodes

from games.core.render.lru import Lru


class Unlisted(Exception):
    """A template part whose inputs cannot be listed: its panel is drawn every time."""


Path = tuple[str | int, ...]

# Statements whose inputs cannot be listed from the block itself.
_REFUSED = (
    nodes.Include,
    nodes.Import,
    nodes.FromImport,
    nodes.Macro,
    nodes.Extends,
    nodes.Block,
    nodes.ContextReference,
    nodes.DerivedContextReference,
    nodes.EvalContextModifier,
    nodes.ScopedEvalContextModifier,
)


def _path(node: nodes.Node) -> Path | None:
    """``node`` as a path (``gv.bar.points`` -> ("gv", "bar", "points")), or None when it is
    not a plain chain of a name, attributes and constant keys."""
    parts: list[str | int] = []
    while True:
        if isinstance(node, nodes.Getattr):
            parts.append(node.attr)
            node = node.node
        elif isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const):
            if not isinstance(node.arg.value, str | int):
                return None
            parts.append(node.arg.value)
            node = node.node
        elif isinstance(node, nodes.Name):
            parts.append(node.name)
            return tuple(reversed(parts))
        else:
            return None


def _targets(target: nodes.Node) -> set[str]:
    """The names an assignment's or a loop's target binds."""
    names = [target, *target.find_all(nodes.Name)]
    return {n.name for n in names if isinstance(n, nodes.Name) and n.ctx in ("store", "param")}


def _expression(node: nodes.Node, bound: frozenset[str], found: set[Path]) -> None:
    path = _path(node)
    if path is not None:
        if path[0] not in bound:
            found.add(path)
        return
    if isinstance(node, _REFUSED):
        raise Unlisted(f"a {type(node).__name__}")
    if isinstance(node, nodes.Call):
        callee = node.node
        if isinstance(callee, nodes.Getattr):  # a method: what it is called on
            _expression(callee.node, bound, found)
        elif not isinstance(callee, nodes.Name | nodes.ExtensionAttribute):
            _expression(callee, bound, found)
        elif isinstance(callee, nodes.Name) and callee.name not in bound:
            found.add((callee.name,))  # a global function or a macro: itself
        for child in [*node.args, *node.kwargs, node.dyn_args, node.dyn_kwargs]:
            if child is not None:
                _expression(child, bound, found)
        return
    for part in node.iter_child_nodes():
        _node(part, bound, found)


def _node(node: nodes.Node, bound: frozenset[str], found: set[Path]) -> None:
    if isinstance(node, nodes.Expr):
        _expression(node, bound, found)
    elif isinstance(node, list):
        inputs_of(node, bound, found)
    else:
        inputs_of([node], bound, found)


def inputs_of(
    body: Iterable[nodes.Node], bound: frozenset[str] = frozenset(), found: set[Path] | None = None
) -> set[Path]:
    """Every path ``body`` reads from outside itself, except names it binds itself (a loop's
    variables, a ``set``, a ``with``). Raises Unlisted when that cannot be told."""
    found = set() if found is None else found
    names = set(bound)
    for node in body:
        if isinstance(node, _REFUSED):
            raise Unlisted(f"a {type(node).__name__}")
        if isinstance(node, nodes.For):
            _expression(node.iter, frozenset(names), found)
            inner = frozenset(names | _targets(node.target) | {"loop"})
            if node.test is not None:
                _expression(node.test, inner, found)
            inputs_of(node.body, inner, found)
            inputs_of(node.else_, frozenset(names), found)
        elif isinstance(node, nodes.Assign):
            _expression(node.node, frozenset(names), found)
            names |= _targets(node.target)
        elif isinstance(node, nodes.AssignBlock):
            inputs_of(node.body, frozenset(names), found)
            names |= _targets(node.target)
        elif isinstance(node, nodes.With):
            for value in node.values:
                _expression(value, frozenset(names), found)
            inner = frozenset(names.union(*(_targets(t) for t in node.targets)))
            inputs_of(node.body, inner, found)
        elif isinstance(node, nodes.If):  # what it sets binds nothing after it (kept listed)
            _expression(node.test, frozenset(names), found)
            inputs_of(node.body, frozenset(names), found)
            inputs_of(node.elif_, frozenset(names), found)
            inputs_of(node.else_, frozenset(names), found)
        elif isinstance(node, nodes.CallBlock):  # a {% memo %} inside: its values and block
            if node.args or node.defaults:
                raise Unlisted("a call block with arguments")
            _expression(node.call, frozenset(names), found)
            inputs_of(node.body, frozenset(names | {"caller"}), found)
        elif isinstance(node, nodes.Expr):
            _expression(node, frozenset(names), found)
        else:
            for child in node.iter_child_nodes():
                _node(child, frozenset(names), found)
    return found


def _as_node(path: Path) -> nodes.Expr:
    node: nodes.Expr = nodes.Name(path[0], "load")
    for part in path[1:]:
        if isinstance(part, str):
            node = nodes.Getattr(node, part, "load")
        else:
            node = nodes.Getitem(node, nodes.Const(part), "load")
    return node


def listed_inputs(
    body: list[nodes.Node], values: Iterable[nodes.Expr] = ()
) -> list[nodes.Expr] | None:
    """The inputs of a block (and of ``values``) as expressions to evaluate where the block
    stands, in a fixed order, each path once (not one inside another listed); None when they
    cannot be listed."""
    try:
        paths = inputs_of(body)
        for value in values:
            _expression(value, frozenset(), paths)
    except Unlisted:
        return None
    kept: list[Path] = []
    for path in sorted(paths, key=lambda p: [str(part) for part in p]):
        if not any(path[: len(shorter)] == shorter for shorter in kept):
            kept.append(path)
    return [_as_node(path) for path in kept]


_MISSING = {"__missing__": True}
_DICT_VIEWS: tuple[type[Iterable[Any]], ...] = (
    type({}.items()),
    type({}.keys()),
    type({}.values()),
)

# The types of values a key takes as they are (exactly these, not a subclass: a choice is a str
# subclass, a safe string one with ``__html__``).
_PLAIN = frozenset({str, int, bool, float, type(None), list, tuple, dict})


def key_of(owner: int, values: Iterable[Any]) -> bytes | None:
    """The key of a block drawn with ``values`` (its inputs'): the values, serialised by
    ``marshal`` (five times quicker than JSON for a board's grid; equal keys are equal values),
    or as JSON where marshal refuses a string of a subclass; None when one of them is not plain
    data."""
    keyed: list[Any] = [owner]
    for value in values:
        if type(value) in _PLAIN:  # most of a block's inputs: as they are
            keyed.append(value)
            continue
        if isinstance(value, Undefined):
            value = _MISSING
        elif isinstance(value, SafeData) or hasattr(value, "__html__"):
            value = {"__safe__": _plain(value)}
        elif isinstance(value, str) and type(value) is not str:
            value = _plain(value)  # a choice (Match.Status.LIVE)
        elif isinstance(value, _DICT_VIEWS):
            value = list(value)
        elif isinstance(value, set | frozenset):
            value = {"__set__": sorted(value, key=repr)}
        elif callable(value) and not isinstance(value, type):
            # A global function or a macro: the same for the process's life.
            value = {"__callable__": getattr(value, "__qualname__", None) or repr(value)}
        keyed.append(value)
    try:
        return marshal.dumps(keyed)
    except ValueError:  # a str subclass deeper in (a choice in a dict): as JSON, set apart
        pass
    try:
        return b"\0json" + json.dumps(keyed, separators=(",", ":"), default=_refuse).encode()
    except (TypeError, ValueError):  # a model, a queryset: not plain data
        return None


def _plain(text: Any) -> str:
    """``text`` as a plain str, which marshal takes."""
    return "".join([str(text)])


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not plain data")


# The panels drawn lately, by key (each worker its own): at most 2,048 of them, 4 million
# characters in all.
DRAWINGS: Lru[bytes, str] = Lru(2048, weigh=len, budget=4_000_000)

_drawing_numbers = itertools.count()


def drawing_number() -> int:
    """A new block's number, the first part of its drawings' keys (unique, unlike id())."""
    return next(_drawing_numbers)


def drawn(number: int, values: list[Any] | None, draw: Callable[[], str]) -> str:
    """The block's HTML: a drawing kept for the same inputs, or a fresh one."""
    key = None if values is None else key_of(number, values)
    kept = None if key is None else DRAWINGS.get(key)
    if kept is not None and not _checking():
        return kept
    html = str(draw())
    if kept is not None and kept != html:
        raise AssertionError(f"a block kept for {values!r:.300} differs from a fresh drawing")
    if key is not None:
        DRAWINGS.put(key, html)
    return html


# The PANEL_MEMO_CHECK setting as last read (None: to read again), read once rather than for
# each block of each audience (each read of a setting goes through the settings' lazy object).
_check: list[bool | None] = [None]


def _checking() -> bool:
    checking = _check[0]
    if checking is None:
        checking = _check[0] = bool(settings.PANEL_MEMO_CHECK)
    return checking


@receiver(setting_changed)
def _read_again(setting: str, **kwargs: Any) -> None:
    """A test that changes PANEL_MEMO_CHECK (override_settings) is heard."""
    if setting == "PANEL_MEMO_CHECK":
        _check[0] = None


_FIRST_ID = re.compile(r'<[a-zA-Z][^>]*?\sid="([^"]+)"')


def panel_id(html: str) -> str:
    """The id of a panel's first element (every panel starts with one)."""
    found = _FIRST_ID.search(html)
    if found is None:
        raise ValueError("a {% panel %} must start with an element with an id")
    return found.group(1)
