"""Seven Gem Swap as a game definition: its flow (flow.py: the rules, with its parts beside it), its
gate (view.py: ``view``, what each viewer sees), its page (page.py: the grid, tables, host frames
and prompt drawn from a view) and bot wired into the core, with the host's round ending and
awards, replay words and help."""

from __future__ import annotations

from typing import Any

from games.core.game.gamedef import (
    FlowGame,
    SeatInfo,
    State,
    seat_awards,
)
from games.core.game.registry import register
from games.core.game.words import event_parts, generic_description, marks_where, seat_name
from games.seven_gem_swap import bot, engine, flow, page, view
from games.seven_gem_swap.page import board_grid


class SevenGemSwap(FlowGame):
    flow = flow
    view_module = view
    page_module = page
    bot = bot
    key = flow.GAME
    title = "Seven Gem Swap"
    clock_anchors = {"bidding": ("phase_started",), "round": ("phase_started",)}
    # What only the panels draw (page.page and the gate's facts they show: scores, cards, clocks,
    # a seat's past rounds): frames and the page's JSON view leave it out; the round's event says
    # what a round did. What the page's script reads of what page.page adds travels (page.py
    # ``SCRIPT_READS``: the grid, the last round, the host's step words, a seat's colour name),
    # less what the script does not read of it: the grid's own copy of the board, its marks
    # (the script makes them from the view's ``board`` and the last round) and the captions
    # (from the panel).
    page_only = (
        "grid.board",
        "grid.marks",
        "grid.caption",
        "last_round.caption",
        "players",
        "progress",
        "table",
        "composing",
        "rounds_played",
        "prompt",
        "names",
        "colour_list",
        "clock",
        "phase_started",
        "deadlines",
        "scores",
        "played",
        "submitted",
        "bids_in",
        "me.gems",
        "me.cards",
        "me.rounds",
        "me.missed",
        "me.won_by_text",
        "host.rows",
        "host.submissions",
        "host.last_round.round",
        "host.last_round.step_count",
    )
    rules_summary = (
        "Bid for a colour, then for eight rounds steer one of your gems with a sealed sequence "
        "of moves, all players at once, to grow the largest group of your colour."
    )

    # --- the host ---------------------------------------------------------------------------

    def award_choices(self, state: State, seats: list[SeatInfo]) -> list[tuple[str, str]]:
        """While the match runs: the match to any seat. Once it is over with the lowest total
        shared: which tied seat is the Elimination Candidate."""
        if not state or "phase" not in state:
            return []
        if state["phase"] == "over":
            tied = set((state.get("result") or {}).get("ec_tied") or [])
            says = "{seat} is the Elimination Candidate"
            tied_seats = [seat for seat in seats if seat.index in tied]
            return seat_awards(tied_seats, says, to="elimination_candidate")
        return seat_awards(seats, "{seat} wins the match (2 Tokens of Life)")

    # --- replay and help -------------------------------------------------------------------------
    controls_help = (
        "Before round 1, bid negative points and rank three colours, then send the bid.",
        "Each round, click one gem of your colour on the grid to control it.",
        "Add moves with the arrow keys, the arrow buttons or a click on the cell beside the path's "
        "end; the preview shows your path as if no one else moved.",
        "From round 2, choose a colour card; tick premove to run a step ahead (costs garnets).",
        "Send your submission; you may replace it until everyone has sent or the clock ends.",
    )

    def describe_event(self, event: dict[str, Any], state: State) -> str:
        kind, data, who = event_parts(event, state)
        if kind == "started":
            return "The grid is revealed; the players bid for their colours."
        if kind == "bid_received":
            return f"{who} has sent a bid."
        if kind in ("colours_allocated", "bidding_closed"):
            colours = data.get("colours") or {}
            starting = data.get("starting_scores") or {}
            parts = [
                f"{seat_name(state, seat)} {engine.COLOUR_NAMES.get(colour, colour)} "
                f"(starts at {starting.get(seat, 0)})"
                for seat, colour in colours.items()
            ]
            return f"Colours: {', '.join(parts)}. Round 1 begins."
        if kind == "submitted":
            return f"{who} has sent a submission."
        if kind in ("round_resolved", "round_time_up") or "board_after" in data:
            points = data.get("points") or {}
            cards = data.get("cards") or {}
            parts = []
            for seat, scored in points.items():
                card = cards.get(seat)
                played = f", card {engine.COLOUR_NAMES.get(card, card)}" if card else ""
                penalty = ", a failed move" if scored.get("penalty") else ""
                parts.append(
                    f"{seat_name(state, seat)} {scored.get('points', 0):+d}{played}{penalty}"
                )
            text = f"Round {data.get('round')} resolved: {'; '.join(parts)}."
            result = data.get("result") or {}
            if result.get("summary"):
                text += f" {result['summary']}"
            return text
        if kind == "deadline_extended":
            return f"The host extends the clock by {data.get('seconds')} seconds."
        if kind == "ec_named":
            named = seat_name(state, data.get("elimination_candidate"))
            return f"The host names {named} the Elimination Candidate."
        if kind == "clock_ignored":
            return "A clock that was no longer running ended; nothing changed."
        return generic_description(event, state)

    def replay_marks(self, events: list[dict[str, Any]]) -> list[tuple[int, str]]:
        return marks_where(events, _round_mark)

    def rules_examples(self) -> list[dict[str, Any]]:
        before = engine.format_board(engine.generate_board(5))
        own = next(gem for gem in before if gem in engine.COLOURS)
        at = engine.cell_name(before.replace("\n", "").index(own))
        moves = "RRUL"
        result = engine.resolve_round(before, {"0": (at, moves, False)})
        after = engine.format_board(result.board)
        failed = bool(result.failed.get("0"))
        end = "stopped at a failed move and cost a point" if failed else "ran in full"
        return [
            {
                "title": "A round's moves",
                "text": (
                    f"The {engine.COLOUR_NAMES[own]} gem on {at} is controlled and moved {moves} "
                    f"(right, right, up, left). Each move swaps it with its neighbour and locks "
                    f"the cell it left, so moving back into a cell it left fails. This sequence "
                    f"{end}."
                ),
                "grids": [
                    board_grid(
                        before, name="example-before", caption=f"Before: {at} controlled", own=own
                    ),
                    board_grid(
                        after,
                        name="example-after",
                        caption="After the round",
                        own=own,
                        changed=engine.changed_cells(before, after),
                    ),
                ],
            }
        ]


def _round_mark(kind: str, data: dict[str, Any]) -> str | None:
    """The bidding, round 1 once the colours are out, and each round its event names next."""
    if kind == "started":
        return "Bidding"
    if kind in ("colours_allocated", "bidding_closed"):
        return "Round 1"
    following = data.get("next_round")
    return f"Round {following}" if isinstance(following, int) else None


GAME = register(SevenGemSwap())
