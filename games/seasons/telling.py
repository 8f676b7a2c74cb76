"""Telling people that the season needs them: the one place the season's notifications leave
from. Until games.notifications lands on main this only logs what it would send; then it hands
everything to ``games.notifications.services.notify`` with the same arguments."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from games.core.models import Match, Season

log = logging.getLogger(__name__)

# The kinds of notification a season sends.
NOMINATED = "nominated"
ELIMINATION_CANDIDATE = "elimination_candidate"
ELIMINATED = "eliminated"
SAVED = "saved"
EPISODE_STARTS = "episode_starts"
NOMINATION_MISSED = "nomination_missed"
DEATH_MATCH = "death_match"


def tell(
    *,
    users: Iterable[Any],
    kind: str,
    text: str,
    url: str,
    season: Season,
    match: Match | None = None,
    public_text: str | None = None,
) -> None:
    """Tell ``users`` (in the caller's transaction; delivered after it commits). ``public_text``
    is what a season's public channel may show, never anything private."""
    names = ", ".join(sorted(str(user) for user in users))
    log.info("season %s tells %s (%s): %s %s", season.pk, names, kind, text, url)
