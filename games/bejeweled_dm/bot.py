"""The practice bot and the after-round optimum: pure functions over the match state.

Both rest on the exact solver (engine.best_claim). The solver is deterministic, so its answers
are memoised per board and offer: a bot looking at the same round on every scheduler tick solves
it once.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from games.bejeweled_dm import engine

State = dict[str, Any]

# Bot levels: how sharp a practice opponent is.
FAST = "fast"  # claims the optimum a few seconds into the round, proves it
WEAKER = "weaker"  # claims about two thirds of the optimum after a while
WAITS = "waits"  # never claims first; counterclaims the optimum when it is higher
LEVELS = (FAST, WEAKER, WAITS)
LEVEL_HELP = {
    FAST: "claims the true optimum a few seconds into each round",
    WEAKER: "claims about two thirds of the optimum after 20 seconds",
    WAITS: "never claims first, but counterclaims the optimum when it beats your claim",
}
CLAIM_DELAY = {FAST: timedelta(seconds=3), WEAKER: timedelta(seconds=20)}


@lru_cache(maxsize=512)
def _solve(board: str, starters: tuple, passives: tuple, actives: tuple) -> tuple[int, str]:
    return engine.best_claim(board, set(starters), set(passives), set(actives))


def optimum(board: str, offer: dict[str, list[str]]) -> tuple[int, str]:
    """The best count and a proof for ``board`` with the powerups of ``offer``."""
    return _solve(
        board,
        tuple(sorted(offer["starter"])),
        tuple(sorted(offer["passive"])),
        tuple(sorted(offer["active"])),
    )


def analysed_round(board: str, offer: dict[str, list[str]]) -> dict[str, Any]:
    """The optimum of a played round, with the steps to animate it like a real proof."""
    count, proof = optimum(board, offer)
    steps = engine.resolve(board, proof).steps if proof else []
    return {"count": count, "proof": proof, "steps": steps}


def _round_started(state: State) -> datetime | None:
    due = state.get("deadlines", {}).get("round")
    if not due:
        return None
    return datetime.fromisoformat(due) - timedelta(seconds=state["timers"]["round"])


def decide(state: State, seat: int, level: str, now: datetime) -> dict[str, Any] | None:
    """The action the bot in ``seat`` takes now, or None to wait."""
    phase = state.get("phase")
    if phase == "claim":
        return _claim(state, level, now)
    if phase == "counterclaim" and state["claim"]["seat"] != seat:
        best, _ = optimum(state["board"], state["offer"])
        if best > state["claim"]["count"]:
            return {"type": "counterclaim", "count": best}
        return {"type": "pass"}
    if phase == "proof" and state["prover"] == seat:
        _, proof = optimum(state["board"], state["offer"])
        return {"type": "proof", "proof": proof}
    if phase == "second_starter" and state["prover"] == seat:
        return {"type": "skip_second_starter"}
    if phase == "pick" and state["picks"][str(seat)] is None:
        return {"type": "pick", **{kind: names[0] for kind, names in state["allowed"].items()}}
    return None


def _claim(state: State, level: str, now: datetime) -> dict[str, Any] | None:
    delay = CLAIM_DELAY.get(level)
    started = _round_started(state)
    if delay is None or started is None or now - started < delay:
        return None
    best, _ = optimum(state["board"], state["offer"])
    if best == 0:
        return None
    count = best if level == FAST else max(1, best * 2 // 3)
    return {"type": "claim", "count": count}
