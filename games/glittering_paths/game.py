"""Glittering Paths as a game definition: its flow (flow.py: the rules), its gate (view.py:
``view``, what each viewer sees), its page (page.py: the board and names the page draws from a
view) and bot wired into the core, with the host's round ending and awards, replay words and
help."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.core.game.gamedef import FlowGame, Outcome, SeatInfo, State, seat_awards
from games.core.game.registry import register
from games.core.game.words import event_parts, generic_description, round_marks, seat_name
from games.glittering_paths import bot, engine, flow, page, view
from games.glittering_paths.page import board_grid


class GlitteringPaths(FlowGame):
    flow = flow
    view_module = view
    page_module = page
    # What only the panels draw (frames and the page's JSON view leave it out; the events carry
    # each move): the board's grid, the page's labels and names, the round's moves and the last
    # move's words (the page's script replays the last move from its steps and score), and a
    # finished round's boards, moves and analysis (drawn when a player opens the round).
    page_only = (
        "grid",
        "prompt",
        "phase_label",
        "mover_name",
        "first_name",
        "clock_label",
        "your_gems",
        "agreed_seats",
        "opponent_agreed",
        "can_draw",
        "finished",
        "moves",
        *(
            f"last_move.{key}"
            for key in ("turn", "seat", "player", "kind", "cells", "exact", "total", "race", "name")
        ),
        *(
            f"history.*.{key}"
            for key in ("moves", "analysis", "start_board", "end_board", "first", "start_kind")
        ),
    )
    bot = bot
    key = flow.GAME
    title = "Glittering Paths"
    roles = ("EC", "DMO")
    clock_anchors = {"turn": ("turn_started",)}
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

    # --- the host ---------------------------------------------------------------------------

    def award_choices(self, state: State, seats: list[SeatInfo]) -> list[tuple[str, str]]:
        """The match to either seat (the host ends a round with the core's "End the round")."""
        if not state or state.get("phase") == "over":
            return []
        return seat_awards(seats, "{seat} wins the match")

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
            reason = view.REASONS.get(data.get("reason", ""), "")
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


GAME = register(GlitteringPaths())
