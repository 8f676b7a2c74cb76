"""The Pointsweeper practice bot: decides from what its seat may see, nothing else.

``decide`` takes ``view.view(state, Viewer(seat=seat))``, never the state, so it cannot read a
hidden tile or the other player's scouts: it judges claims with the same posterior the
after-board analysis uses (games/pointsweeper/analysis.py), built from the public log and its own
notebook. It waits a human-like moment after its turn begins (times taken from the view), and is
deterministic: the same view and time give the same answer.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from games.core.game.flowkit import derived_seed
from games.pointsweeper import analysis, engine

BEGINNER = "beginner"
CLUB = "club"
BOT_LEVELS = {
    BEGINNER: "scouts anywhere, claims something that looks good, takes its time",
    CLUB: "scouts where it knows least, claims the best expected value, passes when nothing pays",
}
DELAY = {BEGINNER: (8.0, 16.0), CLUB: (3.0, 9.0)}
"""Seconds the bot waits after its turn begins, drawn between these bounds."""
CLAIM_AT = {BEGINNER: 1.0, CLUB: 2.5}
"""The expected value at which a claim beats another scout."""
PASS_BELOW = {BEGINNER: 0.0, CLUB: 0.5}
"""With no scout left, the bot passes when no claim is expected to be worth this much."""
SCOUT_ORDER = "QRBNKP"


def _rng(view: dict[str, Any], seat: int, salt: str) -> random.Random:
    """The bot's draws for this turn: the same view, seat and purpose draw the same numbers."""
    return random.Random(derived_seed(view.get("board_no"), view.get("turn_started"), seat, salt))


def _ready(view: dict[str, Any], seat: int, level: str, since: str | None, now: datetime) -> bool:
    if since is None:
        return True
    low, high = DELAY.get(level, DELAY[CLUB])
    wait = _rng(view, seat, "delay").uniform(low, high)
    return now >= datetime.fromisoformat(since) + timedelta(seconds=wait)


def decide(view: dict[str, Any], seat: int, level: str, now: datetime) -> dict[str, Any] | None:
    """The action the bot in ``seat`` takes now, or None to wait. ``view`` is what the seat sees."""
    if level not in BOT_LEVELS:
        level = CLUB
    phase = view.get("phase")
    if phase == "order" and view.get("chooser") == seat:
        due = view["deadlines"].get("order")
        since = None
        if due:
            opened = datetime.fromisoformat(due) - timedelta(
                seconds=view["settings"]["order_seconds"]
            )
            since = opened.isoformat()
        if not _ready(view, seat, level, since, now):
            return None
        first = True if level == CLUB else _rng(view, seat, "order").random() < 0.5
        return {"type": "choose_order", "first": first}
    if phase != "play" or view.get("turn") != seat:
        return None
    if not _ready(view, seat, level, view.get("turn_started"), now):
        return None
    return choose_move(view, seat, level)


def choose_move(view: dict[str, Any], seat: int, level: str) -> dict[str, Any]:
    """The bot's move on its turn (no pacing)."""
    legal = view["legal"]
    play = view["play"]
    if not legal["claim"]:
        return _scout(view, seat, level) if legal["scout"] else {"type": "pass"}
    known = analysis.knowledge(play["log"], play["notebook"] or [])
    post = analysis.posterior(known)
    first = view["first"] == seat
    mines = view["totals"]["mines"][seat]
    options = analysis.claim_values(post, known.revealed, legal["claim"], first, mines)
    if level == BEGINNER and options:
        rng = _rng(view, seat, "claim")
        options = [rng.choice(options[:5])]
    best = options[0] if options else None
    if best is not None and best["ev"] >= CLAIM_AT[level]:
        return _claim(best, legal)
    if legal["scout"]:
        return _scout(view, seat, level, post)
    if best is not None and best["ev"] > PASS_BELOW[level]:
        return _claim(best, legal)
    return {"type": "pass"}


def _claim(option: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any]:
    """The claim ``option`` with an unused piece of its kind, one that has already scouted if
    possible (so that the others may still scout)."""
    pieces = [p for p in legal["claim"] if p[0] == option["piece"]]
    scouted = [p for p in pieces if p not in legal["scout"]]
    piece = (scouted or pieces)[0]
    return {"type": "claim", "piece": piece, "start": option["start"], "end": option["end"]}


def _scout(
    view: dict[str, Any], seat: int, level: str, post: analysis.Posterior | None = None
) -> dict[str, Any]:
    legal = view["legal"]["scout"]
    first = view["first"] == seat
    play = view["play"]
    claimed = {cell["square"] for row in play["grid"] for cell in row if cell["state"] != "hidden"}
    if level == BEGINNER:
        rng = _rng(view, seat, "scout")
        piece = rng.choice(legal)
        squares = [s for s in engine.SQUARES if piece[0] != "P" or s[1] not in "18"]
        return {"type": "scout", "piece": piece, "square": rng.choice(squares)}
    covered: dict[str, int] = {}
    for note in play["notebook"] or []:
        for square in note["squares"]:
            covered[square] = covered.get(square, 0) + 1
    chance = post.mine_chance() if post is not None else {}
    best: tuple[float, int, int, str, str] | None = None
    for order, letter in enumerate(SCOUT_ORDER):
        pieces = [p for p in legal if p[0] == letter]
        if not pieces:
            continue
        for index, square in enumerate(engine.SQUARES):
            if letter == "P" and square[1] in "18":
                continue
            score = 0.0
            for s in engine.scout_squares(letter, square, first):
                if s in claimed:
                    continue
                p = chance.get(s, 10 / 64)
                score += (0.25 + p * (1 - p)) / (1 + covered.get(s, 0))
            key = (score, -order, -index, pieces[0], square)
            if best is None or key > best:
                best = key
    assert best is not None
    return {"type": "scout", "piece": best[3], "square": best[4]}
