"""The host's audit log: every host operation of a match or a season, with who, when, the
reason and what it did, in the sentence players read; a season's also lists the host's ledger
adjustments and reversals."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from games.core.gamedef import Viewer
from games.core.models import Event, LedgerEntry, Match, Season, display_name
from games.core.replaying import describe


def _host_events(events: QuerySet[Event]) -> QuerySet[Event]:
    """Host operations are the events a signed-in user made without a seat."""
    rows = events.filter(seat=None, actor__isnull=False).select_related("actor", "match")
    rows = rows.prefetch_related("match__seats__user")  # the seats' names, in two queries
    return rows.defer("match__state").order_by("-created_at", "-version")


def _names(match: Match) -> dict[str, Any]:
    """The seats named as players know them (``words.seat_name`` reads this), so that a host
    operation says "Ada wins round 4", not "Seat 1 wins round 4"."""
    return {"seats": [{"index": s.index, "name": s.player_name} for s in match.seats.all()]}


def _event_row(event: Event, match: Match) -> dict[str, Any]:
    return {
        "at": event.created_at,
        "by": display_name(event.actor),
        "match": match,
        "version": event.version,
        "kind": event.kind,
        "words": describe(match.game, event.seen_by(Viewer.host()), _names(match)),
        "reason": event.public.get("host_reason", ""),
    }


def match_log(match: Match) -> list[dict[str, Any]]:
    """Every host operation of ``match``, newest first."""
    return [_event_row(event, match) for event in _host_events(match.events.all())]


def latest_host_words(match: Match) -> str:
    """The sentence of the match's latest host operation, or "" (players read it on the page)."""
    event = _host_events(match.events.all()).first()
    if event is None:
        return ""
    return host_words(match, event)


def is_host_operation(event: Event) -> bool:
    """Whether ``event`` is a host operation (as _host_events finds them)."""
    return event.seat is None and event.actor_id is not None


def host_words(match: Match, event: Event) -> str:
    """The sentence players read of the host operation ``event``."""
    return describe(match.game, event.seen_by(Viewer.spectator()), _names(match))


def _entry_row(entry: LedgerEntry) -> dict[str, Any]:
    amounts = []
    if entry.garnets:
        amounts.append(f"{entry.garnets:+d} garnets")
    if entry.tokens_of_life:
        amounts.append(f"{entry.tokens_of_life:+d} Tokens of Life")
    what = "reversed an entry" if entry.reverses_id else "adjusted the ledger"
    return {
        "at": entry.created_at,
        "by": display_name(entry.made_by),
        "match": entry.match,
        "version": entry.version,
        "kind": "ledger",
        "words": f"The host {what}: {display_name(entry.user)} {', '.join(amounts)}.",
        "reason": entry.reason,
    }


def season_log(season: Season, limit: int = 500) -> list[dict[str, Any]]:
    """The host operations of every match of ``season`` and the host's ledger entries in it,
    newest first."""
    events = _host_events(Event.objects.filter(match__season=season))[:limit]
    entries = (
        LedgerEntry.objects.filter(season=season, made_by__isnull=False)
        .select_related("user", "made_by", "match")
        .order_by("-created_at")[:limit]
    )
    rows = [_event_row(event, event.match) for event in events]
    rows += [_entry_row(entry) for entry in entries]
    rows.sort(key=lambda row: row["at"] or datetime.min, reverse=True)
    return rows[:limit]
