"""Every change to a season: check, lock, change, record the line players read, commit.

Seasons build on the core: a main match and a death match are core matches created through
games.core.match.services and seated with the cast; garnets and Tokens of Life are the core ledger's
(games/core/match/ledger.py); the rules are games/seasons/rules.py's. The scheduler calls
``run_clocks`` each tick: it moves every episode whose match ended on and fires the nomination
clocks that ran out. Whoever an operation needs is told through games.notifications, in the
same transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Q

from games.core.game.gamedef import ActionError, Viewer
from games.core.game.registry import UnknownGame, get_game
from games.core.match import clock, ledger
from games.core.match import services as matches
from games.core.models import Match, Season
from games.core.render.rendering import view_of
from games.notifications import kinds
from games.notifications.models import Delivery
from games.notifications.services import notify
from games.notifications.words import shortened
from games.seasons import roles, rules
from games.seasons.models import CastMember, Episode, SeasonEvent, SeasonFormat

log = logging.getLogger(__name__)

OVER = (Match.Status.FINISHED, Match.Status.ABORTED)
# The phases in which the main match's result (or a host's correction of it) is read.
READS_MAIN_MATCH = (
    Episode.Phase.MAIN_MATCH,
    Episode.Phase.NOMINATION,
    Episode.Phase.HOST_NOMINATION,
)
MAX_NAME = 40


# --- who runs a season --------------------------------------------------------------------------


def is_season_host(season: Season, user: Any) -> bool:
    """The season's hosts and co-hosts, and superusers (games/seasons/roles.py)."""
    return roles.runs_season(user, season)


def seasons_hosted_by(user: Any) -> set[int]:
    """The keys of the seasons ``user`` hosts or co-hosts (no staff status needed: co-hosting is
    a season role, games/seasons/roles.py): what the core asks to know who may run a season's
    matches (games/core/match/authority.py)."""
    if not getattr(user, "is_authenticated", False):
        return set()
    formats = SeasonFormat.objects.filter(Q(hosts=user) | Q(cohosts=user))
    return set(formats.values_list("season_id", flat=True))


def check_season_host(season: Season, user: Any) -> None:
    if not is_season_host(season, user):
        raise ActionError("only the season's hosts can do that", code="forbidden")


def format_of(season: Season) -> SeasonFormat:
    try:
        return season.format
    except SeasonFormat.DoesNotExist:
        raise ActionError(
            f"{season} is a ledger only: it has no cast or episodes", code="no_format"
        ) from None


def _log(
    season: Season, text: str, kind: str, *, episode: Episode | None = None, actor: Any = None
) -> SeasonEvent:
    return SeasonEvent.objects.create(
        season=season,
        episode=episode,
        kind=kind,
        text=shortened(text, 300),
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        created_at=clock.now(),
    )


def _hosts(season: Season) -> list[Any]:
    """Whom a notice for the season's hosts goes to: its hosts and co-hosts."""
    return roles.season_hosts(season)


# --- the season and its cast --------------------------------------------------------------------


def create_season(
    *, name: str, host: Any, settings: dict[str, Any], make_current: bool = False
) -> Season:
    """A new season run by ``host`` (a staff user), with its cast invite link."""
    if not getattr(host, "is_staff", False):
        raise ActionError("only staff users host seasons", code="forbidden")
    name = " ".join(str(name or "").split())[:80]
    if not name:
        raise ActionError("give the season a name", code="name_needed")
    try:
        kept = rules.settled(settings)
    except ValueError as error:
        raise ActionError(str(error), code="bad_settings") from None
    if Season.objects.filter(name=name).exists():
        raise ActionError(f"there is already a season called {name!r}", code="name_taken")
    with transaction.atomic():
        if make_current:
            Season.objects.filter(is_current=True).update(is_current=False)
        season = Season.objects.create(name=name, is_current=make_current)
        season_format = SeasonFormat.objects.create(season=season, settings=kept)
        season_format.hosts.add(host)
        _log(season, f"{host_name(host)} opened {name}.", "season_opened", actor=host)
    return season


def host_name(user: Any) -> str:
    return user.first_name or user.username


def add_cohost(season: Season, actor: Any, username: str) -> Any:
    """Make a user co-host: they run the season as its hosts do (no staff status needed)."""
    from django.contrib.auth import get_user_model

    check_season_host(season, actor)
    user = get_user_model().objects.filter(username=str(username).strip(), is_active=True).first()
    if user is None:
        raise ActionError("there is no user by that name: give their user name", "no_user")
    season_format = format_of(season)
    if roles.runs_season(user, season) and not user.is_superuser:
        raise ActionError(f"{host_name(user)} already runs the season", code="already_host")
    with transaction.atomic():
        season_format.cohosts.add(user)
        _log(season, f"{host_name(user)} co-hosts the season.", "cohost_added", actor=actor)
    return user


def remove_cohost(season: Season, actor: Any, user_id: int) -> Any:
    """Take the co-host role back: they no longer run the season."""
    check_season_host(season, actor)
    season_format = format_of(season)
    user = season_format.cohosts.filter(pk=user_id).first()
    if user is None:
        raise ActionError("that user is not a co-host of the season", code="not_cohost")
    with transaction.atomic():
        season_format.cohosts.remove(user)
        _log(
            season,
            f"{host_name(user)} no longer co-hosts the season.",
            "cohost_removed",
            actor=actor,
        )
    return user


def adjust_ledger(
    season: Season, actor: Any, member_id: int, garnets: int, tokens: int, reason: str
) -> Any:
    """A host or co-host gives or takes a cast member's garnets and Tokens of Life (a bonus, a
    fine), with a reason: a ledger entry signed by them, and the player is told."""
    check_season_host(season, actor)
    member = CastMember.objects.filter(season=season, pk=member_id).select_related("user").first()
    if member is None:
        raise ActionError("choose a player of the season's cast", code="not_cast")
    if not str(reason or "").strip():
        raise ActionError("give a reason: the player reads it", code="reason_needed")
    with transaction.atomic():
        entry = ledger.adjust(member.user, season, garnets, tokens, reason, actor=actor)
        why = entry.reason.rstrip(".")
        notify(
            users=[member.user],
            kind=kinds.LEDGER_CHANGED,
            text=f"{adjustment_words(garnets, tokens)} in {season.name}: {why}.",
            url=season.get_absolute_url(),
            season=season,
        )
    return entry


def adjustment_words(garnets: int, tokens: int) -> str:
    """ "A host gave you 10 garnets and 1 Token of Life", "A host took 3 garnets from you"."""

    def amount(count: int, one: str, many: str) -> str:
        return f"{abs(count)} {one if abs(count) == 1 else many}"

    given = [
        amount(n, one, many)
        for n, one, many in (
            (garnets, "garnet", "garnets"),
            (tokens, "Token of Life", "Tokens of Life"),
        )
        if n > 0
    ]
    taken = [
        amount(n, one, many)
        for n, one, many in (
            (garnets, "garnet", "garnets"),
            (tokens, "Token of Life", "Tokens of Life"),
        )
        if n < 0
    ]
    parts = []
    if given:
        parts.append(f"gave you {' and '.join(given)}")
    if taken:
        parts.append(f"took {' and '.join(taken)} from you")
    return "A host " + " and ".join(parts)


def is_over(season: Season) -> bool:
    """The season has its winner: its cast is final."""
    return CastMember.objects.filter(season=season, status=CastMember.Status.WINNER).exists()


def check_not_over(season: Season) -> None:
    if is_over(season):
        raise ActionError("the season is over: its cast is final", code="season_over")


def ask_to_join(season: Season, user: Any, invite_token: str, name: str) -> CastMember:
    """A player follows the season's invite link and asks to join under a display name; a host
    admits them. Not once the season is over."""
    season_format = format_of(season)
    if invite_token != season_format.invite_token:
        raise ActionError("this invite link is not valid for this season", code="bad_invite")
    check_not_over(season)
    if not SeasonFormat.objects.filter(pk=season_format.pk, invite_open=True).exists():
        raise ActionError(
            "the cast invite link is closed: ask the season's host", code="invite_closed"
        )
    if not getattr(user, "is_authenticated", False):
        raise ActionError("log in to join the season", code="not_logged_in")
    name = " ".join(str(name or "").split())
    if not name or len(name) > MAX_NAME:
        raise ActionError(f"a display name has 1-{MAX_NAME} characters", code="bad_name")
    with transaction.atomic():
        mine = CastMember.objects.filter(season=season, user=user).first()
        if mine is not None:
            raise ActionError(f"you already asked to join as {mine.name}", code="already_asked")
        if CastMember.objects.filter(season=season, name__iexact=name).exists():
            raise ActionError(f"{name} is taken in this season; choose another", "name_taken")
        try:
            with transaction.atomic():
                member = CastMember.objects.create(
                    season=season, user=user, name=name, asked_at=clock.now()
                )
        except IntegrityError:
            raise ActionError(
                f"{name} is taken in this season; choose another", "name_taken"
            ) from None
        _log(season, f"{name} asked to join the cast.", "asked", actor=user)
        notify(
            users=_hosts(season),
            kind=kinds.CAST_ASKED,
            text=f"{name} asks to join {season.name}: admit them or turn them away.",
            url=season.get_absolute_url(),
            season=season,
        )
    return member


def set_invite_open(season: Season, actor: Any, is_open: bool) -> None:
    """A host closes the cast invite link (no one more asks to join) or reopens it."""
    check_season_host(season, actor)
    if is_open:
        check_not_over(season)
    with transaction.atomic():
        changed = SeasonFormat.objects.filter(season=season).exclude(invite_open=is_open)
        if changed.update(invite_open=is_open):
            words = "reopened" if is_open else "closed"
            _log(season, f"The cast invite link was {words}.", f"invite_{words}", actor=actor)


def admit(season: Season, actor: Any, member_id: int, admitted: bool = True) -> CastMember:
    """A host admits a player who asked (they are in) or turns them away; once the season is
    over they can only be turned away."""
    check_season_host(season, actor)
    if admitted:
        check_not_over(season)
    with transaction.atomic():
        member = CastMember.objects.select_for_update().filter(season=season, pk=member_id).first()
        if member is None or member.status != CastMember.Status.ASKED:
            raise ActionError("no one is waiting to join under that name", code="not_asked")
        member.status = CastMember.Status.IN if admitted else CastMember.Status.DECLINED
        member.save(update_fields=["status"])
        words = "joined the cast" if admitted else "was not admitted"
        _log(season, f"{member.name} {words}.", "admitted" if admitted else "declined", actor=actor)
    return member


def cast_in(season: Season) -> list[CastMember]:
    return list(
        CastMember.objects.filter(season=season, status=CastMember.Status.IN)
        .select_related("user")
        .order_by("name")
    )


def public_tokens(season: Season) -> dict[int, int]:
    """Tokens of Life each player holds as everyone may count them (a live match's entries
    count once it has ended)."""
    return {row["user_id"]: row["tokens_of_life"] for row in season.standings()}


# --- episodes -----------------------------------------------------------------------------------


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
        _log(season, text, "episode_started", episode=episode, actor=actor)
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
        _log(season, text, "final", episode=episode, actor=actor)
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

        _create_death_match(episode, actor, game_key, settings, announce=announce)
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
        match = matches.create_match(
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
        matches.take_seat(match, member.user, seat.invite_token)
    return Match.objects.with_seats().get(pk=match.pk)


def _member_in_seat(match: Match, seat_index: Any) -> CastMember | None:
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


def _lock_episode(episode: Episode) -> Episode:
    return (
        Episode.objects.select_for_update(of=("self",))
        .select_related("season", "elimination_candidate__user", "opponent__user")
        .get(pk=episode.pk)
    )


def nominate(episode: Episode, actor: Any, nominee_id: int, game_key: str = "") -> Episode:
    """The Elimination Candidate names the Death Match Opponent while their clock runs (and,
    when the season lets them, the death match's game); once it ran out, a host does."""
    with transaction.atomic():
        locked = _lock_episode(episode)
        season = locked.season
        settings = format_of(season).settings
        by_host = locked.phase == Episode.Phase.HOST_NOMINATION and is_season_host(season, actor)
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
        _log(season, text, "nominated", episode=locked, actor=actor)
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
            _create_death_match(locked, locked.main_match.host, game_key, {})
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


def change_nomination_clock(episode: Episode, actor: Any, minutes: Any) -> Episode:
    """A host moves the Elimination Candidate's nomination deadline by ``minutes`` (below 0:
    sooner); once it ran out, gives them ``minutes`` from now and the nomination back. The
    EC is told the new deadline; the log says it."""
    with transaction.atomic():
        locked = _lock_episode(episode)
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
        _log(season, text, "nomination_clock", episode=locked, actor=actor)
        notify(
            users=[candidate.user],
            kind=kinds.ELIMINATION_CANDIDATE,
            text=f"Your nomination deadline (episode {locked.number}) is now {when}: name "
            "your Death Match Opponent by then.",
            url=locked.get_absolute_url(),
            season=season,
        )
    return locked


def spend_token(episode: Episode, actor: Any) -> Episode:
    """The Elimination Candidate spends a Token of Life: no death match, no one eliminated in
    this episode. A ledger entry and a line of the season's log."""
    with transaction.atomic():
        locked = _lock_episode(episode)
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
        _end_episode(locked)
        text = (
            f"{candidate.name} spent a Token of Life: no death match and no elimination in "
            f"episode {locked.number}."
        )
        _log(season, text, "token_spent", episode=locked, actor=actor)
        notify(
            users=[candidate.user],
            kind=kinds.ELIMINATED_OR_SAVED,
            text=text,
            url=locked.get_absolute_url(),
            season=season,
            public_text=text,
        )
    return locked


def create_death_match(
    episode: Episode, actor: Any, game_key: str, settings: dict[str, Any]
) -> Match:
    """The host sets up the death match: its game and settings, the EC and the DMO seated in
    their roles."""
    with transaction.atomic():
        locked = _lock_episode(episode)
        check_season_host(locked.season, actor)
        return _create_death_match(locked, actor, game_key, settings)


def _create_death_match(
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
    _log(episode.season, text, "death_match", episode=episode, actor=host)
    return match


def _end_episode(episode: Episode) -> None:
    episode.phase = Episode.Phase.OVER
    episode.ended_at = clock.now()
    episode.save()


# --- what moves an episode on by itself (the scheduler's tick) ---------------------------------


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
            _main_match_over(episode)
        elif episode.phase == Episode.Phase.DEATH_MATCH and (
            episode.death_match is not None and episode.death_match.status in OVER
        ):
            _death_match_over(episode)
        elif episode.phase == Episode.Phase.NOMINATION and rules.nomination_missed(
            episode.nomination_due, now
        ):
            _nomination_ran_out(episode)
        elif (
            episode.phase == Episode.Phase.OVER
            and episode.eliminated_id is not None
            and (
                episode.death_match is not None
                and episode.death_match.version > episode.death_match_read_at
            )
        ):
            _death_match_corrected(episode)
        elif main_match is not None and main_match.version > episode.main_match_read_at:
            _main_match_corrected_late(episode)


def _main_match_over(episode: Episode) -> None:
    """The main match ended (or, while the nomination is open, the host corrected its result):
    its Elimination Candidate opens the nomination, on a fresh clock."""
    match = Match.objects.with_seats().get(pk=episode.main_match_id)
    if match.status not in OVER:
        return
    episode.main_match_read_at = match.version
    season = episode.season
    if match.status == Match.Status.ABORTED:
        _end_episode(episode)
        text = f"The main match of episode {episode.number} was aborted: no one leaves."
        _log(season, text, "main_match_aborted", episode=episode)
        return
    result = main_match_result(match)
    candidate = _member_in_seat(match, result.get("elimination_candidate"))
    before = episode.elimination_candidate
    if candidate is None or candidate == before:
        if candidate is None and before is not None:  # corrected into a tie
            episode.elimination_candidate = None
            episode.nomination_due = None
            episode.phase = Episode.Phase.MAIN_MATCH
            text = f"The host corrected the main match: {before.name} is no longer the EC."
            _log(season, text, "main_match_corrected", episode=episode)
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
    _log(season, text, "elimination_candidate", episode=episode)
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


def _main_match_corrected_late(episode: Episode) -> None:
    """The host corrected a main match after its Death Match Opponent was named: the
    episode goes on as decided; the log says so when the correction named another EC."""
    match = Match.objects.with_seats().get(pk=episode.main_match_id)
    episode.main_match_read_at = match.version
    episode.save(update_fields=["main_match_read_at"])
    candidate = _member_in_seat(match, main_match_result(match).get("elimination_candidate"))
    if candidate == episode.elimination_candidate:
        return
    text = (
        f"The host corrected the main match of episode {episode.number} after the season "
        f"moved on: {episode.elimination_candidate.name} stays its Elimination Candidate."
    )
    _log(episode.season, text, "main_match_corrected", episode=episode)


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


def _nomination_ran_out(episode: Episode) -> None:
    episode.phase = Episode.Phase.HOST_NOMINATION
    episode.save(update_fields=["phase"])
    name = episode.elimination_candidate.name
    text = f"{name} named no Death Match Opponent in time: the host names one."
    _log(episode.season, text, "nomination_missed", episode=episode)
    notify(
        users=_hosts(episode.season),
        kind=kinds.NOMINATION_NOT_MADE,
        text=f"A nomination was not made: {name} (episode {episode.number}) let the clock run "
        "out. Name the Death Match Opponent.",
        url=episode.get_absolute_url(),
        season=episode.season,
    )


def _death_match_over(episode: Episode) -> None:
    match = Match.objects.with_seats().get(pk=episode.death_match_id)
    season = episode.season
    episode.death_match_read_at = match.version
    if match.status == Match.Status.ABORTED:
        episode.death_match = None
        episode.phase = Episode.Phase.DEATH_MATCH_SETUP
        episode.save()
        text = f"The death match of episode {episode.number} was aborted: the host sets up another."
        _log(season, text, "death_match_aborted", episode=episode)
        return
    winner_seat = (match.result or {}).get("winner")
    winner = _member_in_seat(match, winner_seat)
    loser = _member_in_seat(match, 1 - winner_seat) if isinstance(winner_seat, int) else None
    if winner is None or loser is None:
        return  # no single winner: the host corrects the result
    settings = format_of(season).settings
    held = ledger.held([loser.user_id], season)[loser.user_id]["tokens"]
    if rules.loser_is_saved(held, settings):
        reason = f"Token of Life spent to stay after the death match of episode {episode.number}"
        ledger.adjust(loser.user, season, 0, -1, reason, actor=None)
        episode.saved = loser
        _end_episode(episode)
        text = f"{winner.name} won the death match; {loser.name} spent a Token of Life and stays."
        _log(season, text, "saved", episode=episode)
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


def _death_match_corrected(episode: Episode) -> None:
    """The host corrected a death match whose loser was eliminated: while no later episode
    has begun, the old loser is back in and the new one leaves in their place."""
    match = Match.objects.with_seats().get(pk=episode.death_match_id)
    season = episode.season
    episode.death_match_read_at = match.version
    winner_seat = (match.result or {}).get("winner")
    winner = _member_in_seat(match, winner_seat)
    loser = _member_in_seat(match, 1 - winner_seat) if isinstance(winner_seat, int) else None
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
        _log(season, text, "death_match_corrected", episode=episode)
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
    _log(season, text, "death_match_corrected", episode=episode)
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
    _end_episode(episode)
    remaining = cast_in(season)
    champion = rules.season_winner([member.pk for member in remaining])
    if champion is not None:
        _crown(episode, remaining[0], loser)
        return
    text = (
        f"{winner.name} won the death match: {loser.name} is eliminated (episode {episode.number})."
    )
    _log(season, text, "eliminated", episode=episode)
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
    _log(season, text, "eliminated", episode=episode)
    _log(season, f"{champion.name} wins {season.name}.", "season_won", episode=episode)
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
