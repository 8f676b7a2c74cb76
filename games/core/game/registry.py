"""The games the site knows, by key."""

from __future__ import annotations

import importlib
import os

from games.core.game.gamedef import GameDefinition

_GAMES: dict[str, GameDefinition] = {}


class UnknownGame(LookupError):
    pass


def register(game: GameDefinition) -> GameDefinition:
    _GAMES[game.key] = game
    return game


def load_games() -> None:
    """Import the ``game`` module of every installed app that has one (each registers itself):
    INSTALLED_APPS is the one list of games. GEM_EXTRA_GAMES adds test fixtures."""
    from django.apps import apps

    modules = [f"{config.name}.game" for config in apps.get_app_configs()]
    extra = [m for m in os.environ.get("GEM_EXTRA_GAMES", "").split(",") if m]
    for module in (*modules, *extra):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as error:
            if error.name != module:
                raise


def get_game(key: str) -> GameDefinition:
    try:
        return _GAMES[key]
    except KeyError:
        raise UnknownGame(f"unknown game {key!r}") from None


def listed_games() -> list[GameDefinition]:
    return sorted((g for g in _GAMES.values() if g.listed), key=lambda g: g.title)


def all_games() -> list[GameDefinition]:
    return list(_GAMES.values())
