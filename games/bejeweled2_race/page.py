"""What the Bejeweled 2 race's page draws from a view (``view.view``'s answer, never the state):
a seat's own board as Bejeweled 2's page draws it, with the idle hint. Everything added is
derived from the view alone."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from games.bejeweled2 import engine
from games.bejeweled2 import page as bj2_page

# What ``page`` adds that the page's script reads (Bejeweled 2's, on a seat's own board), so
# frames carry it; everything else it adds only the panels draw (the game's ``page_only``).
SCRIPT_READS = bj2_page.SCRIPT_READS


def page(shown: dict[str, Any]) -> dict[str, Any]:
    """What the page draws from the view: a seat's own board as Bejeweled 2 draws it (its grid,
    the idle hint, the bars); the small boards are drawn by the template from their rows.

    Every event draws every seat's view twice (before and after) though one board changed, so
    the idle hint (a search of every swap) is remembered by board, not searched again."""
    if shown.get("board") is not None:
        playing = "swap" in shown["actions"]
        you, shown["you"] = shown["you"], False  # Bejeweled 2 searches its hint for "you" only
        bj2_page.page(shown)
        shown["you"] = you
        move = idle_hint(shown["board"]) if playing and not shown["race"]["over"] else None
        shown["idle_hint"] = list(move) if move else None
    return shown


@lru_cache(maxsize=4096)
def idle_hint(board: str) -> tuple[str, str] | None:
    """The swap the page hints after a few idle seconds: Bejeweled 2's best move."""
    return engine.best_move(board)
