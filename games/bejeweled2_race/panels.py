"""What the race's panels (jinja2/bejeweled2_race/_panels.html) work out rather than read: a
seat's small board as its gems' looks and the words a screen reader says of it, the same for
every audience and every frame that shows the same board (remembered by rows). A global of the
panels' Jinja2 environment (settings.TEMPLATES)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from games.bejeweled2 import engine
from games.bejeweled2.page import piece_css, piece_label


@lru_cache(maxsize=1024)
def _mini(rows: tuple[str, ...], name: str) -> dict[str, Any]:
    cells = []
    counts: dict[str, int] = {}
    for line in rows:
        for piece in line:
            cells.append((piece_css(piece), piece if piece in engine.BOMBS else ""))
            if piece in engine.POWER_GEMS or piece in (engine.HYPERCUBE, engine.ROCK):
                label = piece_label(piece)
                counts[label] = counts.get(label, 0) + 1
            elif piece in engine.BOMBS:
                counts["bomb"] = counts.get("bomb", 0) + 1
    specials = ", ".join(f"{n} {what}{'s' if n > 1 else ''}" for what, n in counts.items())
    label = f"{name}'s board" + (f", with {specials}" if specials else "")
    return {"label": label, "rows": "/".join(rows), "cells": tuple(cells)}


def mini_board(rows: list[str], name: str) -> dict[str, Any]:
    """A seat's board, small (64 gems, no coordinates, no controls): ``cells`` (each gem's css
    class and text, row by row), ``label`` ("Ada's board, with 1 bomb") and ``rows``."""
    return _mini(tuple(rows), str(name))
