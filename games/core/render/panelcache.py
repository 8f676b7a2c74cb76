"""What each audience was sent at a version, kept so that the next event's frames are patches
of it: this worker's latest in memory, every audience's in the shared cache.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache

from games.core.game.gamedef import Viewer
from games.core.models import Match
from games.core.render import frame
from games.core.render.lru import Lru

log = logging.getLogger(__name__)

# What each audience was sent at a version (its panels' HTML by id), kept a while in the cache
# (shared by the workers where REDIS_URL is set) so that the next event's frames can be patches
# of them. Each worker also keeps the latest ones it wrote, with the game view each was sent: the
# next event of a match is mostly drawn by the same worker, and then needs no round trip. (The
# views stay out of the cache: writing them cost more than making one again from the state
# before, when another worker draws the next event.)
PANELS_KEPT_SECONDS = 600


@dataclass(frozen=True)
class Sent:
    """What one audience was sent at one version."""

    panels: dict[str, str]
    game: Any = None  # the game view as sent; None: not kept
    notice: str | None = None  # the host's latest words then; None: not kept
    facts: str = ""  # the rest the panels were drawn from (rendering's ``_facts``); "": not kept
    whole: Any = None  # the game view the panels were drawn from (page parts too); None: not kept
    gated: Any = None  # the gate's answer ``whole`` was paged from; None: not kept


# The latest version this worker wrote for each audience of a match (one each, however long the
# match: a worker's memory stays flat), by match and audience.
_recent: Lru[tuple[str, str], tuple[int, Sent]] = Lru(256)


def _panels_key(match: Match, version: int) -> str:
    return f"gem:panels:{match.public_id}:{version}"


def keep(match: Match, version: int, kept: dict[Viewer, Sent], *, first: bool = False) -> None:
    """Keep what each audience was sent at ``version``: one write to the shared cache, each
    distinct panel in it once (most panels are drawn alike for every audience). ``first``: the
    frames of some audiences only (a page's first frame, a connection catching up), written
    only where no event's frames for every audience have been."""
    html: dict[str, str] = {}
    audiences = {}
    for viewer, sent in kept.items():
        remember(match, version, viewer, sent)
        held = {}
        for panel_id, panel_html in sent.panels.items():
            held[panel_id] = digest = frame.digest(panel_html)
            html[digest] = panel_html
        audiences[viewer.audience] = {
            "panels": held,
            "notice": sent.notice,
            "facts": sent.facts,
        }
    record = {"html": html, "audiences": audiences}
    try:
        if first:
            cache.add(_panels_key(match, version), record, PANELS_KEPT_SECONDS)
        else:
            cache.set(_panels_key(match, version), record, PANELS_KEPT_SECONDS)
    except Exception:  # the next frames send these panels whole
        log.warning("the panel cache could not be written", exc_info=True)


def remember(match: Match, version: int, viewer: Viewer, sent: Sent) -> None:
    """This worker's latest of ``viewer``'s audience (a resync's older frames leave it be)."""
    latest = _recent.get((match.public_id, viewer.audience))
    if latest is None or latest[0] <= version:
        _recent.put((match.public_id, viewer.audience), (version, sent))


def latest(match: Match, viewer: Viewer, before: int) -> Sent | None:
    """What this worker last drew for ``viewer``'s audience, at a version before ``before``
    (with the gate's answer and the facts it was drawn from), if it did."""
    found = _recent.get((match.public_id, viewer.audience))
    return found[1] if found is not None and found[0] < before else None


def kept(
    match: Match, version: int, viewer: Viewer, read: dict[int, Any] | None = None
) -> Sent | None:
    """What ``viewer``'s audience was sent at ``version``: this worker's latest, or the shared
    cache's record (read once per event's drawing when ``read`` keeps it: one record holds
    every audience, and the other worker drew every other version of a match played on two)."""
    latest = _recent.get((match.public_id, viewer.audience))
    if latest is not None and latest[0] == version:
        return latest[1]
    if read is not None and version in read:
        stored = read[version]
    else:
        try:
            stored = cache.get(_panels_key(match, version))
        except Exception:  # the cache only saves work: draw them again
            log.warning("the panel cache could not be read", exc_info=True)
            return None
        if read is not None:
            read[version] = stored
    try:
        mine = stored["audiences"][viewer.audience]
        panels = {panel_id: stored["html"][digest] for panel_id, digest in mine["panels"].items()}
    except (KeyError, TypeError):  # not kept, or kept by an older version of this code
        return None
    return Sent(panels, None, mine.get("notice"), mine.get("facts") or "")


@dataclass
class Keeping:
    """What every audience was sent at a version, to write to the shared cache once the frames
    are out (``write``): the worker's next version waits for no round trip to Redis (this
    worker's own next frames read what it keeps in memory, kept as each frame is drawn)."""

    match: Match | None = None
    version: int = 0
    sent: dict[Viewer, Sent] = field(default_factory=dict)
    written: int = 0  # how many audiences the last write held

    def write(self) -> None:
        """Write what the audiences drawn so far were sent, unless no audience was drawn since
        the last write (the seats' and spectators' go first, the host's, drawn later, after)."""
        if self.match is not None and len(self.sent) > self.written:
            keep(self.match, self.version, self.sent)
            self.written = len(self.sent)
