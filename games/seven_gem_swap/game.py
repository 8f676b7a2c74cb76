"""Seven Gem Swap as a game definition: settings, the phase machine (flow.py) and the view.

``flow.view`` is the one gate that decides what each viewer may see; ``view`` here only adds
what the page draws from it (the grid's cells, the players' table, each round's lines, the
host's step-by-step frames, the clock, the prompt), and never reads the state for anything
``flow.view`` did not already hand it. The templates and the page's script read that data as it
is: the script draws, animates and collects input, and asks the server (a draft's ``preview``)
what a sequence would do.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.core.gamedef import ActionError, FlowGame, Outcome, SeatInfo, State, Viewer
from games.core.registry import register
from games.core.words import event_parts, generic_description, seat_name
from games.seven_gem_swap import bot, engine, flow

COLOUR_NAMES = engine.COLOUR_NAMES
CLOCK_LABELS = {"bidding": "Bidding closes in", "round": "Round closes in"}
WON_BY = {
    "first": "your first choice",
    "second": "your second choice (half the bid)",
    "third": "your third choice (a quarter of the bid)",
    "random": "a random free colour (no bid counted)",
}
MAX_EXTEND_SECONDS = flow.MAX_SECONDS

GEM_CSS = {
    "R": "gem-red",
    "O": "gem-orange",
    "Y": "gem-yellow",
    "G": "gem-green",
    "B": "gem-blue",
    "I": "gem-indigo",
    "V": "gem-purple",
}
"""Each colour's gem in the site's one gem set (static/css/gems.css); violet is the purple
triangle."""

GEM_LOOKS: dict[str, dict[str, str]] = {
    **{
        gem: {"css": f"{GEM_CSS[gem]} sgs-{gem}", "text": gem, "name": f"{name} gem"}
        for gem, name in COLOUR_NAMES.items()
    },
    engine.ROCK: {"css": "rock sgs-rock", "text": "", "name": "rock"},
}
"""How each cell's content is drawn: its css class, the letter shown and the words read out
("C4, red gem"). The page's script draws any other grid (a preview, a step of a round) with the
same looks, from the grid in the view."""
STEP_FAILURES = {
    "off_grid": "off the grid",
    "locked": "into a locked cell",
    "controlled": "into a controlled gem",
    "same_target": "same target as another move",
}


def board_grid(
    text: str, *, name: str, caption: str, own: str | None = None, changed: list[str] = ()
) -> dict[str, Any]:
    """A grid's text for templates/core/_grid.html, as the board with the looks of its cells
    (games/core/templatetags/arena.py ``grid_cells``): the player's own gems and the changed
    cells are marked."""
    marks: dict[str, list[str]] = {}
    if own:
        for index, gem in enumerate(text.replace("\n", "")):
            if gem == own:
                marks.setdefault(engine.cell_name(index), []).append("sgs-own")
    for cell in changed:
        marks.setdefault(cell, []).append("sgs-changed")
    return {
        "name": name,
        "caption": caption,
        "board": text,
        "columns": engine.COLUMN_LETTERS,
        "looks": GEM_LOOKS,
        "marks": {cell: " ".join(classes) for cell, classes in marks.items()},
    }


def worded_preview(preview: dict[str, Any], round_number: int) -> dict[str, Any]:
    """A sequence's preview (flow.sequence_preview) with the sentence the composer shows under
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


def host_frames(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """The host's latest round step by step, as the page plays it: each frame a ``board`` to
    draw, the cells a gem ``moved`` into, the cells of a ``failed`` move, the cells the step
    newly ``locks`` and a sentence; the grid before any move first, the grid after last."""
    last = shown["host"]["last_round"]
    entry = shown["history"][-1]
    names = shown["names"]
    frames = [
        {"board": entry["board_before"], "text": f"Round {last['round']}: the grid before any move"}
    ]
    for number, step in enumerate(last["steps"], start=1):
        moved, failed, parts = [], [], []
        for player, start, to, direction, reason in step["moves"]:
            who = names.get(player, f"seat {player}")
            if reason is None:
                moved.append(to)
                parts.append(f"{who} {start}→{to}")
            else:
                failed.extend([start, *([to] if to else [])])
                what = STEP_FAILURES.get(reason, reason)
                parts.append(f"{who} {start} {engine.MOVE_NAMES[direction]} failed ({what})")
        frames.append(
            {
                "board": step["board"],
                "moved": moved,
                "failed": failed,
                "locks": step["locks"],
                "text": f"Step {number}: " + "; ".join(parts),
            }
        )
    frames.append({"board": entry["board_after"], "text": f"Round {last['round']}: the grid after"})
    return frames


class SevenGemSwap(FlowGame):
    flow = flow
    bot = bot
    key = flow.GAME
    title = "Seven Gem Swap"
    min_seats = flow.MIN_SEATS
    max_seats = flow.MAX_SEATS
    roles = ()
    template_dir = "seven_gem_swap"
    clock_anchors = {"bidding": ("phase_started",), "round": ("phase_started",)}
    stylesheets = ("css/seven_gem_swap.css",)
    scripts = ("js/grid.js", "js/steps.js", "js/seven_gem_swap.js")
    rules_summary = (
        "Bid for a colour, then for eight rounds steer one of your gems with a sealed sequence "
        "of moves, all players at once, to grow the largest group of your colour."
    )

    # --- settings ------------------------------------------------------------------------------

    def end_round_label(self, state: State) -> str | None:
        if state.get("phase") == "bidding":
            return "the bidding now, with the bids sent so far"
        if state.get("phase") == "round":
            return f"round {state['round']} now, with the sequences sent so far"
        return None

    def end_round(self, state: State, now: datetime) -> Outcome:
        """The running phase's clock runs out now: the bidding closes, or the round resolves
        with what was submitted (as when its time is up)."""
        clock = flow.CLOCK_OF_PHASE.get(state.get("phase", ""))
        if clock is None or clock not in state.get("deadlines", {}):
            raise ActionError("there is no round to end now", code="no_round")
        return flow.timeout(state, clock, now, None)

    def action_cost(self, state: State, seat: int, action: dict[str, Any]) -> dict[str, int]:
        """A submission that asks for a premove costs its price (nothing more when the seat's
        submission of this round already paid for one); the core refuses it when the player's
        season ledger cannot pay, and the submission's own prize is the charge."""
        return flow.premove_cost(state, seat, action)

    def refunds_on_abort(self, state: State) -> dict[int, dict[str, Any]]:
        return flow.pending_premove_refunds(state)

    # --- what a viewer sees --------------------------------------------------------------------

    def clean_draft(self, state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
        """The draft as the flow keeps it, its preview worded for the composer."""
        kept = flow.clean_draft(state, seat, draft)
        if "preview" in kept:
            kept["preview"] = worded_preview(kept["preview"], state["round"])
        return kept

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        shown = flow.view(state, viewer)
        if not shown:
            return {}
        return _decorate(shown)

    def award_choices(self, state: State, seats: list[SeatInfo]) -> list[tuple[str, str]]:
        """While the match runs: the match to any seat. Once it is over with the lowest total
        shared: which tied seat is the Elimination Candidate."""
        from games.core.gamedef import award_value, seat_label

        if not state or "phase" not in state:
            return []
        if state["phase"] == "over":
            tied = set((state.get("result") or {}).get("ec_tied") or [])
            return [
                (
                    award_value({"elimination_candidate": seat.index}),
                    f"{seat_label(seat)} is the Elimination Candidate",
                )
                for seat in seats
                if seat.index in tied
            ]
        choices = []
        for seat in seats:
            label = f"{seat_label(seat)} wins the match (2 Tokens of Life)"
            choices.append((award_value({"winner": seat.index}), label))
        return choices

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
                f"{seat_name(state, seat)} {COLOUR_NAMES.get(colour, colour)} "
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
                played = f", card {COLOUR_NAMES.get(card, card)}" if card else ""
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
        marks: list[tuple[int, str]] = []
        for event in events:
            data = event.get("data") or {}
            if event["kind"] == "started":
                marks.append((event["version"], "Bidding"))
            elif event["kind"] in ("colours_allocated", "bidding_closed"):
                marks.append((event["version"], "Round 1"))
            elif isinstance(data.get("next_round"), int):
                marks.append((event["version"], f"Round {data['next_round']}"))
        return marks

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
                    f"The {COLOUR_NAMES[own]} gem on {at} is controlled and moved {moves} "
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


def players(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """The players' table (and the status line's chips) of a view."""
    me = shown.get("me")
    you = str(me["seat"]) if me else None
    colours = shown["colours"]
    return [
        {
            "index": s["index"],
            "name": s["name"],
            "is_bot": s["is_bot"],
            "is_you": str(s["index"]) == you,
            "colour": colours.get(str(s["index"])),
            "colour_name": COLOUR_NAMES.get(colours.get(str(s["index"]), ""), ""),
            "starting": shown["starting_scores"].get(str(s["index"])),
            "score": shown["scores"].get(str(s["index"])),
            "played": shown["played"].get(str(s["index"]), []),
            "has_bid": s["index"] in shown["bids_in"],
            "submitted": s["index"] in shown["submitted"],
            "no_bid": str(s["index"]) in shown["no_bid"],
        }
        for s in shown["seats"]
    ]


def host_rows(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """The host's table of every seat's secrets; empty for anyone but the host (whose view
    alone has a ``host`` part)."""
    host = shown.get("host")
    if host is None:
        return []
    allocation = host["allocation"] or {}
    return [
        {
            "index": s["index"],
            "name": s["name"],
            "bid": host["bids"].get(str(s["index"])),
            "by": allocation.get(str(s["index"]), {}).get("by"),
            "submission": host["submissions"].get(str(s["index"])),
            "premoves": host["premoves"].get(str(s["index"]), 0),
        }
        for s in shown["seats"]
    ]


def round_lines(shown: dict[str, Any], entry: dict[str, Any]) -> list[dict[str, Any]]:
    """A played round's line per player for the rounds panel: the name, the card played (when
    one was), the points signed and how they came (``(5x6 -1)``: group 5 times 6, a failed
    move; omitted when nothing scored)."""
    names = shown["names"]
    lines = []
    for key, scored in entry["points"].items():
        line = {"name": names.get(key, key), "points": f"{scored['points']:+d}"}
        if entry["cards"].get(key):
            line["card"] = entry["cards"][key]
        failed = " -1" if scored["penalty"] else ""
        if scored["multiplier"]:
            line["detail"] = f"({scored['group']}x{scored['multiplier']}{failed})"
        elif failed:
            line["detail"] = "(-1)"
        lines.append(line)
    return lines


def main_grid(shown: dict[str, Any]) -> dict[str, Any]:
    """The grid of a view: the player's own gems and the cells the last round changed are
    marked."""
    phase = shown["phase"]
    me = shown.get("me")
    last = shown["history"][-1] if shown["history"] else None
    if phase == "bidding":
        caption = "The grid: colours are bid for before round 1"
    elif phase == "over":
        caption = "The final grid"
    else:
        caption = f"The grid as round {shown['round']} starts"
    return board_grid(
        shown["board"],
        name="sgs",
        caption=caption,
        own=me["colour"] if me else None,
        changed=last["changed"] if last and phase != "bidding" else [],
    )


def last_round(shown: dict[str, Any]) -> dict[str, Any] | None:
    """The round played last, for the grid's "before" toggle: the grid before it, the cells it
    changed and the caption of that grid."""
    if not shown["history"]:
        return None
    entry = shown["history"][-1]
    return {
        "round": entry["round"],
        "board_before": entry["board_before"],
        "changed": entry["changed"],
        "caption": f"The grid before round {entry['round']} (changed cells outlined)",
    }


def host_round(shown: dict[str, Any]) -> dict[str, Any]:
    """The host's latest round as the host panel draws it: each seat's sequence and the frames
    to play step by step."""
    last = shown["host"]["last_round"]
    names = shown["names"]
    return {
        "round": last["round"],
        "sequences": [
            {"name": names.get(key, key), **sent} for key, sent in last["submissions"].items()
        ],
        "step_count": len(last["steps"]),
        "frames": host_frames(shown),
        "caption": f"Round {last['round']} step by step",
    }


def _decorate(shown: dict[str, Any]) -> dict[str, Any]:
    """What the page draws, derived only from ``shown`` (flow.view's answer for this viewer).
    The parts a drawing replaces (the rounds' history, the host's bids and steps) are left out:
    the view travels in every frame, which must stay small."""
    phase = shown["phase"]
    me = shown.get("me")
    own = me["colour"] if me else None
    names = {str(s["index"]): s["name"] for s in shown["seats"]}
    clock_key = flow.CLOCK_OF_PHASE.get(phase)
    due = shown["deadlines"].get(clock_key) if clock_key else None
    shown["clock"] = (
        {"key": clock_key, "label": CLOCK_LABELS[clock_key], "due": due} if due else None
    )
    shown["colour_list"] = [{"letter": k, "name": v} for k, v in COLOUR_NAMES.items()]
    if me:
        me["colour_name"] = COLOUR_NAMES.get(own or "", "")
        me["won_by_text"] = WON_BY.get(me["won_by"] or "", "")
        me["cards"] = [
            {"letter": c, "name": COLOUR_NAMES[c], "left": c in me["cards_left"]}
            for c in engine.COLOURS
        ]
        me["gems"] = [
            engine.cell_name(index)
            for index, gem in enumerate(shown["board"].replace("\n", ""))
            if gem == own
        ]
        if me["preview"]:
            me["preview"] = worded_preview(me["preview"], shown["round"])
    shown["prompt"] = _prompt(shown)
    shown["names"] = names
    shown["grid"] = main_grid(shown)
    shown["players"] = players(shown)
    shown["rounds_played"] = [
        {"round": e["round"], "changed": len(e["changed"]), "lines": round_lines(shown, e)}
        for e in shown["history"]
    ]
    shown["last_round"] = last_round(shown)
    host = shown.get("host")
    if host is not None:
        host["rows"] = host_rows(shown)
        host["last_round"] = host_round(shown) if host["last_round"] else None
        for drawn in ("bids", "allocation", "premoves"):
            del host[drawn]
    del shown["history"], shown["last"]
    return shown


def _prompt(shown: dict[str, Any]) -> str:
    phase = shown["phase"]
    me = shown.get("me")
    if phase == "bidding":
        if me is None:
            return "The players are bidding for their colours. Bids stay secret."
        if me["bid"]:
            return "Your bid is in. You may replace it until every bid is in or the clock ends."
        return (
            "Bid for your colour: a number of points (0 or less) and three colours ranked. "
            "The most negative bid takes the colour; you start with that many points."
        )
    if phase == "round":
        if me is None:
            return (
                f"Round {shown['round']} of {shown['rounds']}: the players are composing their "
                "sealed sequences."
            )
        if me["submission"]:
            return (
                "Your sequence is in. You may change it and submit again until everyone has "
                "submitted or the clock ends."
            )
        return (
            f"Round {shown['round']}: pick one of your {me['colour_name']} gems on the grid, "
            "then add moves with the arrow keys or by clicking the cell next to the end of your "
            "path."
        )
    result = shown.get("result") or {}
    return result.get("summary", "The match is over.")


GAME = register(SevenGemSwap())
