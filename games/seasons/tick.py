"""What moves an episode on by itself: the scheduler calls ``run_clocks`` each tick, which
reads every season match that ended (or that a host corrected) and fires the nomination clocks
that ran out; and ``correction_note``, what the host is told before correcting a season's match
(whether the season still follows the correction)."""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.db.models import F, Q

from games.core.match import clock
from games.core.models import Match
from games.seasons import rules
from games.seasons.eliminations import death_match_corrected, death_match_over
from games.seasons.episodes import OVER
from games.seasons.models import Episode
from games.seasons.nominations import (
    main_match_corrected_late,
    main_match_over,
    nomination_ran_out,
)

log = logging.getLogger(__name__)

# The phases in which the main match's result (or a host's correction of it) is read.
READS_MAIN_MATCH = (
    Episode.Phase.MAIN_MATCH,
    Episode.Phase.NOMINATION,
    Episode.Phase.HOST_NOMINATION,
)


def run_clocks(now: datetime | None = None) -> datetime | None:
    """Move on every episode whose match ended and fire every nomination clock that ran out;
    returns when the next nomination clock is due. Each episode is its own transaction, taken
    with SKIP LOCKED, so one that is busy or failing holds up nothing."""
    now = now or clock.now()
    waiting = Episode.objects.filter(
        Q(
            phase__in=READS_MAIN_MATCH,
            main_match__status__in=OVER,
            main_match__version__gt=F("main_match_read_at"),
        )
        | Q(phase=Episode.Phase.DEATH_MATCH, death_match__status__in=OVER)
        | Q(phase=Episode.Phase.NOMINATION, nomination_due__lte=now)
        | Q(
            phase=Episode.Phase.OVER,
            eliminated__isnull=False,
            death_match__status=Match.Status.FINISHED,
            death_match__version__gt=F("death_match_read_at"),
        )
        | Q(
            main_match__status=Match.Status.FINISHED,
            main_match__version__gt=F("main_match_read_at"),
            elimination_candidate__isnull=False,
        )
    )
    for episode_id in waiting.values_list("pk", flat=True)[:50]:
        try:
            _move_on(episode_id, now)
        except Exception:
            log.exception("episode %s could not move on; retrying next tick", episode_id)
    upcoming = Episode.objects.filter(phase=Episode.Phase.NOMINATION).order_by("nomination_due")
    return upcoming.values_list("nomination_due", flat=True).first()


def _move_on(episode_id: int, now: datetime) -> None:
    with transaction.atomic():
        episode = (
            Episode.objects.select_for_update(of=("self",), skip_locked=True)
            .select_related("season", "main_match", "death_match")
            .filter(pk=episode_id)
            .first()
        )
        if episode is None:
            return  # another scheduler has it
        main_match = episode.main_match
        if episode.phase in READS_MAIN_MATCH and (
            main_match is not None and main_match.version > episode.main_match_read_at
        ):
            main_match_over(episode)
        elif episode.phase == Episode.Phase.DEATH_MATCH and (
            episode.death_match is not None and episode.death_match.status in OVER
        ):
            death_match_over(episode)
        elif episode.phase == Episode.Phase.NOMINATION and rules.nomination_missed(
            episode.nomination_due, now
        ):
            nomination_ran_out(episode)
        elif (
            episode.phase == Episode.Phase.OVER
            and episode.eliminated_id is not None
            and (
                episode.death_match is not None
                and episode.death_match.version > episode.death_match_read_at
            )
        ):
            death_match_corrected(episode)
        elif main_match is not None and main_match.version > episode.main_match_read_at:
            main_match_corrected_late(episode)


def correction_note(match: Match) -> str:
    """What the host is told before correcting a season's match (the core's console shows it):
    whether the season still follows the correction, or what it decided stands."""
    if match.season_id is None:
        return ""
    episode = (
        Episode.objects.filter(Q(main_match=match) | Q(death_match=match))
        .select_related("elimination_candidate", "eliminated", "saved")
        .first()
    )
    if episode is None:
        return ""
    moved_on = "The season has moved on: a correction fixes this match and the ledger only;"
    if episode.main_match_id == match.pk:
        if episode.phase in READS_MAIN_MATCH:
            return "The season follows: the corrected result names the Elimination Candidate."
        name = episode.elimination_candidate.name if episode.elimination_candidate else "no one"
        return f"{moved_on} {name} stays the Elimination Candidate of episode {episode.number}."
    if episode.saved_id is not None:
        return f"{moved_on} {episode.saved.name} stayed on a Token of Life."
    if episode.eliminated_id is None:
        return ""
    later = episode.season.episodes.filter(number__gt=episode.number).exists()
    if later:
        return f"{moved_on} {episode.eliminated.name}'s elimination stands."
    return "The season follows: the corrected loser is eliminated in place of the old one."
