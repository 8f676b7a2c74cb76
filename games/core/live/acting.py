"""The seats' actions this worker applies. Those waiting for one match when the thread that
applies changes gets to them go together, under one hold of the match's row
(``services.submit_actions``): a whole cast moving at once queues on that row, and each hold is
every later action's wait. Those that come while its trip waits for the row (the other worker
holds it) join that hold once it is locked, rather than wait for it to end and lock the row again
behind the other worker's next hold. Each action is still its own event and version, answered as
it would have been alone."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async

from games.core.live import broadcast
from games.core.match import services


@dataclass
class _Waiting:
    given: services.SeatAction
    answer: services.Answer | Exception | None = None


_waiting: dict[int, list[_Waiting]] = {}  # by match, in the order they came
_waiting_lock = threading.Lock()
# One batch at a time: the thread that applies changes is one, so a batch taken by an earlier
# trip is done before a later trip looks for its own action (and finds it answered).
_applying = threading.Lock()


# By match, the actions a trip has taken and not answered yet (waiting for the row, or applied
# and not committed).
_taken: dict[int, list[_Waiting]] = {}


def coming(match_pk: int) -> list[Any]:
    """The users whose actions on the match this worker has taken in and not applied yet, in
    the order they came (from any thread)."""
    with _waiting_lock:
        ahead = [*_taken.get(match_pk, ()), *_waiting.get(match_pk, ())]
    return [waiting.given.user for waiting in ahead if waiting.answer is None]


broadcast.actions.coming = coming


async def act(
    match_pk: int, given: services.SeatAction, outbox: broadcast.Outbox
) -> services.Accepted:
    """Apply ``given`` with whatever else of the match waits here by then; what the trip that
    applied them commits waits in ``outbox`` of the caller whose trip it was. Raises the action's
    refusal (ActionError) or whatever its batch raised."""
    waiting = _Waiting(given)
    with _waiting_lock:
        _waiting.setdefault(match_pk, []).append(waiting)
    await database_sync_to_async(_apply_waiting)(match_pk, waiting, outbox)
    answer = waiting.answer
    if isinstance(answer, Exception):
        raise answer
    assert answer is not None, "an action taken by a batch is answered before the next trip"
    return answer


def _apply_waiting(match_pk: int, mine: _Waiting, outbox: broadcast.Outbox) -> None:
    """Apply ``mine`` with whatever else of the match waits, unless an earlier trip did: then
    this trip is over at once, and those that came since wait for their own trips (queued after
    this one). Taking them here made this action's player wait for their row and hold too."""
    with _applying:
        if mine.answer is not None:
            return
        with _waiting_lock:
            taken = _waiting.pop(match_pk, [])
            if not taken:
                return  # (never: an action is answered by the trip that takes it)
            _taken[match_pk] = taken
        try:
            _apply_taken(match_pk, taken, outbox)
        finally:
            with _waiting_lock:
                if _taken.get(match_pk) is taken:
                    del _taken[match_pk]


def _apply_taken(match_pk: int, taken: list[_Waiting], outbox: broadcast.Outbox) -> None:
    """Apply ``taken`` and those that join its hold, and answer each."""

    def joining() -> list[services.SeatAction]:
        """Those that came while this trip waited for the row: they join its hold."""
        with _waiting_lock:
            late = _waiting.pop(match_pk, [])
            taken.extend(late)
        return [w.given for w in late]

    answers: list[services.Answer | Exception]
    try:
        with broadcast.actions.applying(match_pk), broadcast.deferred(outbox):
            given = [w.given for w in taken]
            answers = [*services.submit_actions(match_pk, given, joining)]
    except Exception as error:  # each waiting action's caller raises it, as alone
        answers = [error] * len(taken)
    for waiting, answer in zip(taken, answers, strict=True):
        waiting.answer = answer
