"""Bejeweled 2 as a game definition: one seat, nine modes (four hidden until opened, and
Original, open to all but kept off the menu until found).

The rules and the phases live in ``flow.py``, what each viewer sees in ``view.py`` and the page
drawn from a view (the grid, the level bar, the Action bar) in ``page.py`` (pure functions);
this module wires them into the match core,
with the host's awards, replay words and help. The page animates a move from its event's steps,
each carrying the board after it (``engine.swap``), through the shared step player."""

from __future__ import annotations

from typing import Any

from games.bejeweled2 import bot, engine, flow, levels, modes, page, view
from games.bejeweled2.page import board_grid
from games.core.game.gamedef import FlowGame, SeatInfo, State, award_value, seat_awards
from games.core.game.registry import register
from games.core.game.words import counted, event_parts, generic_description, marks_where


class Bejeweled2(FlowGame):
    flow = flow
    view_module = view
    page_module = page
    # What only the panels draw: the board's grid and the bars' fill (page.py adds them; the
    # script reads the pieces' looks and the idle hint it also adds, page.SCRIPT_READS).
    page_only = ("grid", "level_percent", "bar.percent")
    bot = bot
    key = "bejeweled-2"
    play_url_name = "bejeweled2_play"
    title = "Bejeweled 2"
    clock_anchors = {levels.CLOCK: ("bar.at", "turn_started")}
    rules_summary = (
        "Swap side-by-side gems to line up three or more. Classic, Action (keep the bar from "
        "running empty), Endless, or 80 puzzles in 16 worlds; four hidden modes open by play."
    )

    # --- the host ---------------------------------------------------------------------------

    def award_choices(self, state: State, seats: list[SeatInfo]) -> list[tuple[str, str]]:
        """A solo game: the host ends it with the player as the winner, or with no winner."""
        if not state or state.get("phase") == "over":
            return []
        player = [seat for seat in seats if seat.index == 0]
        ends = seat_awards(player, "End the game: {seat} wins")
        return [*ends, (award_value({"winner": None}), "End the game with no winner")]

    # --- replay and help -------------------------------------------------------------------------
    controls_help = (
        "Click a gem, then a side-by-side gem to swap them (or drag one onto its neighbour).",
        "A swap must make a line of three or more; four make a power gem, five a hypercube.",
        "Stuck? Hint shows a swap (it costs points, or bar in Action; in Puzzle mode it is free).",
        "In the puzzles, Undo takes back a move (as many as you like) and Restart starts again.",
        "Keyboard: Tab to the board, arrow keys to move, Enter to choose each gem.",
    )

    def describe_event(self, event: dict[str, Any], state: State) -> str:
        kind, data, _ = event_parts(event, state)
        if kind == "started":
            mode = modes.MODE_TITLES.get(data.get("mode", ""), "A")
            puzzle = data.get("puzzle")
            return f"{mode} game begins" + (
                f" (puzzle {puzzle + 1})." if puzzle is not None else "."
            )
        if kind in ("swapped", "puzzle_solved", "puzzle_failed") or (
            kind == "game_over" and "a" in data
        ):
            text = (
                f"Swap {data['a']} and {data['b']}: {data.get('removed', 0)} gems removed, "
                f"+{data.get('score', 0):,} points (total {data.get('total', 0):,})."
            )
            if data.get("level_up"):
                text += f" Level {data['level_up']}!"
            if data.get("reshuffled"):
                text += " No move was left: the board is reshuffled."
            if kind == "puzzle_failed":
                text += " No move is left: the puzzle is stuck."
            result = data.get("result") or {}
            if result.get("summary"):
                text += f" {result['summary']}"
            return text
        if kind == "game_over":
            summary = (data.get("result") or {}).get("summary")
            return summary or "The game is over."
        if kind == "hint":
            text = f"Hint: swap {data['a']} and {data['b']}."
            if data.get("cost"):
                text += f" It cost {data['cost']:,} points."
            if data.get("bar_cost"):
                text += f" It cost {data['bar_cost']:,} of the bar."
            return text
        if kind == "undone":
            moves = data.get("moves", 0)
            stand = "stands" if moves == 1 else "stand"
            return f"The last move is taken back ({counted(moves, 'move')} {stand})."
        if kind == "restarted":
            return "The puzzle is put back as it started."
        if kind == "solution":
            moves = "; ".join(f"{a}-{b}" for a, b in data.get("solution", []))
            return f"The solution: {moves}." if moves else "The puzzle has no solution."
        if kind in ("clock_ignored", "clock_not_due"):
            return "The clock was checked; the game goes on."
        return generic_description(event, state)

    def replay_marks(self, events: list[dict[str, Any]]) -> list[tuple[int, str]]:
        return marks_where(events, _mark)

    def rules_examples(self) -> list[dict[str, Any]]:
        found = self._power_gem_example()
        if found is None:
            return []
        board, a, b, after = found
        marks = {a: "selected", b: "selected"}
        return [
            {
                "title": "A swap that makes a power gem",
                "text": (
                    f"Swapping {a} and {b} lines up four gems of one colour: three are removed "
                    "and the fourth stays as a power gem (it sparkles), which explodes when it is "
                    "removed later. Gems fall and new ones drop in from the top."
                ),
                "grids": [
                    board_grid(board, marks, caption=f"Before: swap {a} and {b}")
                    | {"name": "example-before"},
                    board_grid(after, caption="After: the power gem stays")
                    | {"name": "example-after"},
                ],
            }
        ]

    @staticmethod
    def _power_gem_example() -> tuple[str, str, str, str] | None:
        """A board, a swap on it that leaves a power gem, and the board after (refilled)."""
        for seed in range(200):
            board = engine.format_board(engine.generate_board(seed))
            for a, b in engine.legal_moves(board):
                after = engine.format_board(engine.swap(board, a, b, seed).board)
                if any(ch in engine.POWER_GEMS for ch in after):
                    return board, a, b, after
        return None


def _mark(kind: str, data: dict[str, Any]) -> str | None:
    """The start, each level reached and each restart of a puzzle."""
    if kind == "started":
        return "Start"
    if data.get("level_up"):
        return f"Level {data['level_up']}"
    return "Restart" if kind == "restarted" else None


GAME = register(Bejeweled2())
