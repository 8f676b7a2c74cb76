"""Replays: every past state of a match, what each step shows a viewer, and each event in words.

An event stores what happened (its move: what the rules were given), not the state it made;
the match row holds the current state and a snapshot is kept every SNAPSHOT_EVERY events. A
past state is rebuilt by playing the moves after the nearest snapshot again (``state_at``).

A replay step is the match as ``viewer`` saw it after one event (``rendering.view_of`` on that
event's state), with the event said in a sentence (``GameDefinition.describe_event``) and the
marks a viewer jumps between (``GameDefinition.replay_marks``: the start of each round). The
plain words for seats, kinds and facts are games/core/game/words.py's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Subquery

from games.core.game.gamedef import GameDefinition, State, Viewer
from games.core.match.moves import RULES, SNAPSHOT_EVERY, Move, play, seated
from games.core.models import OPEN_SEAT, Event, Match, Snapshot
from games.core.render import jsondiff

__all__ = ["RULES", "SNAPSHOT_EVERY", "Move", "play", "seated"]
from games.core.game.words import Mark, host_words

# --- moves: what the rules were given (games/core/match/moves.py, pure: the verifier plays them
# too) ---


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
    return rows[-1][0], jsondiff.rebuild([(row[1], row[2]) for row in rows])


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


def keep_snapshot(
    match: Match, version: int, state: State, rows: list[tuple[int, Any, Any, int]] | None = None
) -> Snapshot:
    """The snapshot to keep of ``state`` at ``version`` (the match's newest), its row not yet
    written (the event that made it writes it: services.append): a patch of the previous
    snapshot's state, or whole when the patches since the last whole state would outweigh it
    (jsondiff.keep). ``rows``: the snapshots before it as ``_snapshot_rows`` reads them, when
    they were read already (with the match's lock)."""
    if rows is None:
        rows = _snapshot_rows(match.pk, version - 1)
    previous = jsondiff.rebuild([(row[1], row[2]) for row in rows]) if rows else None
    kept = jsondiff.keep(previous, rows[-1][3] if rows else 0, state)
    return Snapshot(
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


def verification_record(match: Match, viewer: Viewer | None = None) -> dict[str, Any] | None:
    """What the verifier (games/verify) needs to check a match that is over: its seeds, its
    settings and seats, and every event's move with its public outcome. Played again here
    first, so that a timeout keeps only the drafts it sealed (a draft never sent stays its
    seat's). A sealed move that was replaced keeps its receipt only: its move was never played
    to the end, and is never shown. A game whose rules keep some sealed moves secret for good
    (SEALED_FOR_GOOD: Seven Gem Swap's bids and sequences) shows them to the host alone
    (``viewer``; None: the host): anyone else's record withholds them, and what only they
    make (the drafts a clock sealed, a state kept whole), and says so. None while the match
    runs, or for an older match."""
    if not match.is_over or not match.server_seed:
        return None
    game = match.game
    withheld = set(game.sealed_for_good) if viewer is not None and not viewer.is_host else set()
    replaced = {
        entry["version"]
        for entry in match.fairness.get("receipts", [])
        if entry["state"] == "replaced" and not entry.get("draft")  # a draft is no event's move
    }
    state: State = {}
    events: list[dict[str, Any]] = []
    for row in match.events.order_by("version"):
        move = Move.of(row)
        entry: dict[str, Any] = {
            "version": row.version,
            "kind": row.kind,
            "seat": row.seat,
            "rule": move.rule,
            "at": move.at.isoformat(),
            "public": row.public,
        }
        if move.replayable:
            outcome = play(game, state, move)
            inputs = dict(move.inputs)
            if "drafts" in inputs:
                sealed = {str(seat) for seat in outcome.drafts_sealed}
                inputs["drafts"] = {k: v for k, v in inputs["drafts"].items() if k in sealed}
            state = outcome.state
        else:  # a correction, or an outcome no move makes again: the state it left
            inputs, state = dict(move.inputs), row.state
            entry["state"] = state
        entry["action"] = move.action
        entry["inputs"] = inputs
        if withheld and _withholds(entry, withheld):
            entry["action"], entry["withheld"] = None, True
            entry["inputs"] = {k: v for k, v in inputs.items() if k != "drafts"}
            entry.pop("state", None)
        elif row.version in replaced:
            entry["action"], entry["replaced"] = None, True
        events.append(entry)
    record: dict[str, Any] = {
        "format": "gem-arena-verify/1",
        "match_id": match.public_id,
        "game": match.game_key,
        "result": match.result,
        "status": match.status,
        "events": events,
    }
    if withheld:
        record["withheld"] = sorted(withheld)
    return record


def _withholds(entry: dict[str, Any], kept: set[str]) -> bool:
    """Whether a record for a viewer who may not see the ``kept`` action types leaves out this
    event's move: one of them, a clock's drafts (sealed sequences), or a state kept whole."""
    action = entry.get("action") or {}
    return (
        action.get("type") in kept
        or bool((entry.get("inputs") or {}).get("drafts"))
        or "state" in entry
    )
