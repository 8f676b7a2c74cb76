"""The season ledger: what matches pay and charge each player, in garnets and Tokens of Life.

Every write to a balance goes through here: a match's prizes, the host's adjustments and
reversals. The ledger is append-only (games/core/models.py refuses to change or delete an
entry): a correction is a new entry that names the one it reverses. No balance ever goes below 0
in a season: every write that takes something away first locks the players' ledgers (their user
rows, in id order) and checks their balances under that lock, inside the caller's transaction,
so a charge, a host's deduction and a correction made at the same moment see each other.
See docs/ledger.md.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.db import models, transaction

from games.core.game.gamedef import ActionError
from games.core.models import LedgerEntry, Match, Season, Seat, display_name

CURRENCY_FIELDS = {"garnets": "garnets", "tokens": "tokens_of_life"}
CURRENCY_NAMES = {"garnets": "garnets", "tokens": "Tokens of Life"}
ONE_NAMES = {"garnets": "garnet", "tokens": "Token of Life"}

Totals = dict[str, int]  # {"garnets": n, "tokens": n}


# --- balances under the lock --------------------------------------------------------------------


def lock_ledgers(user_ids: Iterable[int]) -> None:
    """Hold these players' ledgers until the transaction ends (their user rows, in id order, so
    two writers never wait on each other in a circle). Must run inside a transaction."""
    ids = sorted(set(user_ids))
    if ids:
        User = get_user_model()
        list(User.objects.select_for_update().filter(pk__in=ids).order_by("pk").values("pk"))


def held(user_ids: Iterable[int], season: Season | int | None) -> dict[int, Totals]:
    """Each player's balance in ``season`` (a season or its id; matches made without a season
    keep their own), live matches included: what the player may spend."""
    ids = set(user_ids)
    totals: dict[int, Totals] = {uid: {"garnets": 0, "tokens": 0} for uid in ids}
    rows = (
        LedgerEntry.objects.filter(user_id__in=ids, season=season)
        .values("user_id")
        .annotate(garnets=models.Sum("garnets"), tokens=models.Sum("tokens_of_life"))
        .order_by()
    )
    for row in rows:
        totals[row["user_id"]] = {"garnets": row["garnets"] or 0, "tokens": row["tokens"] or 0}
    return totals


def _amounts(entry: LedgerEntry) -> Totals:
    return {"garnets": entry.garnets, "tokens": entry.tokens_of_life}


def _takes_away(entry: LedgerEntry) -> bool:
    return entry.garnets < 0 or entry.tokens_of_life < 0


def _in(season: Season | None) -> str:
    return f" in {season}" if season is not None else ""


def _count(amount: int, currency: str) -> str:
    return f"{amount} {ONE_NAMES[currency] if abs(amount) == 1 else CURRENCY_NAMES[currency]}"


def _below_zero(user: Any, season: Season | None, before: int, change: int, currency: str) -> str:
    """What the host reads when a deduction or a reversal does not fit."""
    return (
        f"{display_name(user)} holds {_count(before, currency)}{_in(season)}: taking "
        f"{-change} would leave {before + change}; a balance never goes below 0"
    )


def _cannot_afford(season: Season | None, before: int, change: int, currency: str) -> str:
    """What a player reads when their own charge (a premove) does not fit."""
    return f"that costs {-change} {CURRENCY_NAMES[currency]} and you hold {before}{_in(season)}"


def _write(entries: list[LedgerEntry], *, by_player: bool) -> list[LedgerEntry]:
    """Append ``entries``. When any takes something away, the players' ledgers are locked and
    each player's net change in each season is checked against their balance first; a change
    that would go below 0 is refused: to the player in their words (``by_player``: a charge of
    their own action), else to the host, naming the player."""
    entries = [e for e in entries if e.garnets or e.tokens_of_life]
    if any(_takes_away(e) for e in entries):
        with transaction.atomic():
            lock_ledgers(e.user_id for e in entries)
            _check_fits(entries, by_player=by_player)
            return LedgerEntry.objects.bulk_create(entries)
    return LedgerEntry.objects.bulk_create(entries)


def _check_fits(entries: list[LedgerEntry], *, by_player: bool) -> None:
    net: dict[tuple[int, int | None], Totals] = defaultdict(lambda: {"garnets": 0, "tokens": 0})
    first: dict[tuple[int, int | None], LedgerEntry] = {}
    for entry in entries:
        key = (entry.user_id, entry.season_id)
        first.setdefault(key, entry)
        for currency, amount in _amounts(entry).items():
            net[key][currency] += amount
    for (user_id, season_id), change in net.items():
        before = held([user_id], season_id)[user_id]
        for currency, amount in change.items():
            if before[currency] + amount < 0:
                _refuse(first[(user_id, season_id)], before[currency], amount, currency, by_player)


def _refuse(entry: LedgerEntry, before: int, change: int, currency: str, by_player: bool) -> None:
    if by_player:
        message = _cannot_afford(entry.season, before, change, currency)
        raise ActionError(message, code="cannot_afford")
    raise ActionError(
        _below_zero(entry.user, entry.season, before, change, currency), code="below_zero"
    )


# --- what matches pay and charge ----------------------------------------------------------------


def credit_prizes(
    match: Match, prizes: dict[int, dict[str, Any]], version: int | None = None
) -> list[LedgerEntry]:
    """What an event pays or charges each seat goes into its player's ledger (bots hold none).
    A charge (a premove) is checked against the player's balance under the lock as it is
    written, and refused to the player if it no longer fits. A game charges only in an action
    its player sends, never at a clock, so a refusal always has someone to tell."""
    if not prizes:
        return []
    entries = []
    for seat in match.seats.all():
        prize = prizes.get(seat.index)
        if prize and seat.user_id is not None:
            entries.append(_prize_entry(match, seat, prize, version))
    return _write(entries, by_player=True)


def _prize_entry(
    match: Match, seat: Seat, prize: dict[str, Any], version: int | None
) -> LedgerEntry:
    garnets, tokens = int(prize.get("garnets", 0)), int(prize.get("tokens", 0))
    reason = str(prize.get("reason") or "")
    if not reason:
        reason = f"{'won' if (garnets > 0 or tokens > 0) else 'spent'} in {match.title}"
    return LedgerEntry(
        user=seat.user,
        match=match,
        season_id=match.season_id,
        garnets=garnets,
        tokens_of_life=tokens,
        reason=reason[:200],
        version=version,
    )


def check_affordable(match: Match, seat: Seat, cost: dict[str, int]) -> None:
    """Refuse an action whose price (a premove's garnets) the player's season ledger cannot
    pay. The player's ledger stays locked until the action's transaction ends, so the charge
    it writes is checked against the same balance. Bots keep no ledger and pay nothing."""
    if not cost or seat.user_id is None:
        return
    lock_ledgers([seat.user_id])
    balance = held([seat.user_id], match.season)[seat.user_id]
    for currency, price in cost.items():
        if price > balance[currency]:
            message = _cannot_afford(match.season, balance[currency], -price, currency)
            raise ActionError(message, code="cannot_afford")


# --- the host -----------------------------------------------------------------------------------


def _clean_reason(reason: str) -> str:
    cleaned = (reason or "").strip()[:200]
    if not cleaned:
        raise ActionError(
            "say why: the players read the reason in their ledger", code="reason_needed"
        )
    return cleaned


def adjust(
    user: Any, season: Season | None, garnets: int, tokens: int, reason: str, actor: Any
) -> LedgerEntry:
    """The host gives (or takes) garnets and Tokens of Life, with a reason the player reads.
    A deduction that would leave the player below 0 in that season is refused."""
    entry = _adjustment(user, season, garnets, tokens, reason, actor)
    return _write([entry], by_player=False)[0]


def check_adjustment(
    user: Any, season: Season | None, garnets: int, tokens: int, reason: str
) -> None:
    """Refuse an adjustment that is empty, has no reason, or would leave the player below 0.
    The dashboard's form asks this before it writes, in the transaction that writes: the
    player's ledger stays locked until then."""
    entry = _adjustment(user, season, garnets, tokens, reason, None)
    if _takes_away(entry):
        with transaction.atomic():
            lock_ledgers([user.pk])
            _check_fits([entry], by_player=False)


def _adjustment(
    user: Any, season: Season | None, garnets: int, tokens: int, reason: str, actor: Any
) -> LedgerEntry:
    if not garnets and not tokens:
        raise ActionError("an adjustment gives or takes garnets or Tokens of Life", code="empty")
    return LedgerEntry(
        user=user,
        season=season,
        garnets=garnets,
        tokens_of_life=tokens,
        reason=_clean_reason(reason),
        made_by=actor,
    )


def reverse_entry(entry: LedgerEntry, actor: Any, reason: str) -> LedgerEntry:
    """Cancel one entry with a new one that names it (an adjustment made by mistake, one
    match's payment)."""
    return reverse_entries([entry], actor, reason)[0]


def reverse_entries(entries: list[LedgerEntry], actor: Any, reason: str) -> list[LedgerEntry]:
    """Cancel ``entries``, each with a new entry that names it, all or none. An entry is
    reversed at most once, a reversal is not reversed (write an adjustment), a live match's
    entries wait until it has ended, and no player is left below 0 by the whole of it."""
    with transaction.atomic():
        lock_ledgers(e.user_id for e in entries)
        return _write([_reversal(e, actor, reason) for e in entries], by_player=False)


def reverse_match_entries(
    match: Match, actor: Any, reason: str, from_version: int | None = None
) -> list[LedgerEntry]:
    """For "correct a finished result": reverse every entry of the match that stands (neither
    reversed nor itself a reversal), naming it, with the host's reason; returns the reversals.
    The caller then writes the corrected entries with ``credit_prizes`` in the same
    transaction. Refused whole when it would leave a player below 0 (they spent the garnets
    since: the host decides, with an adjustment first)."""
    if not match.is_over:
        raise ActionError(
            "the match is still being played: its entries are reversed once it has ended",
            code="match_live",
        )
    standing = LedgerEntry.objects.filter(
        match=match, reverses__isnull=True, reversed_by__isnull=True
    )
    if from_version is not None:  # what the event that finished the match and later ones paid
        standing = standing.filter(version__gte=from_version)
    return reverse_entries(
        list(standing.select_related("user", "match").order_by("pk")), actor, reason
    )


def _reversal(entry: LedgerEntry, actor: Any, reason: str) -> LedgerEntry:
    """The entry that cancels ``entry`` (call with the player's ledger locked)."""
    if entry.match is not None and not entry.match.is_over:
        raise ActionError(
            "the match is still being played: its entries are reversed once it has ended",
            code="match_live",
        )
    if entry.reverses_id is not None:
        raise ActionError(
            f"entry #{entry.pk} is itself a reversal; write an adjustment instead",
            code="is_a_reversal",
        )
    done = LedgerEntry.objects.filter(reverses=entry).values_list("pk", flat=True).first()
    if done is not None:
        raise ActionError(
            f"entry #{entry.pk} was already reversed by #{done}", code="already_reversed"
        )
    return LedgerEntry(
        user=entry.user,
        match=entry.match,
        season=entry.season,
        garnets=-entry.garnets,
        tokens_of_life=-entry.tokens_of_life,
        reason=_clean_reason(reason),
        made_by=actor,
        reverses=entry,
    )
