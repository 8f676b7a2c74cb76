"""The host's operations: start, pause, resume, change a clock, end the round, award, abort,
correct a result, replace a seat, a rematch.

Each checks that the actor may run the match (authority.may_run), runs under the match's lock,
and is one event players read in words, with the host's reason. While a match is paused its
rules run at the moment it paused, so that every clock they set moves with the rest when it
resumes.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from games.core.game.gamedef import ActionError, Outcome, run_rules, state_deadlines
from games.core.match import authority, clock, ledger, seating, services
from games.core.match.replaying import Move, play, state_before_finish
from games.core.models import Match, Seat, new_invite_token

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
    locked = services.lock(match.pk)
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
        seating.start(locked, actor)


def host_pause(match: Match, actor: Any, reason: str = "") -> None:
    with transaction.atomic():
        refusal = ActionError("only a live match can be paused", code="not_live")
        locked = _hosted(match, actor, {Match.Status.LIVE}, refusal)
        now = clock.now()
        locked.status = Match.Status.PAUSED
        locked.paused_at = now
        outcome = Outcome(state=locked.state, kind="paused", public=_said(reason))
        services.append(locked, outcome, Move("keep", now), actor=actor, now=now)


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
        services.append(locked, outcome, move, actor=actor, now=now)


def host_change_clock(match: Match, actor: Any, key: str, seconds: Any, reason: str = "") -> None:
    """Give a running clock ``seconds`` more (or, negative, less), live or paused. At least
    MIN_SECONDS_LEFT must stay on it; ending a round at once is ``host_end_round``."""
    with transaction.atomic():
        refusal = ActionError("only a live or paused match has clocks to change", code="not_live")
        locked = _hosted(match, actor, services.RUNNING, refusal)
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
        services.append(locked, outcome, move, actor=actor, now=now)


def host_end_round(match: Match, actor: Any, reason: str = "") -> None:
    """End the game's current round or phase as it stands (where the game has them)."""
    with transaction.atomic():
        refusal = ActionError("only a live or paused match has a round to end", code="not_live")
        locked = _hosted(match, actor, services.RUNNING, refusal)
        game = locked.game
        if game.end_round_label(locked.state) is None:
            raise ActionError("there is no round to end now", code="no_round")
        now = clock.now()
        move = Move("end_round", _rules_now(locked, now))
        outcome = run_rules(play, game, locked.state, move)
        outcome.public = {**outcome.public, "by_host": True, **_said(reason)}
        _finish_by_host(locked, outcome, reason)
        services.append(locked, outcome, move, actor=actor, now=now)


def _finish_by_host(match: Match, outcome: Outcome, reason: str) -> None:
    """A host decision that ends a paused match finishes it (finishing goes through
    services.append), with the host's reason in the result."""
    if outcome.result is None:
        return
    outcome.result = {**outcome.result, **_said(reason)}
    if match.status == Match.Status.PAUSED:
        match.status = Match.Status.LIVE
        match.paused_at = None


def host_abort(match: Match, actor: Any, reason: str = "") -> None:
    """Stop the match for good: its clocks stop, no one may move, the reason is the result."""
    with transaction.atomic():
        locked = services.lock(match.pk)
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
        services.append(locked, outcome, move, actor=actor, now=now)


def host_adjudicate(match: Match, actor: Any, award: dict[str, Any]) -> None:
    """The host settles a round or the match. A finished match takes only what its game still
    offers the host (say, naming a tied Elimination Candidate), and keeps its status."""
    with transaction.atomic():
        locked = services.lock(match.pk)
        _check_host(locked, actor)
        finished = locked.status == Match.Status.FINISHED
        if finished:
            _check_still_offered(locked, award)
        elif locked.status not in services.RUNNING:
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
            services.append(locked, outcome, move, actor=actor, now=now)
            return
        _finish_by_host(locked, outcome, reason)
        services.append(locked, outcome, move, actor=actor, now=now)


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
        services.append(locked, correction, move, actor=actor, now=now)


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
        locked = _hosted(match, actor, {Match.Status.OPEN, *services.RUNNING}, refusal)
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
        move = seating.seating_move(locked, seat, seat.player_name, now)
        outcome = play(locked.game, locked.state, move)
        outcome.kind, outcome.public = "seat_replaced", public
        services.append(locked, outcome, move, actor=actor, now=now)
        return seat


def rematch(match: Match, actor: Any) -> Match:
    """A new match of the same game with the same settings and title, its seats taken by the
    same players (bots keep their levels; a seat whose player left stays open). The finished
    match records it (``result["rematch"]``, a logged ``rematch`` event), so everyone watching
    it gets the link live; asking again returns the same rematch."""
    with transaction.atomic():
        locked = services.lock(match.pk)
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
        services.append(locked, outcome, Move("keep", now), actor=actor, now=now)
        invites = {seat.index: seat.invite_token for seat in fresh.seats.all()}
        for seat in seats:
            if seat.bot_level:
                seating.seat_bot(fresh, seat.index, seat.bot_level)
            elif seat.user_id is not None:
                seating.take_seat(fresh, seat.user, invites[seat.index])
    fresh.refresh_from_db()
    return fresh
