"""The Elimination Candidate's turn: the main match's result (or a host's correction of it)
names them and starts their nomination clock; they name the Death Match Opponent (and, when
the season lets them, the death match's game) or spend a Token of Life to skip the death
match; a host moves the clock, and names the opponent once it ran out."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from games.core.game.gamedef import ActionError
from games.core.match import clock, ledger
from games.core.models import Match
from games.notifications import kinds
from games.notifications.models import Delivery
from games.notifications.services import notify
from games.seasons import rules
from games.seasons.cast import cast_in
from games.seasons.episodes import (
    OVER,
    end_episode,
    lock_episode,
    main_match_result,
    member_in_seat,
    seat_death_match,
)
from games.seasons.hosts import format_of, log_line
from games.seasons.models import CastMember, Episode
from games.seasons.roles import check_season_host, runs_season, season_hosts
from games.seasons.tokens import public_tokens


def main_match_over(episode: Episode) -> None:
    """The main match ended (or, while the nomination is open, the host corrected its result):
    its Elimination Candidate opens the nomination, on a fresh clock."""
    match = Match.objects.with_seats().get(pk=episode.main_match_id)
    if match.status not in OVER:
        return
    episode.main_match_read_at = match.version
    season = episode.season
    if match.status == Match.Status.ABORTED:
        end_episode(episode)
        text = f"The main match of episode {episode.number} was aborted: no one leaves."
        log_line(season, text, "main_match_aborted", episode=episode)
        return
    result = main_match_result(match)
    candidate = member_in_seat(match, result.get("elimination_candidate"))
    before = episode.elimination_candidate
    if candidate is None or candidate == before:
        if candidate is None and before is not None:  # corrected into a tie
            episode.elimination_candidate = None
            episode.nomination_due = None
            episode.phase = Episode.Phase.MAIN_MATCH
            text = f"The host corrected the main match: {before.name} is no longer the EC."
            log_line(season, text, "main_match_corrected", episode=episode)
        episode.save()  # a tie waits for the host to settle it
        return
    settings = format_of(season).settings
    episode.elimination_candidate = candidate
    episode.phase = Episode.Phase.NOMINATION
    episode.nomination_due = rules.nomination_due(clock.now(), settings)
    episode.save()
    text = f"{candidate.name} is the Elimination Candidate of episode {episode.number}."
    if before is not None:
        text = f"The host corrected the main match: {text[:-1]}, in place of {before.name}."
    log_line(season, text, "elimination_candidate", episode=episode)
    told = (
        f"You are the Elimination Candidate of episode {episode.number}: name your Death "
        f"Match Opponent by {episode.nomination_due:%Y-%m-%d %H:%M} UTC."
    )
    settled_later = match.events.filter(
        version__gt=match.finished_version or 0, informational=False
    ).exists()
    if before is None and result.get("summary") and not settled_later:
        # The result named the EC as it ended, and left them out of its notice (games/
        # notifications/events.py): the result is told them here, with their deadline, once.
        told += f" {match.title} is over: {result['summary']}"
    notify(
        users=[candidate.user],
        kind=kinds.ELIMINATION_CANDIDATE,
        text=told,
        url=episode.get_absolute_url(),
        season=season,
        public_text=None if _result_posted_naming(match, candidate) else text,
    )


def _result_posted_naming(match: Match, candidate: CastMember) -> bool:
    """Did the season's channel already read, in the match's result post, that ``candidate``
    is its Elimination Candidate? Then the match's end is one post, not two."""
    posted = Delivery.objects.filter(
        channel=Delivery.Channel.WEBHOOK,
        kind=kinds.ROUND_RESULT,
        season=match.season_id,
        url=match.get_absolute_url()[:300],
    ).values_list("public_text", flat=True)
    said = f"{candidate.name} is the Elimination Candidate"
    last = f"{candidate.name} finishes last and is the Elimination Candidate"
    return any(said in text or last in text for text in posted)


def main_match_corrected_late(episode: Episode) -> None:
    """The host corrected a main match after its Death Match Opponent was named: the
    episode goes on as decided; the log says so when the correction named another EC."""
    match = Match.objects.with_seats().get(pk=episode.main_match_id)
    episode.main_match_read_at = match.version
    episode.save(update_fields=["main_match_read_at"])
    candidate = member_in_seat(match, main_match_result(match).get("elimination_candidate"))
    if candidate == episode.elimination_candidate:
        return
    text = (
        f"The host corrected the main match of episode {episode.number} after the season "
        f"moved on: {episode.elimination_candidate.name} stays its Elimination Candidate."
    )
    log_line(episode.season, text, "main_match_corrected", episode=episode)


def nomination_state(episode: Episode) -> dict[str, Any]:
    """Who may be named now, as the nomination page and the service both read it."""
    season = episode.season
    settings = format_of(season).settings
    players = cast_in(season)
    held = public_tokens(season)
    tokens = {member.pk: held.get(member.user_id, 0) for member in players}
    candidate = episode.elimination_candidate
    eligible: list[int] = []
    if candidate is not None:
        eligible = rules.eligible_opponents(
            [member.pk for member in players], candidate.pk, tokens, settings
        )
    return {
        "players": players,
        "tokens": tokens,
        "eligible": [member for member in players if member.pk in eligible],
        "settings": settings,
    }


def nominate(episode: Episode, actor: Any, nominee_id: int, game_key: str = "") -> Episode:
    """The Elimination Candidate names the Death Match Opponent while their clock runs (and,
    when the season lets them, the death match's game); once it ran out, a host does."""
    with transaction.atomic():
        locked = lock_episode(episode)
        season = locked.season
        settings = format_of(season).settings
        by_host = locked.phase == Episode.Phase.HOST_NOMINATION and runs_season(actor, season)
        if not by_host:
            _check_candidate(locked, actor)
        state = nomination_state(locked)
        players = [member.pk for member in state["players"]]
        rules.check_nominee(
            nominee_id, players, locked.elimination_candidate_id, state["tokens"], settings
        )
        pick_game = settings["death_match_picker"] == "ec" and not by_host
        if pick_game:
            rules.check_death_match_pick(game_key, settings)
        opponent = next(m for m in state["players"] if m.pk == nominee_id)
        locked.opponent = opponent
        locked.nominated_by_host = by_host
        locked.nomination_due = None
        locked.phase = Episode.Phase.DEATH_MATCH_SETUP
        locked.save()
        candidate = locked.elimination_candidate
        who = "The host" if by_host else candidate.name
        text = f"{who} named {opponent.name} Death Match Opponent of {candidate.name}."
        log_line(season, text, "nominated", episode=locked, actor=actor)
        notify(
            users=[opponent.user],
            kind=kinds.NOMINATED,
            text=f"You were named Death Match Opponent of {candidate.name} (episode "
            f"{locked.number}).",
            url=locked.get_absolute_url(),
            season=season,
            public_text=text,
        )
        if pick_game:
            seat_death_match(locked, locked.main_match.host, game_key, {})
    return locked


def _check_candidate(episode: Episode, actor: Any) -> None:
    """Only the Elimination Candidate acts, and only while their clock runs."""
    candidate = episode.elimination_candidate
    if episode.phase not in {Episode.Phase.NOMINATION, Episode.Phase.HOST_NOMINATION}:
        raise ActionError("there is no nomination to make now", code="not_nominating")
    if candidate is None or getattr(actor, "pk", None) != candidate.user_id:
        raise ActionError(
            "only the Elimination Candidate names the Death Match Opponent", code="not_candidate"
        )
    if episode.phase == Episode.Phase.HOST_NOMINATION:
        raise ActionError(
            "your nomination clock ran out: the host names the Death Match Opponent",
            code="clock_ran_out",
        )
    if rules.nomination_missed(episode.nomination_due, clock.now()):
        # The scheduler fires the clock (and tells the host) on its next tick.
        raise ActionError(
            "your nomination clock ran out: the host names the Death Match Opponent",
            code="clock_ran_out",
        )


def spend_token(episode: Episode, actor: Any) -> Episode:
    """The Elimination Candidate spends a Token of Life: no death match, no one eliminated in
    this episode. A ledger entry and a line of the season's log."""
    with transaction.atomic():
        locked = lock_episode(episode)
        season = locked.season
        _check_candidate(locked, actor)
        candidate = locked.elimination_candidate
        held = ledger.held([candidate.user_id], season)[candidate.user_id]["tokens"]
        rules.check_token_skip(held, format_of(season).settings)
        reason = f"Token of Life spent to skip the death match of episode {locked.number}"
        ledger.adjust(candidate.user, season, 0, -1, reason, actor=None)
        locked.token_spent = True
        locked.saved = candidate
        locked.nomination_due = None
        end_episode(locked)
        text = (
            f"{candidate.name} spent a Token of Life: no death match and no elimination in "
            f"episode {locked.number}."
        )
        log_line(season, text, "token_spent", episode=locked, actor=actor)
        notify(
            users=[candidate.user],
            kind=kinds.ELIMINATED_OR_SAVED,
            text=text,
            url=locked.get_absolute_url(),
            season=season,
            public_text=text,
        )
    return locked


def change_nomination_clock(episode: Episode, actor: Any, minutes: Any) -> Episode:
    """A host moves the Elimination Candidate's nomination deadline by ``minutes`` (below 0:
    sooner); once it ran out, gives them ``minutes`` from now and the nomination back. The
    EC is told the new deadline; the log says it."""
    with transaction.atomic():
        locked = lock_episode(episode)
        season = locked.season
        check_season_host(season, actor)
        if locked.phase not in {Episode.Phase.NOMINATION, Episode.Phase.HOST_NOMINATION}:
            raise ActionError("no nomination clock is running now", code="not_nominating")
        now = clock.now()
        due = locked.nomination_due if locked.phase == Episode.Phase.NOMINATION else None
        locked.nomination_due = rules.moved_nomination_due(due, now, minutes)
        locked.phase = Episode.Phase.NOMINATION
        locked.save(update_fields=["nomination_due", "phase"])
        candidate = locked.elimination_candidate
        when = f"{locked.nomination_due:%Y-%m-%d %H:%M} UTC"
        if due is None:
            text = f"The host gave {candidate.name} until {when} to name a Death Match Opponent."
        else:
            change = "more" if minutes > 0 else "less"
            text = (
                f"The host gave {candidate.name}'s nomination clock {abs(minutes)} minutes "
                f"{change}: until {when}."
            )
        log_line(season, text, "nomination_clock", episode=locked, actor=actor)
        notify(
            users=[candidate.user],
            kind=kinds.ELIMINATION_CANDIDATE,
            text=f"Your nomination deadline (episode {locked.number}) is now {when}: name "
            "your Death Match Opponent by then.",
            url=locked.get_absolute_url(),
            season=season,
        )
    return locked


def nomination_ran_out(episode: Episode) -> None:
    """The Elimination Candidate's clock ran out: the hosts are told to name the Death Match
    Opponent."""
    episode.phase = Episode.Phase.HOST_NOMINATION
    episode.save(update_fields=["phase"])
    name = episode.elimination_candidate.name
    text = f"{name} named no Death Match Opponent in time: the host names one."
    log_line(episode.season, text, "nomination_missed", episode=episode)
    notify(
        users=season_hosts(episode.season),
        kind=kinds.NOMINATION_NOT_MADE,
        text=f"A nomination was not made: {name} (episode {episode.number}) let the clock run "
        "out. Name the Death Match Opponent.",
        url=episode.get_absolute_url(),
        season=episode.season,
    )
