"""The host's operations, run: the one way a submitted console form (games/core/host/console.py
draws it) becomes a service call. ``views.host_operation`` hands every form here; permission
checks and the rules live in games.core.match.services; this module only reads the forms."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from games.core.game.gamedef import ActionError, award_value
from games.core.host import console
from games.core.match import host_operations
from games.core.models import Match

Form = Mapping[str, Any]


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
    host_operations.host_pause(match, user, _reason(form))


def _resume(match: Match, user: Any, form: Form) -> None:
    host_operations.host_resume(match, user, _reason(form))


def _change_clock(match: Match, user: Any, form: Form) -> None:
    minutes = _whole(form, "minutes", "the change in minutes")
    if minutes == 0:
        raise ActionError("give the clock more (say 5) or less (say -5) minutes", "bad_seconds")
    clock = str(form.get("clock", ""))
    host_operations.host_change_clock(match, user, clock, minutes * 60, _reason(form))


def _end_round(match: Match, user: Any, form: Form) -> None:
    host_operations.host_end_round(match, user, _required_reason(form, "end the round"))


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
    host_operations.host_adjudicate(match, user, {**_offered(match, form), "reason": _reason(form)})


def _correct(match: Match, user: Any, form: Form) -> None:
    reason = _required_reason(form, "correct the result")
    host_operations.host_correct_result(match, user, _award(form), reason)


def _replace_seat(match: Match, user: Any, form: Form) -> None:
    seat = _whole(form, "seat", "the seat")
    level = str(form.get("by", ""))
    level = "" if level == "invite" else level
    host_operations.host_replace_seat(match, user, seat, level, _reason(form))


def _abort(match: Match, user: Any, form: Form) -> None:
    host_operations.host_abort(match, user, _required_reason(form, "abort the match"))


def _start(match: Match, user: Any, form: Form) -> None:
    host_operations.host_start(match, user)


RUNS: dict[str, Callable[[Match, Any, Form], None]] = {
    "start": _start,
    "pause": _pause,
    "resume": _resume,
    "clock": _change_clock,
    "end_round": _end_round,
    "award": _award_match,
    "replace": _replace_seat,
    "settle": _award_match,
    "correct": _correct,
    "abort": _abort,
}
"""What each of the console's operations (games.core.host.console.OPERATIONS) does with its form."""


def check_operations(offered: Mapping[str, Any], runs: Mapping[str, Any]) -> None:
    """The console offers exactly the operations run here (checked as this module loads)."""
    unrun, unoffered = sorted(set(offered) - set(runs)), sorted(set(runs) - set(offered))
    if unrun or unoffered:
        raise ImproperlyConfigured(
            f"host operations the console offers but nothing runs: {unrun}; "
            f"run but never offered: {unoffered}"
        )


check_operations(console.OPERATIONS, RUNS)


def run(match: Match, user: Any, name: str, form: Form) -> None:
    """Run the operation ``name`` with the console's ``form``; ActionError when refused."""
    operation = RUNS.get(name)
    if operation is None:
        raise ActionError(f"there is no host operation {name[:40]!r}", code="unknown_operation")
    if not host_operations.is_host(match, user):
        raise ActionError("only the host can do that", code="forbidden")
    operation(match, user, form)  # the service checks the match's status under its lock
