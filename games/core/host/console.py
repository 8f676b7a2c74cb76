"""The host console: what it offers for a match now, the same on the match page and in the
dashboard (templates/core/_host_console.html). Read only: what an operation does is
games/core/host/hosting.py's. Choices name players as every page does, with the consequence."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from games.core.game.gamedef import (
    ActionError,
    SeatInfo,
    Viewer,
    run_rules,
    seat_label,
    state_deadlines,
)
from games.core.game.words import clock_left, listed
from games.core.match.replaying import state_before_finish
from games.core.models import Match

OPEN, LIVE, PAUSED = Match.Status.OPEN, Match.Status.LIVE, Match.Status.PAUSED
FINISHED = Match.Status.FINISHED
RUNNING = frozenset({LIVE, PAUSED})


@dataclass(frozen=True)
class HostOperation:
    name: str
    label: str
    statuses: frozenset[str]


OPERATIONS: dict[str, HostOperation] = {
    op.name: op
    for op in (
        HostOperation("start", "Start", frozenset({OPEN})),
        HostOperation("pause", "Pause", frozenset({LIVE})),
        HostOperation("resume", "Resume", frozenset({PAUSED})),
        HostOperation("clock", "Change a clock", RUNNING),
        HostOperation("end_round", "End the round", RUNNING),
        HostOperation("award", "Award", RUNNING),
        HostOperation("replace", "Replace a player", frozenset({OPEN, *RUNNING})),
        HostOperation("settle", "Settle the result", frozenset({FINISHED})),
        HostOperation("correct", "Correct the result", frozenset({FINISHED})),
        HostOperation("abort", "Abort", frozenset({OPEN, *RUNNING})),
    )
}


def award_consequence(seats: list[SeatInfo], award: dict[str, Any]) -> str:
    """What an award does to the others, in words: "Alice (EC) loses the match."."""
    winner = award.get("winner")
    if not isinstance(winner, int):
        return ""  # a decision of the game's own: its label says it all
    if award.get("scope", "match") != "match":
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
        confirm = f"{label}? {consequence}" if consequence else f"{label}?"
        choices.append({"value": value, "label": label, "confirm": confirm})
    return choices


def _decides(match: Match, value: str, now: datetime) -> bool:
    """Does the game accept the award ``value`` on the match's state now (a dry run of the
    pure rule: nothing is recorded)?"""
    try:
        run_rules(match.game.adjudicate, match.state, json.loads(value), now)
    except ActionError:
        return False
    return True


# What an app built on the core says before a match's result is corrected (a season that moved
# on since: what it decided stands): set by that app when it loads, so the core imports none.
CorrectionNote = Callable[[Match], str]
_correction_notes: list[CorrectionNote] = []


def tell_correction_note(rule: CorrectionNote) -> None:
    """Add what to tell the host before they correct a finished match ("" for nothing)."""
    _correction_notes.append(rule)


def correction_warning(match: Match) -> str:
    """What the host is told before correcting ``match``'s result ("" for nothing)."""
    return " ".join(note for rule in _correction_notes if (note := rule(match)))


def correction_choices(match: Match) -> list[dict[str, str]]:
    """The results the host may put in place of a finished match's: each seat winning, as the
    game would award it on the state just before the match ended, said as the result it
    gives ("Cyd wins; Bob becomes the Elimination Candidate"), not as the live award's words."""
    before = state_before_finish(match)
    finished = match.finishing_event()
    if before is None or finished is None:
        return []
    names = {seat.index: seat.name for seat in match.seat_infos()}
    warning = correction_warning(match)
    offered = []
    for choice in _choices(match, before):
        award = json.loads(choice["value"])
        if award.get("scope", "match") == "match" and isinstance(award.get("winner"), int):
            label = _corrected_result(match, before, award, finished.created_at, names)
            confirm = (
                f"Correct the result: {label}? {warning + ' ' if warning else ''}The ledger "
                "entries of the old result are reversed and the new ones written."
            )
            offered.append({**choice, "label": label, "confirm": confirm})
    return offered


def _corrected_result(
    match: Match, before: dict[str, Any], award: dict[str, Any], at: datetime, names: dict
) -> str:
    """The result a correction gives, in words: its winner and, where the game names one, who
    becomes the Elimination Candidate (or who tie for it)."""
    said = f"{names.get(award['winner'], 'Seat ' + str(award['winner'] + 1))} wins"
    try:
        outcome = run_rules(match.game.adjudicate, before, award, at)
        result = match.game.seen(outcome.state, Viewer.spectator()).get("result") or {}
    except Exception:  # noqa: BLE001 - words a game cannot give never cost the console
        return said
    candidate = result.get("elimination_candidate") if isinstance(result, dict) else None
    tied = result.get("ec_tied") if isinstance(result, dict) else None
    if isinstance(candidate, int) and candidate in names:
        return f"{said}; {names[candidate]} becomes the Elimination Candidate"
    if tied:
        who = listed(names.get(seat, str(seat)) for seat in tied)
        return f"{said}; {who} tie for Elimination Candidate (you settle it after)"
    return said


def running_clocks(match: Match, now: datetime) -> list[dict[str, str]]:
    """The running clocks: key, name, due time and the time left (while paused, the time each
    keeps for the resume; a live page counts ``due`` down itself)."""
    if match.status not in RUNNING:
        return []
    paused = match.status == PAUSED and match.paused_at is not None
    at = match.paused_at if paused else now
    clocks = []
    for key, due in sorted(state_deadlines(match.state).items(), key=lambda kv: kv[1]):
        left = clock_left(int((due - at).total_seconds()))
        clocks.append(
            {
                "key": key,
                "name": match.game.clock_name(match.state, key),
                "due": "" if paused else due.isoformat(),
                "left": f"{left} left when resumed" if paused else "",
            }
        )
    return clocks


def for_match(match: Match, now: datetime) -> dict[str, Any]:
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
        "correction_warning": correction_warning(match) if corrections else "",
        "seats": replaceable,
        "bot_levels": list(game.bot_levels),
    }
