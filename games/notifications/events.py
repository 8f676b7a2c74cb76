"""The match core's one call into notifications: after an event is appended, in its
transaction, write what it causes (decided in decide.py from what spectators see)."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import OuterRef, Subquery

from games.core import replaying
from games.core.gamedef import ActionError, Viewer, run_rules, state_deadlines
from games.core.models import Deadline, Event, Match
from games.notifications import decide
from games.notifications.services import notify

log = logging.getLogger(__name__)


def on_appended(
    sender: Any, *, match: Match, event: Event, before: dict[str, Any], **kwargs: Any
) -> None:
    """games.core.signals.event_appended's receiver."""
    on_event(match, event, before)


def on_event(match: Match, event: Event, before: dict[str, Any]) -> None:
    """Notify the players and the host of what ``event`` (just appended to the locked
    ``match``, whose state was ``before``) needs them for."""
    if event.informational or not match.state:
        return
    try:
        facts = _facts(match, event, before)
    except Exception:  # words or views a game cannot give never cost a move
        log.exception("no notifications for %s %s", match, event)
        return
    slow = settings.NOTIFY_SLOW_CLOCK_MINUTES * 60
    messages = decide.messages_for(facts, slow_seconds=slow)
    if not messages:
        return
    users = {seat.index: seat.user for seat in match.seats.all() if seat.user_id}
    url = match.get_absolute_url()
    hosts = _hosts_of(match) if any(message.host for message in messages) else []
    for message in messages:
        people = hosts if message.host else [users[s] for s in message.seats]
        notify(
            users=people,
            kind=message.kind,
            text=message.text,
            url=url,
            match=match,
            public_text=message.public_text,
            now=event.created_at,
        )


def _hosts_of(match: Match) -> list[Any]:
    """Who a notice for the match's host goes to: its host and, for a season's match, the
    season's hosts and co-hosts (a tie to settle, a deadline missed), each once."""
    hosts = [match.host] if match.host_id else []
    if match.season_id is not None:
        from games.seasons.roles import season_hosts

        hosts += [user for user in season_hosts(match.season) if user.pk != match.host_id]
    return hosts


def _facts(match: Match, event: Event, before: dict[str, Any]) -> decide.EventFacts:
    game = match.game
    spectator = Viewer.spectator()
    now = event.created_at
    after_clocks = state_deadlines(match.state) if match.status == Match.Status.LIVE else {}
    seats = list(match.seats.all())
    finished = match.finished_version == event.version and match.status == Match.Status.FINISHED
    ran_out = _clock_ran_out(event, before)
    return decide.EventFacts(
        kind=event.kind,
        title=match.title,
        words=replaying.describe(game, event.seen_by(spectator), match.state),
        before=game.seen(before, spectator) if before else {},
        after=game.seen(match.state, spectator),
        players={s.index: s.player_name for s in seats if s.user_id and not s.bot_level},
        seat_count=len(seats),
        live=match.status == Match.Status.LIVE,
        finished=finished,
        clock_ran_out=ran_out is not None,
        ran_out_seconds=_clock_length(match, *ran_out) if ran_out else None,
        seconds_to_act=min(
            ((d - now).total_seconds() for d in after_clocks.values()), default=None
        ),
        to_settle=_to_settle(match, now) if finished else (),
    )


def _clock_ran_out(event: Event, before: dict[str, Any]) -> tuple[str, datetime] | None:
    """The clock of the state before whose timeout ``event`` is (key, due), if it is one."""
    if event.actor_id is not None or event.seat is not None:
        return None
    due = sorted((when, key) for key, when in state_deadlines(before or {}).items())
    if not due or due[0][0] > event.created_at:
        return None
    return due[0][1], due[0][0]


def _clock_length(match: Match, key: str, due: datetime) -> float | None:
    """How long the clock ran: from the event that set it to its due time (None if unknown)."""
    set_at = Event.objects.filter(match=match, version=OuterRef("set_at_version"))
    rows = Deadline.objects.filter(match=match, key=key, due_at=due)
    started = (
        rows.annotate(set_at=Subquery(set_at.values("created_at")[:1]))
        .values_list("set_at", flat=True)
        .first()
    )
    return (due - started).total_seconds() if started else None


def _to_settle(match: Match, now: Any) -> tuple[str, ...]:
    """What the host may still decide on the finished match (a tied Elimination Candidate):
    the console's offers the game's rules accept now."""
    labels = []
    for value, label in match.game.award_choices(match.state, match.seat_infos()):
        try:
            run_rules(match.game.adjudicate, match.state, json.loads(value), now)
        except ActionError:
            continue
        labels.append(label)
    return tuple(labels)
