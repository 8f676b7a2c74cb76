"""What a Seven Gem Swap sequence would do if no one else moved: ``sequence_preview``, as the
engine plays it alone, worded for the composer (``worded_preview``). The flow keeps it with a
draft (submissions.py ``clean_draft``) and the gate shows it with a seat's sent sequence
(view.py); pure, it reads the engine alone."""

from __future__ import annotations

from typing import Any

from games.core.game.gamedef import State
from games.seven_gem_swap import engine

STEP_FAILURES = {
    "off_grid": "off the grid",
    "locked": "into a locked cell",
    "controlled": "into a controlled gem",
    "same_target": "same target as another move",
}


def sequence_preview(
    state: State, key: str, gem: str, moves: str, card: str | None
) -> dict[str, Any]:
    """What the seat's sequence would do this round if no one else moved, as the engine plays it
    alone: ``path`` (the cells its gem passes through, from ``gem`` to ``end``), ``failed`` (the
    move that would fail: its number from 1, ``direction``, ``cell`` aimed at, None off the
    grid, and the engine's ``reason``; None when every move runs), ``board`` (the grid after
    it), the largest ``group`` of ``colours`` it would leave and that group's ``multiplier``
    as the round would score it (0 in round 1, which scores no group; None from round 2 while
    no card is chosen), and ``next``: the cells beside ``end``, each with the move going there."""
    own = state["colours"][key]
    result = engine.resolve_round(state["board"], {key: (gem, moves, False)})
    moved = [move for step in result.steps for move in step["moves"]]
    failed = next(
        (
            {
                "move": number,
                "direction": move["direction"],
                "cell": move["to"],
                "reason": move["reason"],
            }
            for number, move in enumerate(moved, start=1)
            if not move["ok"]
        ),
        None,
    )
    scoring = state["round"] >= 2
    card = card if scoring else None
    scored = engine.round_points(result.board, state["round"], own, card, failed is not None)
    colours = own + (card if card and card != own else "")
    multiplier: int | None = scored["multiplier"] if card or not scoring else None
    end = result.positions[key]
    preview = {
        "path": [gem, *(move["to"] for move in moved if move["ok"])],
        "end": end,
        "failed": failed,
        "board": engine.format_board(result.board),
        "colours": colours,
        "group": scored["group"] if scoring else engine.largest_group(result.board, own),
        "multiplier": multiplier,
        "next": {cell: move for move, cell in engine.neighbours(end).items()},
    }
    return worded_preview(preview, state["round"])


def worded_preview(preview: dict[str, Any], round_number: int) -> dict[str, Any]:
    """A sequence's preview (sequence_preview) with the sentence the composer shows under
    the grid and the grid's caption."""
    path = preview["path"]
    text = f"Path: {' → '.join(path)}."
    failed = preview["failed"]
    if failed:
        reason = (
            "it would leave the grid"
            if failed["cell"] is None
            else f"{failed['cell']} is locked (your gem left it)"
            if failed["reason"] == "locked"
            else STEP_FAILURES.get(failed["reason"], failed["reason"])
        )
        move = engine.MOVE_NAMES[failed["direction"]]
        text += (
            f" Move {failed['move']} ({move}) would fail: {reason}; the sequence stops there "
            "and costs 1 point."
        )
    group, multiplier = preview["group"], preview["multiplier"]
    if round_number < 2:
        text += f" If no one else moved: your largest group {group} (round 1 scores no group)."
    else:
        colours = "+".join(preview["colours"])
        text += f" If no one else moved: largest {colours} group {group}"
        text += (
            " (pick a card)."
            if multiplier is None
            else f" x{multiplier} = {group * multiplier} points."
        )
    moved = len(path) > 1 or failed is not None
    caption = (
        "Preview: the grid after your moves, as if no one else moved"
        if moved
        else f"The grid as round {round_number} starts"
    )
    return {**preview, "text": text, "caption": caption}
