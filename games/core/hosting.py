"""The host's operations, declared once for every game: what the console offers now, and the one
way a submitted console form becomes a service call.

The match page's host panel and the dashboard draw the same console (templates/core/
_host_console.html) from ``console``; both post to ``views.host_operation``, which hands the
form to ``run``. Permission checks and the rules live in games.core.services; this module only
reads forms and words the choices (naming players as every page does, with the consequence).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from games.core import services
from games.core.gamedef import ActionError, SeatInfo, award_value, run_rules, seat_label
from games.core.models import Match

Form = Mapping[str, Any]

OPEN, LIVE, PAUSED = Match.Status.OPEN, Match.Status.LIVE, Match.Status.PAUSED
FINISHED = Match.Status.FINISHED
RUNNING = frozenset({LIVE, PAUSED})


def _reason(form: Form) -> str:
    return str(form.get("reason", ""))[:200]


def _required_reason(form: Form, what: str) -> str:
    reason = _reason(form).strip()
    if not reason:
        raise ActionError(f"say why you {what}: the players read it", code="reason_needed")
    return reason


def _award(form: Form) -> dict[str, Any]:
    try:
        award = json.loads(str(form.get("award", "")))
    except ValueError:
        award = None
    if not isinstance(award, dict):
        raise ActionError("choose one of the awards on offer", code="bad_award")
    return award


def _whole(form: Form, field: str, what: str) -> int:
    text = str(form.get(field, "")).strip()
    body = text[1:] if text[:1] in "+-" else text
    if not body.isascii() or not body.isdigit() or len(body) > 9:
        raise ActionError(f"{what} is a whole number", code="bad_seconds")
    return int(text)


def _pause(match: Match, user: Any, form: Form) -> None:
    services.host_pause(match, user, _reason(form))


def _resume(match: Match, user: Any, form: Form) -> None:
    services.host_resume(match, user, _reason(form))


def _change_clock(match: Match, user: Any, form: Form) -> None:
    minutes = _whole(form, "minutes", "the change in minutes")
    if minutes == 0:
        raise ActionError("give the clock more (say 5) or less (say -5) minutes", "bad_seconds")
    clock = str(form.get("clock", ""))
    services.host_change_clock(match, user, clock, minutes * 60, _reason(form))


def _end_round(match: Match, user: Any, form: Form) -> None:
    services.host_end_round(match, user, _required_reason(form, "end the round"))


def _offered(match: Match, form: Form) -> dict[str, Any]:
    """The award the form names, if the game offers it now (the page may be out of date)."""
    award = _award(form)
    offered = {value for value, _ in match.game.award_choices(match.state, match.seat_infos())}
    if award_value(award) not in offered:
        raise ActionError(
            "that award is not on offer now (the match has moved on); choose again",
            code="not_offered",
        )
    return award


def _award_match(match: Match, user: Any, form: Form) -> None:
    services.host_adjudicate(match, user, {**_offered(match, form), "reason": _reason(form)})


def _correct(match: Match, user: Any, form: Form) -> None:
    reason = _required_reason(form, "correct the result")
    services.host_correct_result(match, user, _award(form), reason)


def _replace_seat(match: Match, user: Any, form: Form) -> None:
    seat = _whole(form, "seat", "the seat")
    level = str(form.get("by", ""))
    level = "" if level == "invite" else level
    services.host_replace_seat(match, user, seat, level, _reason(form))


def _abort(match: Match, user: Any, form: Form) -> None:
    services.host_abort(match, user, _required_reason(form, "abort the match"))


def _start(match: Match, user: Any, form: Form) -> None:
    services.host_start(match, user)


@dataclass(frozen=True)
class HostOperation:
    name: str
    label: str
    statuses: frozenset[str]
    run: Callable[[Match, Any, Form], None]


OPERATIONS: dict[str, HostOperation] = {
    op.name: op
    for op in (
        HostOperation("start", "Start", frozenset({OPEN}), _start),
        HostOperation("pause", "Pause", frozenset({LIVE}), _pause),
        HostOperation("resume", "Resume", frozenset({PAUSED}), _resume),
        HostOperation("clock", "Change a clock", RUNNING, _change_clock),
        HostOperation("end_round", "End the round", RUNNING, _end_round),
        HostOperation("award", "Award", RUNNING, _award_match),
        HostOperation("replace", "Replace a player", frozenset({OPEN, *RUNNING}), _replace_seat),
        HostOperation("settle", "Settle the result", frozenset({FINISHED}), _award_match),
        HostOperation("correct", "Correct the result", frozenset({FINISHED}), _correct),
        HostOperation("abort", "Abort", frozenset({OPEN, *RUNNING}), _abort),
    )
}


def run(match: Match, user: Any, name: str, form: Form) -> None:
    """Run the operation ``name`` with the console's ``form``; ActionError when refused."""
    operation = OPERATIONS.get(name)
    if operation is None:
        raise ActionError(f"there is no host operation {name[:40]!r}", code="unknown_operation")
    if not services.is_host(match, user):
        raise ActionError("only the host can do that", code="forbidden")
    operation.run(match, user, form)  # the service checks the match's status under its lock


# --- what the console shows ----------------------------------------------------------------------


def award_consequence(seats: list[SeatInfo], award: dict[str, Any]) -> str:
    """What an award does to the others, in words: "Alice (EC) loses the match."."""
    winner = next(
        (award[key] for key in ("winner", "winner_seat") if isinstance(award.get(key), int)), None
    )
    if winner is None or award.get("scope", "match") != "match":
        return "The match goes on."
    losers = [seat for seat in seats if seat.index != winner]
    if len(losers) == 1:
        loser = losers[0]
        role = f" ({loser.role})" if loser.role else ""
        return f"{loser.name}{role} loses the match; it ends now."
    return "The match ends now with every other place as the totals stand."


def _choices(match: Match, state: dict[str, Any]) -> list[dict[str, str]]:
    seats = match.seat_infos()
    choices = []
    for value, label in match.game.award_choices(state, seats):
        consequence = award_consequence(seats, json.loads(value))
        choices.append({"value": value, "label": label, "confirm": f"{label}? {consequence}"})
    return choices


def _decides(match: Match, value: str, now: datetime) -> bool:
    """Does the game accept the award ``value`` on the match's state now (a dry run of the
    pure rule: nothing is recorded)?"""
    try:
        run_rules(match.game.adjudicate, match.state, json.loads(value), now)
    except ActionError:
        return False
    return True


def correction_choices(match: Match) -> list[dict[str, str]]:
    """The results the host may put in place of a finished match's: each seat winning, as the
    game would award it on the state just before the match ended."""
    before = services.state_before_finish(match)
    if before is None:
        return []
    offered = []
    for choice in _choices(match, before):
        award = json.loads(choice["value"])
        if award.get("scope", "match") == "match" and any(
            isinstance(award.get(key), int) for key in ("winner", "winner_seat")
        ):
            confirm = (
                f"Correct the result: {choice['label']}? The ledger entries of the old result "
                "are reversed and the new ones written."
            )
            offered.append({**choice, "confirm": confirm})
    return offered


def running_clocks(match: Match, now: datetime) -> list[dict[str, str]]:
    """The running clocks: key, name, due time and the time left (while paused, the time each
    keeps for the resume; a live page counts ``due`` down itself)."""
    from games.core.replaying import clock_left

    if match.status not in RUNNING:
        return []
    paused = match.status == PAUSED and match.paused_at is not None
    at = match.paused_at if paused else now
    clocks = []
    for key, due in sorted(services.state_deadlines(match.state).items(), key=lambda kv: kv[1]):
        left = clock_left(int((due - at).total_seconds()))
        clocks.append(
            {
                "key": key,
                "name": f"{key.replace('_', ' ')} clock",
                "due": "" if paused else due.isoformat(),
                "left": f"{left} left when resumed" if paused else "",
            }
        )
    return clocks


def console(match: Match, now: datetime) -> dict[str, Any]:
    """Everything the host console offers for ``match`` now."""
    status = match.status
    game = match.game
    seats = match.seat_infos()
    offered = {name for name, op in OPERATIONS.items() if status in op.statuses}
    end_round = game.end_round_label(match.state) if status in RUNNING else None
    if end_round is None:
        offered.discard("end_round")
    clocks = running_clocks(match, now)
    if not clocks:
        offered.discard("clock")
    awards = _choices(match, match.state) if offered & {"award", "settle"} else []
    if "settle" in offered:  # a finished match: only what its game still decides
        awards = [a for a in awards if _decides(match, a["value"], now)]
    if not awards:
        offered -= {"award", "settle"}
    corrections = correction_choices(match) if "correct" in offered else []
    if not corrections:
        offered.discard("correct")
    replaceable = [
        {
            "index": seat.index,
            "label": seat_label(seat),
            "confirm": f"Free {seat_label(seat)}? {seat.name} can no longer play this match.",
        }
        for seat in seats
    ]
    return {
        "match": match,
        "offered": offered,
        "clocks": clocks,
        "end_round": end_round,
        "awards": awards,
        "corrections": corrections,
        "seats": replaceable,
        "bot_levels": list(game.bot_levels),
    }
