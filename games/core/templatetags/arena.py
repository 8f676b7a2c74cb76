"""Template tags and filters shared by every game's pages; the panels' Jinja2 environment
(games/core/render/jinja.py) has the ones they use as its globals and filters."""

from __future__ import annotations

import html
import json
import re
from functools import lru_cache
from typing import Any

from django import template
from django.template import engines
from django.template.context import Context
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from markupsafe import Markup

from games.core.game.words import ROLE_NAMES
from games.core.render import jsondiff

register = template.Library()


@lru_cache(maxsize=128)
def _grid_html(grid_json: str) -> str:
    return grid_html(with_coordinates(grid_cells(json.loads(grid_json))))


def grid_html(grid: dict) -> str:
    """A clickable game grid (``grid`` as with_coordinates makes it), drawn by the Jinja2
    template core/_grid_table.html (the panels' environment, games/core/render/jinja.py)."""
    return _grid_template().render(grid=grid)


@lru_cache(maxsize=1)
def _grid_template() -> Any:
    return engines["jinja2"].env.get_template("core/_grid_table.html")


_CELL_NAME = re.compile(r"([A-Za-z]+)(\d+)")


def with_coordinates(grid: dict) -> dict:
    """A grid with the coordinates drawn round it, read from its cells' names: ``letters`` of
    the first row's columns and ``lines``, each row with its ``number`` (A-H and 1-8 top down
    for the gem games, a-h and 8-1 for Pointsweeper's ranks)."""

    def part(cell: dict, group: int) -> str:
        name = _CELL_NAME.fullmatch(cell["cell"])
        return name.group(group) if name else ""

    rows = grid["rows"]
    letters = [part(cell, 1) for cell in rows[0]] if rows else []
    lines = [{"number": part(row[0], 2) if row else "", "cells": row} for row in rows]
    return {**grid, "letters": letters, "lines": lines}


def grid_cells(grid: dict) -> dict:
    """A grid as the rows of cells grid_html draws. A grid may come as its
    ``board`` text (rows top to bottom, one character a cell), its ``columns`` letters (rows
    numbered from 1), ``looks`` (each character's ``css``, ``text`` and ``name``: a cell reads
    "C4, red gem") and ``marks`` (a cell's extra css classes): a view carries a big grid small,
    and a page's script draws any other board with the same looks."""
    if "rows" in grid:
        return grid
    looks, marks = grid["looks"], grid.get("marks", {})
    rows = []
    for number, line in enumerate(grid["board"].splitlines(), start=1):
        row = []
        for column, content in zip(grid["columns"], line, strict=True):
            cell = f"{column}{number}"
            look = looks[content]
            label = f"{cell}, {look['name']}"
            row.append({**look, "cell": cell, "label": label, "marks": marks.get(cell, "")})
        rows.append(row)
    return {**grid, "rows": rows}


@register.simple_tag
def grid_table(grid: dict) -> SafeString:
    """A game grid (grid_html). The same grid is drawn for every audience that sees
    it alike, so its HTML is remembered by content: a pure function of the grid, not state."""
    if not grid:
        return mark_safe("")
    return mark_safe(_grid_html(json.dumps(grid, sort_keys=True, separators=(",", ":"))))


@register.simple_tag
def host_console(match: Any) -> dict[str, Any]:
    """What the host console offers for ``match`` now (games.core.host.console.for_match), as
    plain data: the match by the one thing the console reads of it, its public id, so that
    the host's panel is drawn once for the same offer (panelmemo), not on every event."""
    from games.core.host import console
    from games.core.match import clock

    offer = console.for_match(match, clock.now())
    return {**offer, "match": {"public_id": match.public_id}}


def host_console_drawn(console: dict[str, Any]) -> Markup:
    """The host console of the match page's host panel: core/_host_console.html drawn from
    ``console`` alone (it reads nothing else of the panels' context), so that the panel's
    inputs can be listed and its drawing kept."""
    return Markup(_host_console_template().render(console=console))


@lru_cache(maxsize=1)
def _host_console_template() -> Any:
    return engines["jinja2"].env.get_template("core/_host_console.html")


@register.simple_tag(takes_context=True)
def host_console_html(context: Context, console: dict[str, Any], next_url: str) -> SafeString:
    """The host console (the Jinja2 template the match page's host panel draws) in a Django
    page: the dashboard's, whose forms post plainly with the request's CSRF token and come
    back to ``next_url``."""
    template = engines["jinja2"].get_template("core/_host_console.html")
    html = template.render({"console": console, "next": next_url}, request=context.get("request"))
    return mark_safe(html)  # drawn by our own autoescaped template


@register.filter
def as_sent(view: dict, match: Any) -> dict:
    """The view as frames send it (games/core/render/rendering.sent_view): the page's JSON view."""
    return jsondiff.as_sent(view, match.game.page_only)


@register.filter
def left_at(due: str | None, at: str | None) -> str:
    """The time a clock due at ``due`` had left at ``at`` (both ISO times), as "0:11"."""
    from datetime import datetime

    from games.core.game.words import clock_left

    if not due or not at:
        return ""
    span = datetime.fromisoformat(due) - datetime.fromisoformat(at)
    return clock_left(int(span.total_seconds()))


@register.simple_tag
def host_notice(match: Any) -> str:
    """The latest host operation of ``match`` in the words players read ("The host gave the
    round clock 1 minute more (2:22 left): Bob's connection dropped."), or "". Read once per
    version of the match, however many audiences its frame is drawn for."""
    from games.core.host.audit import latest_host_words

    cached = getattr(match, "_host_notice", None)
    if cached is None or cached[0] != match.version:
        cached = (match.version, latest_host_words(match))
        match._host_notice = cached
    return cached[1]


@register.filter
def seats_user(match: Any, user: Any) -> bool:
    """Whether ``user`` holds a seat of ``match`` (its seats prefetched): their own unfinished
    game is offered as "Resume", anyone else's as "Watch"."""
    if not getattr(user, "is_authenticated", False):
        return False
    return any(seat.user_id == user.pk for seat in match.seats.all())


@register.filter
def role(short: str) -> str:
    """A seat's role as the page shows it: EC and DMO with their full names on hover and for
    screen readers (``<abbr>``), any other role as it is."""
    full = ROLE_NAMES.get(str(short))
    if full is None:
        return conditional_escape(short)
    return mark_safe(f'<abbr title="{html.escape(full)}">{html.escape(str(short))}</abbr>')
