"""The one path every change to a match takes, and the players' actions that take it.

check (seat, status, version) -> lock the match row -> run the pure game -> append the event ->
commit -> broadcast on commit. Refusals change nothing and carry a stable code and a message.
Here: appending an event (``append``, under ``lock``), a seat's action, its draft, the bots'
turns, the analyses, and the clocks a late action finds run out. The same path is taken by the
seating and the start (seating.py), the host's operations (host_operations.py) and the clocks
the scheduler fires (deadlines.py).
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, cast

from django.db import IntegrityError, transaction

from games.core.game import fairness
from games.core.game.gamedef import ActionError, Outcome, Viewer, run_rules, state_deadlines
from games.core.live import broadcast
from games.core.match import clock, ledger, signals
from games.core.match.replaying import SNAPSHOT_EVERY, Move, keep_snapshot, play
from games.core.models import (
    Deadline,
    Event,
    Match,
    Seat,
    Statement,
    insert_statement,
    write_together,
)

log = logging.getLogger(__name__)

MAX_CLIENT_ACTION_ID = 64
RUNNING = {Match.Status.LIVE, Match.Status.PAUSED}


@dataclass(frozen=True)
class Accepted:
    version: int
    duplicate: bool = False


# --- appending events -------------------------------------------------------------------------


def append(
    match: Match,
    outcome: Outcome,
    move: Move | None = None,
    *,
    actor: Any = None,
    client_action_id: str | None = None,
    now: datetime,
    fired: str | None = None,
) -> Event:
    """Record an outcome on a locked match row: new version, event (the ``move`` that made the
    outcome, not the state), state, a snapshot every SNAPSHOT_EVERY events (and of an outcome no
    move can make again: ``move`` None), deadlines, status, prizes and drafts used up; the event
    is announced to every viewer once the commit is done. ``fired``: the clock whose row was
    fired before its timeout made this event (no pending row of it is left to cancel)."""
    move = move or Move("snapshot", now)
    clocks_before = _clock_rows(match)
    state_before = match.state
    seat = move.seat
    match.version += 1
    match.state = outcome.state
    revealed = match.game.revealed_by.get(outcome.kind)
    if revealed and match.server_seed:  # sealed moves this event shows: their receipts open
        match.fairness = fairness.with_reveal(match.fairness, revealed)
    match.analysis_pending = match.game.analysis_job(outcome.state) is not None
    if outcome.result is not None and match.status in {Match.Status.LIVE, Match.Status.OPEN}:
        match.status = Match.Status.FINISHED
        match.result = outcome.result
        match.finished_at = now
        match.finished_version = match.version
    event = Event(
        match=match,
        version=match.version,
        kind=outcome.kind,
        seat=seat,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        client_action_id=client_action_id,
        action=move.action,
        public=outcome.public,
        private={str(k): v for k, v in outcome.private.items()},
        move=move.stored(now, outcome.public),
        informational=outcome.informational,
        created_at=now,
    )
    event.state = outcome.state
    if event.seat is None and event.actor_id is not None:  # a host operation (audit's words)
        match.host_has_spoken = True  # what the lock read is out of date: the notice is read
    # Every write of the event goes in one round trip on PostgreSQL (models.write_together):
    # the event, its snapshot, the clocks that changed, the drafts it used up, the match row.
    db = match._state.db or "default"
    writes = [event.insert_statement(db)]
    if match.version % SNAPSHOT_EVERY == 0 or not move.replayable:
        snapshot = keep_snapshot(match, match.version, outcome.state, _snapshots_read(match))
        writes.append(insert_statement(db, snapshot))
    writes += _deadline_writes(match, clocks_before, fired)
    writes += _draft_writes(match, {*outcome.drafts_sealed, *([seat] if seat is not None else [])})
    writes.append(match.update_statement())
    event.inserted(write_together(db, writes), db)
    match.rows_live = match.status == Match.Status.LIVE
    ledger.credit_prizes(match, outcome.prizes, version=match.version)
    # Whoever listens (notifications write their rows here, delivered after commit by the
    # scheduler process): games/core/match/signals.py.
    signals.event_appended.send(Match, match=match, event=event, before=state_before)
    broadcast.announce_event(match, event, state_before)
    return event


def _snapshots_read(match: Match) -> list[tuple[int, Any, Any, int]] | None:
    """The snapshots the lock read for this event's snapshot (``Match.objects.locked``), or
    None when it read none for it (another event came first under the same lock)."""
    if getattr(match, "locked_version", None) != match.version - 1:
        return None
    return getattr(match, "snapshot_rows", None)


def _draft_writes(match: Match, seats: set[int]) -> list[Statement]:
    """The write that clears the drafts of ``seats`` (used up by the event), if any has one."""
    used = [s for s in match.seats.all() if s.index in seats and s.draft is not None]
    for seat in used:
        seat.draft = None
    if not used:
        return []
    return [Seat.objects.drafts_cleared([seat.pk for seat in used])]


def _clock_rows(match: Match) -> dict[str, datetime]:
    """The clocks that have pending Deadline rows: those of the state while the match was live
    when it was locked or last recorded (a pause or an abort sets the status before recording
    it, and its rows must still be cancelled; a resume's must be written)."""
    live = getattr(match, "rows_live", match.status == Match.Status.LIVE)
    return state_deadlines(match.state) if live else {}


def _deadline_writes(
    match: Match, before: dict[str, datetime], fired: str | None = None
) -> list[Statement]:
    """Mirror the clocks of the state into Deadline rows, touching only those that changed
    (the row of the clock ``fired`` is no longer pending: it needs no cancelling)."""
    wanted = state_deadlines(match.state) if match.status == Match.Status.LIVE else {}
    changed = [key for key, due in before.items() if wanted.get(key) != due and key != fired]
    new = {key: due for key, due in wanted.items() if before.get(key) != due}
    return Deadline.objects.change_statements(match.pk, match.version, changed, new)


def lock(
    match_id: int,
    *,
    client_action_id: str | None = None,
    user: Any = None,
    since: int | None = None,
) -> Match:
    """Lock the match row, reading in the same statement its seats and, when the next event
    keeps a snapshot, the snapshots it is made from. With a client action id and its user, it
    finds the version of the event that user's seat already sent with that id
    (``earlier_version``): ids are unique per seat, so two players' ids never answer for each
    other. With ``since``, whether the match moved on since that version (``moved_on``)."""
    match = Match.objects.locked(
        match_id,
        client_action_id=client_action_id,
        user_id=getattr(user, "pk", None),
        since=since,
        snapshot_every=SNAPSHOT_EVERY,
    )
    broadcast.actions.row_locked(match_id)  # this worker's drawing of it waits for the change
    return match


def _earlier_event(match_pk: int, seat: int, client_action_id: str | None) -> int | None:
    """The version of the event this seat already sent with ``client_action_id``."""
    if not client_action_id:
        return None
    return (
        Event.objects.filter(match_id=match_pk, seat=seat, client_action_id=client_action_id)
        .values_list("version", flat=True)
        .first()
    )


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
        lambda locked: next(
            (s for s in locked.seats.all() if s.index == seat_index and s.bot_level), None
        ),
        action,
        actor=None,
        client_action_id=None,
        expected_version=expected_version,
    )


def _validate_envelope(action: Any, client_action_id: Any, expected_version: Any) -> None:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise ActionError("an action is an object with a string 'type'", code="malformed_action")
    if client_action_id is not None and (
        not isinstance(client_action_id, str)
        or not 0 < len(client_action_id) <= MAX_CLIENT_ACTION_ID
        or not client_action_id.isprintable()
        or not client_action_id.isascii()
    ):
        raise ActionError(
            "the action id must be 1-64 printable ASCII characters", code="malformed_action"
        )
    if expected_version is not None and (
        not isinstance(expected_version, int) or isinstance(expected_version, bool)
    ):
        raise ActionError("version must be an integer", code="malformed_action")


class _DeadlineDue(Exception):
    """A clock of the locked match ran out before the action arrived: fire it first."""


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
    apply = _apply_locked
    try:
        try:
            return apply(match_pk, find_seat, action, actor, client_action_id, expected_version)
        except _DeadlineDue:
            # A late action meets the state after the timeout (and is judged by it).
            _run_due_clocks(match_pk)
            return apply(match_pk, find_seat, action, actor, client_action_id, expected_version)
    except _DeadlineDue:
        raise ActionError(
            "the match is catching up with its clocks; nothing changed, try again",
            code="unavailable",
        ) from None
    except IntegrityError:
        # The same seat's action id raced itself; the first copy stands.
        seat = find_seat(Match.objects.with_seats().get(pk=match_pk))
        earlier = _earlier_event(match_pk, seat.index, client_action_id) if seat else None
        if earlier is not None:
            return Accepted(version=earlier, duplicate=True)
        raise


def _apply_locked(
    match_pk: int,
    find_seat: Callable[[Match], Seat | None],
    action: dict[str, Any],
    actor: Any,
    client_action_id: str | None,
    expected_version: int | None,
) -> Accepted:
    with transaction.atomic():
        locked = lock(
            match_pk, client_action_id=client_action_id, user=actor, since=expected_version
        )
        seat = find_seat(locked)
        if seat is None:
            raise ActionError("you do not hold a seat in this match", code="not_seated")
        earlier = getattr(locked, "earlier_version", None)
        if earlier is not None:
            return Accepted(version=earlier, duplicate=True)
        return _act_locked(locked, seat, action, actor, client_action_id, expected_version)


def _act_locked(
    locked: Match,
    seat: Seat,
    action: dict[str, Any],
    actor: Any,
    client_action_id: str | None,
    expected_version: int | None,
) -> Accepted:
    """Judge and record ``seat``'s action on the locked match. A refusal raises before anything
    of the match changes (the row, the object), so another action may follow under the lock."""
    now = clock.now()
    refusal = _check_playable(locked)
    if refusal is not None:
        raise refusal
    if any(due <= now for due in state_deadlines(locked.state).values()):
        raise _DeadlineDue
    game = locked.game
    if action["type"] not in game.unversioned_actions and _moved_on_since(locked, expected_version):
        raise ActionError(
            f"the match moved on (version {locked.version}, you sent "
            f"{expected_version}); refresh and try again",
            code="stale_version",
        )
    ledger.check_affordable(locked, seat, game.action_cost(locked.state, seat.index, action))
    action, seal = _unsealed(action)
    move = Move("act", now, seat=seat.index, action=action)
    outcome = run_rules(play, game, locked.state, move)
    if action["type"] in game.sealed_actions and locked.server_seed:
        locked.fairness = fairness.with_receipt(
            locked.fairness,
            seat=seat.index,
            kind=action["type"],
            version=locked.version + 1,
            move=action,
            seal=seal,
            replaced=(outcome.private.get(seat.index) or {}).get("replaced") is True,
        )
    append(locked, outcome, move, actor=actor, client_action_id=client_action_id or None, now=now)
    return Accepted(version=locked.version)


# --- actions that arrive together ------------------------------------------------------------
# A cast moving at once queues on its match's row: each action's hold (the lock, the rules, the
# write, the commit: a few round trips, each waiting for the interpreter on its return) is every
# later action's wait. The actions a worker has waiting for one match when it gets to them are
# applied under one hold instead, each its own event and version, in the order they came.


@dataclass(frozen=True)
class SeatAction:
    """One player's action as ``submit_action`` takes it."""

    user: Any
    action: Any
    client_action_id: str | None = None
    expected_version: int | None = None


Answer = Accepted | ActionError


def submit_actions(
    match_pk: int,
    actions: list[SeatAction],
    joining: Callable[[], list[SeatAction]] | None = None,
) -> list[Answer]:
    """Apply players' actions on one match in order, under one hold of its row where they can
    be: each answered as ``submit_action`` would have answered it alone, in the same order (an
    accepted version, a duplicate's earlier version, or the refusal, which changes nothing).
    Those that cannot share the hold go alone after the others: any after a clock found run out
    (the clock fires first), and all of them when one repeats an action id already used (the
    database refuses the write and the hold's work is undone: alone, each finds its earlier
    event).

    ``joining``, asked once the row is locked: the actions that came while the lock was waited
    for (the other worker held the row). They join the hold after ``actions`` and are answered
    after them, in the order it gave them."""
    taken: list[SeatAction] = []
    answers: list[Answer | None] = []
    valid: list[int] = []  # the indexes in ``taken`` of the well-formed ones, in order

    def admit(more: list[SeatAction]) -> list[SeatAction]:
        """Take ``more`` in; a malformed one is refused at once. Returns the well-formed."""
        admitted = []
        for given in more:
            taken.append(given)
            answers.append(None)
            try:
                _validate_envelope(given.action, given.client_action_id, given.expected_version)
            except ActionError as refusal:
                answers[-1] = refusal
            else:
                valid.append(len(taken) - 1)
                admitted.append(given)
        return admitted

    first = admit(actions)
    together: list[Answer] = []
    if len(first) > 1 or (first and joining is not None):
        try:
            together = _apply_together(
                match_pk, first, (lambda: admit(joining())) if joining is not None else None
            )
        except IntegrityError:
            together = []
    for index, answer in zip(valid, together, strict=False):
        answers[index] = answer
    for index in valid[len(together) :]:
        given = taken[index]
        try:
            answers[index] = _apply_seat_action(
                match_pk,
                partial(_seat_of, given.user),
                given.action,
                actor=given.user,
                client_action_id=given.client_action_id,
                expected_version=given.expected_version,
            )
        except ActionError as refusal:
            answers[index] = refusal
    assert all(answer is not None for answer in answers)
    return cast(list[Answer], answers)


def _seat_of(user: Any, locked: Match) -> Seat | None:
    return locked.seat_of(user)


def _apply_together(
    match_pk: int,
    actions: list[SeatAction],
    joining: Callable[[], list[SeatAction]] | None = None,
) -> list[Answer]:
    """The answers of the first actions of ``actions`` and then of those ``joining`` gives once
    the row is locked, applied under one hold of the row, up to one that finds a clock run out
    (it and those after it are left to go alone)."""
    answers: list[Answer] = []
    first = actions[0]
    with transaction.atomic():
        locked = lock(
            match_pk,
            client_action_id=first.client_action_id,
            user=first.user,
            since=first.expected_version,
        )
        if joining is not None:
            actions = [*actions, *joining()]
        for given in actions:
            match = locked
            if answers:  # each event's own match object; what the lock read was the first's
                match = copy.copy(locked)
                match.__dict__.pop("moved_on", None)
            seat = match.seat_of(given.user)
            try:
                if seat is None:
                    raise ActionError("you do not hold a seat in this match", code="not_seated")
                earlier = None if answers else getattr(locked, "earlier_version", None)
                if earlier is not None:
                    answers.append(Accepted(version=earlier, duplicate=True))
                    continue
                answers.append(
                    _act_locked(
                        match,
                        seat,
                        given.action,
                        given.user,
                        given.client_action_id,
                        given.expected_version,
                    )
                )
                locked = match
            except ActionError as refusal:
                answers.append(refusal)
            except _DeadlineDue:
                break
    return answers


def _unsealed(action: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str] | None]:
    """The move without the seal its page added (games/core/game/fairness.py), and the seal."""
    try:
        return fairness.split_seal(action)
    except ValueError as error:
        raise ActionError(str(error), code="bad_receipt") from None


def _moved_on_since(match: Match, version: int | None) -> bool:
    """Has anything a player acts on happened after ``version``?"""
    if version is None or version == match.version:
        return False
    if version > match.version:
        return True
    if getattr(match, "locked_version", None) == match.version and hasattr(match, "moved_on"):
        return match.moved_on  # read with the lock
    return match.events.filter(version__gt=version, informational=False).exists()


MAX_DRAFT_BYTES = 4096


def save_draft(
    match: Match, user: Any, draft: Any, *, sent_as: str | None = None
) -> dict[str, Any]:
    """Keep what ``user``'s seat is composing: only the seat and the host ever see it, in every
    page each has open (one seat, one draft: a second tab shows what the first composes).
    ``sent_as``: the id of the message that sent it, told back with it, so the page that sent
    it knows it as its own. Returns the draft as the game keeps it. A draft is no event, unless
    a clock may seal it as the seat's move (``_save_sealed_draft``). A page may send it with the
    seal of that move (the nonce and receipt its page made, games/core/game/fairness.py)."""
    if not isinstance(draft, dict):
        raise ActionError("a draft is an object", code="malformed_draft")
    if len(json.dumps(draft)) > MAX_DRAFT_BYTES:
        raise ActionError(
            f"a draft may hold at most {MAX_DRAFT_BYTES} bytes", code="draft_too_large"
        )
    draft, seal = _draft_unsealed(draft)
    current = Match.objects.with_seats().get(pk=match.pk)
    seat = current.seat_of(user)
    if seat is None:
        raise ActionError("you do not hold a seat in this match", code="not_seated")
    refusal = _check_playable(current)
    if refusal is not None:
        raise refusal
    kept = current.game.clean_draft(current.state, seat.index, draft)
    if current.server_seed and (
        current.game.draft_move(current.state, seat.index, kept)
        or fairness.draft_receipt(current.fairness, seat.index)
    ):
        return _save_sealed_draft(current.pk, user, draft, seal, sent_as=sent_as)
    with transaction.atomic():
        Seat.objects.filter(pk=seat.pk).update(draft=kept)
        broadcast.publish(broadcast.draft_messages(current.pk, seat.index, kept, sent_as=sent_as))
    return kept


def _save_sealed_draft(
    match_pk: int,
    user: Any,
    draft: dict[str, Any],
    seal: dict[str, str] | None,
    *,
    sent_as: str | None = None,
) -> dict[str, Any]:
    """Keep a draft that a clock may seal as its seat's move (or one that replaces such a
    draft) on the locked match, with its receipt: an informational event every viewer is told
    of (the receipt, never the draft), which makes no other action stale. The page's seal must
    be the move's; a draft sent without one gets a receipt the server makes, as a bot's move
    does. A draft no clock would seal now marks the earlier draft's receipt replaced."""
    with transaction.atomic():
        locked = lock(match_pk)
        seat = locked.seat_of(user)
        if seat is None:
            raise ActionError("you do not hold a seat in this match", code="not_seated")
        refusal = _check_playable(locked)
        if refusal is not None:
            raise refusal
        seat_index = seat.index
        kept = locked.game.clean_draft(locked.state, seat_index, draft)
        move = locked.game.draft_move(locked.state, seat_index, kept)
        earlier = fairness.draft_receipt(locked.fairness, seat_index)
        if move is not None and seal is not None:
            try:
                fairness.check_seal(move, seal)
            except ValueError as error:
                raise ActionError(str(error), code="bad_receipt") from None
        Seat.objects.filter(pk=seat.pk).update(draft=kept)
        seat.draft = kept
        broadcast.publish(broadcast.draft_messages(locked.pk, seat_index, kept, sent_as=sent_as))
        if move is None and earlier is None:
            return kept
        if (
            earlier is not None
            and earlier["move"] == move
            and (seal is None or seal["receipt"] == earlier["receipt"])
        ):
            return kept  # the same move, sealed already
        locked.fairness = fairness.with_draft_receipt(
            locked.fairness, seat=seat_index, version=locked.version + 1, move=move, seal=seal
        )
        public: dict[str, Any] = {"seat": seat_index}
        if move is not None:
            public["receipt"] = locked.fairness["receipts"][-1]["receipt"]
        kind = "draft_sealed" if move is not None else "draft_unsealed"
        outcome = Outcome(state=locked.state, kind=kind, public=public, informational=True)
        now = clock.now()
        append(locked, outcome, Move("keep", now), now=now)
        return kept


def _draft_unsealed(draft: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str] | None]:
    """A draft without the seal of the move it would become, and the seal (checked against that
    move once the game says what it is)."""
    try:
        return fairness.without_seal(draft)
    except ValueError as error:
        raise ActionError(str(error), code="bad_receipt") from None


def run_bots() -> int:
    """Let every bot seat of every live match act if it wants to; returns actions applied."""
    applied = 0
    live_with_bots = (
        Match.objects.filter(status=Match.Status.LIVE, seats__bot_level__gt="")
        .distinct()
        .with_seats()
    )
    now = clock.now()
    for match in live_with_bots:
        for seat in match.seats.all():
            if not seat.bot_level:
                continue
            view = match.game.view(match.state, Viewer(seat=seat.index))
            action = match.game.bot_action(view, seat.index, seat.bot_level, now)
            if action is None:
                continue
            try:
                submit_bot_action(match, seat.index, action, expected_version=match.version)
                applied += 1
            except ActionError as refusal:
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
            locked = lock(match.pk)
            if game.analysis_job(locked.state) != job:
                continue  # someone else recorded it, or the match moved past it
            now = clock.now()
            move = Move("analysis", now, inputs={"result": result})
            outcome = play(game, locked.state, move)
            outcome.informational = True
            append(locked, outcome, move, now=now)
            done += 1
    return done


def _check_playable(match: Match) -> ActionError | None:
    if match.status == Match.Status.OPEN:
        return ActionError("the match has not started yet", code="not_started")
    if match.status == Match.Status.PAUSED:
        return ActionError("the host has paused the match", code="paused")
    if match.is_over:
        return ActionError("the match is over", code="match_over")
    return None


# --- clocks run out before an action ---------------------------------------------------------
# A late action meets the state after the timeout; the scheduler fires the clocks no action
# reaches in time (games/core/match/deadlines.py).

MAX_CLOCKS_AT_ONCE = 20


def _run_due_clocks(match_pk: int) -> None:
    """Fire every clock of the match's state that is due, read from the state itself (not the
    Deadline rows, one of which may be lost or late), so an action that finds a clock run out
    is judged after its timeout instead of failing."""
    with transaction.atomic():
        match = lock(match_pk)
        fired: set[tuple[datetime, str]] = set()
        for _ in range(MAX_CLOCKS_AT_ONCE):
            now = clock.now()
            due = sorted((when, key) for key, when in state_deadlines(match.state).items())
            if match.status != Match.Status.LIVE or not due or due[0][0] > now or due[0] in fired:
                return
            fired.add(due[0])
            key = due[0][1]
            Deadline.objects.filter(match=match, key=key, fired_at=None, cancelled=False).update(
                fired_at=now
            )
            time_out(match, key, now)


def time_out(match: Match, key: str, now: datetime) -> None:
    """The clock ``key`` of the locked match ran out at ``now`` (its Deadline row fired by the
    caller): the game's timeout is appended, with the drafts a clock may seal as their seats'
    moves."""
    drafts = {str(s.index): s.draft for s in match.seats.all() if s.draft is not None}
    inputs = {"clock": key, **({"drafts": drafts} if drafts else {})}
    move = Move("timeout", now, inputs=inputs)
    outcome = play(match.game, match.state, move)
    if outcome.drafts_sealed and match.server_seed:  # their receipts open with the moves made
        played = {
            seat: match.game.draft_move(match.state, seat, drafts[str(seat)])
            for seat in outcome.drafts_sealed
        }
        sealed = {seat: made for seat, made in played.items() if made is not None}
        match.fairness = fairness.with_drafts_played(match.fairness, sealed)
    append(match, outcome, move, now=now, fired=key)
