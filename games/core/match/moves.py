"""Moves: what the rules were given to make each event, and the rules that play one again.

Pure (no Django): the services make every event with ``play``, a replay rebuilds a past state
with it (games/core/match/replaying.py), and the verifier (games/verify) replays an exported match
with it, so all three run the same rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from games.core.game.gamedef import GameDefinition, Outcome, SeatInfo, State

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
