"""What the Bejeweled 2 race's page draws from a view (``view.view``'s answer, never the state):
a seat's own board as Bejeweled 2's page draws it, and the idle hint its page asks for.
Everything is derived from the view alone."""

from __future__ import annotations

from typing import Any

from games.bejeweled2 import page as bj2_page

# What ``page`` adds that the page's script reads (Bejeweled 2's, on a seat's own board), so
# frames carry it; everything else it adds only the panels draw (the game's ``page_only``).
SCRIPT_READS = bj2_page.SCRIPT_READS


def page(shown: dict[str, Any]) -> dict[str, Any]:
    """What the page draws from the view: a seat's own board as Bejeweled 2 draws it (its grid,
    the bars); the small boards are drawn by the template from their rows."""
    if shown.get("board") is not None:
        bj2_page.page(shown)
    return shown


def idle_hint_of(shown: dict[str, Any]) -> list[str] | None:
    """The swap a seat's page hints after a few idle seconds, on its own board (Bejeweled 2's
    best move); None for a spectator or the host, once the race is over or the seat cannot
    swap."""
    if shown.get("board") is None or "swap" not in shown.get("actions", ()):
        return None
    if shown["race"]["over"]:
        return None
    return bj2_page.best_swap(shown["board"])
