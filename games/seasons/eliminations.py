"""A death match's end: its loser spends a Token of Life and stays (when the season's rules
save them), or is eliminated; the final's winner wins the season. A host's correction of a
death match puts the right loser out while no later episode has begun."""

from __future__ import annotations

from games.core.match import ledger
from games.core.models import Match
from games.notifications import kinds
from games.notifications.services import notify
from games.seasons import rules
from games.seasons.cast import cast_in
from games.seasons.episodes import end_episode, member_in_seat
from games.seasons.hosts import format_of, log_line
from games.seasons.models import CastMember, Episode, SeasonFormat


def death_match_over(episode: Episode) -> None:
    """The death match ended: an aborted one is set up again; else its loser stays on a Token of
    Life when the rules save them, or is eliminated."""
    match = Match.objects.with_seats().get(pk=episode.death_match_id)
    season = episode.season
    episode.death_match_read_at = match.version
    if match.status == Match.Status.ABORTED:
        episode.death_match = None
        episode.phase = Episode.Phase.DEATH_MATCH_SETUP
        episode.save()
        text = f"The death match of episode {episode.number} was aborted: the host sets up another."
        log_line(season, text, "death_match_aborted", episode=episode)
        return
    winner_seat = (match.result or {}).get("winner")
    winner = member_in_seat(match, winner_seat)
    loser = member_in_seat(match, 1 - winner_seat) if isinstance(winner_seat, int) else None
    if winner is None or loser is None:
        return  # no single winner: the host corrects the result
    settings = format_of(season).settings
    held = ledger.held([loser.user_id], season)[loser.user_id]["tokens"]
    if rules.loser_is_saved(held, settings):
        reason = f"Token of Life spent to stay after the death match of episode {episode.number}"
        ledger.adjust(loser.user, season, 0, -1, reason, actor=None)
        episode.saved = loser
        end_episode(episode)
        text = f"{winner.name} won the death match; {loser.name} spent a Token of Life and stays."
        log_line(season, text, "saved", episode=episode)
        notify(
            users=[loser.user],
            kind=kinds.ELIMINATED_OR_SAVED,
            text=text,
            url=episode.get_absolute_url(),
            season=season,
            public_text=text,
        )
        return
    _eliminate(episode, loser, winner)


def death_match_corrected(episode: Episode) -> None:
    """The host corrected a death match whose loser was eliminated: while no later episode
    has begun, the old loser is back in and the new one leaves in their place."""
    match = Match.objects.with_seats().get(pk=episode.death_match_id)
    season = episode.season
    episode.death_match_read_at = match.version
    winner_seat = (match.result or {}).get("winner")
    winner = member_in_seat(match, winner_seat)
    loser = member_in_seat(match, 1 - winner_seat) if isinstance(winner_seat, int) else None
    before = episode.eliminated
    if winner is None or loser is None or loser == before:
        episode.save(update_fields=["death_match_read_at"])
        return
    if season.episodes.filter(number__gt=episode.number).exists():
        episode.save(update_fields=["death_match_read_at"])
        text = (
            f"The host corrected the death match of episode {episode.number} after the season "
            f"moved on: {before.name}'s elimination stands."
        )
        log_line(season, text, "death_match_corrected", episode=episode)
        url = episode.get_absolute_url()
        notify(
            users=[before.user],
            kind=kinds.ELIMINATED_OR_SAVED,
            text=f"The host corrected the death match of episode {episode.number}: you won it, "
            "but the season had moved on: your elimination stands.",
            url=url,
            season=season,
        )
        notify(
            users=[loser.user],
            kind=kinds.ELIMINATED_OR_SAVED,
            text=f"The host corrected the death match of episode {episode.number} after the "
            f"season moved on: {before.name}'s elimination stands, and you stay in.",
            url=url,
            season=season,
        )
        return
    CastMember.objects.filter(season=season, status=CastMember.Status.WINNER).update(
        status=CastMember.Status.IN
    )
    CastMember.objects.filter(pk=before.pk).update(
        status=CastMember.Status.IN, eliminated_in=None, eliminated_by=None, elimination_order=None
    )
    text = (
        f"The host corrected the death match of episode {episode.number}: {before.name} won "
        "it and is back in."
    )
    log_line(season, text, "death_match_corrected", episode=episode)
    _eliminate(episode, loser, winner)


def _eliminate(episode: Episode, loser: CastMember, winner: CastMember) -> None:
    season = episode.season
    order = CastMember.objects.filter(season=season, elimination_order__isnull=False).count() + 1
    CastMember.objects.filter(pk=loser.pk).update(
        status=CastMember.Status.ELIMINATED,
        eliminated_in=episode,
        eliminated_by=winner,
        elimination_order=order,
    )
    episode.eliminated = loser
    end_episode(episode)
    remaining = cast_in(season)
    champion = rules.season_winner([member.pk for member in remaining])
    if champion is not None:
        _crown(episode, remaining[0], loser)
        return
    text = (
        f"{winner.name} won the death match: {loser.name} is eliminated (episode {episode.number})."
    )
    log_line(season, text, "eliminated", episode=episode)
    notify(
        users=[loser.user],
        kind=kinds.ELIMINATED_OR_SAVED,
        text=f"You were eliminated in episode {episode.number}: {winner.name} won the death match.",
        url=episode.get_absolute_url(),
        season=season,
        public_text=text,
    )


def _crown(episode: Episode, champion: CastMember, loser: CastMember) -> None:
    """The final's winner wins the season: one announcement of the final's result and the
    winner, the loser told they are out, the winner and the rest of the cast told who won."""
    season = episode.season
    CastMember.objects.filter(pk=champion.pk).update(status=CastMember.Status.WINNER)
    SeasonFormat.objects.filter(season=season).update(invite_open=False)
    text = f"{champion.name} won the final: {loser.name} is eliminated."
    log_line(season, text, "eliminated", episode=episode)
    log_line(season, f"{champion.name} wins {season.name}.", "season_won", episode=episode)
    url = season.get_absolute_url()
    notify(
        users=[loser.user],
        kind=kinds.ELIMINATED_OR_SAVED,
        text=f"You were eliminated in the final: {champion.name} won it and wins {season.name}.",
        url=url,
        season=season,
        public_text=f"{text} {champion.name} wins {season.name}.",
    )
    notify(
        users=[champion.user],
        kind=kinds.SEASON_WON,
        text=f"You win {season.name}: you won the final against {loser.name}.",
        url=url,
        season=season,
    )
    others = CastMember.objects.filter(
        season=season, status__in=[CastMember.Status.IN, CastMember.Status.ELIMINATED]
    ).exclude(pk__in=[champion.pk, loser.pk])
    notify(
        users=[member.user for member in others.select_related("user")],
        kind=kinds.SEASON_WON,
        text=f"{champion.name} wins {season.name}.",
        url=url,
        season=season,
    )
