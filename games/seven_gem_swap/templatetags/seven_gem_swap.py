"""The grid of a Seven Gem Swap view, built while the panel renders: it is derived from the view's
board text, so it never travels in the view data a frame carries."""

from __future__ import annotations

from typing import Any

from django import template

from games.seven_gem_swap.game import host_rows, main_grid, players, round_lines

register = template.Library()


@register.filter
def sgs_grid(game_view: dict[str, Any]) -> dict[str, Any]:
    """``{% with grid=gv|sgs_grid %}``: the grid for templates/core/_grid.html."""
    return main_grid(game_view)


@register.filter
def sgs_lines(entry: dict[str, Any], game_view: dict[str, Any]) -> list[dict[str, Any]]:
    """``{% for line in round|sgs_lines:gv %}``: each player's card and points in a round."""
    return round_lines(game_view, entry)


@register.filter
def sgs_players(game_view: dict[str, Any]) -> list[dict[str, Any]]:
    return players(game_view)


@register.filter
def sgs_host_rows(game_view: dict[str, Any]) -> list[dict[str, Any]]:
    return host_rows(game_view)
