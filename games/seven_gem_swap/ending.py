"""The end of a Seven Gem Swap match: the players placed by their totals, the Tokens of Life
and garnets paid, the Elimination Candidate named (or the tie left to the host), and the
summary that says it all. Pure."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.core.game.flowkit import iso
from games.core.game.gamedef import Outcome, State
from games.core.game.words import listed
from games.seven_gem_swap import engine
from games.seven_gem_swap.seats import player_name, seat_keys

TOP_TOKENS = 2


def finish(
    state: State,
    now: datetime,
    *,
    kind: str,
    public: dict[str, Any],
    private: dict[int, dict[str, Any]] | None = None,
    winner_by_host: str | None = None,
) -> Outcome:
    """The match is over (``state`` is already a private copy): place the players."""
    totals = dict(state["scores"])
    placing = engine.final_placing(totals)
    tokens = placing["tokens"]
    if winner_by_host is not None:
        tokens = {k: (TOP_TOKENS if k == winner_by_host else 0) for k in totals}
        winner: int | None = int(winner_by_host)
    else:
        winner = int(placing["top"][0]) if len(placing["top"]) == 1 else None
    ec = placing["elimination_candidate"]
    ec_tied = placing["ec_tied"]
    if winner_by_host is not None:
        # The host's winner is never the Elimination Candidate: the lowest of the others is.
        others = {k: v for k, v in totals.items() if k != winner_by_host}
        lowest = engine.final_placing(others)
        ec, ec_tied = lowest["elimination_candidate"], lowest["ec_tied"]
        placing = {**placing, "ec_tied": ec_tied}
    result = {
        "winner": winner,
        "top": [int(k) for k in placing["top"]],
        "totals": totals,
        "tokens": tokens,
        "garnets": placing["garnets"],
        "elimination_candidate": int(ec) if ec is not None else None,
        "ec_tied": [int(k) for k in ec_tied],
        "summary": _summary(state, placing, winner, tokens, ec, winner_by_host is not None),
    }
    prizes = {
        int(k): {"garnets": placing["garnets"][k], "tokens": tokens[k]} for k in seat_keys(state)
    }
    state["phase"] = "over"
    state["phase_started"] = iso(now)
    state["deadlines"] = {}
    state["result"] = result
    state["elimination_candidate"] = result["elimination_candidate"]
    public = {**public, "result": result}
    return Outcome(
        state=state,
        kind=kind,
        public=public,
        private=private or {},
        result={"winner": winner, "summary": result["summary"]},
        prizes=prizes,
    )


def _summary(
    state: State,
    placing: dict[str, Any],
    winner: int | None,
    tokens: dict[str, int],
    ec: str | None,
    by_host: bool,
) -> str:
    totals = state["scores"]
    if by_host and winner is not None:
        first = f"The host awarded the match to {player_name(state, winner)}."
    elif winner is not None:
        first = (
            f"{player_name(state, winner)} wins with {totals[str(winner)]} points and takes "
            f"{TOP_TOKENS} Tokens of Life."
        )
    else:
        names = listed(player_name(state, k) for k in placing["top"])
        share = "each take a Token of Life" if tokens[placing["top"][0]] else "share the top"
        first = f"{names} tie on {totals[placing['top'][0]]} points and {share}."
    if ec is not None:
        second = f" {player_name(state, ec)} is the Elimination Candidate."
    else:
        names = listed(player_name(state, k) for k in placing["ec_tied"])
        second = f" {names} share the lowest total; the host names the Elimination Candidate."
    return first + second
