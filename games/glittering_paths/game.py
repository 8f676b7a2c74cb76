"""Glittering Paths as a game definition: the match flow (flow.py) wired into the core, plus the
board as the shared clickable grid for the page.

Everything on the board is public, so ``view`` only adds what the page draws from the flow's view:
the board and each finished round's starting board as grids (templates/core/_grid.html).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from games.core.gamedef import FlowGame, Outcome, SeatInfo, State, Viewer
from games.core.registry import register
from games.core.words import event_parts, generic_description, round_marks, seat_name
from games.glittering_paths import bot, engine, flow

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


def board_grid(text: str, *, name: str, caption: str, marks: dict[str, str] | None = None) -> dict:
    """A board text as rows of cells for the shared grid template; ``marks`` adds css classes
    to named cells (e.g. the cells the last path emptied)."""
    marks = marks or {}
    rows = []
    for r, line in enumerate(text.splitlines()):
        row = []
        for c, gem in enumerate(line):
            cell = engine.cell_name(r, c)
            if gem == engine.EMPTY:
                label, css = f"{cell}, empty", "gp-empty"
            else:
                label = f"{cell}, {engine.GEM_NAMES[gem]} ({COLOUR_OF_GEM[gem]})"
                css = f"gp-gem gp-{gem} {GEM_CSS[gem]}"
            row.append(
                {
                    "cell": cell,
                    "text": "" if gem == engine.EMPTY else gem,
                    "css": css,
                    "label": label,
                    "marks": marks.get(cell, ""),
                }
            )
        rows.append(row)
    columns = len(rows[0]) if rows else 0
    return {"name": name, "caption": caption, "rows": rows, "columns": columns}


class GlitteringPaths(FlowGame):
    flow = flow
    bot = bot
    key = flow.GAME
    title = "Glittering Paths"
    roles = ("EC", "DMO")
    template_dir = "glittering_paths"
    clock_anchors = {"turn": ("turn_started",)}
    stylesheets = ("css/glittering_paths.css",)
    scripts = ("js/grid.js", "js/steps.js", "js/glittering_paths.js")
    rules_summary = (
        "Race to draw the first legal path of alternating gems turning at every cell, then take "
        "turns; each path scores your gems over the most common other gem. Three rounds."
    )

    # --- the rules -----------------------------------------------------------------------------

    def end_round_label(self, state: State) -> str | None:
        if state and state.get("phase") in ("race", "turns"):
            return f"round {state['round']} as it stands (its scores stand; the match goes on)"
        return None

    def end_round(self, state: State, now: datetime) -> Outcome:
        return flow.adjudicate(state, {"end_round": True}, now)

    def warm_up(self) -> None:
        engine.best_path(engine.generate_board(1, 3, 8, 8), engine.RED)

    # --- what a viewer sees --------------------------------------------------------------------

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        shown = flow.view(state, viewer)
        if not shown:
            return shown
        last = shown["last_move"]
        emptied = {cell: "gp-last-path" for cell in last["cells"]} if last else {}
        caption = (
            f"Round {shown['round']}'s final board"
            if shown["phase"] in ("interval", "over")
            else f"Round {shown['round']}'s board"
        )
        shown["grid"] = board_grid(shown["board"], name="board", caption=caption, marks=emptied)
        names = [seat["name"] for seat in shown["seats"]]
        shown["moves"] = [{**move, "name": names[move["seat"]]} for move in shown["moves"]]
        if last:
            shown["last_move"] = {**last, "name": names[last["seat"]]}
        for entry in shown["history"]:
            entry["moves"] = [{**move, "name": names[move["seat"]]} for move in entry["moves"]]
            if entry["analysis"] is not None:
                entry["analysis"] = [
                    {**row, "name": names[row["seat"]], "matched_best": _matched_best(row)}
                    for row in entry["analysis"]
                ]
            entry["grid"] = board_grid(
                entry["start_board"],
                name=f"analysis-{entry['round']}",
                caption=f"Round {entry['round']}: the board before the turn shown",
            )
        you = shown["you"]
        agreed = shown["agreed"]
        shown["agreed_seats"] = [seat for seat, yes in enumerate(agreed) if yes]
        shown["opponent_agreed"] = you is not None and agreed[1 - you]
        shown["first_name"] = names[shown["first"]] if shown["first"] is not None else ""
        shown["mover_name"] = names[shown["turn"]] if shown["turn"] is not None else ""
        shown["clock_label"] = CLOCK_LABELS.get((shown["clock"] or {}).get("key"), "")
        shown["your_gems"] = _gem_list(shown["your_colour"]) if you is not None else ""
        return shown

    def award_choices(self, state: State, seats: list[SeatInfo]) -> list[tuple[str, str]]:
        """The match to either seat (the host ends a round with the core's "End the round")."""
        from games.core.gamedef import award_value, seat_label

        if not state or state.get("phase") == "over":
            return []
        choices = []
        for seat in seats:
            label = f"{seat_label(seat)} wins the match"
            choices.append((award_value({"winner": seat.index}), label))
        return choices

    # --- replay and help -------------------------------------------------------------------------
    controls_help = (
        "Red plays R, G, J (ruby, garnet, jasper); blue plays S, L, A.",
        "Draw a path: click your cells in order or drag across them; the page says which rule "
        "a partial path breaks.",
        "A click on the last cell, Escape or 'Undo last cell' takes a cell back; 'Clear' starts "
        "over.",
        "Submit the path when it is legal; the first legal path of a round moves first.",
        "On your turn you may also pass; both players may agree to end the round.",
    )

    def describe_event(self, event: dict[str, Any], state: State) -> str:
        kind, data, who = event_parts(event, state)
        text = ""
        if kind in ("started", "round_started"):
            return f"Round {data['round']} begins on a {data.get('shape', '')} board."
        if kind in ("race_won", "path_made"):
            cells = data.get("cells", [])
            text = (
                f"{who} draws a path of {len(cells)} cells ({', '.join(cells)}) for "
                f"{data.get('score')} points; total {data.get('total')}."
            )
            if kind == "race_won":
                text = f"{who} wins the race and moves first. " + text
        elif kind == "skipped":
            text = f"{who} did not move in time: a skip."
        elif kind == "passed":
            text = f"{who} passes."
        elif kind == "random_start":
            text = f"No path in the race: {seat_name(state, data.get('first'))} is drawn to start."
        elif kind == "end_offered":
            text = f"{who} offers to end the round."
        elif kind == "end_withdrawn":
            text = f"{who} withdraws the offer to end the round."
        elif kind == "agreed_end":
            text = "Both players agree to end the round."
        elif kind == "analysis":
            return f"Round {data.get('round')}: each turn is shown beside the best path it had."
        elif kind == "clock_ignored":
            return "A clock that was no longer running ended; nothing changed."
        elif kind != "adjudicated":
            return generic_description(event, state)
        if data.get("round_over"):
            reason = flow.REASONS.get(data.get("reason", ""), "")
            totals = data.get("totals") or []
            text += f" Round {data['round_over']} is over: {reason}."
            if len(totals) == 2:
                text += f" Totals {totals[0]} to {totals[1]}."
        if data.get("summary"):
            text += f" {data['summary']}"
        return text.strip() or generic_description(event, state)

    def replay_marks(self, events: list[dict[str, Any]]) -> list[tuple[int, str]]:
        return round_marks(events, {"started", "round_started"}, label="Round")

    def rules_examples(self) -> list[dict[str, Any]]:
        board = engine.generate_board(11, 1, 5, 6)
        score, cells = engine.best_path(board, "red")
        text = engine.format_board(board)
        marks = {cell: "selected" for cell in cells}
        move = engine.play_path(board, "red", cells)
        after = engine.format_board(move.board) if hasattr(move, "board") else text
        return [
            {
                "title": "A legal path and its score",
                "text": (
                    f"Red's best path here is {', '.join(cells)}: it starts on a red gem, turns "
                    f"at every cell and alternates its starting gem with other gems. It scores "
                    f"{score}. Its cells are then emptied."
                ),
                "grids": [
                    board_grid(text, name="example-before", caption="The path", marks=marks),
                    board_grid(
                        after, name="example-after", caption="After: the path's cells empty"
                    ),
                ],
            }
        ]


def _gem_list(colour: str) -> str:
    """``"ruby, garnet or jasper"``."""
    names = [engine.GEM_NAMES[gem] for gem in engine.GEMS_OF[colour]]
    return f"{', '.join(names[:-1])} or {names[-1]}"


def _matched_best(row: dict[str, Any]) -> bool:
    """Did the mover play a path scoring as much as the best one?"""
    if row["kind"] != "path" or not row["best_cells"]:
        return row["kind"] != "path" and not row["best_cells"]
    return Decimal(row["played_score"]) >= Decimal(row["best_score"])


GAME = register(GlitteringPaths())
