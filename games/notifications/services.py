"""Writing notifications: the one place rows for the in-site list, mails and webhook posts are
made. Always inside the caller's transaction, so a notification exists exactly when what
caused it was committed; the scheduler process delivers them afterwards (delivery.py)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.validators import URLValidator, validate_email
from django.db import transaction

from games.core.match import clock
from games.core.models import Match, Season
from games.notifications import addresses, kinds
from games.notifications.models import Delivery, Notification, OptOut, SeasonWebhook
from games.notifications.words import shortened

MAX_TEXT = 300


def notify(
    *,
    users: Iterable[Any],
    kind: str,
    text: str,
    url: str,
    match: Match | None = None,
    season: Season | None = None,
    public_text: str | None = None,
    now: datetime | None = None,
    also: tuple[str, str] | None = None,
) -> list[Notification]:
    """Tell ``users`` that ``text`` (theirs to read; ``url`` is where to act, a site path).

    Each user gets an in-site notification and a mail, as their preferences for ``kind`` say.
    ``public_text``, when given, is what anyone may read about it: the season's webhook (of
    ``season``, else ``match``'s) posts it once, if the host let ``kind`` through. Without it
    nothing goes to the webhook, so private words never leave for a chat channel. Call it in
    the transaction of what caused it; returns the notifications written.

    ``also`` is a second kind the words tell of and its words alone (a round's result that
    starts the next round: the start): whoever turned ``kind`` off on a channel but keeps that
    kind on is told those words there, as that kind; a webhook that posts only that kind posts
    them (they are public when ``public_text`` is given)."""
    if kind not in kinds.KINDS:
        raise ValueError(f"unknown notification kind {kind!r}")
    text = _clean(text)
    if not text:
        raise ValueError("a notification says something")
    now = now or clock.now()
    season = season or (match.season if match is not None else None)
    people = list({user.pk: user for user in users if getattr(user, "pk", None)}.values())
    once = match is not None and kind in kinds.ONCE_PER_MATCH
    if once and people:
        told = Notification.objects.filter(
            match=match, kind__in=kinds.ONCE_PER_MATCH, user__in=people
        )
        already = set(told.values_list("user_id", flat=True))
        people = [user for user in people if user.pk not in already]
    read = [kind, *([also[0]] if also else [])]
    off = (
        set(
            OptOut.objects.filter(user__in=[u.pk for u in people], kind__in=read).values_list(
                "user_id", "kind", "channel"
            )
        )
        if people
        else set()
    )
    told_as = [(kind, text, person, channel) for person in people for channel in _CHANNELS]
    if also:
        # Who turned ``kind`` off on a channel but keeps ``also``'s kind is told its words there.
        told_as += [
            (also[0], _clean(also[1]), person, channel)
            for person in people
            for channel in _CHANNELS
            if (person.pk, kind, channel) in off
        ]
    on = {
        (said, person.pk, channel)
        for said, _, person, channel in told_as
        if (person.pk, said, channel) not in off
    }
    rows = {(said, words, person.pk): person for said, words, person, _ in told_as}
    written = Notification.objects.bulk_create(
        [
            Notification(
                user=person,
                kind=said,
                text=words,
                url=url[:300],
                match=match,
                season=season,
                in_site=(said, person.pk, kinds.SITE) in on,
                created_at=now,
            )
            for (said, words, _), person in rows.items()
            if said == kind or {(said, person.pk, kinds.SITE), (said, person.pk, kinds.EMAIL)} & on
        ]
    )
    mails = [
        Delivery(
            channel=Delivery.Channel.EMAIL,
            kind=note.kind,
            notification=note,
            url=note.url,
            destination=note.user.email,
            due_at=now,
            created_at=now,
        )
        for note in written
        if note.user.email and (note.kind, note.user.pk, kinds.EMAIL) in on
    ]
    Delivery.objects.bulk_create(mails)
    if public_text and season is not None:
        hook = SeasonWebhook.objects.filter(season=season).first()
        posted = (kind, public_text)
        if hook is not None and not hook.posts(kind) and also and hook.posts(also[0]):
            posted = also  # the hook posts only the second kind: its words alone
        _post_to_webhook(season, posted[0], _clean(posted[1]), url, now, once=once)
    return written


_CHANNELS = (kinds.SITE, kinds.EMAIL)


def _post_to_webhook(
    season: Season, kind: str, public_text: str, url: str, now: datetime, *, once: bool
) -> None:
    hook = SeasonWebhook.objects.filter(season=season).first()
    if hook is None or not hook.posts(kind) or not public_text:
        return
    posted = Delivery.objects.filter(
        channel=Delivery.Channel.WEBHOOK, kind__in=kinds.ONCE_PER_MATCH, url=url[:300]
    )
    if once and posted.exists():
        return  # the match's start was posted already
    Delivery.objects.create(
        channel=Delivery.Channel.WEBHOOK,
        kind=kind,
        season=season,
        public_text=public_text,
        url=url[:300],
        destination=hook.url,
        due_at=now,
        created_at=now,
    )


def _clean(text: str | None) -> str:
    """The words as kept: cut at a word with an ellipsis when too long (the notification's
    link opens the page that says the rest)."""
    return shortened(text, MAX_TEXT)


# --- a player's choices, the in-site list, the season webhook ----------------------------------


def choices_of(user: Any) -> set[tuple[str, str]]:
    """The (kind, channel) pairs ``user`` has on (everything until turned off)."""
    off = set(OptOut.objects.filter(user=user).values_list("kind", "channel"))
    return {
        (kind, channel)
        for kind in kinds.KINDS
        for channel in kinds.PLAYER_CHANNELS
        if (kind, channel) not in off
    }


@transaction.atomic
def set_choices(user: Any, on: set[tuple[str, str]], email: str) -> None:
    """Keep exactly ``on`` of the (kind, channel) pairs on for ``user``, and their address."""
    unknown = {
        pair for pair in on if pair[0] not in kinds.KINDS or pair[1] not in kinds.PLAYER_CHANNELS
    }
    if unknown:
        raise ValueError(f"unknown notification choice {sorted(unknown)[0]!r}")
    email = email.strip()
    if email:
        validate_email(email)
    OptOut.objects.filter(user=user).delete()
    OptOut.objects.bulk_create(
        OptOut(user=user, kind=kind, channel=channel)
        for kind in kinds.KINDS
        for channel in kinds.PLAYER_CHANNELS
        if (kind, channel) not in on
    )
    if email != user.email:
        user.email = email
        user.save(update_fields=["email"])


def unsubscribe(user_id: int, kind: str) -> None:
    """Stop the mails of ``kind`` to the user (the signed link in each of them)."""
    if kind not in kinds.KINDS:
        raise ValueError(f"unknown notification kind {kind!r}")
    OptOut.objects.get_or_create(user_id=user_id, kind=kind, channel=kinds.EMAIL)


def mark_read(user: Any, now: datetime | None = None) -> int:
    """Mark every unread notification of ``user`` read."""
    return Notification.objects.unread().filter(user=user).update(read_at=now or clock.now())


def mark_opened(note: Notification, now: datetime | None = None) -> None:
    """The player opened the notification (its link in the list or its mail): it is read."""
    if note.read_at is None:
        note.read_at = now or clock.now()
        Notification.objects.filter(pk=note.pk, read_at=None).update(read_at=note.read_at)


def may_set_webhook(season: Season, user: Any) -> bool:
    """The season's hosts (games/seasons decides who they are)."""
    from games.seasons.roles import runs_season

    return runs_season(user, season)


def check_webhook_url(url: str) -> str:
    """The URL as kept, if the site may post to it: a web address whose server is at public
    addresses only (addresses.py, checked again at each post); ValidationError or
    RefusedAddress, whose message says why, otherwise. An empty URL stops the posts."""
    url = url.strip()
    if url:
        URLValidator(schemes=["http", "https"])(url)
        addresses.resolve(url)
    return url


def set_season_webhook(season: Season, actor: Any, url: str, posted: set[str]) -> SeasonWebhook:
    """A host sets where the season's public notifications go (an empty URL stops them)."""
    if not may_set_webhook(season, actor):
        raise PermissionDenied("only the season's hosts set its webhook")
    url = check_webhook_url(url)
    unknown = posted - set(kinds.KINDS)
    if unknown:
        raise ValueError(f"unknown notification kind {sorted(unknown)[0]!r}")
    hook, _ = SeasonWebhook.objects.update_or_create(
        season=season, defaults={"url": url, "kinds": sorted(posted)}
    )
    return hook
