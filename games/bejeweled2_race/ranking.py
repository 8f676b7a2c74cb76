"""The race's ranking: what ranks a seat (its points, or the puzzles it solved and how early),
the places with their ties, and at the end what each place pays, who is the Elimination
Candidate (or the tie left to the host) and the summary. Pure; the flow ends the race with
``finish`` and the gate (view.py) shows the live ranking."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.core.game.flowkit import iso
from games.core.game.gamedef import Outcome, State
from games.core.game.words import listed

GARNETS_PER_SEAT_BEHIND = 2
"""The prize: 2 garnets for every seat that finished behind you (the last earns none; seats
that tie share their place and each earns for the seats behind them all)."""

REASONS = {
    "no_moves": "stuck",
    "time_up": "bar empty",
    "moves_used": "moves used",
    "solved": "solved all",
    "ended": "stopped",
    "race_over": "finished",
}
"""Why a seat is done, as the ranking's status column says it (short: it fits a phone)."""


def race_score(state: State, key: str) -> int:
    """What ranks a seat: its points, or in the puzzle race the puzzles solved."""
    runner = state["runners"][key]
    if state["mode"] == "puzzles":
        return runner["solved"]
    return state["boards"][key]["score"]


def _rank_key(state: State, key: str) -> tuple[int, int]:
    """Smaller is better: the score, then (puzzles) the earlier last solve."""
    runner = state["runners"][key]
    later = runner["solved_ms"] if state["mode"] == "puzzles" and runner["solved"] else 0
    return (-race_score(state, key), later)


def ranking(state: State, winner: str | None = None) -> list[dict[str, Any]]:
    """Every seat, best first, with its place (seats nothing tells apart share one: 1, 2, 2, 4).
    A winner named by the host comes first."""
    order = {key: (0 if key == winner else 1, *_rank_key(state, key)) for key in state["runners"]}
    keys = sorted(order, key=lambda k: (order[k], int(k)))
    rows: list[dict[str, Any]] = []
    for position, key in enumerate(keys, start=1):
        same = rows and order[rows[-1]["key"]] == order[key]
        runner = state["runners"][key]
        game = state["boards"][key]
        rows.append(
            {
                "key": key,
                "seat": int(key),
                "name": state["seats"][int(key)]["name"],
                "place": rows[-1]["place"] if same else position,
                "score": race_score(state, key),
                "points": game["score"] if state["mode"] != "puzzles" else runner["points"],
                "moves": runner["moves"] + game["moves"],
                "level": game["level"],
                "solved": runner["solved"],
                "done": runner["done"],
                "status": REASONS[runner["reason"]] if runner["reason"] else "racing",
            }
        )
    for row in rows:
        row["behind"] = sum(1 for other in rows if other["place"] > row["place"])
    return rows


def finish(
    new: State,
    now: datetime,
    kind: str,
    public: dict[str, Any],
    private: dict[int, dict[str, Any]],
    winner_by_host: str | None = None,
) -> Outcome:
    """The race is over (``new`` is a private copy): every seat still racing stops where it is;
    the ranking places the seats, pays them and names the Elimination Candidate."""
    for runner in new["runners"].values():
        if not runner["done"]:
            runner["done"] = True
            runner["reason"] = "race_over"
    new["phase"] = "over"
    new["deadlines"] = {}
    new["ended_at"] = iso(now)
    rows = ranking(new, winner_by_host)
    result = _result(new, rows, winner_by_host)
    new["result"] = result
    prizes = {row["seat"]: {"garnets": result["garnets"][row["key"]], "tokens": 0} for row in rows}
    return Outcome(
        state=new,
        kind=kind,
        public={**public, "result": result},
        private=private,
        result={"winner": result["winner"], "summary": result["summary"]},
        prizes=prizes,
    )


def _result(state: State, rows: list[dict[str, Any]], winner_by_host: str | None) -> dict[str, Any]:
    top = [row["seat"] for row in rows if row["place"] == 1]
    last = max(row["place"] for row in rows)
    bottom = [row["seat"] for row in rows if row["place"] == last]
    if winner_by_host is not None and len(rows) > 1:
        # The host's winner is never the Elimination Candidate.
        bottom = [seat for seat in bottom if str(seat) != winner_by_host]
    ec = bottom[0] if len(bottom) == 1 else None
    garnets = {row["key"]: GARNETS_PER_SEAT_BEHIND * row["behind"] for row in rows}
    result = {
        "winner": top[0] if len(top) == 1 else None,
        "top": top,
        "totals": {row["key"]: row["score"] for row in sorted(rows, key=lambda r: r["seat"])},
        "places": {row["key"]: row["place"] for row in rows},
        "garnets": garnets,
        "tokens": {row["key"]: 0 for row in rows},
        "elimination_candidate": ec,
        "ec_tied": bottom if ec is None else [],
        "ranking": [{k: v for k, v in row.items() if k != "key"} for row in rows],
        "mode": state["mode"],
        "by_host": winner_by_host is not None,
    }
    result["summary"] = _summary(state, result)
    return result


def _unit(state: State, score: int) -> str:
    if state["mode"] == "puzzles":
        return f"{score} puzzle{'s' if score != 1 else ''} solved"
    return f"{score:,} points"


def _summary(state: State, result: dict[str, Any]) -> str:
    name = {str(s["index"]): s["name"] for s in state["seats"]}
    totals = result["totals"]
    top = result["top"]
    if result["by_host"]:
        first = f"The host ended the race: {name[str(top[0])]} wins."
    elif len(top) == 1:
        first = f"{name[str(top[0])]} wins the race with {_unit(state, totals[str(top[0])])}."
    elif len(top) == len(totals) and result["elimination_candidate"] is None:
        # Every seat tied: first and last are the same players, said once.
        return (
            f"All {len(top)} players tie with {_unit(state, totals[str(top[0])])}; the host "
            "names the Elimination Candidate."
        )
    else:
        names = listed(name[str(s)] for s in top)
        first = f"{names} share first place with {_unit(state, totals[str(top[0])])}."
    ec = result["elimination_candidate"]
    if ec is not None:
        second = f" {name[str(ec)]} finishes last and is the Elimination Candidate."
    else:
        names = listed(name[str(s)] for s in result["ec_tied"])
        second = f" {names} share the last place; the host names the Elimination Candidate."
    return first + second
