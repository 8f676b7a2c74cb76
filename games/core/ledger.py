"""The season ledger: what matches pay and charge each player, in garnets and Tokens of Life.

Every change to a balance goes through here: a match's prizes, a charge checked before it is
applied, and the host's adjustments.
"""

from __future__ import annotations

from games.core.gamedef import ActionError
from games.core.models import LedgerEntry, Match, Seat


def credit_prizes(match: Match, prizes: dict[int, dict[str, int]]) -> None:
    """What an event pays or charges each seat goes into its player's ledger (bots hold none)."""
    if not prizes:
        return
    entries = []
    for seat in match.seats.all():
        prize = prizes.get(seat.index)
        if not prize or seat.user_id is None:
            continue
        garnets, tokens = prize.get("garnets", 0), prize.get("tokens", 0)
        if garnets or tokens:
            reason = (
                f"{'won' if (garnets > 0 or tokens > 0) else 'spent in'} {match.title}"
                if not prize.get("reason")
                else str(prize["reason"])
            )
            entries.append(
                LedgerEntry(
                    user_id=seat.user_id,
                    match=match,
                    season_id=match.season_id,
                    garnets=garnets,
                    tokens_of_life=tokens,
                    reason=reason[:200],
                )
            )
    LedgerEntry.objects.bulk_create(entries)


CURRENCY_FIELDS = {"garnets": "garnets", "tokens": "tokens_of_life"}
CURRENCY_NAMES = {"garnets": "garnets", "tokens": "Tokens of Life"}


def check_affordable(match: Match, seat: Seat, cost: dict[str, int]) -> None:
    """Refuse an action whose price (a premove's garnets) the player's season ledger cannot
    pay. Bots keep no ledger and pay nothing."""
    if not cost or seat.user_id is None:
        return
    balance = LedgerEntry.balance(seat.user_id, match.season)
    for currency, price in cost.items():
        held = balance[CURRENCY_FIELDS[currency]]
        if price > held:
            name = CURRENCY_NAMES[currency]
            where = f" in {match.season}" if match.season else ""
            raise ActionError(
                f"that costs {price} {name} and you hold {held}{where}", code="cannot_afford"
            )
