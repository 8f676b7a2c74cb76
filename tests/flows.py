"""What the pure flow tests of every game share: a start time, times after it, and one way to
say that a move is refused and changes nothing."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from games.core.game.gamedef import ActionError

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def at(seconds: float, start: datetime = T0) -> datetime:
    return start + timedelta(seconds=seconds)


def refused(
    act: Callable[..., Any],
    state: dict[str, Any],
    seat: int,
    action: dict[str, Any],
    code: str | None = None,
    now: datetime = T0,
) -> ActionError:
    """``act`` refuses ``action`` from ``seat`` (with ``code`` when given) and leaves ``state``
    as it was; the refusal, for its message. A game's tests bind their flow's ``act`` once:
    ``refused = partial(flows.refused, flow.act)``."""
    before = copy.deepcopy(state)
    with pytest.raises(ActionError) as caught:
        act(state, seat, action, now)
    if code is not None:
        assert caught.value.code == code, caught.value.message
    assert state == before  # a refusal changes nothing
    return caught.value
