"""What each viewer of a Pointsweeper match may see: ``view(state, viewer)``, pure, the only
place that decides it (the privacy gate), with the facts it reads (whose move it is, the move's
deadline, the legal moves of the viewer's own seat).

Hidden information lives in the state (``boards``, ``play.notebooks``): a seat sees its own
notebook, no one sees a board's points before it is over, and once a board is over everything on
it is shown to everyone. Pages, frames, replays, exports and the bots all read a match through
it."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from typing import Any

from games.core.game.flowkit import iso
from games.core.game.gamedef import State, Viewer
from games.pointsweeper import engine
from games.pointsweeper.board_end import BOARDS, totals
from games.pointsweeper.flow import PIECE_IDS
from games.pointsweeper.players import first_player, legal_for

# --- what a viewer sees --------------------------------------------------------------------------


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """Everything ``viewer`` may see of ``state``. While a board is in play a seat or a spectator
    sees the claimed squares, which piece was placed where, the clocks and their own notebook (a
    seat); never an unclaimed tile, an unclaimed mine or the other seat's scout results. The host
    sees everything. A finished board is shown whole to everyone. What it shows as the state
    holds it (the seats, the log's entries, the finished boards) is shared with the state, not
    copied: a view is read, never changed."""
    if not state or "phase" not in state:
        return {}
    you = viewer.seat if viewer.seat in (0, 1) else None
    host = viewer.is_host and you is None
    out: dict[str, Any] = {
        "game": "pointsweeper",
        "phase": state["phase"],
        "board_no": state["board_no"],
        "boards_total": BOARDS,
        "seats": state["seats"],
        "you": you,
        "is_host": host,
        "dmo": state["dmo"],
        "ec": state["ec"],
        "chooser": state["chooser"],
        "first": state["first"],
        "turn": state["turn"],
        "to_move": to_move(state),
        "turn_started": state["turn_started"],
        "deadlines": dict(state.get("deadlines", {})),
        "settings": dict(state["settings"]),
        "pieces": list(PIECE_IDS),
        "totals": totals(state),
        "history": state["history"],
        "winner": state["winner"],
        "final": state["final"],
        "legal": _legal_view(state, you) if you is not None else None,
        "move_deadline": move_deadline(state),
        "play": _play_view(state, you, host) if state["play"] else None,
    }
    if host:
        out["boards"] = list(state["boards"])
    return out


def to_move(state: State) -> list[int]:
    """The seats the match waits for: the chooser while a board's order is chosen, else the
    player whose turn it is."""
    if state["phase"] == "order":
        return [state["chooser"]]
    if state["phase"] == "play" and state["turn"] is not None:
        return [state["turn"]]
    return []


def move_deadline(state: State) -> str | None:
    """When the free time of the move in play runs out and the mover's bank starts to run (the
    turn clock ``deadlines["turn"]`` runs out when the bank is empty too)."""
    if state["phase"] != "play" or not state.get("turn_started"):
        return None
    started = datetime.fromisoformat(state["turn_started"])
    return iso(started + timedelta(seconds=state["settings"]["move_seconds"]))


@cache
def _destinations(letter: str, first: bool) -> dict[str, str]:
    ends: dict[str, list[str]] = {}
    for start, end in engine.legal_moves(letter, first):
        ends.setdefault(start, []).append(end)
    return {start: " ".join(squares) for start, squares in ends.items()}


def claim_destinations(state: State, seat: int, pieces: list[str]) -> dict[str, dict[str, str]]:
    """Where each kind of piece in ``pieces`` may claim to, from each start square, for ``seat``
    on the board in play: ``{"R": {"a1": "a2 a3 ... b1 ..."}}`` (ends joined by spaces; a pawn's
    direction is this seat's). The page highlights these; the rules check ``engine.claim``."""
    first = first_player(state, seat)
    letters = dict.fromkeys(engine.piece_letter(piece) for piece in pieces)
    return {letter: dict(_destinations(letter, first)) for letter in letters}


def _legal_view(state: State, seat: int) -> dict[str, Any]:
    """What the seat may do now, and where each of its kinds of piece could claim to on the
    board in play (the same all board long, whoever's turn it is: a turn's update does not
    send it again)."""
    legal = legal_for(state, seat)
    pieces = list(PIECE_IDS) if state["phase"] == "play" else []
    legal["destinations"] = claim_destinations(state, seat, pieces)
    return legal


def _play_view(state: State, you: int | None, host: bool) -> dict[str, Any]:
    play = state["play"]
    grid = []
    for rank in range(engine.SIZE, 0, -1):
        row = []
        for file in engine.FILES:
            square = f"{file}{rank}"
            if square in play["revealed"]:
                value = play["revealed"][square]
                cell = {"square": square, "owner": play["claimed"][square]}
                if value == engine.MINE:
                    cell["state"] = "mine"
                else:
                    cell.update(state="tile", value=value)
            else:
                cell = {"square": square, "state": "hidden"}
            row.append(cell)
        grid.append(row)
    log = list(play["log"])
    pieces = {
        str(seat): [
            {
                "id": piece,
                "scouted": piece in play["used"][str(seat)]["scouted"],
                "claimed": piece in play["used"][str(seat)]["claimed"],
            }
            for piece in PIECE_IDS
        ]
        for seat in (0, 1)
    }
    out: dict[str, Any] = {
        "grid": grid,
        "log": log,
        "pieces": pieces,
        "turns": list(play["turns"]),
        "passed": list(play["passed"]),
        "bank": list(play["bank"]),
        "points": list(play["points"]),
        "mines": list(play["mines"]),
        "notebook": list(play["notebooks"][str(you)]) if you is not None else None,
    }
    if host:
        out["truth"] = state["boards"][state["board_no"] - 1]
        out["notebooks"] = {seat: list(notes) for seat, notes in play["notebooks"].items()}
    return out
