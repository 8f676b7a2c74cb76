"""The fair-play panel (templates/core/_fairness.html): the same for every viewer, so drawn once
for what it shows and given to every audience as drawn."""

from __future__ import annotations

from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from games.core import fairness
from games.core.lru import Lru

register = template.Library()

LISTED = 14
"""The receipts a panel lists (the latest: two rounds of a full Seven Gem Swap table); every
frame carries the panel, and a page checks the whole list from ``fairness.json``."""

# Each receipt's line as drawn, by what it shows: a match's list grows by one line a sealed
# move, and the lines already drawn are not drawn again (a match of 7 seats has 60 of them).
_lines: Lru[tuple[Any, ...], str] = Lru(4096)
# The whole section by everything it shows: drawn once for every audience, and not again for
# an event that changes none of it (most events of most games).
_sections: Lru[tuple[Any, ...], str] = Lru(256)


def receipt_line(entry: dict[str, Any]) -> str:
    """One receipt's line (templates/core/_fairness_receipt.html)."""
    key = (
        entry["receipt"],
        entry["state"],
        entry["name"],
        entry["type"],
        entry.get("nonce"),
        json_text(entry.get("move")),
    )
    line = _lines.get(key)
    if line is None:
        line = render_to_string("core/_fairness_receipt.html", {"r": entry}).strip()
        _lines.put(key, line)
    return line


@register.filter
def json_text(move: Any) -> str:
    """A revealed move as its receipt reads it (canonical JSON); the template escapes it."""
    return fairness.canonical(move) if isinstance(move, dict) else ""


def fairness_panel(match: Any, oob: Any = False) -> SafeString:
    """The match's fair-play section (templates/core/_fairness_section.html), drawn from its
    public facts alone (games.core.rendering.fairness_facts); "" for an older match. The core's
    panels call it (games/core/jinja2/core/_panels.html)."""
    from games.core.rendering import fairness_digest, fairness_facts

    oob = bool(oob)
    facts = fairness_facts(match)
    if not facts["commitment"]:
        return mark_safe("")
    shown = (match.public_id, oob, fairness_digest(match))
    html = _sections.get(shown)
    if html is None:
        latest = facts["receipts"][-LISTED:]
        lines = mark_safe("\n".join(receipt_line(r) for r in latest))  # drawn lines
        drawn_from = {
            "fair": facts,
            "oob": oob,
            "match_id": match.public_id,
            "lines": lines,
            "earlier": len(facts["receipts"]) - len(latest),
        }
        html = render_to_string("core/_fairness_section.html", drawn_from).strip()
        _sections.put(shown, html)
    return mark_safe(html)  # drawn by our own templates, values escaped there
