"""Replays: what each step of a finished match shows a viewer, and each event in a sentence.

A replay step is the match as ``viewer`` saw it after one event (``rendering.view_of`` on that
event's state), with the event said in a sentence (``GameDefinition.describe_event``) and the
marks a viewer jumps between (``GameDefinition.replay_marks``: the start of each round). The
plain words for seats, kinds and facts are games/core/words.py's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.core.gamedef import GameDefinition, State, Viewer
from games.core.models import Event, Match
from games.core.words import Mark, host_words


def state_at(match: Match, version: int) -> State:
    """The match's state just after the event of ``version`` (``{}`` before the first event).
    Every reader of a past version (replay, resync, export, analysis, host corrections) asks
    here; the current state is ``match.state``."""
    if version >= match.version:
        return match.state
    if version <= 0:
        return {}
    row = Event.objects.filter(match=match, version=version).values_list("state", flat=True)
    return row.first() or {}


def describe(game: GameDefinition, event: dict[str, Any], state: State) -> str:
    """``event`` in one sentence: a host operation in the core's words, anything else in the
    game's (with the host's reason after it when the host decided it)."""
    words = host_words(event, state)
    if words is not None:
        return words
    said = game.describe_event(event, state)
    reason = (event.get("data") or {}).get("host_reason")
    return f"{said} The host's reason: {reason}." if reason else said


def mark_at(marks: list[Mark], version: int) -> int:
    """The index of the mark ``version`` falls under (the last at or before it)."""
    index = 0
    for i, (start, _) in enumerate(marks):
        if start <= version:
            index = i
    return index


@dataclass
class ReplayStep:
    """One step of a replay as ``viewer`` may see it."""

    version: int
    last: int
    event: dict[str, Any] | None
    state: State
    description: str
    marks: list[Mark]
    mark: int | None
    round_events: list[dict[str, Any]]

    @property
    def previous(self) -> int | None:
        return self.version - 1 if self.version > 1 else None

    @property
    def next(self) -> int | None:
        return self.version + 1 if self.version < self.last else None

    @property
    def opening(self) -> int:
        return self.marks[-1][0] if self.marks else self.last


def opening_version(game: GameDefinition, events: list[dict[str, Any]], last: int) -> int:
    """Where a replay opens: the start of the last round (the end when there are no marks)."""
    marks = game.replay_marks(events)
    return marks[-1][0] if marks else last


def replay_step(match: Match, viewer: Viewer, requested: str | None) -> ReplayStep:
    """The step ``requested`` (``?v=``), or the start of the last round when none is asked."""
    game = match.game
    rows = list(match.events.defer("state").order_by("version"))
    seen = [row.seen_by(viewer) for row in rows]
    marks = game.replay_marks(seen)
    last = match.version
    try:
        version = int(requested) if requested is not None else opening_version(game, seen, last)
    except ValueError:
        version = last
    version = max(0, min(version, last))
    row = Event.objects.filter(match=match, version=version).first()
    state = row.state if row is not None else {}
    event = row.seen_by(viewer) if row is not None else None
    names = state or match.state
    mark = mark_at(marks, version) if marks else None
    first = marks[mark][0] if mark is not None else 1
    end = marks[mark + 1][0] if mark is not None and mark + 1 < len(marks) else last + 1
    round_events = [
        {**item, "description": describe(game, item, names)}
        for item in seen
        if first <= item["version"] < end
    ]
    return ReplayStep(
        version=version,
        last=last,
        event=event,
        state=state,
        description=describe(game, event, names) if event else "Before the first event.",
        marks=marks,
        mark=mark,
        round_events=round_events,
    )


def described_events(match: Match, viewer: Viewer) -> list[dict[str, Any]]:
    """Every event as ``viewer`` may see it, each with its sentence (the export)."""
    game = match.game
    names = match.state
    events = []
    for row in match.events.defer("state").order_by("version"):
        seen = row.seen_by(viewer)
        seen["description"] = describe(game, seen, names)
        events.append(seen)
    return events
