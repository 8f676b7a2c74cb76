"""The cast and its invitations: a player asks to join by the season's invite link, a host
admits them or turns them away, closes the link or reopens it; who is still in; the season is
over once it has its winner, and its cast is final."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from games.core.game.gamedef import ActionError
from games.core.match import clock
from games.core.models import Season
from games.notifications import kinds
from games.notifications.services import notify
from games.seasons.hosts import format_of, log_line
from games.seasons.models import CastMember, SeasonFormat
from games.seasons.roles import check_season_host, season_hosts

MAX_NAME = 40


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
        log_line(season, f"{name} asked to join the cast.", "asked", actor=user)
        notify(
            users=season_hosts(season),
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
            log_line(season, f"The cast invite link was {words}.", f"invite_{words}", actor=actor)


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
        log_line(
            season, f"{member.name} {words}.", "admitted" if admitted else "declined", actor=actor
        )
    return member


def cast_in(season: Season) -> list[CastMember]:
    return list(
        CastMember.objects.filter(season=season, status=CastMember.Status.IN)
        .select_related("user")
        .order_by("name")
    )


def is_over(season: Season) -> bool:
    """The season has its winner: its cast is final."""
    return CastMember.objects.filter(season=season, status=CastMember.Status.WINNER).exists()


def check_not_over(season: Season) -> None:
    if is_over(season):
        raise ActionError("the season is over: its cast is final", code="season_over")
