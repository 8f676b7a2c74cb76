"""A practice bot for Seven Gem Swap: decides only from what its own seat sees (``view.view`` for
``Viewer(seat=seat)``), never from the full state, so it knows no one else's bid or sequence.

It bids for the colour whose gems already lie closest together, then each round plans a
sequence for one of its gems that grows the largest group of its colour and the card it plays
(a beam search over its own moves, ignoring what the others may do), and picks its card by the
points it would bring. The levels differ in how far they look, how many cards they weigh and
whether they keep their own card (x3) for the last round.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from games.seven_gem_swap import engine
from games.seven_gem_swap.grid import _NEIGHBOURS, _TARGET, _largest

BOT_LEVELS = {
    "beginner": "bids nothing and makes one helpful swap a round, after about 20 seconds",
    "club": "bids a little and plans six moves ahead to grow its group, after about 10 seconds",
    "expert": (
        "bids more, plans twelve moves ahead for each of its three best cards, keeps its own "
        "card for the last round, after about 5 seconds"
    ),
}


@dataclass(frozen=True)
class Level:
    delay: int  # seconds after the phase began before acting
    depth: int  # moves planned at most
    width: int  # sequences kept at each depth
    bid: int  # bid for the first choice (made a little different per seat)
    cards: int  # how many of the best-looking cards it plans for before choosing
    saves_own_card: bool  # keeps the own card (x3) for round 8


LEVELS = {
    "beginner": Level(delay=20, depth=1, width=1, bid=0, cards=1, saves_own_card=False),
    "club": Level(delay=10, depth=6, width=6, bid=-3, cards=1, saves_own_card=False),
    "expert": Level(delay=5, depth=12, width=12, bid=-6, cards=3, saves_own_card=True),
}


def decide(view: dict[str, Any], seat: int, level: str, now: datetime) -> dict[str, Any] | None:
    """The action the bot in ``seat`` takes now, or None to wait. ``view`` is what that seat
    sees."""
    settings = LEVELS.get(level, LEVELS["club"])
    me = view.get("me")
    if not me or me.get("seat") != seat:
        return None
    phase = view.get("phase")
    if phase == "bidding" and me.get("bid") is None:
        if not _ready(view, "bidding", settings, now):
            return None
        return _bid(view, seat, settings)
    if phase == "round" and me.get("submission") is None:
        if not _ready(view, "round", settings, now):
            return None
        return _submit(view, me, settings)
    return None


def _ready(view: dict[str, Any], clock: str, settings: Level, now: datetime) -> bool:
    """Human-like pacing: wait ``delay`` seconds (at most a quarter of the clock) after the
    phase began, unless the deadline is closer than that."""
    started = view.get("phase_started")
    if not started:
        return True
    begun = datetime.fromisoformat(started)
    wait = min(settings.delay, view.get("timers", {}).get(clock, settings.delay) / 4)
    if now - begun >= timedelta(seconds=wait):
        return True
    deadline = view.get("deadlines", {}).get(clock)
    return bool(deadline) and datetime.fromisoformat(deadline) - now <= timedelta(seconds=wait)


# --- bidding -------------------------------------------------------------------------------------


def _bid(view: dict[str, Any], seat: int, settings: Level) -> dict[str, Any]:
    board = view["board"]
    ranked = sorted(
        engine.COLOURS,
        key=lambda c: (-engine.largest_group(board, c), (engine.COLOURS.index(c) + seat) % 7),
    )
    points = settings.bid - (seat % 3 if settings.bid else 0)
    return {"type": "bid", "bid": points, "colours": "".join(ranked[:3])}


# --- rounds --------------------------------------------------------------------------------------


def _submit(view: dict[str, Any], me: dict[str, Any], settings: Level) -> dict[str, Any]:
    board = view["board"]
    own = me["colour"]
    round_number = view["round"]
    if round_number == 1:
        gem, moves = plan(board, own, frozenset(own), settings.depth, settings.width)
        card = None
    else:
        best: tuple[int, str, str, str] | None = None
        for card_ in _cards(view, me, settings)[: settings.cards]:
            gem_, moves_ = plan(board, own, frozenset(own + card_), settings.depth, settings.width)
            after = engine.resolve_round(board, {"me": (gem_, moves_, False)}).board
            points = engine.largest_group(after, own + card_) * (3 if card_ == own else 1)
            if best is None or points > best[0]:
                best = (points, card_, gem_, moves_)
        assert best is not None
        _, card, gem, moves = best
    return {
        "type": "submit",
        "round": round_number,
        "gem": gem,
        "moves": moves,
        "card": card,
        "premove": False,
    }


def _cards(view: dict[str, Any], me: dict[str, Any], settings: Level) -> list[str]:
    """The cards left, the most promising first (by the points they would bring now)."""
    own = me["colour"]
    left = list(me["cards_left"])
    if settings.saves_own_card and own in left and len(left) > 1:
        left.remove(own)
    board = view["board"]

    def value(card: str) -> int:
        return engine.largest_group(board, own + card) * (3 if card == own else 1)

    return sorted(left, key=lambda c: (-value(c), engine.COLOURS.index(c)))


def plan(
    board: str,
    own: str,
    colours: frozenset[str],
    depth: int,
    width: int,
    avoid: frozenset[str] = frozenset(),
) -> tuple[str, str]:
    """A gem of colour ``own`` and a sequence of at most ``depth`` moves that leaves the largest
    group of ``colours`` as big as this search finds (ties: the fewest moves). Only the bot's own
    moves are imagined: never off the grid, never back into a cell it locked, never swapping with
    a gem of a colour in ``avoid``."""
    cells = "".join(engine.parse_board(board).rows)
    starts = [i for i, ch in enumerate(cells) if ch == own]
    if not starts:
        return "A1", ""
    Entry = tuple[tuple[int, int], str, int, frozenset[int], str, int]
    # (score, cells, position, locked, moves, start)
    beam: list[Entry] = [(_score(cells, colours, i), cells, i, frozenset(), "", i) for i in starts]
    best = max(beam, key=lambda e: (e[0], -len(e[4]), -e[5]))
    for _ in range(depth):
        grown: list[Entry] = []
        seen: set[tuple[str, int]] = set()
        for _, grid, here, locked, moves, start in beam:
            for move in engine.MOVES:
                target = _TARGET[here][move]
                if target is None or target in locked or grid[target] in avoid:
                    continue
                if grid[target] == own and grid[here] == own:
                    continue  # swapping two gems of one colour changes nothing
                items = list(grid)
                items[here], items[target] = items[target], items[here]
                new = "".join(items)
                if (new, target) in seen:
                    continue
                seen.add((new, target))
                entry = (
                    _score(new, colours, target),
                    new,
                    target,
                    locked | {here},
                    moves + move,
                    start,
                )
                grown.append(entry)
        if not grown:
            break
        grown.sort(key=lambda e: (e[0], -e[5]), reverse=True)
        beam = grown[:width]
        top = beam[0]
        if (top[0], -len(top[4])) > (best[0], -len(best[4])):
            best = top
    return engine.cell_name(best[5]), best[4]


def _score(cells: str, colours: frozenset[str], gem: int) -> tuple[int, int]:
    """The largest group of ``colours``, then the group holding the controlled gem."""
    return _largest(cells, colours), _group_at(cells, colours, gem)


def _group_at(cells: str, colours: frozenset[str], start: int) -> int:
    if cells[start] not in colours:
        return 0
    seen = {start}
    stack = [start]
    while stack:
        i = stack.pop()
        for j in _NEIGHBOURS[i]:
            if j not in seen and cells[j] in colours:
                seen.add(j)
                stack.append(j)
    return len(seen)
