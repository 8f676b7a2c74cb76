"""Small pure helpers that every game's match flow uses: seeded draws and clocks in JSON state.

No Django and no IO. A flow keeps its generator in the state as the match seed and a draw counter
(``state["draws"]``), and its running clocks in ``state["deadlines"]`` as ISO times, so that the
state alone replays a match exactly and any process can fire a clock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from games.core.game import fairness
from games.core.game.gamedef import ActionError, Outcome, SeatInfo

State = dict[str, Any]
T = TypeVar("T")


def handler_for(actions: Mapping[str, Callable[..., Any]], action: object) -> Callable[..., Any]:
    """The function of ``actions`` that handles ``action`` (an object with a "type"); anything
    else is refused with the list of what the game takes."""
    kind = action.get("type") if isinstance(action, dict) else None
    handler = actions.get(kind) if isinstance(kind, str) else None
    if handler is None:
        shown = repr(kind) if isinstance(action, dict) else "without a type"
        raise ActionError(
            f"unknown action {shown}; this game takes {', '.join(sorted(actions))}",
            code="unknown_action",
        )
    return handler


Act = Callable[[State, int, dict[str, Any], datetime], Any]
TimeUp = Callable[[State, str, datetime, "dict[int, dict[str, Any]] | None"], Any]


def dispatcher(actions: Mapping[str, Act]) -> Act:
    """A flow's ``act``: the handler of ``actions`` for the action's type, on a match that is
    not over (every flow's ``act = dispatcher(ACTIONS)``)."""

    def act(state: State, seat: int, action: dict[str, Any], now: datetime) -> Any:
        handler = handler_for(actions, action)
        if state.get("phase") == "over":
            raise ActionError("the match is over", code="match_over")
        return handler(state, seat, action, now)

    return act


def on_running_clock(clock_of_phase: Mapping[str, str], time_up: TimeUp) -> TimeUp:
    """A flow's ``timeout``: ``time_up`` for the clock of the phase being played; any other
    clock (answered in time, or of a phase now over) stops and changes nothing else."""

    def timeout(
        state: State, key: str, now: datetime, drafts: dict[int, dict[str, Any]] | None = None
    ) -> Any:
        if key != clock_of_phase.get(state.get("phase", "")):
            new = copy_json(state)
            stop_clock(new, key)
            return Outcome(state=new, kind="clock_ignored", public={"clock": key})
        return time_up(state, key, now, drafts)

    return timeout


def copy_json(value: T) -> T:
    """A deep copy of JSON-shaped data (dicts, lists and immutable leaves), as a flow copies its
    state before changing it; several times faster than ``copy.deepcopy``, which each action
    would otherwise pay on the whole state."""
    kind = type(value)
    if kind is dict:
        return {key: copy_json(item) for key, item in value.items()}  # type: ignore[return-value]
    if kind is list:
        return [copy_json(item) for item in value]  # type: ignore[return-value]
    return value


def seats_kept(seats: Sequence[SeatInfo]) -> list[dict[str, Any]]:
    """The seats as a match's state keeps them: index, role, name and whether a bot plays."""
    return [{"index": s.index, "role": s.role, "name": s.name, "is_bot": s.is_bot} for s in seats]


def dmo_seat(seats: Sequence[SeatInfo]) -> int:
    """The Death Match Opponent's seat of a two-player match: the seat with the DMO's role,
    else the last seat."""
    roles = [seat.role for seat in seats]
    return roles.index("DMO") if "DMO" in roles else len(seats) - 1


def match_awarded(state: State, award: dict[str, Any], seats: Sequence[Any] = (0, 1)) -> State:
    """A copy of ``state`` marked as settled by the host, for an award of the match to
    ``award["winner"]`` (one of ``seats``); refused once the match is over."""
    if state.get("phase") == "over":
        raise ActionError("the match is already over", code="match_over")
    winner = award.get("winner")
    if winner not in seats or isinstance(winner, bool):
        names = " or ".join("no one (None)" if s is None else f"seat {s}" for s in seats)
        raise ActionError(f"the winner is {names}", code="bad_award")
    new = copy_json(state)
    new["awarded"] = True
    return new


Seed = int | str
"""A match seed: the text of a fair match (games/core/game/fairness.py: the server seed, the match
and the players' seeds), or an older match's number."""


def derived_seed(seed: Seed, *labels: object) -> int:
    """A seed for one purpose (``"board"``, ``("refill", 3)``...) derived from the match seed:
    every draw of a match comes from here (``HMAC-SHA256`` keyed by the server seed over the
    match, the players' seeds and the purpose: games/core/game/fairness.py)."""
    return fairness.draw_value(seed, labels)


def draw_rng(state: State) -> random.Random:
    """The match generator's next independent stream; bumps ``state["draws"]`` in place (call it
    on a copy of the state)."""
    rng = random.Random(derived_seed(state["seed"], "draw", state["draws"]))
    state["draws"] += 1
    return rng


def draw(state: State, options: Sequence[T]) -> T:
    """One uniform choice from the match's generator (bumps ``state["draws"]`` in place)."""
    return draw_rng(state).choice(list(options))


def iso(when: datetime) -> str:
    return when.isoformat()


def due(state: State, key: str) -> datetime | None:
    """When the clock ``key`` runs out, or None when it is not running."""
    value = state.get("deadlines", {}).get(key)
    return datetime.fromisoformat(value) if value else None


def seconds_left(state: State, key: str, now: datetime) -> float | None:
    when = due(state, key)
    return None if when is None else max(0.0, (when - now).total_seconds())


def set_clock(state: State, key: str, now: datetime, seconds: float) -> None:
    """Start (or restart) the clock ``key`` to run out ``seconds`` after ``now``."""
    state.setdefault("deadlines", {})[key] = iso(now + timedelta(seconds=seconds))


def stop_clock(state: State, key: str) -> None:
    state.get("deadlines", {}).pop(key, None)


def check_clock(state: State, key: str, now: datetime, what: str) -> None:
    """Refuse an action that arrives after the clock ``key`` ran out."""
    when = due(state, key)
    if when is not None and now >= when:
        raise ActionError(f"time is up: {what}", code="time_up")
