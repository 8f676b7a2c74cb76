"""Garnets and Tokens of Life: what a host gives a cast member or takes (a bonus, a fine), in
the core ledger (games/core/match/ledger.py) with a reason the player is told; and the Tokens of
Life each player holds as everyone may count them. Spending a Token is the Elimination
Candidate's choice (nominations.py); one spent to stay after a death match, eliminations.py's."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from games.core.game.gamedef import ActionError
from games.core.match import ledger
from games.core.models import Season
from games.notifications import kinds
from games.notifications.services import notify
from games.seasons.models import CastMember
from games.seasons.roles import check_season_host


def adjust_ledger(
    season: Season, actor: Any, member_id: int, garnets: int, tokens: int, reason: str
) -> Any:
    """A host or co-host gives or takes a cast member's garnets and Tokens of Life (a bonus, a
    fine), with a reason: a ledger entry signed by them, and the player is told."""
    check_season_host(season, actor)
    member = CastMember.objects.filter(season=season, pk=member_id).select_related("user").first()
    if member is None:
        raise ActionError("choose a player of the season's cast", code="not_cast")
    if not str(reason or "").strip():
        raise ActionError("give a reason: the player reads it", code="reason_needed")
    with transaction.atomic():
        entry = ledger.adjust(member.user, season, garnets, tokens, reason, actor=actor)
        why = entry.reason.rstrip(".")
        notify(
            users=[member.user],
            kind=kinds.LEDGER_CHANGED,
            text=f"{adjustment_words(garnets, tokens)} in {season.name}: {why}.",
            url=season.get_absolute_url(),
            season=season,
        )
    return entry


def adjustment_words(garnets: int, tokens: int) -> str:
    """ "A host gave you 10 garnets and 1 Token of Life", "A host took 3 garnets from you"."""

    def amount(count: int, one: str, many: str) -> str:
        return f"{abs(count)} {one if abs(count) == 1 else many}"

    given = [
        amount(n, one, many)
        for n, one, many in (
            (garnets, "garnet", "garnets"),
            (tokens, "Token of Life", "Tokens of Life"),
        )
        if n > 0
    ]
    taken = [
        amount(n, one, many)
        for n, one, many in (
            (garnets, "garnet", "garnets"),
            (tokens, "Token of Life", "Tokens of Life"),
        )
        if n < 0
    ]
    parts = []
    if given:
        parts.append(f"gave you {' and '.join(given)}")
    if taken:
        parts.append(f"took {' and '.join(taken)} from you")
    return "A host " + " and ".join(parts)


def public_tokens(season: Season) -> dict[int, int]:
    """Tokens of Life each player holds as everyone may count them (a live match's entries
    count once it has ended)."""
    return {row["user_id"]: row["tokens_of_life"] for row in season.standings()}
