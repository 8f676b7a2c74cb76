"""The host's audit log: every host operation of a match or a season, with who, when, the
reason and what it did, in the sentence players read; a season's also lists the host's ledger
adjustments and reversals."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from games.core.gamedef import Viewer, state_deadlines
from games.core.models import Deadline, Event, LedgerEntry, Match, Season, display_name
from games.core.replaying import describe


def _host_events(events: QuerySet[Event]) -> QuerySet[Event]:
    """Host operations are the events a signed-in user made without a seat."""
    rows = events.filter(seat=None, actor__isnull=False).select_related("actor", "match")
    return rows.defer("match__state").order_by("-created_at", "-version")


def _event_row(event: Event, match: Match) -> dict[str, Any]:
    return {
        "at": event.created_at,
        "by": display_name(event.actor),
        "match": match,
        "version": event.version,
        "kind": event.kind,
        "words": describe(match.game, event.seen_by(Viewer.host()), {}),
        "reason": event.public.get("host_reason", ""),
    }


def match_log(match: Match) -> list[dict[str, Any]]:
    """Every host operation of ``match``, newest first."""
    return [_event_row(event, match) for event in _host_events(match.events.all())]


def latest_host_words(match: Match) -> str:
    """The sentence of the match's latest host operation while it is news, or "" (players read
    it on the page): a notice belongs to the stretch of play it was made in, and the match
    moved on once the game set a clock since (a new turn, round or phase; moves_on)."""
    event = _host_events(match.events.all()).first()
    if event is None:
        return ""
    later_hosts = Event.objects.filter(
        match=match, version__gt=event.version, seat=None, actor__isnull=False
    )
    clocks = Deadline.objects.filter(match=match, set_at_version__gt=event.version)
    if clocks.exclude(set_at_version__in=later_hosts.values("version")).exists():
        return ""
    return host_words(match, event)


def moves_on(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether a game's event from ``before`` to ``after`` set a clock (a new turn, round or
    phase): the host's notice of before is not news after it."""
    clocks = state_deadlines(after or {})
    earlier = state_deadlines(before or {})
    return any(earlier.get(key) != due for key, due in clocks.items())


def is_host_operation(event: Event) -> bool:
    """Whether ``event`` is a host operation (as _host_events finds them)."""
    return event.seat is None and event.actor_id is not None


def host_words(match: Match, event: Event) -> str:
    """The sentence players read of the host operation ``event``."""
    return describe(match.game, event.seen_by(Viewer.spectator()), {})


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
