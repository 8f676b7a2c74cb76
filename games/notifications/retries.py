"""When a failed delivery is tried again: pure, from how many attempts were made."""

from __future__ import annotations

from collections.abc import Sequence


def retry_delay(attempts: int, schedule: Sequence[float]) -> float | None:
    """Seconds to wait after the ``attempts``-th failed attempt (1 for the first), or None when
    the schedule is used up and the delivery is given up."""
    if attempts < 1:
        raise ValueError("a delivery is retried after an attempt")
    return schedule[attempts - 1] if attempts <= len(schedule) else None
