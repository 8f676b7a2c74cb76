"""What the Pointsweeper page draws from a view (``view.view``'s answer, never the state):
``page(shown)`` adds the chessboard as a grid, the players' rows, the move log, the finished
boards and their reviews. Everything added is derived from the view alone."""

from __future__ import annotations

import math
from typing import Any

from games.pointsweeper import engine

# --- the page: what it draws from the view (the gate's answer, never the state) ----------------


def page(shown: dict[str, Any]) -> dict[str, Any]:
    """``shown`` (what ``view`` lets this viewer see) with what the page draws from it: the
    chessboard as a grid, the players' rows, the finished boards and their reviews."""
    shown["names"] = [seat["name"] for seat in shown["seats"]]
    shown["in_play"] = bool(shown.get("play"))
    shown["board_grid"] = board_grid(shown)
    shown["players"] = players(shown)
    shown["piece_rows"] = piece_rows(shown)
    shown["offer"] = offer(shown)
    shown["order_text"] = order_text(shown)
    shown["reviews"] = reviews(shown)
    shown["finished"] = finished_boards(shown)
    shown["log"], shown["log_title"] = moves_shown(shown)
    return shown


def moves_shown(shown: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """The move log the page lists and its heading: the board in play's; between boards and
    once the match is over, the last finished board's (its moves, not "no moves yet")."""
    if shown.get("play"):
        return shown["play"]["log"], "Moves on this board"
    if shown.get("history"):
        last = shown["history"][-1]
        return last["log"], f"Moves on board {last['board_no']} (finished)"
    return [], "Moves on this board"


def piece_rows(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """Each player's name and pieces with their used marks, while a board is in play: the same
    for every viewer (the pieces panel is drawn once for all of them)."""
    play = shown.get("play")
    if not play:
        return []
    return [
        {"name": seat["name"], "pieces": play["pieces"][str(seat["index"])]}
        for seat in shown["seats"]
    ]


def offer(shown: dict[str, Any]) -> dict[str, list[str]] | None:
    """The pieces a seat's move forms list: on its turn what ``legal`` allows, between its turns
    the same pieces that turn will allow (the forms stay in the page, hidden, so that a turn
    coming or going changes a few attributes rather than the whole panel). None for a viewer
    without a seat or with no board in play."""
    you, play = shown["you"], shown.get("play")
    if you is None or not play:
        return None
    legal = shown["legal"]
    if legal["pass"]:
        return {"scout": legal["scout"], "claim": legal["claim"]}
    pieces = play["pieces"][str(you)]
    claiming = play["turns"][you] >= shown["settings"]["scout_turns"]
    return {
        "scout": [p["id"] for p in pieces if not p["scouted"] and not p["claimed"]],
        "claim": [p["id"] for p in pieces if claiming and not p["claimed"]],
    }


def reviews(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """Each analysed finished board: every claim or pass beside the best claim the player could
    have made, judged from what they knew then (public: the board is over)."""
    names = [seat["name"] for seat in shown["seats"]]
    out = []
    for record in shown["history"]:
        analysis = record.get("analysis")
        if not analysis:
            continue
        made_by = {entry["n"]: entry.get("name") for entry in record.get("log") or ()}
        lines = []
        for seat, decisions in sorted(analysis["seats"].items()):
            for d in decisions:
                best = d["best"][0] if d["best"] else None
                if d["type"] == "claim":
                    made = f"claimed with {d['piece']} {d['start']}–{d['end']}"
                    made += f": expected {d['ev']:+.1f} ({_standing(d['rank'])})"
                else:
                    made = "passed (worth 0)"
                best_text = "no claim was possible"
                if best:
                    where = f"{best['piece']} {best['start']}–{best['end']}"
                    best_text = f"best: {where}, expected {best['ev']:+.1f}"
                lines.append(
                    {
                        "n": d["n"],
                        "name": made_by.get(d["n"]) or names[int(seat)],
                        "made": made,
                        "best": best_text,
                    }
                )
        lines.sort(key=lambda line: line["n"])
        out.append({"board_no": record["board_no"], "lines": lines})
    return out


def _standing(rank: int) -> str:
    """How a claim stood among every claim open to its player then (1 is the best)."""
    better = rank - 1
    if better == 0:
        return "no claim open expected more"
    return f"{better:,} other claim{'s' if better != 1 else ''} expected more"


def order_text(shown: dict[str, Any]) -> str:
    """Who moves first on the board in play and which way each player's pawns go (the first
    player's toward rank 8, up the board as drawn), in the viewer's words."""
    first = shown["first"]
    if shown["phase"] != "play" or first is None:
        return ""
    names = [seat["name"] for seat in shown["seats"]]
    you = shown["you"]

    def whose(seat: int) -> str:
        return "your" if seat == you else f"{names[seat]}’s"

    mover = "You move" if first == you else f"{names[first]} moves"
    return (
        f"{mover} first on this board: {whose(first)} pawns go up, toward rank 8; "
        f"{whose(1 - first)} go down, toward rank 1."
    )


def proven_tiles(log: list[dict[str, Any]]) -> set[str]:
    """Hidden squares a claim proved to be tiles: a claim that hits mines claims only those, so
    every other square of its path holds no mine."""
    proven: set[str] = set()
    for entry in log:
        if entry["type"] == "claim" and entry["mines"]:
            proven.update(s for s in entry["path"] if s not in entry["squares"])
    return proven


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
                            f"{n['mines']} mine{'s' if n['mines'] != 1 else ''}",
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
        proven = proven_tiles(play["log"])
        for row in play["grid"]:
            cells = []
            for c in row:
                value = (
                    str(c["value"])
                    if c["state"] == "tile"
                    else (engine.MINE if c["state"] == "mine" else None)
                )
                cell = _cell(c["square"], value, c.get("owner"), names)
                if value is None and c["square"] in proven:
                    label = f"{c['square']}, hidden: a tile (a claim through it hit only mines)"
                    cell.update(text="○", marks="ps-proven", label=label)
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
