"""The practice bot and the after-round optimum: pure functions over the match state.

Both rest on the exact solver (engine.best_claim). The solver is deterministic, so its answers
are memoised per board and offer: a bot looking at the same round on every scheduler tick solves
it once.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from games.bejeweled_dm import engine

State = dict[str, Any]

# Bot levels: a practice opponent with a human's pace and a chosen strength. Every level thinks
# for a while before it claims (a delay drawn per round from the board, so the same round always
# gets the same pace), answers a claim after a few seconds and takes its time over the proof.
BEGINNER = "beginner"
CLUB = "club"
EXPERT = "expert"
LEVELS = (BEGINNER, CLUB, EXPERT)
LEVEL_HELP = {
    BEGINNER: (
        "Beginner: thinks for 1½ to 3 minutes, then claims about half of what the board allows; "
        "never counterclaims."
    ),
    CLUB: (
        "Club player: thinks for 1 to 2½ minutes and claims about four fifths of the best "
        "possible; counterclaims when that beats your claim."
    ),
    EXPERT: (
        "Expert: finds the true best count, but like a strong human takes 45 s to 2 min to "
        "claim; counterclaims whenever the best possible beats your claim."
    ),
}
BOT_LEVELS = {level: LEVEL_HELP[level] for level in LEVELS}
# Matches seated before the levels were renamed keep playing at the nearest level.
FORMER_NAMES = {"fast": EXPERT, "weaker": CLUB, "waits": BEGINNER}
FAST = EXPERT  # the sharpest level (benchmarks/core_actions.py plays with it)

# (shortest, longest) seconds of thought before each kind of move, per level; each is also at most
# half of its clock (a claim: at most 80 % of the round clock), so short clocks still see play.
CLAIM_THOUGHT = {BEGINNER: (90, 180), CLUB: (60, 150), EXPERT: (45, 120)}
ANSWER_THOUGHT = (4, 12)  # counterclaim or pass
PROOF_THOUGHT = (8, 25)
PICK_THOUGHT = (3, 10)
SHARE = {BEGINNER: (1, 2), CLUB: (4, 5), EXPERT: (1, 1)}  # of the best count it claims


def _level(level: str) -> str:
    return FORMER_NAMES.get(level, level if level in LEVELS else EXPERT)


def thinking_seconds(view: dict[str, Any], seat: int, level: str, move: str) -> float:
    """How long the bot in ``seat`` thinks before ``move`` this round: drawn from the board,
    the round and the seat, so it is the same on every scheduler tick."""
    bounds = CLAIM_THOUGHT[_level(level)] if move == "claim" else _THOUGHT[move]
    board = view["board"]["text"] if view.get("board") else ""
    key = f"{board}|{view.get('round')}|{seat}|{_level(level)}|{move}".encode()
    fraction = int.from_bytes(hashlib.sha256(key).digest()[:4], "big") / 2**32
    seconds = bounds[0] + fraction * (bounds[1] - bounds[0])
    clock = _CLOCK_OF_MOVE[move]
    cap = view["timers"][clock] * (0.8 if move == "claim" else 0.5)
    return min(seconds, cap)


_THOUGHT = {"answer": ANSWER_THOUGHT, "proof": PROOF_THOUGHT, "pick": PICK_THOUGHT}
_CLOCK_OF_MOVE = {"claim": "round", "answer": "claim_window", "proof": "proof", "pick": "pick"}


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


def offer_of(view: dict[str, Any]) -> dict[str, list[str]]:
    """The round's offer as the view shows it: {type: [powerup names]}."""
    return {entry["type"]: [o["name"] for o in entry["options"]] for entry in view["offer"]}


def _clock_started(view: dict[str, Any], key: str) -> datetime | None:
    """When clock ``key`` started: its deadline less its setting (the pick clock starts once the
    result animation has played)."""
    due = view.get("deadlines", {}).get(key)
    if not due:
        return None
    return datetime.fromisoformat(due) - timedelta(seconds=view["timers"][key])


def _ready(view: dict[str, Any], seat: int, level: str, move: str, now: datetime) -> bool:
    started = _clock_started(view, _CLOCK_OF_MOVE[move])
    if started is None:
        return False
    return now - started >= timedelta(seconds=thinking_seconds(view, seat, level, move))


def _estimate(best: int, level: str) -> int:
    top, bottom = SHARE[_level(level)]
    return max(1, best * top // bottom)


def decide(view: dict[str, Any], seat: int, level: str, now: datetime) -> dict[str, Any] | None:
    """The action the bot in ``seat`` takes now, or None to wait. It sees only its seat's view."""
    phase = view.get("phase")
    actions = view.get("actions", [])
    board = view["board"]["text"] if view.get("board") else ""
    if "claim" in actions:
        if not _ready(view, seat, level, "claim", now):
            return None
        best, _ = optimum(board, offer_of(view))
        return {"type": "claim", "count": _estimate(best, level)} if best else None
    if "counterclaim" in actions:
        if not _ready(view, seat, level, "answer", now):
            return None
        best, _ = optimum(board, offer_of(view))
        mine = _estimate(best, level)
        if _level(level) != BEGINNER and mine > view["claim"]["count"]:
            return {"type": "counterclaim", "count": mine}
        return {"type": "pass"}
    if "proof" in actions:
        if not _ready(view, seat, level, "proof", now):
            return None
        _, proof = optimum(board, offer_of(view))
        return {"type": "proof", "proof": proof}
    if "skip_second_starter" in actions:
        return {"type": "skip_second_starter"}
    if phase == "pick" and view["picks"]["mine"] is None:
        if not _ready(view, seat, level, "pick", now):
            return None
        allowed = view["picks"]["allowed"]
        choice = {}
        for kind, names in allowed.items():
            key = f"{board}|{view.get('round')}|{seat}|{kind}".encode()
            choice[kind] = names[hashlib.sha256(key).digest()[0] % len(names)]
        return {"type": "pick", **choice}
    return None
