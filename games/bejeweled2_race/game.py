"""The Bejeweled 2 race as a game definition: 2 to 13 seats play the same board at once, each on
their own; the ranking at the end pays each seat by placing and names the Elimination
Candidate, as the other main matches do.

The rules are Bejeweled 2's own (``games.bejeweled2.flow``, called once per seat); the race
(``flow.py``) keeps the seats' games, the clocks and the ranking; ``view.py`` is the one gate
and ``page.py`` what a seat's page draws from it. A
seat's page draws its own board as Bejeweled 2 does (its script animates the seat's moves from
the steps in the seat's private part of each event); spectators and the host see every board
small, side by side, with the live ranking."""

from __future__ import annotations

from typing import Any

from games.bejeweled2 import engine
from games.bejeweled2.page import board_grid
from games.bejeweled2_race import bot, flow, page, view
from games.core.game.gamedef import FlowGame, SeatInfo, State, award_value, seat_awards
from games.core.game.registry import register
from games.core.game.words import event_parts, generic_description, marks_where, seat_name


def _clock_anchors() -> dict[str, tuple[str, ...]]:
    """A pause moves each seat's Action bar (its deadline, the time its points were counted at
    and its last move's time) and the race's start (the puzzles' solve times count from it)."""
    anchors: dict[str, tuple[str, ...]] = {flow.RACE: ("started_at",)}
    for seat in range(flow.MAX_SEATS):
        anchors[flow.bar_clock(seat)] = (
            f"boards.{seat}.bar.at",
            f"boards.{seat}.deadlines.clock",
            f"boards.{seat}.turn_started",
        )
    return anchors


class Bejeweled2Race(FlowGame):
    flow = flow
    view_module = view
    page_module = page
    # What only the panels draw: a seat's grid and its bars' fill (page.py adds them as Bejeweled
    # 2's page does; the script reads the pieces' looks and the idle hint, page.SCRIPT_READS).
    page_only = ("grid", "level_percent", "bar.percent")
    bot = bot
    key = flow.GAME
    title = "Bejeweled 2 race"
    clock_anchors = _clock_anchors()
    replay_opens_at_end = True
    stylesheets = ("css/bejeweled2.css", "css/bejeweled2_race.css")
    scripts = ("js/grid.js", "js/steps.js", "js/bejeweled2.js", "js/bejeweled2_race.js")
    rules_summary = (
        "Up to 13 players race on the same board with the same new gems: Action, Classic "
        "against the clock or in a set number of moves, or a set of puzzles. Last place is the "
        "Elimination Candidate."
    )

    # --- the host ---------------------------------------------------------------------------

    def award_choices(self, state: State, seats: list[SeatInfo]) -> list[tuple[str, str]]:
        """While the race runs: end it now as it stands, or with a seat first. Once it is over
        with the last place shared: which tied seat is the Elimination Candidate."""
        if not state or "phase" not in state:
            return []
        if state["phase"] == "over":
            tied = set((state.get("result") or {}).get("ec_tied") or [])
            says = "{seat} is the Elimination Candidate"
            tied_seats = [seat for seat in seats if seat.index in tied]
            return seat_awards(tied_seats, says, to="elimination_candidate")
        ends = [(award_value({"winner": None}), "End the race now, ranked as it stands")]
        return ends + seat_awards(seats, "End the race now: {seat} wins")

    def clock_name(self, state: State, key: str) -> str:
        """A seat's Action bar clock is named for its player ("Ada's bar")."""
        if key.startswith(flow.BAR_PREFIX):
            return f"{seat_name(state, key.removeprefix(flow.BAR_PREFIX))}'s bar"
        return super().clock_name(state, key)

    # --- replay and help -------------------------------------------------------------------------
    controls_help = (
        "Everyone plays the same board with the same new gems: the same swaps give the same board.",
        "Click a gem, then a side-by-side gem to swap them (or drag one onto its neighbour).",
        "You see only your own board; the ranking shows when the host allows it, and at the end. "
        "Spectators (the public link, signed out too) see what the host chose: by default no "
        "more than the players.",
        "Stop racing ends your race with your score so far; a dropped player keeps theirs too.",
        "Keyboard: Tab to the board, arrow keys to move, Enter to choose each gem.",
    )

    def describe_event(self, event: dict[str, Any], state: State) -> str:
        kind, data, who = event_parts(event, state)
        result = data.get("result") or {}
        ending = f" {result['summary']}" if result.get("summary") else ""
        if kind == "started":
            title = flow.MODE_TITLES.get(data.get("mode", ""), "A race")
            return f"{title} begins for {data.get('seats', 'every')} players on the same board."
        if kind in ("swapped", "game_over", "puzzle_solved", "puzzle_failed"):
            if "a" in data:  # the mover's own part (or the host's)
                text = (
                    f"{who} swaps {data['a']} and {data['b']}: {data.get('removed', 0)} gems "
                    f"removed, +{data.get('score', 0):,} (total {data.get('total', 0):,})."
                )
            else:
                text = f"{who} makes a move."
            if kind == "puzzle_solved":
                text += " A puzzle solved!"
            if kind == "puzzle_failed":
                text += " No move is left: the puzzle is stuck."
            if data.get("out"):
                text += f" {who} is done."
            return text + ending
        if kind == "hint":
            return f"{who} asks for a hint."
        if kind == "undone":
            return f"{who} takes back a move."
        if kind == "restarted":
            return f"{who} restarts the puzzle."
        if kind == "stopped":
            return f"{who} stops racing; the score so far stands." + ending
        if kind == "bar_empty":
            return f"{who}'s bar runs empty." + ending
        if kind == "race_over":
            return "The time is up." + ending
        if kind == "adjudicated":
            return "The host ends the race." + ending
        if kind == "ec_named":
            return "The host names the Elimination Candidate." + ending
        if kind in ("clock_ignored", "clock_not_due"):
            return "A clock was checked; the race goes on."
        return generic_description(event, state)

    def replay_marks(self, events: list[dict[str, Any]]) -> list[tuple[int, str]]:
        return marks_where(events, _mark)

    def rules_examples(self) -> list[dict[str, Any]]:
        board = engine.format_board(engine.generate_board(7))
        a, b = engine.best_move(board)
        after = engine.format_board(engine.swap(board, a, b, 7).board)
        return [
            {
                "title": "Every seat's start",
                "text": (
                    f"Every player starts on this board. Whoever swaps {a} and {b} first sees the "
                    "same gems fall in as anyone else who makes that swap: the new gems follow "
                    "the moves, not the player."
                ),
                "grids": [
                    board_grid(board, {a: "selected", b: "selected"}, f"The start: {a} and {b}")
                    | {"name": "example-before"},
                    board_grid(after, caption="After that swap, for anyone")
                    | {"name": "example-after"},
                ],
            }
        ]


def _mark(kind: str, data: dict[str, Any]) -> str | None:
    """The race's start (the replay opens at the end, where every board and the ranking show;
    its jump list ends with "The end" as every game's does)."""
    return "Start" if kind == "started" else None


GAME = register(Bejeweled2Race())
