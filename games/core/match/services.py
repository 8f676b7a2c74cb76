"""The one path every change to a match takes.

check (seat, status, version) -> lock the match row -> run the pure game -> append the event ->
commit -> broadcast on commit. Refusals change nothing and carry a stable code and a message.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction

from games.core.game import fairness
from games.core.game.gamedef import ActionError, Outcome, Viewer, run_rules, state_deadlines
from games.core.live import broadcast
from games.core.match import authority, clock, ledger, signals
from games.core.match.replaying import (
    SNAPSHOT_EVERY,
    Move,
    keep_snapshot,
    play,
    state_before_finish,
)
from games.core.models import (
    Deadline,
    Event,
    Match,
    Season,
    Seat,
    display_name,
    new_invite_token,
)

log = logging.getLogger(__name__)

MAX_CLIENT_ACTION_ID = 64
RUNNING = {Match.Status.LIVE, Match.Status.PAUSED}


@dataclass(frozen=True)
class Accepted:
    version: int
    duplicate: bool = False


# --- appending events -------------------------------------------------------------------------


def _append(
    match: Match,
    outcome: Outcome,
    move: Move | None = None,
    *,
    actor: Any = None,
    client_action_id: str | None = None,
    now: datetime,
) -> Event:
    """Record an outcome on a locked match row: new version, event (the ``move`` that made the
    outcome, not the state), state, a snapshot every SNAPSHOT_EVERY events (and of an outcome no
    move can make again: ``move`` None), deadlines, status, prizes and drafts used up; the event
    is announced to every viewer once the commit is done."""
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
    event.insert_row(match._state.db or "default")
    event.state = outcome.state
    if match.version % SNAPSHOT_EVERY == 0 or not move.replayable:
        keep_snapshot(match, match.version, outcome.state)
    match.save_row()
    _sync_deadlines(match, clocks_before)
    match.rows_live = match.status == Match.Status.LIVE
    ledger.credit_prizes(match, outcome.prizes, version=match.version)
    _clear_drafts(match, {*outcome.drafts_sealed, *([seat] if seat is not None else [])})
    # Whoever listens (notifications write their rows here, delivered after commit by the
    # scheduler process): games/core/match/signals.py.
    signals.event_appended.send(Match, match=match, event=event, before=state_before)
    broadcast.announce_event(match, event, state_before)
    return event


def _clear_drafts(match: Match, seats: set[int]) -> None:
    used = [s for s in match.seats.all() if s.index in seats and s.draft is not None]
    if used:
        Seat.objects.filter(pk__in=[s.pk for s in used]).update(draft=None)
        for seat in used:
            seat.draft = None


def _clock_rows(match: Match) -> dict[str, datetime]:
    """The clocks that have pending Deadline rows: those of the state while the match was live
    when it was locked or last recorded (a pause or an abort sets the status before recording
    it, and its rows must still be cancelled; a resume's must be written)."""
    live = getattr(match, "rows_live", match.status == Match.Status.LIVE)
    return state_deadlines(match.state) if live else {}


def _sync_deadlines(match: Match, before: dict[str, datetime]) -> None:
    """Mirror the clocks of the state into Deadline rows, touching only those that changed."""
    wanted = state_deadlines(match.state) if match.status == Match.Status.LIVE else {}
    changed = [key for key, due in before.items() if wanted.get(key) != due]
    new = {key: due for key, due in wanted.items() if before.get(key) != due}
    Deadline.objects.change(match.pk, match.version, changed, new)


def _lock(match_id: int, *, client_action_id: str | None = None, user: Any = None) -> Match:
    """Lock the match row (and read its seats). With a client action id and its user, the same
    query finds the version of the event that user's seat already sent with that id
    (``earlier_version``): ids are unique per seat, so two players' ids never answer for each
    other."""
    return Match.objects.locked(
        match_id, client_action_id=client_action_id, user_id=getattr(user, "pk", None)
    )


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
        locked = _lock(match_pk, client_action_id=client_action_id, user=actor)
        seat = find_seat(locked)
        if seat is None:
            raise ActionError("you do not hold a seat in this match", code="not_seated")
        earlier = getattr(locked, "earlier_version", None)
        if earlier is not None:
            return Accepted(version=earlier, duplicate=True)
        now = clock.now()
        refusal = _check_playable(locked)
        if refusal is not None:
            raise refusal
        if any(due <= now for due in state_deadlines(locked.state).values()):
            raise _DeadlineDue
        game = locked.game
        if action["type"] not in game.unversioned_actions and _moved_on_since(
            locked, expected_version
        ):
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
        _append(
            locked, outcome, move, actor=actor, client_action_id=client_action_id or None, now=now
        )
        return Accepted(version=locked.version)


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
        locked = _lock(match_pk)
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
        _append(locked, outcome, Move("keep", now), now=now)
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
            locked = _lock(match.pk)
            if game.analysis_job(locked.state) != job:
                continue  # someone else recorded it, or the match moved past it
            now = clock.now()
            move = Move("analysis", now, inputs={"result": result})
            outcome = play(game, locked.state, move)
            outcome.informational = True
            _append(locked, outcome, move, now=now)
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
        _time_out(match, deadline.key, now)
        return True


MAX_CLOCKS_AT_ONCE = 20


def _run_due_clocks(match_pk: int) -> None:
    """Fire every clock of the match's state that is due, read from the state itself (not the
    Deadline rows, one of which may be lost or late), so an action that finds a clock run out
    is judged after its timeout instead of failing."""
    with transaction.atomic():
        match = _lock(match_pk)
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
            _time_out(match, key, now)


def _time_out(match: Match, key: str, now: datetime) -> None:
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
    _append(match, outcome, move, now=now)


def next_deadline_at() -> datetime | None:
    row = Deadline.objects.filter(fired_at=None, cancelled=False).order_by("due_at").first()
    return row.due_at if row else None


# --- lobby and host ---------------------------------------------------------------------------


def create_match(
    *, host: Any, game_key: str, title: str, settings: dict[str, Any], roles: list[str]
) -> Match:
    from games.core.game.registry import get_game

    game = get_game(game_key)
    cleaned = game.clean_settings(settings)
    if not game.min_seats <= len(roles) <= game.max_seats:
        raise ValueError(f"{game.title} takes {game.min_seats}-{game.max_seats} seats")
    with transaction.atomic():
        match = Match.objects.create(
            game_key=game_key,
            title=title or game.title,
            host=host,
            settings=cleaned,
            season=Season.current(),
        )
        for index, role in enumerate(roles):
            Seat.objects.create(match=match, index=index, role=role)
    return match


def take_seat(match: Match, user: Any, invite_token: str, player_seed: Any = "") -> Seat:
    """Seat ``user`` by the seat's invite. ``player_seed``: what the player's page contributes
    to the match's draws (games/core/game/fairness.py), kept only before the start."""
    with transaction.atomic():
        locked = _lock(match.pk)
        seat = next((s for s in locked.seats.all() if s.invite_token == invite_token), None)
        if seat is None:
            raise ActionError("this invite link is not valid for this match", code="bad_invite")
        mine = locked.seat_of(user)
        if mine is not None:
            if mine.pk == seat.pk:
                return seat
            raise ActionError("you already hold another seat in this match", code="already_seated")
        if seat.is_taken:
            raise ActionError("this seat is already taken", code="seat_taken")
        if locked.status not in {Match.Status.OPEN, *RUNNING}:
            raise ActionError("this match is no longer taking players", code="not_open")
        seat.user = user
        seat.joined_at = clock.now()
        seat.save()
        if locked.status == Match.Status.OPEN and player_seed:
            _keep_player_seed(locked, seat.index, player_seed)
        _seat_taken(locked, seat, display_name(user))
        return seat


def _keep_player_seed(match: Match, seat: int, player_seed: Any) -> None:
    try:
        cleaned = fairness.clean_player_seed(player_seed)
    except ValueError as error:
        raise ActionError(str(error), code="bad_player_seed") from None
    # Written with the event that tells of it (the seat taken, the seed given).
    match.fairness = fairness.with_player_seed(match.fairness, seat, cleaned)


def give_player_seed(match: Match, user: Any, player_seed: Any) -> None:
    """Keep the seed the page of ``user``'s seat contributes to the draws (the page of a seat
    taken without its page, as a season's host seats its players): before the start only, and
    once (a seed already given stands)."""
    with transaction.atomic():
        locked = _lock(match.pk)
        seat = locked.seat_of(user)
        if seat is None:
            raise ActionError("you do not hold a seat in this match", code="not_seated")
        if locked.status != Match.Status.OPEN:
            raise ActionError("the match has started: its seeds are set", code="not_open")
        if str(seat.index) in locked.fairness.get("players", {}):
            return
        _keep_player_seed(locked, seat.index, player_seed)
        now = clock.now()
        given = locked.fairness["players"][str(seat.index)]
        public = {"seat": seat.index, "name": seat.player_name, "player_seed": given}
        outcome = Outcome(state=locked.state, kind="player_seed", public=public)
        _append(locked, outcome, Move("keep", now), now=now)


def seat_bot(match: Match, seat_index: int, level: str) -> Seat:
    with transaction.atomic():
        locked = _lock(match.pk)
        if locked.status != Match.Status.OPEN:
            raise ActionError("this match is no longer taking players", code="not_open")
        seat = next((s for s in locked.seats.all() if s.index == seat_index), None)
        if seat is None:
            raise ActionError(f"there is no seat {seat_index + 1}", code="no_such_seat")
        if seat.is_taken:
            raise ActionError("this seat is already taken", code="seat_taken")
        seat.bot_level = level
        seat.save()
        _seat_taken(locked, seat, seat.player_name)
        return seat


def _seating(match: Match, seat: Seat, name: str, now: datetime) -> Move:
    """The move of ``seat`` taken by ``name``: in a running match the game names its new
    occupant (a substitute, a bot the host seated), who plays on as themselves; before the
    start the game has no seats yet to name."""
    if match.status == Match.Status.OPEN or not match.state:
        return Move("keep", now)
    inputs = {"seat": seat.index, "name": name, "is_bot": bool(seat.bot_level)}
    return Move("seated", now, inputs=inputs)


def _seat_taken(match: Match, seat: Seat, name: str) -> None:
    """Log the seat as taken; with auto_start, the last seat taken starts the match."""
    public = {"seat": seat.index, "name": name}
    if match.status != Match.Status.OPEN:
        public["substitute"] = True  # the host freed this seat of a running match
    now = clock.now()
    move = _seating(match, seat, name, now)
    outcome = play(match.game, match.state, move)
    outcome.kind, outcome.public = "seat_taken", public
    _append(match, outcome, move, now=now)
    if match.status != Match.Status.OPEN:
        return
    if match.settings.get("auto_start", True) and all(s.is_taken for s in match.seats.all()):
        _start(match, actor=None)


def match_seed(match: Match) -> int | str:
    """What the match's draws come from (games/core/game/fairness.py): its server seed, its id and
    every seat's seed (the empty seed for a seat whose page gave none), as the flow keeps it; a
    match made before server seeds, its number."""
    if not match.server_seed:
        return match.seed
    seats = [seat.index for seat in match.seats.all()]
    players = fairness.players_text(match.fairness.get("players", {}), seats)
    return fairness.match_seed(match.server_seed, match.public_id, players)


def _start(match: Match, actor: Any) -> None:
    now = clock.now()
    seats = [asdict(seat) for seat in match.seat_infos()]
    inputs = {"settings": match.settings, "seats": seats, "seed": match_seed(match)}
    move = Move("start", now, inputs=inputs)
    outcome = play(match.game, match.state, move)
    match.status = Match.Status.LIVE
    match.started_at = now
    _append(match, outcome, move, actor=actor, now=now)


# --- the host's operations ---------------------------------------------------------------------
# Each checks that the actor may run the match (authority.may_run), runs under the
# match's lock, and is one event players read in words, with the host's reason. While a match is
# paused its rules run at the moment it paused, so that every clock they set moves with the rest
# when it resumes.

MAX_CLOCK_CHANGE_SECONDS = 30 * 24 * 3600
MIN_SECONDS_LEFT = 5


def is_host(match: Match, user: Any) -> bool:
    """Whether ``user`` may run ``match`` (games/core/match/authority.py: its host, its season's
    hosts, a superuser; never a player holding one of its seats)."""
    return authority.may_run(match, user)


def _check_host(match: Match, actor: Any) -> None:
    if not is_host(match, actor):
        raise ActionError("only the host can do that", code="forbidden")


def _hosted(match: Match, actor: Any, statuses: set[str], refusal: ActionError) -> Match:
    """The match locked for a host operation: hosted by ``actor``, in one of ``statuses``."""
    locked = _lock(match.pk)
    _check_host(locked, actor)
    if locked.status not in statuses:
        raise refusal
    return locked


def _rules_now(match: Match, now: datetime) -> datetime:
    """The time the rules see: a paused match's clocks stand at the moment it paused."""
    if match.status == Match.Status.PAUSED and match.paused_at is not None:
        return match.paused_at
    return now


def _said(reason: str) -> dict[str, str]:
    """The host's reason as an event's public part (nothing when none was given)."""
    text = " ".join(str(reason or "").split())[:200]
    return {"host_reason": text} if text else {}


def host_start(match: Match, actor: Any) -> None:
    with transaction.atomic():
        refusal = ActionError("only a match that has not started can be started", code="not_open")
        locked = _hosted(match, actor, {Match.Status.OPEN}, refusal)
        if not all(s.is_taken for s in locked.seats.all()):
            raise ActionError("every seat must be taken before the start", code="seats_open")
        _start(locked, actor)


def host_pause(match: Match, actor: Any, reason: str = "") -> None:
    with transaction.atomic():
        refusal = ActionError("only a live match can be paused", code="not_live")
        locked = _hosted(match, actor, {Match.Status.LIVE}, refusal)
        now = clock.now()
        locked.status = Match.Status.PAUSED
        locked.paused_at = now
        outcome = Outcome(state=locked.state, kind="paused", public=_said(reason))
        _append(locked, outcome, Move("keep", now), actor=actor, now=now)


def host_resume(match: Match, actor: Any, reason: str = "") -> None:
    """Resume a paused match: every clock, and every time a clock is measured from, moves by
    the pause's length, so no one's remaining time changes."""
    with transaction.atomic():
        refusal = ActionError("only a paused match can be resumed", code="not_paused")
        locked = _hosted(match, actor, {Match.Status.PAUSED}, refusal)
        now = clock.now()
        shift = now - (locked.paused_at or now)
        move = Move("shift", now, inputs={"microseconds": shift // timedelta(microseconds=1)})
        outcome = play(locked.game, locked.state, move)
        locked.status = Match.Status.LIVE
        locked.paused_at = None
        outcome.kind = "resumed"
        outcome.public = {"paused_seconds": round(shift.total_seconds()), **_said(reason)}
        _append(locked, outcome, move, actor=actor, now=now)


def host_change_clock(match: Match, actor: Any, key: str, seconds: Any, reason: str = "") -> None:
    """Give a running clock ``seconds`` more (or, negative, less), live or paused. At least
    MIN_SECONDS_LEFT must stay on it; ending a round at once is ``host_end_round``."""
    with transaction.atomic():
        refusal = ActionError("only a live or paused match has clocks to change", code="not_live")
        locked = _hosted(match, actor, RUNNING, refusal)
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds == 0:
            raise ActionError("change a clock by a whole number of seconds", code="bad_seconds")
        if abs(seconds) > MAX_CLOCK_CHANGE_SECONDS:
            raise ActionError("change a clock by at most 30 days", code="bad_seconds")
        clocks = state_deadlines(locked.state)
        if key not in clocks:
            running = ", ".join(sorted(clocks)) or "none"
            raise ActionError(
                f"no clock {str(key)[:40]!r} is running (running: {running})", code="no_clock"
            )
        now = clock.now()
        left = clocks[key] + timedelta(seconds=seconds) - _rules_now(locked, now)
        if left < timedelta(seconds=MIN_SECONDS_LEFT):
            # Point the host to the operation this game offers now to end things at once.
            ending = locked.game.end_round_label(locked.state)
            instead = (
                f"to end {ending} now, use End the round"
                if ending is not None
                else "to end the match now, use Award or Abort"
            )
            raise ActionError(
                f"at least {MIN_SECONDS_LEFT} seconds must stay on a clock; {instead}",
                code="bad_seconds",
            )
        inputs = {"microseconds": seconds * 1_000_000, "clock": key}
        move = Move("shift", now, inputs=inputs)
        outcome = play(locked.game, locked.state, move)
        outcome.kind = "clock_changed"
        outcome.public = {
            "clock": key,
            "clock_name": locked.game.clock_name(locked.state, key),
            "seconds": seconds,
            "left": int(left.total_seconds()),
            "paused": locked.status == Match.Status.PAUSED,
            **_said(reason),
        }
        _append(locked, outcome, move, actor=actor, now=now)


def host_end_round(match: Match, actor: Any, reason: str = "") -> None:
    """End the game's current round or phase as it stands (where the game has them)."""
    with transaction.atomic():
        refusal = ActionError("only a live or paused match has a round to end", code="not_live")
        locked = _hosted(match, actor, RUNNING, refusal)
        game = locked.game
        if game.end_round_label(locked.state) is None:
            raise ActionError("there is no round to end now", code="no_round")
        now = clock.now()
        move = Move("end_round", _rules_now(locked, now))
        outcome = run_rules(play, game, locked.state, move)
        outcome.public = {**outcome.public, "by_host": True, **_said(reason)}
        _finish_by_host(locked, outcome, reason)
        _append(locked, outcome, move, actor=actor, now=now)


def _finish_by_host(match: Match, outcome: Outcome, reason: str) -> None:
    """A host decision that ends a paused match finishes it (finishing goes through _append),
    with the host's reason in the result."""
    if outcome.result is None:
        return
    outcome.result = {**outcome.result, **_said(reason)}
    if match.status == Match.Status.PAUSED:
        match.status = Match.Status.LIVE
        match.paused_at = None


def host_abort(match: Match, actor: Any, reason: str = "") -> None:
    """Stop the match for good: its clocks stop, no one may move, the reason is the result."""
    with transaction.atomic():
        locked = _lock(match.pk)
        _check_host(locked, actor)
        if locked.is_over:
            raise ActionError("the match is already over", code="match_over")
        now = clock.now()
        said = _said(reason)
        locked.status = Match.Status.ABORTED
        locked.finished_at = now
        locked.paused_at = None
        locked.result = {"aborted": True, **said}
        move = Move("abort", now)
        outcome = play(locked.game, locked.state, move)
        outcome.public = said
        outcome.prizes = locked.game.refunds_on_abort(locked.state) if locked.state else {}
        _append(locked, outcome, move, actor=actor, now=now)


def host_adjudicate(match: Match, actor: Any, award: dict[str, Any]) -> None:
    """The host settles a round or the match. A finished match takes only what its game still
    offers the host (say, naming a tied Elimination Candidate), and keeps its status."""
    with transaction.atomic():
        locked = _lock(match.pk)
        _check_host(locked, actor)
        finished = locked.status == Match.Status.FINISHED
        if finished:
            _check_still_offered(locked, award)
        elif locked.status not in RUNNING:
            raise ActionError("only a live or paused match can be adjudicated", code="not_live")
        now = clock.now()
        reason = str(award.get("reason") or "")
        decision = {key: value for key, value in award.items() if key != "reason"}
        move = Move("adjudicate", _rules_now(locked, now), inputs={"award": decision})
        outcome = run_rules(play, locked.game, locked.state, move)
        outcome.public = {**outcome.public, **_said(reason)}
        if finished:
            if outcome.result is not None:
                locked.result = {**outcome.result, **_said(reason)}
            _append(locked, outcome, move, actor=actor, now=now)
            return
        _finish_by_host(locked, outcome, reason)
        _append(locked, outcome, move, actor=actor, now=now)


def _check_still_offered(match: Match, award: dict[str, Any]) -> None:
    from games.core.game.gamedef import award_value

    offered = {value for value, _ in match.game.award_choices(match.state, match.seat_infos())}
    decision = {key: value for key, value in award.items() if key != "reason"}
    if award_value(decision) not in offered:
        raise ActionError("the match is over; nothing is left to settle", code="match_over")


def host_correct_result(match: Match, actor: Any, award: dict[str, Any], reason: str) -> None:
    """Put a corrected result in place of a finished match's: the game decides ``award`` on
    the state just before the match ended (as if the host had awarded it then); what the
    finishing event and later ones paid is reversed in the ledger by new entries naming them,
    and the corrected prizes are written."""
    with transaction.atomic():
        refusal = ActionError("only a finished match's result can be corrected", "not_finished")
        locked = _hosted(match, actor, {Match.Status.FINISHED}, refusal)
        said = _said(reason)
        if not said:
            raise ActionError("say why you correct the result", code="reason_needed")
        finished = locked.finishing_event()
        before = state_before_finish(locked)
        if finished is None or before is None:
            raise ActionError("this match's end cannot be found to correct", code="no_finish")
        decision = {key: value for key, value in award.items() if key != "reason"}
        outcome = run_rules(locked.game.adjudicate, before, decision, finished.created_at)
        if outcome.result is None:
            raise ActionError("a correction names who wins the match", code="bad_award")
        ledger.reverse_match_entries(
            locked, actor, f"correction: {said['host_reason']}", from_version=finished.version
        )
        result = {**outcome.result, **said, "corrected": True}
        words = result.get("summary") or _winner_words(locked, result.get("winner"))
        public = {"summary": words, "was": (locked.result or {}).get("winner"), **said}
        locked.result = result
        correction = Outcome(
            state=outcome.state,
            kind="result_corrected",
            public=public,
            private=outcome.private,
            prizes=outcome.prizes,
        )
        # Decided on the state before the finish, not the one before it: kept as a snapshot.
        now = clock.now()
        move = Move("correct", now, inputs={"award": decision, "on": finished.version - 1})
        _append(locked, correction, move, actor=actor, now=now)


def _winner_words(match: Match, winner: Any) -> str:
    seat = next((s for s in match.seats.all() if s.index == winner), None)
    return f"{seat.player_name} wins" if seat is not None else "no single winner"


def host_replace_seat(
    match: Match, actor: Any, seat_index: Any, bot_level: str = "", reason: str = ""
) -> Seat:
    """Free a seat whose player left: a bot of ``bot_level`` takes it at once, or (no level) a
    new invite link is made for a substitute, and the old one stops working. The leaver's
    socket no longer speaks for the seat."""
    with transaction.atomic():
        refusal = ActionError("a seat is replaced while the match runs", code="not_live")
        locked = _hosted(match, actor, {Match.Status.OPEN, *RUNNING}, refusal)
        seat = next((s for s in locked.seats.all() if s.index == seat_index), None)
        if seat is None or isinstance(seat_index, bool):
            raise ActionError(f"there is no seat {seat_index!r}", code="no_such_seat")
        if bot_level and bot_level not in locked.game.bot_levels:
            raise ActionError(f"unknown bot level {bot_level[:20]!r}", code="bad_level")
        before = seat.player_name
        seat.user = None
        seat.draft = None
        seat.joined_at = None
        seat.bot_level = bot_level
        seat.invite_token = new_invite_token()
        seat.save()
        public = {
            "seat": seat.index,
            "left": before,
            "by": seat.player_name if bot_level else "invite",
            **_said(reason),
        }
        now = clock.now()
        # A bot plays on at once; a seat left for a substitute is an open seat in the game's
        # panels too (as in the page's header) until the substitute takes it.
        move = _seating(locked, seat, seat.player_name, now)
        outcome = play(locked.game, locked.state, move)
        outcome.kind, outcome.public = "seat_replaced", public
        _append(locked, outcome, move, actor=actor, now=now)
        return seat


def rematch(match: Match, actor: Any) -> Match:
    """A new match of the same game with the same settings and title, its seats taken by the
    same players (bots keep their levels; a seat whose player left stays open). The finished
    match records it (``result["rematch"]``, a logged ``rematch`` event), so everyone watching
    it gets the link live; asking again returns the same rematch."""
    with transaction.atomic():
        locked = _lock(match.pk)
        _check_host(locked, actor)
        if not locked.is_over:
            raise ActionError("a rematch is made once the match is over", code="not_over")
        made = (locked.result or {}).get("rematch")
        if made:
            return Match.objects.get(public_id=made)
        fresh = Match.objects.create(
            game_key=locked.game_key,
            title=locked.title,
            host=locked.host,
            settings=dict(locked.settings),
            season=locked.season,
        )
        seats = list(locked.seats.all())
        for seat in seats:
            Seat.objects.create(match=fresh, index=seat.index, role=seat.role)
        locked.result = {**(locked.result or {}), "rematch": fresh.public_id}
        public = {"match": fresh.public_id}
        outcome = Outcome(state=locked.state, kind="rematch", public=public, informational=True)
        now = clock.now()
        _append(locked, outcome, Move("keep", now), actor=actor, now=now)
        invites = {seat.index: seat.invite_token for seat in fresh.seats.all()}
        for seat in seats:
            if seat.bot_level:
                seat_bot(fresh, seat.index, seat.bot_level)
            elif seat.user_id is not None:
                take_seat(fresh, seat.user, invites[seat.index])
    fresh.refresh_from_db()
    return fresh
