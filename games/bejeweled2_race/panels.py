"""The race's small boards: a board's rows as a compact grid of gems (the site's gem set), the
same HTML for every audience and every frame that shows the same board (remembered by rows). A
global of the panels' Jinja2 environment (settings.TEMPLATES)."""

from __future__ import annotations

from functools import lru_cache

from django.utils.safestring import SafeString, mark_safe

from games.bejeweled2 import engine
from games.bejeweled2.flow import piece_css, piece_label
from games.core.templatetags.arena import escaped as escape


@lru_cache(maxsize=1024)
def _mini(rows: tuple[str, ...], name: str) -> str:
    cells = []
    counts: dict[str, int] = {}
    for line in rows:
        for piece in line:
            text = piece if piece in engine.BOMBS else ""
            cells.append(f'<i class="{piece_css(piece)}">{text}</i>')
            if piece in engine.POWER_GEMS or piece in (engine.HYPERCUBE, engine.ROCK):
                label = piece_label(piece)
                counts[label] = counts.get(label, 0) + 1
            elif piece in engine.BOMBS:
                counts["bomb"] = counts.get("bomb", 0) + 1
    specials = ", ".join(f"{n} {what}{'s' if n > 1 else ''}" for what, n in counts.items())
    label = f"{name}'s board" + (f", with {specials}" if specials else "")
    return (
        f'<div class="race-mini-grid" role="img" aria-label="{escape(label)}" '
        f'data-rows="{escape("/".join(rows))}">{"".join(cells)}</div>'
    )


def mini_board(rows: list[str], name: str) -> SafeString:
    """A seat's board, small: 64 gems, no coordinates, no controls."""
    return mark_safe(_mini(tuple(rows), str(name)))  # built from engine pieces and escaped text
