"""What each viewer of a Bejeweled 2 race may see: ``view(state, viewer)``, pure, the only place
that decides it (the privacy gate), and ``shown_of_others``, what a viewer sees of the other
seats' races.

A seat sees its own board and nothing of another's (not its moves, which would rebuild its
board from the shared seed) until the race is over; the host sees every board, small, with the
live ranking; spectators what the host chose. The match seed is shown to no one."""

from __future__ import annotations

from typing import Any

from games.bejeweled2 import levels
from games.bejeweled2 import view as bj2_view
from games.bejeweled2_race.flow import MODE_TITLES, RACE, SPECTATOR_WORDS, available_actions
from games.bejeweled2_race.ranking import REASONS, ranking
from games.core.game.flowkit import copy_json
from games.core.game.gamedef import State, Viewer
from games.core.game.words import counted

# --- what each viewer sees ------------------------------------------------------------------------


def _bar(game: State) -> dict[str, Any] | None:
    if not game["bar"]:
        return None
    num, den = levels.bar_drain(game["mode"], game["bar"]["level"])
    size = levels.bar_size(game["bar"]["level"])
    return {
        "points": game["bar"]["points"],
        "at": game["bar"]["at"],
        "size": size,
        "drain_per_second": f"{num / den:g}",
        "percent": max(0, min(100, game["bar"]["points"] * 100 // size)),
    }


def _small_board(state: State, row: dict[str, Any]) -> dict[str, Any]:
    """One seat's board as the grid of small boards draws it."""
    game = state["boards"][row["key"]]
    puzzle = game["puzzle"]
    return {
        "seat": row["seat"],
        "name": row["name"],
        "rows": game["board"].split("\n"),
        "score": row["score"],
        "points": row["points"],
        "moves": row["moves"],
        "level": game["level"],
        "bar": _bar(game) if not row["done"] else None,
        "stuck": game["phase"] == "failed",
        "puzzle": puzzle + 1 if puzzle is not None else None,
        "done": row["done"],
        "status": row["status"],
    }


def _held_back_board(state: State, row: dict[str, Any]) -> dict[str, Any]:
    """One seat's small board as spectators see it while boards are held back: as it was
    ``held_back`` of its moves ago (the start board before that many), without its bar."""
    board = _small_board(state, row)
    trail = state["runners"][row["key"]].get("trail")
    return {**board, **(trail[0] if trail else {}), "bar": None, "held_back": True}


def shown_of_others(state: State, viewer: Viewer) -> str:
    """What ``viewer`` sees of the seats' races while it runs: ``all`` (every board live and
    the ranking: the host, and everyone once the race is over), ``held_back`` (every board some
    moves late), ``ranking`` (places and scores) or ``nothing``. A seat sees the ranking only
    if the host shows it; spectators what the host's ``spectators`` setting says (a race begun
    before it was a setting: what the players see)."""
    if state["phase"] == "over" or viewer.is_host:
        return "all"
    chosen = state.get("spectators", "as_players") if viewer.seat is None else "as_players"
    if chosen == "as_players":
        return "ranking" if state["show_ranking"] else "nothing"
    return {"live": "all", "ranking": "ranking", "held_back": "held_back"}[chosen]


def _race_facts(state: State) -> dict[str, Any]:
    mode = state["mode"]
    facts = {
        "mode": mode,
        "title": MODE_TITLES[mode],
        "phase": state["phase"],
        "seats": len(state["seats"]),
        "deadline": state["deadlines"].get(RACE),
        "minutes": state["minutes"],
        "moves_budget": state["moves_budget"],
        "puzzle_count": state["puzzle_count"],
        "puzzle_first": state["puzzle_first"] + 1 if mode == "puzzles" else None,
        "show_ranking": state["show_ranking"],
        "spectators": SPECTATOR_WORDS[state.get("spectators", "as_players")].format(
            n=state.get("held_back", 0)
        ),
        "over": state["phase"] == "over",
        "out": sum(1 for runner in state["runners"].values() if runner["done"]),
    }
    if mode == "puzzles":
        facts["limit"] = (
            f"{counted(state['puzzle_count'], 'puzzle')} from number {state['puzzle_first'] + 1}; "
            f"the first to solve them all wins ({state['minutes']} min at most)"
        )
    elif mode == "classic_moves":
        facts["limit"] = f"{state['moves_budget']} moves each ({state['minutes']} min at most)"
    elif mode == "classic_time":
        facts["limit"] = counted(state["minutes"], "minute")
    else:
        facts["limit"] = f"until every bar runs empty ({state['minutes']} min at most)"
    return facts


def _table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ranking's rows in seat order, each with its place: a move changes its own row (and
    the places it passes), never the order of the list; the page sorts them by place."""
    ordered = sorted(rows, key=lambda row: row["seat"])
    return [{k: v for k, v in row.items() if k not in ("key", "behind")} for row in ordered]


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """The one gate. A seat, while the race runs: its own board (Bejeweled 2's view of it, as
    its page draws it), the race's facts and, when the host allows it, the ranking and its
    place (no boards). Spectators: what the host's ``spectators`` setting shows
    (``shown_of_others``). The host: every board, small, and the live ranking. Once the race is
    over everyone sees everything. The match seed (which foretells every refill) is shown to no
    one."""
    others = shown_of_others(state, viewer)
    # The ranking is worked out only for a viewer shown something of the others.
    rows = ranking(state, _host_winner(state)) if others != "nothing" else []
    shown_rows = sorted(rows, key=lambda r: r["seat"])
    boards = None
    if others == "all":
        boards = [_small_board(state, row) for row in shown_rows]
    elif others == "held_back":
        boards = [_held_back_board(state, row) for row in shown_rows]
    shown: dict[str, Any] = {
        "game": "bejeweled2_race",
        "race": _race_facts(state),
        "ranking": _table(rows) if others in ("all", "ranking") else None,
        "boards": boards,
        "result": copy_json(state["result"]),
    }
    key = str(viewer.seat) if viewer.seat is not None else None
    if key is not None and key in state["runners"]:
        mine = bj2_view.view(state["boards"][key], Viewer(seat=0))
        mine["actions"] = available_actions(state, key)
        mine.pop("result", None)
        mine["you"] = True
        mine["runner"] = copy_json(state["runners"][key])
        reason = mine["runner"]["reason"]
        mine["runner"]["status"] = REASONS[reason] if reason else "racing"
        if shown["ranking"] is not None:  # a place is the ranking's: told only with it
            mine["place"] = next(row["place"] for row in rows if row["key"] == key)
        shown = {**mine, **shown, "seat": viewer.seat, "phase": mine["phase"]}
    else:
        shown["phase"] = state["phase"]
        shown["you"] = False
        shown["seat"] = None
    return shown


def _host_winner(state: State) -> str | None:
    result = state.get("result") or {}
    return str(result["top"][0]) if result.get("by_host") else None
