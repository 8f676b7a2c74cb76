"""Panels remembered by what they read: a panel is drawn once for every audience and version
that gives it the same inputs.

A panel's template is read once to list every template variable it reads (``gv.score``,
``view.viewer.seat``, ``oob``...), following ``{% if %}``, ``{% for %}``, ``{% with %}``,
``{% include "literal" %}`` and the project's own tags. When the panel is drawn, those variables'
values (plain data) are its key: the same values give the same HTML, so a drawing kept under
that key is reused. A panel whose inputs cannot all be listed (an unknown tag, an include by
variable, a tag given the context) or whose values are not plain data (a model, a queryset) is
drawn every time. The key holds the values themselves, read from the viewer's own context, so a
remembered panel is exactly what a fresh drawing for that viewer would be: nothing of another
viewer's can come back from it.

With the ``PANEL_MEMO_CHECK`` setting (the tests) every reuse is drawn again and compared.
"""

from __future__ import annotations

import itertools
import json
import marshal
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.template import Node, NodeList
from django.template.base import FilterExpression, TextNode, Variable, VariableDoesNotExist
from django.template.defaulttags import (
    AutoEscapeControlNode,
    CommentNode,
    CsrfTokenNode,
    FilterNode,
    FirstOfNode,
    ForNode,
    IfNode,
    LoadNode,
    SpacelessNode,
    URLNode,
    WithNode,
)
from django.template.library import InclusionNode, SimpleNode
from django.template.loader import get_template
from django.template.loader_tags import IncludeNode
from django.templatetags.static import StaticNode
from django.utils.safestring import SafeData

from games.core.lru import Lru


class Unlisted(Exception):
    """A template part whose inputs cannot be listed: its panel is drawn every time."""


def inputs_of(nodelist: Iterable[Node], bound: frozenset[str] = frozenset()) -> set[str]:
    """Every variable path ``nodelist`` reads from the context it is drawn in, except names it
    binds itself (a loop's variables, a ``with``). Raises Unlisted when that cannot be told."""
    found: set[str] = set()
    names = set(bound)
    for node in nodelist:
        found |= _node_inputs(node, frozenset(names))
        names |= _binds(node)
    return found


def _binds(node: Node) -> set[str]:
    """Names a node sets for the nodes after it (``{% url ... as x %}``, a simple tag's ``as``)."""
    name = getattr(node, "target_var", None) or getattr(node, "asvar", None)
    if isinstance(node, StaticNode):
        name = node.varname
    return {name} if name else set()


def _node_inputs(node: Node, bound: frozenset[str]) -> set[str]:
    if isinstance(node, TextNode | CommentNode | LoadNode):
        return set()
    if hasattr(node, "filter_expression") and type(node).__name__ == "VariableNode":
        return _expression(node.filter_expression, bound)
    if isinstance(node, IfNode):
        found: set[str] = set()
        for condition, nodelist in node.conditions_nodelists:
            if condition is not None:
                found |= _condition(condition, bound)
            found |= inputs_of(nodelist, bound)
        return found
    if isinstance(node, ForNode):
        found = _expression(node.sequence, bound)
        found |= inputs_of(node.nodelist_loop, bound | set(node.loopvars) | {"forloop"})
        return found | inputs_of(node.nodelist_empty, bound)
    if isinstance(node, WithNode):
        found = set().union(*(_expression(e, bound) for e in node.extra_context.values()))
        return found | inputs_of(node.nodelist, bound | set(node.extra_context))
    if isinstance(node, IncludeNode):
        name = getattr(node.template, "var", None)
        if not isinstance(name, str):
            raise Unlisted("an include by variable")
        found = set().union(*(_expression(e, bound) for e in node.extra_context.values()))
        if node.isolated_context:
            return found  # it reads only what it is given
        nodelist = get_template(name).template.nodelist
        return found | inputs_of(nodelist, bound | set(node.extra_context))
    if isinstance(node, SimpleNode | InclusionNode):
        if node.takes_context:
            raise Unlisted("a tag given the context")
        return _arguments(node.args, node.kwargs, bound)
    if isinstance(node, URLNode):
        return _arguments([node.view_name, *node.args], node.kwargs, bound)
    if isinstance(node, StaticNode):
        return _expression(node.path, bound)
    if isinstance(node, CsrfTokenNode):
        return {"csrf_token"}
    if isinstance(node, FirstOfNode):
        return set().union(*(_expression(e, bound) for e in node.vars))
    if isinstance(node, FilterNode):
        return _expression(node.filter_expr, bound) | inputs_of(node.nodelist, bound)
    if isinstance(node, SpacelessNode | AutoEscapeControlNode):
        return inputs_of(node.nodelist, bound)
    if isinstance(node, Remembered):  # a panel, a {% memo %}
        found = set().union(*(_expression(e, bound) for e in node.values))
        return found | inputs_of(node.nodelist, bound)
    raise Unlisted(f"a {type(node).__name__}")


def _arguments(args: Iterable[Any], kwargs: dict[str, Any], bound: frozenset[str]) -> set[str]:
    found: set[str] = set()
    for argument in [*args, *kwargs.values()]:
        found |= _expression(argument, bound)
    return found


def _variable(variable: Any, bound: frozenset[str]) -> set[str]:
    if not isinstance(variable, Variable) or variable.lookups is None:
        return set()  # a literal
    if variable.lookups[0] in bound:
        return set()  # drawn from a value already listed
    return {variable.var}


def _expression(expression: Any, bound: frozenset[str]) -> set[str]:
    if not isinstance(expression, FilterExpression):
        return _variable(expression, bound)
    found = _variable(expression.var, bound)
    for _function, arguments in expression.filters:
        for lookup, argument in arguments:
            if lookup:
                found |= _variable(argument, bound)
    return found


def _condition(condition: Any, bound: frozenset[str]) -> set[str]:
    """An ``{% if %}`` condition: literals (``.value``) and operators (``.first``, ``.second``)."""
    value = getattr(condition, "value", None)
    if isinstance(value, FilterExpression):
        return _expression(value, bound)
    found: set[str] = set()
    for part in (getattr(condition, "first", None), getattr(condition, "second", None)):
        if part is not None:
            found |= _condition(part, bound)
    return found


_MISSING = {"__missing__": True}
_DICT_VIEWS = (type({}.items()), type({}.keys()), type({}.values()))


def key_of(owner: int, inputs: tuple[Variable, ...], context: Any) -> bytes | None:
    """The key of a panel drawn in ``context``: its inputs' values, serialised by ``marshal``
    (five times quicker than JSON for a board's grid; equal keys are equal values), or as JSON
    where marshal refuses a string of a subclass; None when one of them is not plain data."""
    values: list[Any] = [owner]
    for variable in inputs:
        try:
            value = _resolved(variable, context)
        except VariableDoesNotExist:
            value = _MISSING
        if isinstance(value, SafeData):
            value = {"__safe__": _plain(value)}
        elif isinstance(value, str) and type(value) is not str:
            value = _plain(value)  # a choice (Match.Status.LIVE), a lazy text (csrf_token)
        elif isinstance(value, _DICT_VIEWS):
            value = list(value)  # {% for k, v in d.items %}
        elif isinstance(value, set | frozenset):
            value = {"__set__": sorted(value, key=repr)}
        values.append(value)
    try:
        return marshal.dumps(values)
    except ValueError:  # a str subclass deeper in (a choice in a dict): as JSON, set apart
        pass
    try:
        return b"\0json" + json.dumps(values, separators=(",", ":"), default=_refuse).encode()
    except (TypeError, ValueError):  # a model, a queryset: not plain data
        return None


def _resolved(variable: Variable, context: Any) -> Any:
    """``variable.resolve(context)``, quicker for what a panel mostly reads: a path of keys
    through plain dicts. Django tries a key first too (``_resolve_lookup``); anything else (an
    attribute, an index, a callable, a literal, a missing key) is left to Django."""
    lookups = variable.lookups
    if lookups is None or variable.translate:
        return variable.resolve(context)
    try:
        current = context[lookups[0]]
        for bit in lookups[1:]:
            if type(current) is not dict:
                return variable.resolve(context)
            current = current[bit]
    except KeyError:
        return variable.resolve(context)
    if callable(current):
        return variable.resolve(context)
    return current


def _plain(text: Any) -> str:
    """``text`` as a plain str, which marshal takes: str() of a SafeString is itself, and of a
    lazy text its value; joining makes a str of either."""
    return "".join([str(text)])


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not plain data")


# The panels drawn lately, by key (each worker its own): at most 2,048 of them, 4 million
# characters in all.
DRAWINGS: Lru[bytes, str] = Lru(2048, weigh=len, budget=4_000_000)


def listed_inputs(
    nodelist: NodeList, values: Iterable[FilterExpression] = ()
) -> tuple[Variable, ...] | None:
    """The inputs of a block (and of ``values``), in a fixed order; None when they cannot be
    listed."""
    try:
        paths = inputs_of(nodelist).union(*(_expression(v, frozenset()) for v in values))
    except Unlisted:
        return None
    return tuple(Variable(path) for path in sorted(paths))


_drawing_numbers = itertools.count()


class Remembered(Node):
    """A block drawn once for the same inputs (games/core/panelmemo.py lists them)."""

    def __init__(self, nodelist: NodeList, values: Iterable[FilterExpression] = ()) -> None:
        self.nodelist = nodelist
        self.values = list(values)
        self.inputs: tuple[Variable, ...] | None = ()  # listed on first use
        self.listed = False
        self.number = next(_drawing_numbers)  # its drawings' keys: unique, unlike id()

    def _drawn(self, context: Any) -> str:
        """The block's HTML: a drawing kept for the same inputs, or a fresh one."""
        if not self.listed:
            self.inputs = listed_inputs(self.nodelist, self.values)
            self.listed = True
        key = None if self.inputs is None else key_of(self.number, self.inputs, context)
        kept = None if key is None else DRAWINGS.get(key)
        if kept is not None and not settings.PANEL_MEMO_CHECK:
            return kept
        html = self.nodelist.render(context)
        if kept is not None and kept != html:
            raise AssertionError(f"a block kept for {self.inputs} differs from a fresh drawing")
        if key is not None:
            DRAWINGS.put(key, html)
        return html
