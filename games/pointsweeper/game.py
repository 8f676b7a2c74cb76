"""Pointsweeper as a game definition: its flow (flow.py: the phase machine and the analysis of
each finished board), its gate (view.py: ``view``, what each viewer sees), its page (page.py:
what the page draws from a view) and bot wired into the core, with replay words and help."""

from __future__ import annotations

from typing import Any

from games.core.game.gamedef import FlowGame, State
from games.core.game.registry import register
from games.core.game.words import event_parts, generic_description, round_marks, seat_name
from games.pointsweeper import board_end, bot, engine, flow, page, view


class Pointsweeper(FlowGame):
    flow = flow
    view_module = view
    page_module = page
    # What only the page's templates draw (drawn from the view on the server), and what no script
    # reads: each log entry's values (the move's event carries its animation steps).
    page_only = (
        "board_grid",
        "names",
        "in_play",
        "players",
        "piece_rows",
        "offer",
        "order_text",
        "reviews",
        "finished",
        "log",
        "log_title",
        "play.log.*.values",
    )
    bot = bot
    key = "pointsweeper"
    title = "Pointsweeper"
    roles = ("EC", "DMO")
    clock_anchors = {"turn": ("turn_started",)}
    scripts = ("js/grid.js", "js/steps.js", "js/pointsweeper.js")
    rules_summary = (
        "Three hidden 8x8 boards of tiles and mines: scout with chess pieces to learn sums, "
        "then claim paths for points. Each mine costs more than the last."
    )

    # --- replay and help -------------------------------------------------------------------------
    controls_help = (
        "The chooser picks who moves first on each board with the two buttons.",
        "To scout: choose a piece, then click a square on the board (or type it) and send.",
        "To claim: choose a piece, click its start square, then its end square, and send.",
        "Your notebook lists your scouts' sums and mines; only you see them.",
        "Pass when you want no more turns on this board.",
    )

    def describe_event(self, event: dict[str, Any], state: State) -> str:
        kind, data, who = event_parts(event, state)
        text = ""
        if kind == "started":
            return f"Board 1: {seat_name(state, data.get('chooser'))} chooses who moves first."
        if kind in ("order_chosen", "order_drawn"):
            how = "chosen" if kind == "order_chosen" else "drawn at random"
            return (
                f"Board {data['board_no']}: {seat_name(state, data['first'])} moves first ({how})."
            )
        if kind == "scouted":
            text = f"{who} scouts with {data['piece']} on {data['square']}."
            note = data.get("scout")
            if isinstance(note, dict) and "sum" in note:
                mines = note.get("mines", 0)
                text += f" Result: {note['sum']} points, {mines} mine{'s' if mines != 1 else ''}."
        elif kind == "claimed":
            mines = data.get("mines", 0)
            text = f"{who} claims with {data['piece']} from {data['start']} to {data['end']}: "
            if mines:
                text += f"{mines} mine{'s' if mines != 1 else ''} hit."
            else:
                text += f"{data.get('points', 0)} points."
        elif kind == "passed":
            text = f"{who} passes for the rest of the board."
        elif kind == "bank_empty":
            text = f"{who}'s time bank ran out: a pass."
        elif kind == "analysis":
            return f"Board {data.get('board_no')}: each move beside the best one it had."
        elif kind == "clock_ignored":
            return "A clock that was no longer running ended; nothing changed."
        elif kind != "adjudicated":
            return generic_description(event, state)
        over = data.get("board_over")
        if isinstance(over, dict):
            points = over.get("points") or [0, 0]
            why = board_end.BOARD_END_REASONS.get(over.get("reason"), "")
            text += (
                f" Board {over.get('board_no')} is over: {why} "
                f"(points {points[0]} and {points[1]})."
            )
        following = data.get("next_board")
        if isinstance(following, dict):
            text += (
                f" Board {following['board_no']}: {seat_name(state, following['chooser'])} "
                "chooses who moves first."
            )
        finished = data.get("match_over")
        if isinstance(finished, dict) and finished.get("summary"):
            text += f" {finished['summary']}."
        return text.strip() or generic_description(event, state)

    def replay_marks(self, events: list[dict[str, Any]]) -> list[tuple[int, str]]:
        return round_marks(
            events, {"started"}, label="Board", key="board_no", following_key="next_board"
        )

    def rules_examples(self) -> list[dict[str, Any]]:
        covered = set(engine.scout_squares("B1", "c3", True))
        rows = []
        for rank in range(8, 0, -1):
            row = []
            for file in "abcdefgh":
                square = f"{file}{rank}"
                mark = "selected" if square in covered else ""
                text = "B" if square == "c3" else ""
                label = f"{square}, scouted" if square in covered else square
                row.append(
                    {
                        "cell": square,
                        "text": text,
                        "css": "ps-hidden",
                        "label": label,
                        "marks": mark,
                    }
                )
            rows.append(row)
        return [
            {
                "title": "A scout's squares",
                "text": (
                    "A bishop scouting from c3 covers c3 and every square it could move to: "
                    f"{', '.join(sorted(covered))}. Only the scouting player learns the sum of "
                    "the unclaimed tiles there and how many mines they hold."
                ),
                "grids": [{"name": "example-scout", "caption": "Bishop on c3", "rows": rows}],
            }
        ]


POINTSWEEPER = register(Pointsweeper())
