"""The two players of a Glittering Paths match: seat 0 plays red (ruby, garnet, jasper), seat 1
blue (sapphire, lapis, aquamarine), and a seat as the words name it (pure, like the flow)."""

from __future__ import annotations

from games.core.game.gamedef import State
from games.glittering_paths import engine

COLOURS = (engine.RED, engine.BLUE)  # seat 0 red, seat 1 blue


def _name(state: State, seat: int | None) -> str:
    return state["seats"][seat]["name"] if seat is not None else ""


def seat_colour(seat: int) -> str:
    return COLOURS[seat]


def seat_named(state: State, seat: int) -> str:
    """``"Alice (red)"``."""
    return f"{_name(state, seat)} ({seat_colour(seat)})"
