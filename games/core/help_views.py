"""Help for players: each game's rules page, with example boards made by the game's engine."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import select_template

from games.core.gamedef import GameDefinition
from games.core.registry import UnknownGame, get_game, listed_games


def _listed_game(game_key: str) -> GameDefinition:
    try:
        game = get_game(game_key)
    except UnknownGame:
        raise Http404(f"unknown game {game_key!r}") from None
    if not game.listed:
        raise Http404(f"unknown game {game_key!r}")
    return game


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
