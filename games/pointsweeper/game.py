"""Pointsweeper as a game definition: the core's view of flow.py (the phase machine, its one
``view`` gate), the bot and the analysis of each finished board."""

from __future__ import annotations

import math
from typing import Any

from games.core.gamedef import FlowGame, State, Viewer
from games.core.registry import register
from games.core.words import event_parts, generic_description, round_marks, seat_name
from games.pointsweeper import bot, engine, flow


class Pointsweeper(FlowGame):
    flow = flow
    bot = bot
    key = "pointsweeper"
    title = "Pointsweeper"
    roles = ("EC", "DMO")
    template_dir = "pointsweeper"
    clock_anchors = {"turn": ("turn_started",)}
    stylesheets = ("css/pointsweeper.css",)
    scripts = ("js/grid.js", "js/pointsweeper.js")
    rules_summary = (
        "Three hidden 8x8 boards of tiles and mines: scout with chess pieces to learn sums, "
        "then claim paths for points. Each mine costs more than the last."
    )

    # --- what a viewer sees --------------------------------------------------------------------

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        shown = flow.view(state, viewer)
        if shown:
            shown["board_grid"] = board_grid(shown)
            shown["players"] = players(shown)
            shown["reviews"] = reviews(shown)
            shown["finished"] = finished_boards(shown)
        return shown

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
            why = flow.BOARD_END_REASONS.get(over.get("reason"), "")
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


def reviews(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """Each analysed finished board: every claim or pass beside the best claim the player could
    have made, judged from what they knew then (public: the board is over)."""
    names = [seat["name"] for seat in shown["seats"]]
    out = []
    for record in shown["history"]:
        analysis = record.get("analysis")
        if not analysis:
            continue
        lines = []
        for seat, decisions in sorted(analysis["seats"].items()):
            for d in decisions:
                best = d["best"][0] if d["best"] else None
                if d["type"] == "claim":
                    made = f"claimed with {d['piece']} {d['start']}–{d['end']}"
                    made += f": expected {d['ev']:+.1f} (choice {d['rank']} of the best)"
                else:
                    made = "passed (worth 0)"
                best_text = "no claim was possible"
                if best:
                    where = f"{best['piece']} {best['start']}–{best['end']}"
                    best_text = f"best: {where}, expected {best['ev']:+.1f}"
                lines.append(
                    {"n": d["n"], "name": names[int(seat)], "made": made, "best": best_text}
                )
        lines.sort(key=lambda line: line["n"])
        out.append({"board_no": record["board_no"], "lines": lines})
    return out


def minutes(seconds: float) -> str:
    """A time left as the clocks show it: 2:00, 0:07 (whole seconds, rounded up)."""
    whole = max(0, math.ceil(seconds - 1e-9))
    return f"{whole // 60}:{whole % 60:02d}"


BOARD_END_WORDS = {
    "all_tiles": "every tile was claimed",
    "all_mines": "every mine was claimed",
    "out_of_pieces": "both players ran out of pieces",
    "passed": "both players passed",
}


def finished_boards(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """Each finished board as everyone may now see it: why it ended, each player's points and
    mines on it, and every scout of both players with its result."""
    names = [seat["name"] for seat in shown["seats"]]
    out = []
    for record in shown["history"]:
        rows = []
        for seat in (0, 1):
            notes = record["notebooks"].get(str(seat), [])
            rows.append(
                {
                    "name": names[seat],
                    "points": record["points"][seat],
                    "mines": record["mines"][seat],
                    "scouts": [
                        {
                            "text": f"{n['piece']} on {n['square']}: sum {n['sum']}, "
                            f"mines {n['mines']}",
                            "squares": " ".join(n["squares"]),
                        }
                        for n in notes
                    ],
                }
            )
        out.append(
            {
                "board_no": record["board_no"],
                "reason": BOARD_END_WORDS.get(record["reason"], record["reason"]),
                "players": rows,
            }
        )
    return out


def players(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """Each seat as the page lists it: name, role, pieces with their used marks, bank, scores."""
    play = shown.get("play")
    totals = shown["totals"]
    out = []
    for seat in shown["seats"]:
        index = seat["index"]
        out.append(
            {
                **seat,
                "is_you": index == shown["you"],
                "to_move": index == shown["turn"],
                "pieces": play["pieces"][str(index)] if play else [],
                "bank": play["bank"][index] if play else None,
                "bank_text": minutes(play["bank"][index]) if play else "",
                "passed": play["passed"][index] if play else False,
                "board_points": play["points"][index] if play else 0,
                "board_mines": play["mines"][index] if play else 0,
                "points": totals["points"][index],
                "mines": totals["mines"][index],
                "penalty": totals["penalty"][index],
                "total": totals["total"][index],
            }
        )
    return out


def _cell(square: str, value: str | None, owner: int | None, names: list[str]) -> dict[str, Any]:
    """One square for the grid template: hidden, a tile with its value, or a mine."""
    if value is None:
        return {"cell": square, "text": "", "css": "ps-hidden", "label": f"{square}, hidden"}
    by = f", claimed by {names[owner]}" if owner is not None else ""
    marks = f"ps-owner-{owner}" if owner is not None else ""
    if value == engine.MINE:
        return {
            "cell": square,
            "text": "M",
            "css": "ps-mine",
            "label": f"{square}, mine{by}",
            "marks": marks,
        }
    return {
        "cell": square,
        "text": value,
        "css": "ps-tile",
        "label": f"{square}, {value}{by}",
        "marks": marks,
    }


def board_grid(shown: dict[str, Any]) -> dict[str, Any]:
    """The 8x8 chessboard (rank 8 on top, files a-h) as the grid template wants it: the board in
    play as the view shows it, or between boards the last finished board whole."""
    names = [seat["name"] for seat in shown["seats"]]
    play = shown.get("play")
    rows: list[list[dict[str, Any]]] = []
    if play:
        truth = engine.parse_board(play["truth"]) if play.get("truth") else None
        for row in play["grid"]:
            cells = []
            for c in row:
                value = (
                    str(c["value"])
                    if c["state"] == "tile"
                    else (engine.MINE if c["state"] == "mine" else None)
                )
                cell = _cell(c["square"], value, c.get("owner"), names)
                if value is None and truth is not None:  # the host sees what is under it
                    under = str(truth[c["square"]])
                    label = f"{c['square']}, hidden {under}"
                    cell.update(text=under, marks="ps-truth", label=label)
                cells.append(cell)
            rows.append(cells)
        caption = "The board"
        shown_no = shown["board_no"]
    elif shown.get("history"):
        record = shown["history"][-1]
        board = engine.parse_board(record["board"])
        owners: dict[str, int] = {}
        for entry in record["log"]:
            if entry["type"] == "claim":
                for square in entry["squares"]:
                    owners[square] = entry["seat"]
        for rank in range(engine.SIZE, 0, -1):
            rows.append(
                [
                    _cell(f"{f}{rank}", str(board[f"{f}{rank}"]), owners.get(f"{f}{rank}"), names)
                    for f in engine.FILES
                ]
            )
        caption = f"Board {record['board_no']} as it was (finished)"
        shown_no = record["board_no"]
    else:
        for rank in range(engine.SIZE, 0, -1):
            rows.append([_cell(f"{f}{rank}", None, None, names) for f in engine.FILES])
        caption = f"Board {shown['board_no']} (not started)"
        shown_no = shown["board_no"]
    return {"name": "board", "caption": "", "title": caption, "board_no": shown_no, "rows": rows}


POINTSWEEPER = register(Pointsweeper())
