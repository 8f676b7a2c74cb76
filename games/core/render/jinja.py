"""The Jinja2 environment every panel is drawn in (settings.TEMPLATES' "jinja2" engine).

A panel is drawn for every audience after every event, so panels are Jinja2 templates
(``games/<app>/jinja2/``): compiled to Python once, autoescaped. Page shells stay Django
templates (DEVELOPERS.md, "Templates"). The environment reads a view as Django's templates
did, so that a panel says the same thing whichever language drew it:

- a missing value shows as nothing, and so does anything looked up on it
  (``ChainableUndefined``); ``is none`` is true of it, as Django's ``{% if x is None %}``;
- a value is escaped as Django escapes it (``'`` as ``&#x27;``, ``html.escape``);
- Django's filters the panels use (``add``, ``pluralize``, ``join``, ``default_if_none``,
  ``stringformat``, ``dictsort``...) are Django's own, a missing value given to them as "".

``{% panel %}...{% endpanel %}`` marks one swappable panel and ``{% memo %}...{% endmemo %}``
a part of one drawn once for the same inputs (games/core/render/panelmemo.py).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from django.template import defaultfilters
from django.urls import reverse
from jinja2 import ChainableUndefined, Environment, Undefined, nodes
from jinja2.ext import Extension
from jinja2.parser import Parser
from markupsafe import Markup

from games.core.game.words import counted
from games.core.render import panelmemo


def _finalize(value: Any) -> Any:
    """``{{ value }}`` as Django showed it. The environment's own escape (markupsafe's, in C)
    escapes what this returns as Django would, but for quotes: markupsafe writes ``'`` and
    ``"`` as ``&#39;`` and ``&#34;``, Django (``html.escape``) as ``&#x27;`` and ``&quot;``. A
    text holding one is escaped here, by ``html.escape``."""
    kind = type(value)
    if kind is str:
        return Markup(html.escape(value)) if "'" in value or '"' in value else value
    if kind is int or value is None or hasattr(value, "__html__") or isinstance(value, Undefined):
        return value
    text = str(value)  # a float, a list, a choice of a model...
    return Markup(html.escape(text)) if "'" in text or '"' in text else text


def _django(function: Callable[..., Any]) -> Callable[..., Any]:
    """A Django filter as a Jinja2 one: a missing value reaches it as "", as in Django."""

    def applied(value: Any, *args: Any) -> Any:
        if isinstance(value, Undefined):
            value = ""
        return function(value, *args)

    applied.__name__ = function.__name__
    return applied


def _is_none(value: Any) -> bool:
    """``is none``: true of None and of a missing value, as Django's ``is None`` read it."""
    return value is None or isinstance(value, Undefined)


def _url(name: str, *args: Any) -> str:
    """Django's ``{% url name arg... %}``."""
    return reverse(name, args=args)


def _join(value: Any, separator: str) -> Any:
    """Django's ``join``: each item escaped (as Django escapes), joined by the escaped
    separator; a value that cannot be joined as it is."""
    try:
        items = [_escaped(item) for item in value]
    except TypeError:
        return value
    return Markup(_escaped(separator).join(items))


def _escaped(value: Any) -> str:
    return value.__html__() if hasattr(value, "__html__") else html.escape(str(value))


class PanelEnvironment(Environment):
    """Jinja2's environment, reading ``a.b`` of a dict as its key first, as Django does (and
    without the exception Jinja2's own attribute-first lookup raises for each key of a view)."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                # Missing, and no method of a dict (``items``): what Jinja2's lookup gives after
                # two more exceptions.
                if attribute not in _DICT_ATTRIBUTES:
                    return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


_DICT_ATTRIBUTES = frozenset(dir(dict))


class PanelExtension(Extension):
    """``{% panel %}`` and ``{% memo [values] %}``: a block drawn once for the same inputs (its
    inputs listed from the block when the template is compiled: panelmemo.inputs_of). A panel
    also hands its HTML to the core by the id of its first element."""

    tags = {"panel", "memo"}

    def parse(self, parser: Parser) -> nodes.Node:
        tag = next(parser.stream)
        values: list[nodes.Expr] = []
        while parser.stream.current.type != "block_end":
            values.append(parser.parse_expression())
            parser.stream.skip_if("comma")
        body = parser.parse_statements((f"name:end{tag.value}",), drop_needle=True)
        inputs = panelmemo.listed_inputs(body, values)
        listed = nodes.Const(None) if inputs is None else nodes.List(inputs)
        number = nodes.Const(panelmemo.drawing_number())
        if tag.value == "panel":
            call = self.call_method(
                "_panel", [nodes.Name(PANEL_SINK, "load"), number, listed], lineno=tag.lineno
            )
        else:
            call = self.call_method("_memo", [number, listed], lineno=tag.lineno)
        return nodes.CallBlock(call, [], [], body).set_lineno(tag.lineno)

    # What a block's tag gives is written out as it is (a call block's output is never escaped):
    # its HTML, drawn by the block's own autoescaped template, goes out as the plain text kept,
    # not copied into a Markup first (a frame's every panel and part, for every audience).

    def _memo(self, number: int, values: list[Any] | None, caller: Callable[[], str]) -> str:
        return panelmemo.drawn(number, values, caller)

    def _panel(
        self, sink: Any, number: int, values: list[Any] | None, caller: Callable[[], str]
    ) -> str:
        html_text = panelmemo.drawn(number, values, caller).strip()
        if isinstance(sink, list) and html_text:
            sink.append((panelmemo.panel_id(html_text), html_text))
        return html_text


# The list a frame's panels are handed to, in the context of core/_panels.html.
PANEL_SINK = "_arena_panels"


def environment(**options: Any) -> Environment:
    """The panels' environment (settings.TEMPLATES names it): autoescaped, templates compiled
    once and kept (no file is looked at again while the process runs, as Django's cached
    loader). ``globals``: more functions the templates may call, by name and import path."""
    from django.utils.module_loading import import_string

    from games.core.render import fairplay
    from games.core.templatetags import arena

    own_globals = options.pop("globals", {})
    options.update(
        autoescape=True,
        undefined=ChainableUndefined,
        finalize=_finalize,
        auto_reload=False,
        cache_size=-1,
        extensions=[PanelExtension],
        keep_trailing_newline=True,
    )
    env = PanelEnvironment(**options)
    env.filters.update(
        {
            name: _django(getattr(defaultfilters, name))
            for name in (
                "add",
                "pluralize",
                "default",
                "default_if_none",
                "stringformat",
                "dictsort",
                "length",
            )
        }
    )
    env.filters["join"] = _django(_join)  # Django's, without its check for lazy text
    env.filters["role"] = _django(arena.role)
    env.filters["left_at"] = arena.left_at
    env.filters["counted"] = counted
    env.tests["none"] = _is_none
    env.globals.update(
        url=_url,
        grid_table=arena.grid_table,
        host_console=arena.host_console,
        host_console_drawn=arena.host_console_drawn,
        host_notice=arena.host_notice,
        fairness_panel=fairplay.fairness_panel,
    )
    # A game's own (settings.TEMPLATES names them, as Django's "libraries"): the core imports
    # no game.
    env.globals.update({name: import_string(path) for name, path in own_globals.items()})
    return env
