"""Who runs a season: its hosts (who opened it, or were made host), its co-hosts (a season
role given and taken on the season's page, no staff status needed) and superusers. The one
answer the season's pages, its actions (each checks ``check_season_host`` first), its
notifications and the match core read."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q

from games.core.game.gamedef import ActionError
from games.core.models import Season
from games.seasons.models import SeasonFormat


def runs_season(user: Any, season: Season | None) -> bool:
    """May ``user`` run ``season`` (and the matches it made)? Its hosts and co-hosts, and
    superusers."""
    if season is None or not getattr(user, "is_authenticated", False):
        return False
    if user.is_superuser:
        return True
    formats = SeasonFormat.objects.filter(season_id=season.pk)
    return formats.filter(hosts=user).exists() or formats.filter(cohosts=user).exists()


def check_season_host(season: Season, user: Any) -> None:
    if not runs_season(user, season):
        raise ActionError("only the season's hosts can do that", code="forbidden")


def seasons_hosted_by(user: Any) -> set[int]:
    """The keys of the seasons ``user`` hosts or co-hosts (no staff status needed: co-hosting is
    a season role): what the core asks to know who may run a season's matches
    (games/core/match/authority.py)."""
    if not getattr(user, "is_authenticated", False):
        return set()
    formats = SeasonFormat.objects.filter(Q(hosts=user) | Q(cohosts=user))
    return set(formats.values_list("season_id", flat=True))


def season_hosts(season: Season) -> list[Any]:
    """Everyone who runs the season by its role (hosts, then co-hosts), each once: whom the
    season's notices for its hosts go to."""
    users = get_user_model().objects.filter(is_active=True)
    hosts = list(users.filter(hosted_seasons__season_id=season.pk).order_by("username"))
    cohosts = users.filter(cohosted_seasons__season_id=season.pk).order_by("username")
    return hosts + [user for user in cohosts if user not in hosts]


def cohosts(season: Season) -> list[Any]:
    return list(
        get_user_model().objects.filter(cohosted_seasons__season_id=season.pk).order_by("username")
    )
