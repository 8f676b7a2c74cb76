"""The host's audit log: every host operation of a match or a season, with who, when, the
reason and what it did, in the sentence players read; a season's also lists the host's ledger
adjustments and reversals."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery, prefetch_related_objects

from games.core.game.gamedef import Viewer, state_deadlines
from games.core.match.replaying import describe
from games.core.models import Deadline, Event, LedgerEntry, Match, Season, display_name


def _host_events(events: QuerySet[Event]) -> QuerySet[Event]:
    """Host operations are the events a signed-in user made without a seat."""
    rows = events.filter(seat=None, actor__isnull=False).select_related("actor", "match")
    rows = rows.prefetch_related("match__seats__user")  # the seats' names, in two queries
    return rows.defer("match__state").order_by("-created_at", "-version")


def _names(match: Match) -> dict[str, Any]:
    """The part of a state a sentence names people from: each seat's player (their name as
    the match shows it), so the log says "names Cyd", not "names Seat 3"."""
    seats = sorted(match.seats.all(), key=lambda seat: seat.index)
    return {
        "seats": [
            {"index": seat.index, "name": seat.player_name, "is_bot": bool(seat.bot_level)}
            for seat in seats
        ]
    }


def _event_row(event: Event, match: Match) -> dict[str, Any]:
    return {
        "at": event.created_at,
        "by": display_name(event.actor),
        "match": match,
        "version": event.version,
        "kind": event.kind,
        "words": _described(match, event.seen_by(Viewer.host())),
        "reason": event.public.get("host_reason", ""),
    }


def _described(match: Match, seen: dict[str, Any]) -> str:
    """The event's sentence with its people named (a game that cannot say it from the names
    alone says it without them)."""
    try:
        return describe(match.game, seen, _names(match))
    except Exception:  # a game's words that need more of the state than the names
        return describe(match.game, seen, {})


def match_log(match: Match) -> list[dict[str, Any]]:
    """Every host operation of ``match``, newest first."""
    prefetch_related_objects([match], "seats")  # the names, read once for every row
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
    return _described(match, event.seen_by(Viewer.spectator()))


def _entry_row(entry: LedgerEntry, credited_by: Any = None) -> dict[str, Any]:
    amounts = []
    if entry.garnets:
        amounts.append(f"{entry.garnets:+d} garnets")
    if entry.tokens_of_life:
        amounts.append(f"{entry.tokens_of_life:+d} Tokens of Life")
    if entry.made_by_id is None:  # paid by a host's decision (an award, a correction)
        decision = getattr(entry, "credited_for", "")
        what = "The correction" if decision == "result_corrected" else "The host's decision"
        words = f"{what} credited {display_name(entry.user)} {', '.join(amounts)}."
    else:
        what = "reversed an entry" if entry.reverses_id else "adjusted the ledger"
        words = f"The host {what}: {display_name(entry.user)} {', '.join(amounts)}."
    return {
        "at": entry.created_at,
        "by": display_name(entry.made_by if entry.made_by_id else credited_by),
        "match": entry.match,
        "version": entry.version,
        "kind": "ledger",
        "words": words,
        "reason": entry.reason if entry.made_by_id else "",
    }


def season_log(season: Season, limit: int = 500) -> list[dict[str, Any]]:
    """The host operations of every match of ``season`` and the host's ledger entries in it
    (theirs, and what their decisions paid: a correction's reversals and its new credits),
    newest first."""
    events = _host_events(Event.objects.filter(match__season=season))
    events = events.prefetch_related("match__seats")[:limit]
    by_host = Event.objects.filter(
        match=OuterRef("match"), version=OuterRef("version"), seat=None, actor__isnull=False
    )
    entries = (
        LedgerEntry.objects.filter(season=season)
        .filter(Q(made_by__isnull=False) | Q(Exists(by_host), match__isnull=False))
        .annotate(
            credited_by=Subquery(by_host.values("actor")[:1]),
            credited_for=Subquery(by_host.values("kind")[:1]),
        )
        .select_related("user", "made_by", "match")
        .order_by("-created_at")[:limit]
    )
    rows = [_event_row(event, event.match) for event in events]
    entries = list(entries)
    actors = {
        user.pk: user
        for user in get_user_model().objects.filter(
            pk__in={entry.credited_by for entry in entries if entry.made_by_id is None}
        )
    }
    rows += [_entry_row(entry, actors.get(entry.credited_by)) for entry in entries]
    rows.sort(key=lambda row: row["at"] or datetime.min, reverse=True)
    return rows[:limit]
