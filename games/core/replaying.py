"""Replays: every past state of a match, what each step shows a viewer, and each event in words.

An event stores what happened (its move: what the rules were given), not the state it made;
the match row holds the current state and a snapshot is kept every SNAPSHOT_EVERY events. A
past state is rebuilt by playing the moves after the nearest snapshot again (``state_at``).

A replay step is the match as ``viewer`` saw it after one event (``rendering.view_of`` on that
event's state), with the event said in a sentence (``GameDefinition.describe_event``) and the
marks a viewer jumps between (``GameDefinition.replay_marks``: the start of each round). The
plain words for seats, kinds and facts are games/core/words.py's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Subquery

from games.core import statediff
from games.core.gamedef import GameDefinition, Outcome, SeatInfo, State, Viewer
from games.core.models import OPEN_SEAT, Event, Match, Snapshot
from games.core.words import Mark, host_words

# --- moves: what the rules were given, played again to rebuild a past state -----------------------

SNAPSHOT_EVERY = 5
"""A snapshot of the state is kept every SNAPSHOT_EVERY events (and at every event whose move
cannot be played again from the state before it), so rebuilding any version plays at most
SNAPSHOT_EVERY - 1 moves (benchmarks/storage.py measures it)."""


@dataclass(frozen=True)
class Move:
    """What the rules were given to make one event: played again on the state just before the
    event, it makes the state just after it, exactly (the rules are pure and deterministic).
    ``rule`` names the call (``RULES``); ``at`` is the time the rules saw; ``seat`` and
    ``action`` are the event's own columns; ``inputs`` holds the rest (a timeout's clock and the
    drafts it sealed, a host's award, an analysis's result)."""

    rule: str
    at: datetime
    seat: int | None = None
    action: dict[str, Any] | None = None
    inputs: dict[str, Any] = field(default_factory=dict)

    @property
    def replayable(self) -> bool:
        return self.rule in RULES

    def stored(self, created_at: datetime, public: dict[str, Any]) -> dict[str, Any]:
        """The move as its event keeps it: seat, action and time are the event's columns, and
        an input the event's public part already holds (an analysis's result) is named there
        (``in_public``) instead of kept twice."""
        data: dict[str, Any] = {"rule": self.rule}
        in_public = {}
        for name, value in self.inputs.items():
            shown = next(
                (
                    key
                    for key, seen in public.items()
                    if isinstance(value, dict | list) and seen == value
                ),
                None,
            )
            if shown is None:
                data[name] = value
            else:
                in_public[name] = shown
        if in_public:
            data["in_public"] = in_public
        if self.at != created_at:
            data["at"] = self.at.isoformat()
        return data

    @classmethod
    def of(cls, event: Any) -> Move:
        """The move an event row recorded (an Event, or a migration's historical row)."""
        return cls.kept(event.move, event.seat, event.action, event.public, event.created_at)

    @classmethod
    def kept(
        cls,
        move: dict[str, Any] | None,
        seat: int | None,
        action: dict[str, Any] | None,
        public: dict[str, Any],
        created_at: datetime,
    ) -> Move:
        """The move from an event's columns (``move`` None: a state kept whole, no move)."""
        data = dict(move or {"rule": "snapshot"})
        rule = data.pop("rule")
        at = datetime.fromisoformat(data.pop("at")) if "at" in data else created_at
        for name, key in data.pop("in_public", {}).items():
            data[name] = public[key]
        return cls(rule, at, seat=seat, action=action, inputs=data)


def _start(game: GameDefinition, state: State, move: Move) -> Outcome:
    seats = [SeatInfo(**seat) for seat in move.inputs["seats"]]
    return game.start(move.inputs["settings"], seats, move.inputs["seed"], move.at)


def _act(game: GameDefinition, state: State, move: Move) -> Outcome:
    assert move.seat is not None and move.action is not None
    return game.act(state, move.seat, move.action, move.at)


def _timeout(game: GameDefinition, state: State, move: Move) -> Outcome:
    drafts = {int(seat): draft for seat, draft in move.inputs.get("drafts", {}).items()}
    return game.timeout(state, move.inputs["clock"], move.at, drafts)


def _keep(game: GameDefinition, state: State, move: Move) -> Outcome:
    return Outcome(state=state, kind=move.rule)


def seated(state: State, seat: int, name: str, is_bot: bool) -> State:
    """``state`` with ``seat``'s new occupant named in the game's list of seats (every game keeps
    one, each entry with its ``index`` and ``name``): a bot or a substitute the host let in plays
    on under their own name, in the players' table as in the result."""
    seats = state.get("seats") if state else None
    if not isinstance(seats, list):
        return state
    renamed = []
    for entry in seats:
        if isinstance(entry, dict) and entry.get("index") == seat:
            entry = {**entry, "name": name}
            if "is_bot" in entry:
                entry["is_bot"] = is_bot
        renamed.append(entry)
    return {**state, "seats": renamed}


def _seated(game: GameDefinition, state: State, move: Move) -> Outcome:
    inputs = move.inputs
    return Outcome(
        state=seated(state, inputs["seat"], inputs["name"], inputs["is_bot"]), kind=move.rule
    )


def _shift(game: GameDefinition, state: State, move: Move) -> Outcome:
    shift = timedelta(microseconds=move.inputs["microseconds"])
    return Outcome(state=game.shift_clocks(state, shift, move.inputs.get("clock")), kind="shift")


def _abort(game: GameDefinition, state: State, move: Move) -> Outcome:
    return Outcome(state={**state, "deadlines": {}} if state else state, kind="aborted")


def _end_round(game: GameDefinition, state: State, move: Move) -> Outcome:
    return game.end_round(state, move.at)


def _adjudicate(game: GameDefinition, state: State, move: Move) -> Outcome:
    return game.adjudicate(state, move.inputs["award"], move.at)


def _analysis(game: GameDefinition, state: State, move: Move) -> Outcome:
    job = game.analysis_job(state)
    assert job is not None
    return game.record_analysis(state, job, move.inputs["result"])


RULES: dict[str, Callable[[GameDefinition, State, Move], Outcome]] = {
    "start": _start,
    "act": _act,
    "timeout": _timeout,
    "keep": _keep,  # a seat taken before the start, a pause, a rematch: the state stays as it was
    "seated": _seated,  # a running match's seat taken by a bot or a substitute: named anew
    "shift": _shift,  # a resume (every clock) or the host's change to one clock
    "abort": _abort,
    "end_round": _end_round,
    "adjudicate": _adjudicate,
    "analysis": _analysis,
}
"""Every move the core records, by rule. A move of any other rule (a result correction, decided
on the state before the finish; "snapshot", an outcome no recorded input makes again) is never
played again: its event's state is kept as a snapshot."""


def play(game: GameDefinition, state: State, move: Move) -> Outcome:
    """Run the rules ``move`` names on ``state``: the services make each event with it, and a
    rebuild plays the same moves again."""
    return RULES[move.rule](game, state, move)


def state_at(match: Match, version: int) -> State:
    """The match's state just after the event of ``version`` (``{}`` before the first event).
    Every reader of a past version (replay, resync, export, analysis, host corrections) asks
    here; the current state is the match row's own (a row read before ``version`` was made is
    behind it: that version is rebuilt)."""
    if version == match.version:
        return match.state
    if version <= 0:
        return {}
    return rebuild(match, version)


def _snapshot_rows(match_id: int, version: int) -> list[tuple[int, Any, Any, int]]:
    """``(version, state, patch, chain)`` of the snapshots from the last whole one at or before
    ``version`` to the last one at or before it, in version order (one query)."""
    whole = (
        Snapshot.objects.filter(match_id=match_id, version__lte=version, state__isnull=False)
        .order_by("-version")
        .values("version")[:1]
    )
    rows = Snapshot.objects.filter(
        match_id=match_id, version__lte=version, version__gte=Subquery(whole)
    )
    return list(rows.order_by("version").values_list("version", "state", "patch", "chain"))


def _snapshot(match_id: int, version: int) -> tuple[int, State]:
    """The last snapshot at or before ``version``: its version and state (0 and ``{}``: none)."""
    rows = _snapshot_rows(match_id, version)
    if not rows:
        return 0, {}
    return rows[-1][0], statediff.rebuild([(row[1], row[2]) for row in rows])


def rebuild(match: Match, version: int) -> State:
    """The state just after ``version``, rebuilt: the nearest snapshot at or before it (a
    whole state and the patches after it), with the moves of the events after the snapshot
    played again."""
    since, state = _snapshot(match.pk, version)
    if since == version:
        return state
    game = match.game
    moves = match.events.filter(version__gt=since, version__lte=version).order_by("version")
    for row in moves.values_list("move", "seat", "action", "public", "created_at"):
        state = play(game, state, Move.kept(*row)).state
    return state


def keep_snapshot(match: Match, version: int, state: State) -> Snapshot:
    """Keep ``state`` as the snapshot of ``version`` (the match's newest): a patch of the
    previous snapshot's state, or whole when the patches since the last whole state would
    outweigh it (statediff.keep)."""
    rows = _snapshot_rows(match.pk, version - 1)
    previous = statediff.rebuild([(row[1], row[2]) for row in rows]) if rows else None
    kept = statediff.keep(previous, rows[-1][3] if rows else 0, state)
    return Snapshot.objects.create(
        match=match, version=version, state=kept.state, patch=kept.patch, chain=kept.chain
    )


def describe(game: GameDefinition, event: dict[str, Any], state: State) -> str:
    """``event`` in one sentence: a host operation in the core's words, anything else in the
    game's (with the host's reason after it when the host decided it)."""
    words = host_words(event, state)
    if words is not None:
        return words
    said = game.describe_event(event, state)
    reason = (event.get("data") or {}).get("host_reason")
    return f"{said} The host's reason: {reason}." if reason else said


def _changes_hands(event: dict[str, Any]) -> bool:
    """Whether ``event`` hands a running match's seat to someone else."""
    kind, data = event.get("kind"), event.get("data") or {}
    return kind == "seat_replaced" or (kind == "seat_taken" and bool(data.get("substitute")))


def holders_at(events: list[dict[str, Any]], version: int, names: State) -> State:
    """``names`` (a state naming each seat's holder now) with each seat named for whoever held
    it at ``version``: a move is said under the name of the player who made it, not of whoever
    took the seat since. A seat's holder until it was freed is the ``left`` of the host's
    ``seat_replaced`` event; a seat freed for a substitute who has not come yet is an open
    seat, as the state names it. Only what every viewer's log shows is read (seat events are
    public)."""
    seats = names.get("seats") if names else None
    if not isinstance(seats, list):
        return names
    then: dict[int, str] = {}
    for event in events:
        if event["version"] <= version or not _changes_hands(event):
            continue
        seat = (event.get("data") or {}).get("seat")
        if not isinstance(seat, int) or seat in then:
            continue
        if event["kind"] == "seat_replaced":
            then[seat] = str(event["data"].get("left") or "")
            continue
        freed = [
            e
            for e in events
            if e["kind"] == "seat_replaced"
            and e["version"] <= version
            and (e.get("data") or {}).get("seat") == seat
        ]
        if freed:  # freed for a substitute who had not come yet
            then[seat] = OPEN_SEAT
    if not then:
        return names
    renamed = [
        {**entry, "name": then[entry["index"]]}
        if isinstance(entry, dict) and then.get(entry.get("index", -1))
        else entry
        for entry in seats
    ]
    return {**names, "seats": renamed}


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
    # The versions of the events the viewer's log leaves out (``Event.kept_from``): stepping
    # goes past them.
    left_out: frozenset[int] = frozenset()

    @property
    def previous(self) -> int | None:
        version = self.version - 1
        while version in self.left_out:
            version -= 1
        return version if version >= 1 else None

    @property
    def next(self) -> int | None:
        version = self.version + 1
        while version in self.left_out:
            version += 1
        return version if version <= self.last else None

    @property
    def jumps(self) -> list[Mark]:
        """Where the replay's "Jump to" list goes: the marks, then the end (once, even if a
        game marks its last event)."""
        ends = [(self.last, "The end")]
        if self.marks and (self.marks[-1][0] == self.last or self.marks[-1][1] == "The end"):
            ends = []
        return [*self.marks, *ends]

    @property
    def jump(self) -> int | None:
        """The entry of ``jumps`` the step stands in: the end at the last event, else its mark."""
        if self.version >= self.last and self.jumps and self.jumps[-1][0] == self.last:
            return len(self.jumps) - 1
        return self.mark

    @property
    def opening(self) -> int:
        return self.marks[-1][0] if self.marks else self.last


def opening_version(game: GameDefinition, events: list[dict[str, Any]], last: int) -> int:
    """Where a replay opens: the start of the last round (the end when there are no marks, or
    when the game's replay opens at its end)."""
    if game.replay_opens_at_end:
        return last
    marks = game.replay_marks(events)
    return marks[-1][0] if marks else last


def replay_step(match: Match, viewer: Viewer, requested: str | None) -> ReplayStep:
    """The step ``requested`` (``?v=``), or the start of the last round when none is asked."""
    game = match.game
    rows = list(match.events.order_by("version"))
    left_out = frozenset(row.version for row in rows if row.kept_from(viewer))
    rows = [row for row in rows if row.version not in left_out]
    seen = [row.seen_by(viewer) for row in rows]
    marks = game.replay_marks(seen)
    last = match.version
    try:
        version = int(requested) if requested is not None else opening_version(game, seen, last)
    except ValueError:
        version = last
    version = max(0, min(version, last))
    while version in left_out:  # the viewer's view then is the one before it
        version -= 1
    row = next((row for row in rows if row.version == version), None)
    state = state_at(match, version)
    event = row.seen_by(viewer) if row is not None else None
    names = state or match.state
    mark = mark_at(marks, version) if marks else None
    first = marks[mark][0] if mark is not None else 1
    end = marks[mark + 1][0] if mark is not None and mark + 1 < len(marks) else last + 1
    current = match.state
    round_events = [
        {**item, "description": describe(game, item, holders_at(seen, item["version"], current))}
        for item in seen
        if first <= item["version"] < end
    ]
    said = describe(game, event, holders_at(seen, version, names)) if event else ""
    return ReplayStep(
        version=version,
        last=last,
        event=event,
        state=state,
        description=said or "Before the first event.",
        marks=marks,
        mark=mark,
        round_events=round_events,
        left_out=left_out,
    )


def described_events(match: Match, viewer: Viewer) -> list[dict[str, Any]]:
    """Every event as ``viewer`` may see it, each with its sentence (the export); none the
    viewer's log leaves out (``Event.kept_from``)."""
    game = match.game
    rows = match.events.order_by("version")
    events = [row.seen_by(viewer) for row in rows if not row.kept_from(viewer)]
    for seen in events:
        seen["description"] = describe(game, seen, holders_at(events, seen["version"], match.state))
    return events


def state_before_finish(match: Match) -> dict[str, Any] | None:
    """The state just before the event that finished ``match``: where a correction of its
    result starts from."""
    finished = match.finishing_event()
    if finished is None:
        return None
    return state_at(match, finished.version - 1)


Event.rebuild_state = state_at
