"""The games the shared checks (contract, fuzz, host fuzz, frames, rebuilding) run on, read from
the registry: a game is in every one of them by being registered, never by a list kept by hand.

The real games are the listed ones; the fixture games of tests/fixture_game.py are not listed,
and each check says whether one of them belongs (the contract checks Count to Ten on purpose).
What a check needs of a game comes from the game's own declarations: its seats (``min_seats``:
the fewest, the cheapest), its bots (``bot_levels``) and its settings table (``long_clocks``).
"""

from __future__ import annotations

from typing import Any

from games.core.game.contract import Setting
from games.core.game.gamedef import FlowGame, GameDefinition
from games.core.game.registry import all_games, get_game

# A clock setting is a whole number of seconds or minutes, by the name the settings table gives
# it (``round_seconds``, ``minutes``, ``idle_minutes``).
CLOCK_UNITS = {"seconds": 1, "minutes": 60}
LONG_SECONDS = 24 * 3600  # a day: no check runs that long on its fake or real clock


def real_games() -> list[str]:
    """Every registered game a player can choose (fixtures are never listed), by key."""
    return sorted(game.key for game in all_games() if game.listed)


def flow_games() -> list[str]:
    """Every registered game declared as a flow (the contract's shape): the real games and the
    fixture written in that shape, Count to Ten (tests/fixture_flow.py), by key."""
    return sorted(game.key for game in all_games() if isinstance(game, FlowGame))


def clock_unit(setting: Setting) -> int | None:
    """The seconds in one unit of ``setting`` when it sets a clock, else None."""
    if setting.kind != "int":
        return None
    for unit, seconds in CLOCK_UNITS.items():
        if setting.name == unit or setting.name.endswith(f"_{unit}"):
            return seconds
    return None


def long_clocks(game: GameDefinition | str) -> dict[str, Any]:
    """Settings of ``game`` under which no clock runs out while a check plays: every clock
    setting at a day, or as near to it as its bounds allow."""
    if isinstance(game, str):
        game = get_game(game)
    settings: dict[str, Any] = {}
    for setting in game.setting_table():
        unit = clock_unit(setting)
        if unit is None:
            continue
        value = LONG_SECONDS // unit
        if setting.high is not None:
            value = min(value, setting.high)
        if setting.low is not None:
            value = max(value, setting.low)
        settings[setting.name] = value
    return settings


def bot_seats(game: GameDefinition | str, seats: int | None = None) -> tuple[str, ...]:
    """A bot level for each of ``seats`` seats (the game's fewest by default), its levels in
    turn, so that a game of two or more levels sets different bots against each other."""
    if isinstance(game, str):
        game = get_game(game)
    levels = game.bot_levels
    assert levels, f"{game.key} declares no bot"
    return tuple(levels[index % len(levels)] for index in range(seats or game.min_seats))


def seat_roles(game: GameDefinition | str, seats: int) -> list[str]:
    """The roles of ``seats`` seats, the game's own first (a game without roles: none)."""
    if isinstance(game, str):
        game = get_game(game)
    return [*game.roles, *[""] * seats][:seats]
