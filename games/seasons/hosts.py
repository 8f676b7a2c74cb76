"""A season opened and handed on by its hosts: opening a season, co-hosts made and unmade;
and what every change to a season reads first and writes last: its format (``format_of``) and
the line players read in the season's log (``log_line``)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from games.core.game.gamedef import ActionError
from games.core.match import clock
from games.core.models import Season
from games.notifications.words import shortened
from games.seasons import rules
from games.seasons.models import Episode, SeasonEvent, SeasonFormat
from games.seasons.roles import check_season_host, runs_season


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
        log_line(season, f"{host_name(host)} opened {name}.", "season_opened", actor=host)
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
    if runs_season(user, season) and not user.is_superuser:
        raise ActionError(f"{host_name(user)} already runs the season", code="already_host")
    with transaction.atomic():
        season_format.cohosts.add(user)
        log_line(season, f"{host_name(user)} co-hosts the season.", "cohost_added", actor=actor)
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
        log_line(
            season,
            f"{host_name(user)} no longer co-hosts the season.",
            "cohost_removed",
            actor=actor,
        )
    return user


def format_of(season: Season) -> SeasonFormat:
    try:
        return season.format
    except SeasonFormat.DoesNotExist:
        raise ActionError(
            f"{season} is a ledger only: it has no cast or episodes", code="no_format"
        ) from None


def log_line(
    season: Season, text: str, kind: str, *, episode: Episode | None = None, actor: Any = None
) -> SeasonEvent:
    """A line of the season's log, as players read it: what changed, by whom when a signed-in
    user did it (the scheduler's own changes are nobody's)."""
    return SeasonEvent.objects.create(
        season=season,
        episode=episode,
        kind=kind,
        text=shortened(text, 300),
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        created_at=clock.now(),
    )
