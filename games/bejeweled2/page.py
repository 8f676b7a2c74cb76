"""What the Bejeweled 2 page draws from a view (``view.view``'s answer, never the state):
``page(shown)`` adds the board as a grid, the pieces' looks, the level and Action bars and the
next puzzle; ``idle_hint_of(shown)`` is the swap the player's page hints after a few idle seconds,
asked for by the page when it is idle (docs/protocol.md, "hint"). Everything is derived from the
view alone."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from games.bejeweled2 import engine
from games.bejeweled2.modes import MODES
from games.bejeweled2.puzzles import PUZZLES
from games.core.game.words import counted

# --- the page: what it draws from the view (the gate's answer, never the state) ----------------


GEM_CSS = {colour: f"gem-{name}" for colour, name in engine.COLOUR_NAMES.items()}
PIECE_LABELS = {
    engine.HYPERCUBE: "hypercube",
    engine.ROCK: "rock",
    engine.EMPTY: "empty",
}
BOARD_CAPTION = "Columns A to H, rows 1 (top) to 8."
# What ``page`` adds that the page's script reads (bejeweled2.js paints each step's board with
# the pieces' looks), so frames carry it; everything else it adds only the panels draw, and the
# game's ``page_only`` lists it (tests/core/test_page_only.py).
SCRIPT_READS = ("pieces",)


def piece_css(piece: str) -> str:
    """The CSS classes of a piece: its colour, and ``power`` / ``hypercube`` / ``rock`` /
    ``bomb`` / ``empty`` for the special ones."""
    if piece in GEM_CSS:
        return GEM_CSS[piece]
    if piece in engine.POWER_GEMS:
        return f"{GEM_CSS[piece.upper()]} power"
    if piece == engine.HYPERCUBE:
        return "hypercube"
    if piece == engine.ROCK:
        return "rock"
    if piece in engine.BOMBS:
        return "bomb"
    return "empty"


PIECES = {
    piece: piece_css(piece)
    for piece in engine.COLOURS + engine.POWER_GEMS + engine.HYPERCUBE + engine.ROCK + engine.BOMBS
}
"""Every piece's CSS classes, sent in the view so the page paints each step's board the same way."""


def piece_label(piece: str) -> str:
    if piece in engine.COLOUR_NAMES:
        return engine.COLOUR_NAMES[piece]
    if piece in engine.POWER_GEMS:
        return f"{engine.COLOUR_NAMES[piece.upper()]} power gem"
    if piece in engine.BOMBS:
        return f"bomb, {counted(int(piece), 'move')} left"
    return PIECE_LABELS.get(piece, piece)


def piece_text(piece: str) -> str:
    """What is written on a cell: the bomb's count; the colours are drawn by CSS."""
    return piece if piece in engine.BOMBS else ""


def board_grid(
    board: str, marks: dict[str, str] | None = None, caption: str = ""
) -> dict[str, Any]:
    """A board text as the shared grid template's rows (``core/_grid.html``). The same board,
    marks and caption give the same grid, made once (a race's host and every seat shown its
    ranking page all thirteen boards at every version, twelve of them unchanged): the grid is
    shared, read-only."""
    return _grid(board, tuple(sorted((marks or {}).items())), caption)


@lru_cache(maxsize=64)
def _grid(board: str, marked: tuple[tuple[str, str], ...], caption: str) -> dict[str, Any]:
    marks = dict(marked)
    rows = []
    for r, line in enumerate(board.split("\n")):
        row = []
        for c, piece in enumerate(line):
            name = f"{engine.COLUMN_LETTERS[c]}{r + 1}"
            row.append(
                {
                    "cell": name,
                    "text": piece_text(piece),
                    "css": piece_css(piece),
                    "label": f"{name}, {piece_label(piece)}",
                    "marks": marks.get(name, ""),
                }
            )
        rows.append(row)
    return {"name": "board", "caption": caption, "rows": rows}


def idle_hint_of(shown: dict[str, Any]) -> list[str] | None:
    """The swap the player's page hints after a few idle seconds (the best on the board), from
    what ``view`` lets this viewer see; None for anyone but the player, or with no swap to make.
    Searched when the idle page asks for it, not with every move's frames: a search of every
    swap, a third of a move's drawing."""
    if not shown.get("you") or "swap" not in shown.get("actions", ()):
        return None
    return best_swap(shown["board"], MODES[shown["mode"]].specials)


@lru_cache(maxsize=256)
def _best(board: str, specials: bool) -> tuple[str, str] | None:
    return engine.best_move(board, specials=specials)


def best_swap(board: str, specials: bool = True) -> list[str] | None:
    """The engine's best swap on ``board``, as the page marks it; remembered by board (an idle
    page may ask again for the same, and asking costs a search of every swap)."""
    move = _best(board, specials)
    return list(move) if move else None


def page(shown: dict[str, Any]) -> dict[str, Any]:
    """``shown`` (what ``view`` lets this viewer see) with what the page draws from it: the grid,
    the pieces' looks, the level and Action bars, the next puzzle."""
    marks = {}
    if shown["hint"]:
        marks = {shown["hint"]["a"]: "hint", shown["hint"]["b"]: "hint"}
    # One caption for every viewer, so the grid is drawn once per move for all audiences
    # (the player's instructions are in the step text under the board).
    shown["grid"] = board_grid(shown["board"], marks, BOARD_CAPTION)
    shown["pieces"] = PIECES
    progress = shown["level_progress"]
    shown["level_percent"] = (
        min(100, progress["points"] * 100 // progress["needed"]) if progress else None
    )
    if shown["bar"]:
        bar = shown["bar"]
        bar["percent"] = max(0, min(100, bar["points"] * 100 // bar["size"]))
    if shown["puzzle"]:
        following = shown["puzzle"]["index"] + 1
        shown["puzzle"]["next"] = following if following < len(PUZZLES) else None
    return shown
