"""The pregame auction of colours in Seven Gem Swap, pure: a bid read and checked, and the
colours allocated by first, second and third choices, with each player's starting score
(``allocate_colours``). The engine (engine.py) gathers it under the contract's names."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

from games.seven_gem_swap.grid import COLOURS


class BidError(ValueError):
    """A pregame bid that cannot be read."""


CHOICE_STEPS = ("first", "second", "third")


def parse_bid(bid: object, colours: object) -> tuple[int, str]:
    """A bid: a whole number of points, 0 or less, and three different colours ranked first to
    third (``"RGB"``: red first, green second, blue third)."""
    if isinstance(bid, bool) or not isinstance(bid, int):
        raise BidError("a bid is a whole number of points, 0 or less (e.g. -5)")
    if bid > 0:
        raise BidError("a bid is 0 or a negative number of points (e.g. -5)")
    if not isinstance(colours, str):
        raise BidError("rank three different colours, e.g. 'RGB' (R O Y G B I V)")
    text = colours.strip().upper()
    if len(text) != 3 or any(ch not in COLOURS for ch in text):
        raise BidError("rank exactly three colours from R O Y G B I V, e.g. 'RGB'")
    if len(set(text)) != 3:
        raise BidError("your three ranked colours must all be different")
    return bid, text


def toward_zero(value: int, divisor: int) -> int:
    """``value / divisor`` rounded toward zero (-13 / 2 gives -6, -13 / 4 gives -3)."""
    quotient = abs(value) // divisor
    return -quotient if value < 0 else quotient


def allocation_details(
    bids: Mapping[str, tuple[int, str]], seed: int, *, absent: Iterable[str] = ()
) -> dict[str, dict[str, Any]]:
    """``allocate_colours`` with how each colour was won: for each player ``colour``, ``score``
    and ``by`` (``first``, ``second``, ``third`` or ``random``). Players in ``absent`` sent no bid:
    they take part in none of the three steps and get a random free colour at 0."""
    if not isinstance(bids, Mapping):
        raise BidError("bids map each player to (bid, three ranked colours)")
    parsed: dict[str, tuple[int, str]] = {}
    for player, entry in bids.items():
        if not isinstance(player, str):
            raise BidError(f"a player is named by a string, not {player!r}")
        if not isinstance(entry, tuple | list) or len(entry) != 2:
            raise BidError(f"{player}: a bid is (points, three ranked colours)")
        try:
            parsed[player] = parse_bid(*entry)
        except BidError as error:
            raise BidError(f"{player}: {error}") from None
    missing = [p for p in absent if p not in parsed]
    for player in missing:
        if not isinstance(player, str):
            raise BidError(f"a player is named by a string, not {player!r}")
    if len(set(missing)) != len(missing):
        raise BidError("a player without a bid is listed twice")
    if len(parsed) + len(missing) > len(COLOURS):
        raise BidError(f"there are only {len(COLOURS)} colours, one for each player")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError("the seed is a whole number")

    result: dict[str, dict[str, Any]] = {}
    free = list(COLOURS)
    waiting = [p for p in parsed]
    for rank, by in enumerate(CHOICE_STEPS):
        claims: dict[str, list[str]] = {}
        for player in waiting:
            colour = parsed[player][1][rank]
            if colour in free:
                claims.setdefault(colour, []).append(player)
        for colour, players in claims.items():
            most = min(parsed[p][0] for p in players)
            top = [p for p in players if parsed[p][0] == most]
            if len(top) > 1:
                continue  # a tie: the colour stays free and the tied players move on
            winner = top[0]
            bid = parsed[winner][0]
            score = bid if rank == 0 else toward_zero(bid, 2 if rank == 1 else 4)
            result[winner] = {"colour": colour, "score": score, "by": by}
            free.remove(colour)
        waiting = [p for p in waiting if p not in result]
    rest = sorted(waiting + missing)
    rng = random.Random(seed)
    colours = rng.sample(free, len(rest))
    for player, colour in zip(rest, colours, strict=True):
        result[player] = {"colour": colour, "score": 0, "by": "random"}
    return result


def allocate_colours(bids: Mapping[str, tuple[int, str]], seed: int) -> dict[str, tuple[str, int]]:
    """The pregame auction. ``bids`` maps each player to (points, three colours ranked); the
    result maps each player to (their colour, their starting score).

    Step 1: for each colour, the player with the most negative bid among those who ranked it first
    claims it. Step 2: for each colour still free, the same among the players still without a
    colour who ranked it second. Step 3: the same with third choices. At any step, a tie for the
    most negative bid leaves that colour free for that step and the tied players move on. The rest
    get random free colours (from ``seed``). A first choice starts at the full bid, a second at
    half of it and a third at a quarter, both rounded toward zero (-13 gives -6 and -3); a random
    colour starts at 0.
    """
    details = allocation_details(bids, seed)
    return {player: (entry["colour"], entry["score"]) for player, entry in details.items()}
