"""The one path every change to a match takes.

check (seat, status, version) -> lock the match row -> run the pure game -> append the event ->
commit -> broadcast on commit. Refusals change nothing and carry a stable code and a message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.dateparse import parse_datetime

from games.core import clock
from games.core.gamedef import ActionError, Outcome, SeatInfo
from games.core.models import Deadline, Event, LedgerEntry, Match, Seat, display_name

log = logging.getLogger(__name__)

MAX_CLIENT_ACTION_ID = 64


class ActionRefused(Exception):
    """An action that was not applied. Nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Accepted:
    version: int
    duplicate: bool = False


# --- appending events -------------------------------------------------------------------------


def _append(
    match: Match,
    outcome: Outcome,
    *,
    seat: int | None = None,
    actor: Any = None,
    action: dict | None = None,
    client_action_id: str | None = None,
    now: datetime,
) -> Event:
    """Record an outcome on a locked match row: new version, event, state, deadlines, status."""
    match.version += 1
    match.state = outcome.state
    match.analysis_pending = match.game.analysis_job(outcome.state) is not None
    if outcome.result is not None and match.status in {Match.Status.LIVE, Match.Status.OPEN}:
        match.status = Match.Status.FINISHED
        match.result = outcome.result
        match.finished_at = now
        _credit_winner(match, outcome.result)
    event = Event.objects.create(
        match=match,
        version=match.version,
        kind=outcome.kind,
        seat=seat,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        client_action_id=client_action_id,
        action=action,
        public=outcome.public,
        private={str(k): v for k, v in outcome.private.items()},
        state=outcome.state,
        informational=outcome.informational,
        created_at=now,
    )
    match.save()
    _sync_deadlines(match)
    version = match.version
    transaction.on_commit(lambda: _broadcast_after_commit(match.pk, version))
    return event


def _credit_winner(match: Match, result: dict[str, Any]) -> None:
    """A finished match's prize goes into the winner's ledger (bots earn nothing)."""
    winner, garnets = result.get("winner"), result.get("garnets", 0)
    if winner is None or not garnets:
        return
    seat = match.seats.filter(index=winner, user__isnull=False).first()
    if seat is not None:
        LedgerEntry.objects.create(
            user=seat.user, match=match, garnets=garnets, reason=f"won {match.title}"
        )


def _broadcast_after_commit(match_pk: int, version: int) -> None:
    from games.core.broadcast import broadcast_version

    try:
        broadcast_version(match_pk, version)
    except Exception:  # a lost broadcast is healed by the client's resync
        log.exception("broadcast of match %s v%s failed", match_pk, version)


def state_deadlines(state: dict[str, Any]) -> dict[str, datetime]:
    deadlines: dict[str, datetime] = {}
    for key, value in (state.get("deadlines") or {}).items():
        when = parse_datetime(value) if isinstance(value, str) else None
        if when is not None:
            deadlines[key] = when
    return deadlines


def _sync_deadlines(match: Match) -> None:
    """Mirror ``state["deadlines"]`` into Deadline rows; a live match only."""
    wanted = state_deadlines(match.state) if match.status == Match.Status.LIVE else {}
    pending = {d.key: d for d in match.deadlines.filter(fired_at=None, cancelled=False)}
    for key, row in pending.items():
        if wanted.get(key) != row.due_at:
            row.cancelled = True
            row.save(update_fields=["cancelled"])
    for key, due in wanted.items():
        row = pending.get(key)
        if row is None or row.due_at != due:
            Deadline.objects.create(match=match, key=key, due_at=due, set_at_version=match.version)


def _lock(match_id: int) -> Match:
    return Match.objects.select_for_update().get(pk=match_id)


# --- player actions ---------------------------------------------------------------------------


def submit_action(
    match: Match,
    user: Any,
    action: Any,
    *,
    client_action_id: str | None = None,
    expected_version: int | None = None,
) -> Accepted:
    """Apply one player action for the seat the server knows ``user`` holds."""
    return _apply_seat_action(
        match.pk,
        lambda locked: locked.seat_of(user),
        action,
        actor=user,
        client_action_id=client_action_id,
        expected_version=expected_version,
    )


def submit_bot_action(
    match: Match, seat_index: int, action: Any, expected_version: int
) -> Accepted:
    """Apply the action a bot seat chose while looking at ``expected_version``."""
    return _apply_seat_action(
        match.pk,
        lambda locked: locked.seats.filter(index=seat_index).exclude(bot_level="").first(),
        action,
        actor=None,
        client_action_id=None,
        expected_version=expected_version,
    )


def _validate_envelope(action: Any, client_action_id: Any, expected_version: Any) -> None:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise ActionRefused("malformed_action", "an action is an object with a string 'type'")
    if client_action_id is not None and (
        not isinstance(client_action_id, str)
        or not 0 < len(client_action_id) <= MAX_CLIENT_ACTION_ID
    ):
        raise ActionRefused("malformed_action", "the action id must be a string of 1-64 chars")
    if expected_version is not None and (
        not isinstance(expected_version, int) or isinstance(expected_version, bool)
    ):
        raise ActionRefused("malformed_action", "version must be an integer")


def _apply_seat_action(
    match_pk: int,
    find_seat: Callable[[Match], Seat | None],
    action: Any,
    *,
    actor: Any,
    client_action_id: str | None,
    expected_version: int | None,
) -> Accepted:
    _validate_envelope(action, client_action_id, expected_version)
    # A deadline that passed before this action arrived is fired first, so a late action meets
    # the state after the timeout and is refused by it.
    fire_due_deadlines(match_id=match_pk)
    try:
        with transaction.atomic():
            locked = _lock(match_pk)
            seat = find_seat(locked)
            if seat is None:
                raise ActionRefused("not_seated", "you do not hold a seat in this match")
            if client_action_id:
                earlier = locked.events.filter(
                    seat=seat.index, client_action_id=client_action_id
                ).first()
                if earlier is not None:
                    return Accepted(version=earlier.version, duplicate=True)
            refusal = _check_playable(locked)
            if refusal is None and _moved_on_since(locked, expected_version):
                refusal = ActionRefused(
                    "stale_version",
                    f"the match moved on (version {locked.version}, you sent "
                    f"{expected_version}); refresh and try again",
                )
            if refusal is not None:
                raise refusal
            now = clock.now()
            try:
                outcome = locked.game.act(locked.state, seat.index, action, now)
            except ActionError as error:
                raise ActionRefused(error.code, error.message) from None
            except ValueError as error:
                raise ActionRefused("illegal_action", str(error)) from None
            _append(
                locked,
                outcome,
                seat=seat.index,
                actor=actor,
                action=action,
                client_action_id=client_action_id or None,
                now=now,
            )
            return Accepted(version=locked.version)
    except IntegrityError:
        # The same client action id raced itself; the first copy stands.
        earlier = Event.objects.filter(match_id=match_pk, client_action_id=client_action_id).first()
        if earlier is not None and client_action_id:
            return Accepted(version=earlier.version, duplicate=True)
        raise


def _moved_on_since(match: Match, version: int | None) -> bool:
    """Has anything a player acts on happened after ``version``?"""
    if version is None or version == match.version:
        return False
    if version > match.version:
        return True
    return match.events.filter(version__gt=version, informational=False).exists()


def run_bots() -> int:
    """Let every bot seat of every live match act if it wants to; returns actions applied."""
    applied = 0
    live_with_bots = (
        Match.objects.filter(status=Match.Status.LIVE, seats__bot_level__gt="")
        .distinct()
        .prefetch_related("seats")
    )
    now = clock.now()
    for match in live_with_bots:
        for seat in match.seats.all():
            if not seat.bot_level:
                continue
            action = match.game.bot_action(match.state, seat.index, seat.bot_level, now)
            if action is None:
                continue
            try:
                submit_bot_action(match, seat.index, action, expected_version=match.version)
                applied += 1
            except ActionRefused as refusal:
                log.info("bot in %s seat %s refused: %s", match, seat.index, refusal.message)
            break  # the match moved on; look again next tick
    return applied


def run_analyses(limit: int = 5) -> int:
    """Do the pending analysis of a few matches; the slow part runs outside any lock."""
    done = 0
    pending = Match.objects.filter(analysis_pending=True).order_by("pk")[:limit]
    for match in pending:
        game = match.game
        job = game.analysis_job(match.state)
        if job is None:
            Match.objects.filter(pk=match.pk).update(analysis_pending=False)
            continue
        result = game.run_analysis(job)
        with transaction.atomic():
            locked = _lock(match.pk)
            if game.analysis_job(locked.state) != job:
                continue  # someone else recorded it, or the match moved past it
            outcome = game.record_analysis(locked.state, job, result)
            outcome.informational = True
            _append(locked, outcome, now=clock.now())
            done += 1
    return done


def _check_playable(match: Match) -> ActionRefused | None:
    if match.status == Match.Status.OPEN:
        return ActionRefused("not_started", "the match has not started yet")
    if match.status == Match.Status.PAUSED:
        return ActionRefused("paused", "the host has paused the match")
    if match.is_over:
        return ActionRefused("match_over", "the match is over")
    return None


# --- clocks -----------------------------------------------------------------------------------


def fire_due_deadlines(*, match_id: int | None = None, now: datetime | None = None) -> int:
    """Fire every due deadline once. Safe to run in any number of processes at the same time."""
    now = now or clock.now()
    due = Deadline.objects.filter(fired_at=None, cancelled=False, due_at__lte=now)
    if match_id is not None:
        due = due.filter(match_id=match_id)
    fired = 0
    for deadline_id, deadline_match_id in due.values_list("id", "match_id")[:100]:
        if _fire_one(deadline_id, deadline_match_id, now):
            fired += 1
    return fired


def _fire_one(deadline_id: int, match_id: int, now: datetime) -> bool:
    with transaction.atomic():
        match = _lock(match_id)
        claimed = Deadline.objects.filter(pk=deadline_id, fired_at=None, cancelled=False).update(
            fired_at=now
        )
        if not claimed:
            return False  # another scheduler fired it, or it was replaced
        deadline = Deadline.objects.get(pk=deadline_id)
        if match.status != Match.Status.LIVE:
            return False
        if state_deadlines(match.state).get(deadline.key) != deadline.due_at:
            return False  # stale: the game moved its clock since
        outcome = match.game.timeout(match.state, deadline.key, now)
        _append(match, outcome, now=now)
        return True


def next_deadline_at() -> datetime | None:
    row = Deadline.objects.filter(fired_at=None, cancelled=False).order_by("due_at").first()
    return row.due_at if row else None


# --- lobby and host ---------------------------------------------------------------------------


def create_match(
    *, host: Any, game_key: str, title: str, settings: dict[str, Any], roles: list[str]
) -> Match:
    from games.core.registry import get_game

    game = get_game(game_key)
    cleaned = game.clean_settings(settings)
    if not game.min_seats <= len(roles) <= game.max_seats:
        raise ValueError(f"{game.title} takes {game.min_seats}-{game.max_seats} seats")
    with transaction.atomic():
        match = Match.objects.create(
            game_key=game_key, title=title or game.title, host=host, settings=cleaned
        )
        for index, role in enumerate(roles):
            Seat.objects.create(match=match, index=index, role=role)
    return match


def take_seat(match: Match, user: Any, invite_token: str) -> Seat:
    with transaction.atomic():
        locked = _lock(match.pk)
        seat = locked.seats.filter(invite_token=invite_token).first()
        if seat is None:
            raise ActionRefused("bad_invite", "this invite link is not valid for this match")
        mine = locked.seat_of(user)
        if mine is not None:
            if mine.pk == seat.pk:
                return seat
            raise ActionRefused("already_seated", "you already hold another seat in this match")
        if seat.is_taken:
            raise ActionRefused("seat_taken", "this seat is already taken")
        if locked.status != Match.Status.OPEN:
            raise ActionRefused("not_open", "this match is no longer taking players")
        seat.user = user
        seat.joined_at = clock.now()
        seat.save()
        _seat_taken(locked, seat, display_name(user))
        return seat


def seat_bot(match: Match, seat_index: int, level: str) -> Seat:
    with transaction.atomic():
        locked = _lock(match.pk)
        if locked.status != Match.Status.OPEN:
            raise ActionRefused("not_open", "this match is no longer taking players")
        seat = locked.seats.get(index=seat_index)
        if seat.is_taken:
            raise ActionRefused("seat_taken", "this seat is already taken")
        seat.bot_level = level
        seat.save()
        _seat_taken(locked, seat, seat.player_name)
        return seat


def _seat_taken(match: Match, seat: Seat, name: str) -> None:
    """Log the seat as taken; with auto_start, the last seat taken starts the match."""
    public = {"seat": seat.index, "name": name}
    _append(match, Outcome(state=match.state, kind="seat_taken", public=public), now=clock.now())
    if match.settings.get("auto_start", True) and all(s.is_taken for s in match.seats.all()):
        _start(match, actor=None)


def _start(match: Match, actor: Any) -> None:
    seats = [
        SeatInfo(index=s.index, role=s.role, name=s.player_name, is_bot=bool(s.bot_level))
        for s in match.seats.all()
    ]
    now = clock.now()
    outcome = match.game.start(match.settings, seats, match.seed, now)
    match.status = Match.Status.LIVE
    match.started_at = now
    _append(match, outcome, actor=actor, now=now)


def host_start(match: Match, actor: Any) -> None:
    with transaction.atomic():
        locked = _lock(match.pk)
        if locked.status != Match.Status.OPEN:
            raise ActionRefused("not_open", "only a match that has not started can be started")
        if not all(s.is_taken for s in locked.seats.all()):
            raise ActionRefused("seats_open", "every seat must be taken before the start")
        _start(locked, actor)


def host_pause(match: Match, actor: Any) -> None:
    with transaction.atomic():
        locked = _lock(match.pk)
        if locked.status != Match.Status.LIVE:
            raise ActionRefused("not_live", "only a live match can be paused")
        now = clock.now()
        locked.status = Match.Status.PAUSED
        locked.paused_at = now
        _append(locked, Outcome(state=locked.state, kind="paused"), actor=actor, now=now)


def host_resume(match: Match, actor: Any) -> None:
    """Resume a paused match; every running clock is pushed back by the pause's length."""
    with transaction.atomic():
        locked = _lock(match.pk)
        if locked.status != Match.Status.PAUSED:
            raise ActionRefused("not_paused", "only a paused match can be resumed")
        now = clock.now()
        shift = now - (locked.paused_at or now)
        state = dict(locked.state)
        state["deadlines"] = {
            key: (due + shift).isoformat() for key, due in state_deadlines(state).items()
        }
        locked.status = Match.Status.LIVE
        locked.paused_at = None
        outcome = Outcome(
            state=state, kind="resumed", public={"paused_seconds": round(shift.total_seconds())}
        )
        _append(locked, outcome, actor=actor, now=now)


def host_abort(match: Match, actor: Any, reason: str = "") -> None:
    with transaction.atomic():
        locked = _lock(match.pk)
        if locked.is_over:
            raise ActionRefused("match_over", "the match is already over")
        now = clock.now()
        locked.status = Match.Status.ABORTED
        locked.finished_at = now
        locked.result = {"aborted": True, "reason": reason}
        outcome = Outcome(state=locked.state, kind="aborted", public={"reason": reason})
        _append(locked, outcome, actor=actor, now=now)


def host_adjudicate(match: Match, actor: Any, award: dict[str, Any]) -> None:
    with transaction.atomic():
        locked = _lock(match.pk)
        if locked.status not in {Match.Status.LIVE, Match.Status.PAUSED}:
            raise ActionRefused("not_live", "only a live or paused match can be adjudicated")
        now = clock.now()
        try:
            outcome = locked.game.adjudicate(locked.state, award, now)
        except ActionError as error:
            raise ActionRefused(error.code, error.message) from None
        except ValueError as error:
            raise ActionRefused("illegal_action", str(error)) from None
        if outcome.result is not None:
            locked.status = Match.Status.LIVE  # finishing goes through _append
        _append(locked, outcome, actor=actor, now=now)
