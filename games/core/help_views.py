"""Help for players: each game's rules page, with example boards made by the game's engine."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import select_template

from games.core.game.gamedef import GameDefinition
from games.core.game.registry import UnknownGame, get_game, listed_games


def _listed_game(game_key: str) -> GameDefinition:
    try:
        game = get_game(game_key)
    except UnknownGame:
        raise Http404(f"unknown game {game_key!r}") from None
    if not game.listed:
        raise Http404(f"unknown game {game_key!r}")
    return game


GEMS = (
    ("red", "square"),
    ("orange", "hexagon, points top and bottom"),
    ("yellow", "square turned 45 degrees"),
    ("green", "rounded square"),
    ("blue", "kite, point down"),
    ("purple", "triangle, point up (Seven Gem Swap's violet)"),
    ("white", "round"),
    ("indigo", "pentagon (Seven Gem Swap's indigo, Glittering Paths' lapis)"),
    ("garnet", "octagon (Glittering Paths' garnet)"),
    ("aqua", "drop (Glittering Paths' aquamarine)"),
)
"""The site's gem set (static/css/gems.css): each colour's css name and its shape in words."""
SPECIALS = (
    ("power", "Power gem: a ring and a four-pointed star over a halo (every colour)"),
    ("hypercube", "Hypercube: a rainbow ring round a dark crackling core"),
    ("rock", "Rock: a grey cracked stone"),
    ("bomb", "Bomb: a black ball with a lit fuse and its count"),
    ("locked", "Locked cell: barred"),
)
CELL_SIZES = (30, 44, 64)


def gem_gallery(request: HttpRequest) -> HttpResponse:
    """Every gem and special of the site's gem set, at the sizes boards draw them, for review."""
    context = {"gems": GEMS, "specials": SPECIALS, "sizes": CELL_SIZES}
    return render(request, "core/gems.html", context)


def rules_index(request: HttpRequest) -> HttpResponse:
    return render(request, "core/rules_index.html", {"games": listed_games()})


def rules(request: HttpRequest, game_key: str) -> HttpResponse:
    """The rules written for players (templates/core/rules/<key>.html), the page's controls and
    small example boards (``GameDefinition.rules_examples``)."""
    game = _listed_game(game_key)
    text = select_template([f"core/rules/{game.key}.html", "core/rules/_summary.html"])
    context = {
        "game": game,
        "rules_text": text.template.name,
        "examples": game.rules_examples(),
        "controls": game.controls_help,
        "games": listed_games(),
    }
    return render(request, "core/rules.html", context)
