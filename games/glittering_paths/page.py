"""What the Glittering Paths page draws from a view (``view.view``'s answer, never the state):
``page(shown)`` adds the board as a grid, the gems' looks and a finished round's boards and
moves; ``round_page`` opens a finished round. Everything added is derived from the view alone."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from games.glittering_paths import engine

# --- the page: what it draws from the view (the gate's answer, never the state) ----------------


CLOCK_LABELS = {"race": "Race clock", "turn": "Turn clock", "next_round": "Next round in"}
COLOUR_OF_GEM = {gem: colour for colour, gems in engine.GEMS_OF.items() for gem in gems}
GEM_CSS = {
    "R": "gem-red",
    "G": "gem-garnet",
    "J": "gem-orange",
    "S": "gem-blue",
    "L": "gem-indigo",
    "A": "gem-aqua",
}
"""Each gem's picture in the site's one gem set (static/css/gems.css): ruby the red square,
garnet the octagon, jasper the orange hexagon, sapphire the blue kite, lapis the indigo
pentagon, aquamarine the drop."""


# Each board character's look on the shared grid (arena.grid_html): a cell reads
# "C4, ruby (red)" or "C4, empty".
LOOKS = {
    engine.EMPTY: {"css": "gp-empty", "text": "", "name": "empty"},
    **{
        gem: {
            "css": f"gp-gem gp-{gem} {GEM_CSS[gem]}",
            "text": gem,
            "name": f"{engine.GEM_NAMES[gem]} ({COLOUR_OF_GEM[gem]})",
        }
        for gem in GEM_CSS
    },
}


def board_grid(
    text: str, *, name: str, caption: str, marks: dict[str, str] | None = None
) -> dict[str, Any]:
    """A board text as the shared grid draws it (games/core/templatetags/arena.py grid_cells):
    the text, its column letters and each character's look, small in a view; ``marks`` adds css
    classes to named cells. Drawn from its content, the same board's HTML is made once for every
    audience. ``width`` and ``height`` size the page's grid."""
    lines = text.splitlines()
    width = len(lines[0]) if lines else 0
    return {
        "name": name,
        "caption": caption,
        "board": text,
        "columns": engine.COLUMN_LETTERS[:width],
        "looks": LOOKS,
        "marks": marks or {},
        "width": width,
        "height": len(lines),
    }


def page(shown: dict[str, Any]) -> dict[str, Any]:
    """``shown`` (what ``view`` lets this viewer see; the board is public) with what the page
    draws from it: the board as a grid (templates/core/_grid.html), the players' names on
    moves, labels. A finished round's board and analysis are drawn only when a player opens
    that round (``round_page``)."""
    last = shown["last_move"]
    caption = (
        f"Round {shown['round']}'s final board"
        if shown["phase"] in ("interval", "over")
        else f"Round {shown['round']}'s board"
    )
    # The last path's cells are marked by the page's script (the board panel names them): a
    # move's frame then changes only the cells the path emptied.
    shown["grid"] = board_grid(shown["board"], name="board", caption=caption)
    names = [seat["name"] for seat in shown["seats"]]
    shown["moves"] = [{**move, "name": names[move["seat"]]} for move in shown["moves"]]
    if last:
        shown["last_move"] = {**last, "name": names[last["seat"]]}
    you = shown["you"]
    agreed = shown["agreed"]
    shown["agreed_seats"] = [seat for seat, yes in enumerate(agreed) if yes]
    shown["opponent_agreed"] = you is not None and agreed[1 - you]
    shown["first_name"] = names[shown["first"]] if shown["first"] is not None else ""
    shown["mover_name"] = names[shown["turn"]] if shown["turn"] is not None else ""
    # What the history panel reads of each finished round (its drawing is remembered by what it
    # reads: the rounds' moves and analyses are not among it).
    shown["finished"] = [
        {key: entry[key] for key in ("round", "totals", "reason_text")}
        for entry in shown["history"]
    ]
    shown["can_draw"] = "path" in shown["actions"]
    shown["clock_label"] = CLOCK_LABELS.get((shown["clock"] or {}).get("key") or "", "")
    shown["your_gems"] = _gem_list(shown["your_colour"]) if you is not None else ""
    return shown


def round_page(shown: dict[str, Any], round_no: int) -> dict[str, Any] | None:
    """Finished round ``round_no`` of ``shown`` (what ``view`` lets this viewer see) with what
    its analysis draws: the round's starting board as a grid, each turn's player named and
    whether the path played was as good as the best one. None when that round has not finished.
    A page asks for it when its player opens the round (views.round_result); frames never
    carry it."""
    entry = next((e for e in shown.get("history", []) if e["round"] == round_no), None)
    if entry is None:
        return None
    names = [seat["name"] for seat in shown["seats"]]
    analysis = entry["analysis"]
    if analysis is not None:
        analysis = [
            {**row, "name": names[row["seat"]], "matched_best": _matched_best(row)}
            for row in analysis
        ]
    grid = board_grid(
        entry["start_board"],
        name=f"analysis-{round_no}",
        caption=f"Round {round_no}: the board before the turn shown",
    )
    return {**entry, "analysis": analysis, "grid": grid}


def _gem_list(colour: str) -> str:
    """``"ruby, garnet or jasper"``."""
    names = [engine.GEM_NAMES[gem] for gem in engine.GEMS_OF[colour]]
    return f"{', '.join(names[:-1])} or {names[-1]}"


def _matched_best(row: dict[str, Any]) -> bool:
    """Did the mover play a path scoring as much as the best one?"""
    if row["kind"] != "path" or not row["best_cells"]:
        return row["kind"] != "path" and not row["best_cells"]
    return Decimal(row["played_score"]) >= Decimal(row["best_score"])
