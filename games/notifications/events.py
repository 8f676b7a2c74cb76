"""The match core's one call into notifications: after an event is appended, in its
transaction, write what it causes (decided in decide.py from what spectators see)."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import OuterRef, Subquery

from games.core.game.gamedef import ActionError, Viewer, run_rules, state_deadlines
from games.core.match import replaying
from games.core.models import Deadline, Event, Match
from games.notifications import decide, kinds
from games.notifications.services import notify

log = logging.getLogger(__name__)


def on_appended(
    sender: Any, *, match: Match, event: Event, before: dict[str, Any], **kwargs: Any
) -> None:
    """games.core.match.signals.event_appended's receiver."""
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
    if facts.finished and match.season_id is not None:
        messages = _candidate_told_by_season(match, facts, messages)
    if not messages:
        return
    users = {seat.index: seat.user for seat in match.seats.all() if seat.user_id}
    url = match.get_absolute_url()
    hosts = _hosts_of(match) if any(message.host for message in messages) else []
    for message in messages:
        people = hosts if message.host else [users[s] for s in message.seats]
        if message.kind == kinds.SUBMISSIONS_MISSED and event.actor_id is not None:
            # The host who ended the round knows who sent nothing: the other hosts are told.
            people = [user for user in people if user.pk != event.actor_id]
        notify(
            users=people,
            kind=message.kind,
            text=message.text,
            url=url,
            match=match,
            public_text=message.public_text,
            now=event.created_at,
            also=message.also,
        )


def _candidate_told_by_season(
    match: Match, facts: decide.EventFacts, messages: list[decide.Message]
) -> list[decide.Message]:
    """A season's main match that ends naming its Elimination Candidate: the season tells the
    EC the result with their nomination deadline (one mail), so the result leaves them out."""
    result = facts.after.get("result")
    candidate = result.get("elimination_candidate") if isinstance(result, dict) else None
    if not isinstance(candidate, int) or isinstance(candidate, bool):
        return messages
    from games.seasons.models import Episode

    if not Episode.objects.filter(main_match=match).exists():
        return messages
    return [
        replace(message, seats=tuple(s for s in message.seats if s != candidate))
        if message.kind == kinds.ROUND_RESULT
        else message
        for message in messages
    ]


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
    ended_by_host = _ended_by_host(event)
    ended_clock = _first_clock(before) if ended_by_host else None
    measured = ran_out or ended_clock
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
        ran_out_seconds=_clock_length(match, event.version, *measured) if measured else None,
        seconds_to_act=min(
            ((d - now).total_seconds() for d in after_clocks.values()), default=None
        ),
        to_settle=_to_settle(match, now) if finished else (),
        ended_by_host=ended_by_host,
    )


def _ended_by_host(event: Event) -> bool:
    """The event is a host's "end the round now" (games/core/match/host_operations.py
    host_end_round)."""
    return event.actor_id is not None and (event.move or {}).get("rule") == "end_round"


def _first_clock(before: dict[str, Any]) -> tuple[str, datetime] | None:
    """The clock of the state before that would have run out first (key, due)."""
    due = sorted((when, key) for key, when in state_deadlines(before or {}).items())
    return (due[0][1], due[0][0]) if due else None


def _clock_ran_out(event: Event, before: dict[str, Any]) -> tuple[str, datetime] | None:
    """The clock of the state before whose timeout ``event`` is (key, due), if it is one."""
    if event.actor_id is not None or event.seat is not None:
        return None
    first = _first_clock(before)
    if first is None or first[1] > event.created_at:
        return None
    return first


# The host's events that move a running clock (give more or less time, resume after a pause):
# the clock they set is the one set before, moved, not a new one.
CLOCK_MOVES = frozenset({"clock_changed", "resumed", "deadline_extended"})


def _clock_length(match: Match, version: int, key: str, due: datetime) -> float | None:
    """How long the clock gave: from the event that set it to its due time, through the
    host's moves of it (a round clock of two hours shortened to its last minute gave two
    hours, not one minute); None if unknown. ``version`` is the event's: the rows it set are
    the clock's next run, not this one."""
    events = Event.objects.filter(match=match, version=OuterRef("set_at_version"))
    rows = (
        Deadline.objects.filter(match=match, key=key, set_at_version__lt=version)
        .annotate(
            set_at=Subquery(events.values("created_at")[:1]),
            set_by=Subquery(events.values("kind")[:1]),
        )
        .order_by("-set_at_version")
        .values_list("due_at", "set_at", "set_by")
    )
    started = None
    for index, (row_due, set_at, set_by) in enumerate(rows[:MOVES_FOLLOWED]):
        if index == 0 and row_due != due:
            return None  # not the clock that ran out
        started = set_at
        if set_by not in CLOCK_MOVES:
            break
    return (due - started).total_seconds() if started else None


MOVES_FOLLOWED = 20  # the host's moves of one clock read back (more: the earliest read counts)


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
