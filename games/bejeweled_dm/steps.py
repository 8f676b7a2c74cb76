"""A death match proof's steps as they travel, in an event and in the view: ``compact_steps``
packs them in few bytes, ``step_board`` draws a step's board from the board before it, as the
page's script does (static/js/bejeweled_dm.js ``fullSteps``). Pure; the flow packs the optimum's
steps when it records them (flow.py ``record_analysis``), the gate the played ones (view.py)."""

from __future__ import annotations

from typing import Any

from games.bejeweled_dm import engine


def compact_steps(start: str, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``steps`` as they travel (in an event and in the view), in few bytes. A step leaves out
    its ``board`` where the page draws it from the board before it and the step itself
    (``step_board``; a Swap's or Rotate's board is always sent), and its ``active_cell`` and
    ``count`` where they are the step before's (the count grown by the gems a removal takes).
    Cells are packed in one text: a list of cells as ``"A4B4C4"``, a fall's moves as from-to
    pairs ``"E1E2F1F2"``, a removal's cells as runs of one cause in the board's reading order
    (row by row), ``[["match", "A4B4C4"], ["bend", "B6B7"]]``. The page's script makes the
    steps whole again (static/js/bejeweled_dm.js ``fullSteps``)."""
    shown, board, active, count = [], start, None, 0
    for step in steps:
        # The fields in one order, whatever order a state read back from the database holds.
        short = {
            key: _packed(key, step[key])
            for key in sorted(step)
            if key not in ("board", "active_cell", "count")
        }
        if step_board(board, step) != step["board"]:
            short["board"] = step["board"]
        if step["kind"] == "remove":
            count += len(step["cells"])
        if step["count"] != count:
            short["count"] = step["count"]
        if step["active_cell"] != active:
            short["active_cell"] = step["active_cell"]
        shown.append(short)
        board, active, count = step["board"], step["active_cell"], step["count"]
    return shown


def _packed(key: str, value: Any) -> Any:
    """A step's field as it travels: cells (two characters each) joined in one text."""
    if key == "cells" and isinstance(value, dict):  # a removal's cells, by what removes them
        # In the board's reading order, as the rules list them (a state read back from the
        # database may hold them in another order).
        runs: list[list[str]] = []
        for cell, cause in sorted(value.items(), key=lambda item: _reading_order(item[0])):
            if runs and runs[-1][0] == cause:
                runs[-1][1] += cell
            else:
                runs.append([cause, cell])
        return runs
    if key in ("cells", "rocks"):
        return "".join(value)
    if key == "moves":
        return "".join(source + target for source, target in value)
    return value


def _reading_order(cell: str) -> tuple[int, int]:
    return int(cell[1:]), engine.COLUMN_LETTERS.index(cell[0])


def step_board(before: str, step: dict[str, Any]) -> str | None:
    """The board after ``step`` drawn from the board before it: the same board, the removed
    cells emptied, the recoloured cells' new colour, the fallen gems moved and the rocks put in
    (None for a Swap or Rotate)."""
    rows = [list(line) for line in before.split("\n")]

    def put(cell: str, gem: str) -> None:
        rows[int(cell[1:]) - 1][engine.COLUMN_LETTERS.index(cell[0])] = gem

    def gem_at(cell: str) -> str:
        return before.split("\n")[int(cell[1:]) - 1][engine.COLUMN_LETTERS.index(cell[0])]

    kind = step["kind"]
    if kind == "starter" and step["starter"] != "Pick":
        return None
    if kind == "remove":
        for cell in step["cells"]:
            put(cell, ".")
    elif kind == "recolor":
        for cell in step["cells"]:
            put(cell, step["to"])
    elif kind == "fall":
        for source, target in step["moves"]:
            put(target, gem_at(source))
        for cell in step["rocks"]:
            put(cell, "#")
    return "\n".join("".join(row) for row in rows)
