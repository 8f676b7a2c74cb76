"""What every viewer is shown of a match's fairness record (games/core/game/fairness.py is the
record itself, pure): its public facts, the same for every viewer, and the fair-play panel drawn
from them alone, once for what it shows (the core's panels call ``fairness_panel``:
games/core/jinja2/core/_panels.html; the export and fairness.json read ``fairness_facts``).

Not part of a viewer's view: the record grows with the match (receipts with their revealed
moves), and the match facts of a view go whole in every frame of every audience, where the
panel goes as a patch."""

from __future__ import annotations

from typing import Any

from django.template import engines
from django.utils.safestring import SafeString, mark_safe

from games.core.game import fairness
from games.core.game.gamedef import Viewer
from games.core.models import Match
from games.core.render.lru import Lru


def fairness_facts(match: Match, viewer: Viewer | None = None) -> dict[str, Any]:
    """The fairness record as every viewer sees it (games/core/game/fairness.py ``public_facts``:
    the one gate for it), each receipt with its seat's name, and the sealed action types its
    panel and script read. The same for every viewer, as a match's title is. Worked out once per
    version of the match (an event's frames ask for it once for each audience). The one
    exception is the host's export of a match over whose rules keep some sealed moves secret
    for good (``viewer``): the host saw those moves, and gets their receipts opened."""
    if viewer is not None and viewer.is_host and match.is_over and match.game.sealed_for_good:
        return _facts(match, kept=())
    key = (match.version, match.status, match.server_seed)
    kept = getattr(match, "_fairness_facts", None)
    if kept is not None and kept[0] == key:
        return kept[1]
    facts = _facts(match, kept=match.game.sealed_for_good)
    match._fairness_facts = (key, facts)
    return facts


def _facts(match: Match, kept: tuple[str, ...]) -> dict[str, Any]:
    facts = fairness.public_facts(
        match.fairness,
        match_id=match.public_id,
        server_seed=match.server_seed,
        over=match.is_over,
        kept=kept,
    )
    if facts["commitment"]:
        names = {seat.index: seat.player_name for seat in match.seats.all()}
        facts["names"] = {str(index): name for index, name in names.items()}
        given = facts["players"]
        facts["seeds"] = [
            {"name": name, "seed": given.get(str(index), "")} for index, name in names.items()
        ]
        for receipt in facts["receipts"]:
            receipt["name"] = names.get(receipt["seat"], f"seat {receipt['seat'] + 1}")
        facts["sealed"] = sorted(match.game.sealed_actions)
        facts["revealed"] = sum(1 for r in facts["receipts"] if r["state"] == "revealed")
        # Before the start, a seated page that has given no seed yet gives one (fairness.js).
        facts["open"] = match.status == Match.Status.OPEN
        # Sealed moves the rules keep secret for good, once over: the panel says what checks what.
        facts["kept"] = sorted(kept) if match.is_over else []
    return facts


def fairness_digest(match: Match) -> str:
    """A digest of everything ``fairness_facts`` shows (its panel is drawn once for it)."""
    facts = fairness_facts(match)
    kept = getattr(match, "_fairness_digest", None)
    if kept is None or kept[0] is not facts:
        kept = (facts, fairness.sha256_text(fairness.canonical(facts)))
        match._fairness_digest = kept
    return kept[1]


LISTED = 14
"""The receipts a panel lists at most (the latest, in blocks of this many: two rounds of a full
Seven Gem Swap table); every frame carries the panel, and a page checks the whole list from
``fairness.json``."""

# Each receipt's line as drawn, by what it shows: a match's list grows by one line a sealed
# move, and the lines already drawn are not drawn again (a match of 7 seats has 60 of them).
_lines: Lru[tuple[Any, ...], str] = Lru(4096)
# The whole section by everything it shows: drawn once for every audience, and not again for
# an event that changes none of it (most events of most games).
_sections: Lru[tuple[Any, ...], str] = Lru(256)


def receipt_line(entry: dict[str, Any]) -> str:
    """One receipt's line (games/core/jinja2/core/_fairness_receipt.html)."""
    key = (
        entry["receipt"],
        entry["state"],
        entry["name"],
        entry["type"],
        entry.get("draft", False),
        entry.get("nonce"),
        _move_text(entry),
    )
    line = _lines.get(key)
    if line is None:
        drawn_from = {"r": entry, "move_text": _move_text(entry)}
        line = _drawn("core/_fairness_receipt.html", drawn_from)
        _lines.put(key, line)
    return line


def fairness_panel(match: Any, oob: Any = False) -> SafeString:
    """The match's fair-play section (games/core/jinja2/core/_fairness_section.html), drawn from its
    public facts alone (games.core.render.fairplay.fairness_facts); "" for an older match. The
    core's panels call it (games/core/jinja2/core/_panels.html)."""
    oob = bool(oob)
    facts = fairness_facts(match)
    if not facts["commitment"]:
        return mark_safe("")
    shown = (match.public_id, oob, fairness_digest(match))
    html = _sections.get(shown)
    if html is None:
        # The latest, a block at a time: a new receipt is added to the list (a frame carries
        # the line), rather than sliding every line of a window up by one.
        receipts = facts["receipts"]
        latest = receipts[(len(receipts) - 1) // LISTED * LISTED :] if receipts else []
        lines = mark_safe("\n".join(receipt_line(r) for r in latest))  # drawn lines
        drawn_from = {
            "fair": facts,
            "oob": oob,
            "match_id": match.public_id,
            "lines": lines,
            "earlier": len(facts["receipts"]) - len(latest),
        }
        html = _drawn("core/_fairness_section.html", drawn_from)
        _sections.put(shown, html)
    return mark_safe(html)  # drawn by our own templates, values escaped there


def _drawn(name: str, context: dict[str, Any]) -> str:
    """A fair-play template drawn by the panels' Jinja2 environment (autoescaped)."""
    return engines["jinja2"].get_template(name).render(context).strip()


def _move_text(entry: dict[str, Any]) -> str:
    """A revealed move as its receipt reads it (canonical JSON); "" while sealed."""
    move = entry.get("move")
    return fairness.canonical(move) if isinstance(move, dict) else ""
