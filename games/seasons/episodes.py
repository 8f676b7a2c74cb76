"""Episodes and their matches: a host starts the next episode (its main match, every player
still in seated) or the final (a death match between the last two), and sets up a death match
once the Death Match Opponent is named. A season's match is a core match (games.core.match.services)
seated with the cast; what everyone may read of a main match's result; an episode's end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction

from games.core.game.gamedef import ActionError, Viewer
from games.core.game.registry import UnknownGame, get_game
from games.core.match import clock, seating
from games.core.models import Match, Season
from games.core.render.rendering import view_of
from games.notifications import kinds
from games.notifications.services import notify
from games.seasons import rules
from games.seasons.cast import cast_in
from games.seasons.hosts import log_line
from games.seasons.models import CastMember, Episode
from games.seasons.roles import check_season_host

# A match of an episode that has ended: played out or aborted.
OVER = (Match.Status.FINISHED, Match.Status.ABORTED)


def current_episode(season: Season) -> Episode | None:
    return season.episodes.exclude(phase=Episode.Phase.OVER).order_by("-number").first()


def main_match_games() -> list[Any]:
    """The games a main match may be: three seats or more."""
    from games.core.game.registry import listed_games

    return [game for game in listed_games() if game.max_seats >= rules.MAIN_MATCH_MIN_PLAYERS]


def death_match_games() -> list[Any]:
    """The games a death match may be: the EC against the DMO."""
    from games.core.game.registry import listed_games

    return [game for game in listed_games() if _is_death_match(game)]


def _is_death_match(game: Any) -> bool:
    return tuple(game.roles) == ("EC", "DMO")


def _game(game_key: str) -> Any:
    """The registered game ``game_key``, or a refusal the host reads."""
    try:
        return get_game(game_key)
    except UnknownGame:
        raise ActionError(f"there is no game {str(game_key)[:40]!r}", code="bad_game") from None


def start_episode(
    season: Season, actor: Any, game_key: str, settings: dict[str, Any], title: str = ""
) -> Episode:
    """The next episode: its main match of ``game_key`` with every player still in seated."""
    check_season_host(season, actor)
    game = _game(game_key)
    with transaction.atomic():
        Season.objects.select_for_update().get(pk=season.pk)
        if current_episode(season) is not None:
            raise ActionError("the current episode is not over yet", code="episode_running")
        players = cast_in(season)
        rules.check_main_match_size(len(players), game.min_seats, game.max_seats, game.title)
        number = (season.episodes.order_by("-number").values_list("number", flat=True).first()) or 0
        number += 1
        text = f"Episode {number} starts: the main match is {game.title}, {len(players)} players."

        def announce(match: Match) -> None:
            notify(
                users=[member.user for member in players],
                kind=kinds.EPISODE_STARTS,
                text=f"{text} Your seat is waiting.",
                url=match.get_absolute_url(),
                season=season,
                match=match,
                public_text=text,
            )

        match = _seated_match(
            season,
            actor,
            game_key,
            settings,
            title or f"{season.name}, episode {number}: main match",
            [(member, "") for member in players],
            announce,
        )
        episode = Episode.objects.create(
            season=season, number=number, main_match=match, started_at=clock.now()
        )
        log_line(season, text, "episode_started", episode=episode, actor=actor)
    return episode


def start_final(
    season: Season,
    actor: Any,
    game_key: str,
    settings: dict[str, Any],
    candidate_id: int,
) -> Episode:
    """The last episode, when two players are left: no main match, a death match between them
    (the host says who plays as Elimination Candidate; the DMO takes what the rules give the
    house); its winner wins the season."""
    check_season_host(season, actor)
    with transaction.atomic():
        Season.objects.select_for_update().get(pk=season.pk)
        if current_episode(season) is not None:
            raise ActionError("the current episode is not over yet", code="episode_running")
        players = cast_in(season)
        if len(players) != 2:
            raise ActionError(
                f"the final is played by the last two players; {len(players)} are in",
                code="not_final",
            )
        candidate = next((m for m in players if m.pk == candidate_id), None)
        if candidate is None:
            raise ActionError("choose which finalist plays as EC", code="bad_nominee")
        opponent = next(m for m in players if m.pk != candidate_id)
        number = (season.episodes.order_by("-number").values_list("number", flat=True).first()) or 0
        episode = Episode.objects.create(
            season=season,
            number=number + 1,
            phase=Episode.Phase.DEATH_MATCH_SETUP,
            elimination_candidate=candidate,
            opponent=opponent,
            nominated_by_host=True,
            started_at=clock.now(),
        )
        text = f"Episode {episode.number} is the final: {candidate.name} against {opponent.name}."
        log_line(season, text, "final", episode=episode, actor=actor)
        said = (
            f"Episode {episode.number} is the final: {candidate.name} against {opponent.name} "
            f"in {_game(game_key).title}; its winner wins {season.name}."
        )

        def announce(match: Match) -> None:
            notify(
                users=[candidate.user, opponent.user],
                kind=kinds.EPISODE_STARTS,
                text=f"{said} Your seat is waiting.",
                url=match.get_absolute_url(),
                season=season,
                match=match,
                public_text=said,
            )

        seat_death_match(episode, actor, game_key, settings, announce=announce)
    return episode


def _seated_match(
    season: Season,
    host: Any,
    game_key: str,
    settings: dict[str, Any],
    title: str,
    seated: list[tuple[CastMember, str]],
    announce: Callable[[Match], None],
) -> Match:
    """A match of the season with each cast member in their seat (and role), in order.
    ``announce`` tells its start in the season's words before anyone is seated: the core's
    "has started", when the last seat starts it, then tells no one twice."""
    try:
        match = seating.create_match(
            host=host,
            game_key=game_key,
            title=title,
            settings=settings,
            roles=[role for _, role in seated],
        )
    except ValueError as error:
        raise ActionError(str(error), code="bad_settings") from None
    Match.objects.filter(pk=match.pk).update(season=season)
    match.season = season
    announce(match)
    for (member, _), seat in zip(seated, match.seats.order_by("index"), strict=True):
        seating.take_seat(match, member.user, seat.invite_token)
    return Match.objects.with_seats().get(pk=match.pk)


def member_in_seat(match: Match, seat_index: Any) -> CastMember | None:
    """The cast member in seat ``seat_index`` of a season's match (None for no such seat or an
    open one)."""
    seat = next((s for s in match.seats.all() if s.index == seat_index), None)
    if seat is None or seat.user_id is None:
        return None
    return CastMember.objects.filter(season_id=match.season_id, user_id=seat.user_id).first()


def main_match_result(match: Match) -> dict[str, Any]:
    """What everyone may read of a main match once it is over (its public view's result):
    ``elimination_candidate`` (a seat, None while a tie waits for the host), ``ec_tied`` and
    ``totals`` (seat -> points). Nothing while it is being played."""
    if match.status != Match.Status.FINISHED:
        return {}
    game_view = view_of(match, Viewer.spectator(), drafts=False)["game"]
    result = game_view.get("result") or {}
    return result if isinstance(result, dict) else {}


def lock_episode(episode: Episode) -> Episode:
    """The episode locked for a change, with its season, its EC and its DMO."""
    return (
        Episode.objects.select_for_update(of=("self",))
        .select_related("season", "elimination_candidate__user", "opponent__user")
        .get(pk=episode.pk)
    )


def create_death_match(
    episode: Episode, actor: Any, game_key: str, settings: dict[str, Any]
) -> Match:
    """The host sets up the death match: its game and settings, the EC and the DMO seated in
    their roles."""
    with transaction.atomic():
        locked = lock_episode(episode)
        check_season_host(locked.season, actor)
        return seat_death_match(locked, actor, game_key, settings)


def seat_death_match(
    episode: Episode,
    host: Any,
    game_key: str,
    settings: dict[str, Any],
    *,
    announce: Callable[[Match], None] | None = None,
) -> Match:
    """The death match with the EC and the DMO seated in their roles; its start is told by
    ``announce`` (the final's) or as a death match's."""
    if episode.phase != Episode.Phase.DEATH_MATCH_SETUP:
        raise ActionError("the death match is set up once the opponent is named", "not_ready")
    game = _game(game_key)
    if not _is_death_match(game):
        raise ActionError(f"{game.title} is not a death match", code="bad_game")
    candidate, opponent = episode.elimination_candidate, episode.opponent
    title = f"{episode.season.name}, episode {episode.number}: death match"
    text = (
        f"Death match of episode {episode.number}: {candidate.name} (EC) against "
        f"{opponent.name} (DMO) in {game.title}."
    )

    def as_death_match(match: Match) -> None:
        notify(
            users=[candidate.user, opponent.user],
            kind=kinds.MATCH_STARTED,
            text=f"{text} Your seat is waiting.",
            url=match.get_absolute_url(),
            season=episode.season,
            match=match,
            public_text=text,
        )

    match = _seated_match(
        episode.season,
        host,
        game_key,
        settings,
        title,
        [(candidate, "EC"), (opponent, "DMO")],
        announce or as_death_match,
    )
    episode.death_match = match
    episode.phase = Episode.Phase.DEATH_MATCH
    episode.save()
    log_line(episode.season, text, "death_match", episode=episode, actor=host)
    return match


def end_episode(episode: Episode) -> None:
    """The episode is over now (saved with whatever else the caller changed on it)."""
    episode.phase = Episode.Phase.OVER
    episode.ended_at = clock.now()
    episode.save()
