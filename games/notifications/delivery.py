"""Delivering mails and webhook posts after commit, in the scheduler process.

A delivery row is claimed (SELECT ... FOR UPDATE SKIP LOCKED, then marked SENDING with a lease),
sent outside any transaction with a timeout, and marked SENT the moment its receiver accepted it,
or put back with a later due time (retries.py) when it failed. Any number of deliverers may run:
a claimed row is skipped by the others until its lease runs out. A deliverer that dies holding
rows leaves them SENDING; once the lease runs out another sends them again. A row dies
unmarked only between its receiver's acceptance and the next statement (the UPDATE marking it),
so a receiver sees a repeat only after a crash in that window: every mail carries the same
Message-ID and every post the same Idempotency-Key on each attempt, so a receiver can drop it.

Receivers are served apart: each job holds the rows of one receiver (the mail server, or one
webhook URL), one job per receiver at a time, jobs on a pool of threads. A hanging webhook holds
one thread until its timeout; mail and other webhooks go on. A webhook's posts leave in the
order they were written, retries included: a post that failed holds back the ones after it
until it is sent or given up.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import re
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from channels.db import database_sync_to_async
from django.conf import settings
from django.core import mail, signing
from django.db import IntegrityError, connection, transaction
from django.db.models import F, OuterRef, Q, Subquery
from django.urls import reverse

from games.core.game.gamedef import Viewer, state_deadlines
from games.core.match import clock
from games.core.models import Deadline, Event, Match
from games.notifications import addresses, decide, kinds
from games.notifications.models import Delivery, Reminder
from games.notifications.retries import retry_delay
from games.notifications.services import notify
from games.notifications.words import shortened

log = logging.getLogger(__name__)

CLAIM_AT_ONCE = 200
SUBJECT_WORDS = 70  # a mail's subject after "Gem Arena: ", as mail programs show it
PER_JOB = 20
UNSUBSCRIBE_SALT = "notifications.unsubscribe"


@dataclass
class Job:
    receiver: str
    deliveries: list[Delivery]


def receiver_of(delivery: Delivery) -> str:
    """Who answers for the delivery: every mail goes through the one mail server."""
    if delivery.channel == Delivery.Channel.EMAIL:
        return "mail"
    return f"webhook {delivery.destination}"


# --- claiming and marking ------------------------------------------------------------------


def claim(now: datetime, *, busy: frozenset[str] = frozenset(), receivers: int = 1) -> list[Job]:
    """Claim the due rows of at most ``receivers`` receivers not ``busy``, a job each."""
    lease = timedelta(seconds=settings.NOTIFY_LEASE_SECONDS)
    due = Q(status=Delivery.Status.PENDING, due_at__lte=now) | Q(
        status=Delivery.Status.SENDING, lease_until__lte=now
    )
    with transaction.atomic():
        rows = list(
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(due)
            .select_related("notification__user")
            .order_by("pk")[:CLAIM_AT_ONCE]
        )
        jobs: dict[str, Job] = {}
        in_turn = _in_turn(rows)
        for row in rows:
            if row.channel == Delivery.Channel.WEBHOOK and row.pk not in in_turn:
                continue  # a post written before it has not left yet
            key = receiver_of(row)
            if key in busy:
                continue
            job = jobs.get(key)
            if job is None:
                if len(jobs) >= receivers:
                    continue
                job = jobs[key] = Job(key, [])
            if len(job.deliveries) < PER_JOB:
                job.deliveries.append(row)
        claimed = [row.pk for job in jobs.values() for row in job.deliveries]
        Delivery.objects.filter(pk__in=claimed).update(
            status=Delivery.Status.SENDING, lease_until=now + lease, attempts=F("attempts") + 1
        )
    for job in jobs.values():
        for row in job.deliveries:
            row.attempts += 1
            row.status = Delivery.Status.SENDING
            row.lease_until = now + lease
    return list(jobs.values())


def _in_turn(rows: list[Delivery]) -> set[int]:
    """The webhook posts among ``rows`` whose turn it is: a webhook's posts leave in the order
    they were written (their events' order), so a post goes only once every open post written
    before it to the same URL goes with it (one that failed and waits for its retry, or is
    being sent by another deliverer, holds back the ones after it until it is sent or given
    up)."""
    due = {row.pk for row in rows if row.channel == Delivery.Channel.WEBHOOK}
    if not due:
        return set()
    open_posts = (
        Delivery.objects.filter(
            channel=Delivery.Channel.WEBHOOK,
            status__in=[Delivery.Status.PENDING, Delivery.Status.SENDING],
            destination__in={row.destination for row in rows if row.pk in due},
            pk__lte=max(due),
        )
        .order_by("pk")
        .values_list("destination", "pk")
    )
    turn: set[int] = set()
    blocked: set[str] = set()
    for destination, pk in open_posts:
        if destination in blocked:
            continue
        if pk in due:
            turn.add(pk)
        else:
            blocked.add(destination)
    return turn


def has_time_for(delivery: Delivery, now: datetime) -> bool:
    """Can one more attempt (at most the send timeout) end inside the claim's lease? A row sent
    after its lease ran out could be sent by another deliverer at the same time."""
    assert delivery.lease_until is not None
    timeout = timedelta(seconds=settings.NOTIFY_SEND_TIMEOUT)
    return now + timeout < delivery.lease_until


def put_back(delivery: Delivery) -> None:
    """Give up a claim on a row not tried: another claim may take it at once."""
    _ours(delivery).update(
        status=Delivery.Status.PENDING, lease_until=None, attempts=F("attempts") - 1
    )


def _ours(delivery: Delivery):  # type: ignore[no-untyped-def]
    """The row, if this claim still holds it (its attempt is the one we made)."""
    return Delivery.objects.filter(
        pk=delivery.pk, status=Delivery.Status.SENDING, attempts=delivery.attempts
    )


def mark_sent(delivery: Delivery, now: datetime) -> None:
    _ours(delivery).update(status=Delivery.Status.SENT, sent_at=now, lease_until=None)


def mark_failed(delivery: Delivery, error: str, now: datetime) -> None:
    delay = retry_delay(delivery.attempts, settings.NOTIFY_RETRY_SECONDS)
    if delay is None:
        _ours(delivery).update(status=Delivery.Status.FAILED, last_error=error[:300])
        log.warning("gave up %s after %d attempts: %s", delivery, delivery.attempts, error)
        return
    _ours(delivery).update(
        status=Delivery.Status.PENDING,
        due_at=now + timedelta(seconds=delay),
        lease_until=None,
        last_error=error[:300],
    )


# --- sending -------------------------------------------------------------------------------


def delivery_id(delivery: Delivery) -> str:
    """The same on every attempt: a receiver that sees it twice may drop the repeat."""
    host = urlsplit(settings.SITE_URL).hostname or "localhost"
    return f"gemarena-delivery-{delivery.pk}@{host}"


def unsubscribe_url(user_id: int, kind: str) -> str:
    token = signing.dumps({"u": user_id, "k": kind}, salt=UNSUBSCRIBE_SALT)
    return settings.SITE_URL + reverse("notifications:unsubscribe", args=[token])


def mail_of(delivery: Delivery) -> mail.EmailMessage:
    note = delivery.notification
    assert note is not None
    unsubscribe = unsubscribe_url(note.user_id, note.kind)
    label = kinds.KINDS[note.kind]
    body = "\n\n".join(
        [
            note.text,
            f"Open it: {settings.SITE_URL}{note.url}" if note.url else "",
            f"You get these mails for: {label}. One click to stop them: {unsubscribe}",
            "Choose what you are told, and how: "
            + settings.SITE_URL
            + reverse("notifications:preferences"),
        ]
    )
    return mail.EmailMessage(
        subject=f"Gem Arena: {shortened(note.text, SUBJECT_WORDS)}",
        body=body,
        to=[delivery.destination],
        headers={
            "Message-ID": f"<{delivery_id(delivery)}>",
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )


# "@" starting a word: a mention in Discord (@everyone, @here) and Mattermost (@channel, @all,
# @here, @user). A zero-width space after it leaves the words as they read and pings no one.
MENTION = re.compile(r"@(?=\w)")
# What Discord's markdown would read as markup: emphasis, code, spoilers, quotes, masked links,
# headings, emoji (:name:) and mentions, channels or custom emoji in <...>.
DISCORD_MARKUP = re.compile(r"([\\*_~`|<>\[\]#:])")


def _no_mentions(words: str) -> str:
    return MENTION.sub("@\u200b", words)


def slack_text(words: str) -> str:
    """Words for Slack and Mattermost as plain text: Slack's escaping of &, < and > (so
    ``<!channel>`` or ``<@U024BE7LH>`` in a name is shown, not a mention) and no @-mentions."""
    escaped = words.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _no_mentions(escaped)


def discord_text(words: str) -> str:
    """Words for Discord as plain text: its markup characters escaped, no @-mentions."""
    return _no_mentions(DISCORD_MARKUP.sub(r"\\\1", words))


def webhook_body(delivery: Delivery) -> dict[str, Any]:
    """The post in the form chat services take for incoming webhooks ("text" for Slack and
    Mattermost, "content" for Discord): the public text and its link, nothing else. Names in it
    (a cast member's, a match's title) are said as plain text and ping no one: each field is
    escaped for its services, Slack is told not to read markup (``mrkdwn``) and Discord to
    parse no mentions (``allowed_mentions``); the others ignore what is not theirs."""
    link = f" {settings.SITE_URL}{delivery.url}" if delivery.url else ""
    words = delivery.public_text
    return {
        "text": slack_text(words) + slack_text(link),
        "content": discord_text(words) + link,
        "mrkdwn": False,
        "allowed_mentions": {"parse": []},
    }


def post_webhook(delivery: Delivery) -> None:
    """Post to the webhook at an address checked now (addresses.py): a private address, a URL
    with credentials or a redirect is a failed attempt."""
    status = addresses.post(
        delivery.destination,
        json.dumps(webhook_body(delivery)).encode(),
        {"Content-Type": "application/json", "Idempotency-Key": delivery_id(delivery)},
        settings.NOTIFY_SEND_TIMEOUT,
    )
    if 300 <= status < 400:
        raise OSError(f"the webhook answered {status}, a redirect; redirects are not followed")
    if not 200 <= status < 300:
        raise OSError(f"the webhook answered {status}")


TEST_POST_SECONDS = 5.0  # a host waits for the answer on the page: never long


def send_test_post(season: Any, url: str) -> tuple[bool, str]:
    """Post a test message to ``url`` now, through the same guard as every post (addresses.py),
    and say what came of it in the host's words: (arrived, what the webhook answered). The one
    post sent in a request: the host asked for it and waits for its answer."""
    text = f"A test post from Gem Arena: the news of {season.name} will be posted here."
    body = webhook_body(Delivery(public_text=text, url=season.get_absolute_url()))
    host = urlsplit(settings.SITE_URL).hostname or "localhost"
    headers = {
        "Content-Type": "application/json",
        "Idempotency-Key": f"gemarena-test-{uuid.uuid4().hex}@{host}",
    }
    timeout = min(float(settings.NOTIFY_SEND_TIMEOUT), TEST_POST_SECONDS)
    try:
        status = addresses.post(url, json.dumps(body).encode(), headers, timeout)
    except addresses.RefusedAddress as refusal:
        return False, f"Not sent: {refusal}."
    except (OSError, http.client.HTTPException) as error:
        return False, f"Not sent: the webhook could not be reached ({_said(error)})."
    if 200 <= status < 300:
        return True, f"Sent: the webhook answered {status}. Look for the post in the channel."
    if 300 <= status < 400:
        return False, f"The webhook answered {status}, a redirect: posts do not follow one."
    return False, f"The webhook answered {status}: it refused the post. Check the URL."


def send_job(job: Job) -> None:
    """Send one receiver's rows in turn, marking each as soon as it is known."""
    if job.receiver == "mail":
        _send_mails(job.deliveries)
        return
    posts = sorted(job.deliveries, key=lambda row: row.pk)  # in the order they were written
    for at, delivery in enumerate(posts):
        if not has_time_for(delivery, clock.now()):
            _put_back_all(posts[at:])
            return
        try:
            post_webhook(delivery)
        except Exception as error:  # noqa: BLE001 - any failure is retried
            mark_failed(delivery, _said(error), clock.now())
            _put_back_all(posts[at + 1 :])  # they wait for it: the receiver keeps the order
            return
        mark_sent(delivery, clock.now())


def _put_back_all(deliveries: list[Delivery]) -> None:
    for delivery in deliveries:
        put_back(delivery)


def _send_on_pool(job: Job) -> None:
    """A pool thread's job: its database connection goes back when the job is done."""
    try:
        send_job(job)
    finally:
        connection.close()


def _send_mails(deliveries: list[Delivery]) -> None:
    server = mail.get_connection(timeout=settings.NOTIFY_SEND_TIMEOUT)
    try:
        server.open()
    except Exception as error:  # noqa: BLE001
        for delivery in deliveries:
            mark_failed(delivery, _said(error), clock.now())
        return
    try:
        for delivery in deliveries:
            if not has_time_for(delivery, clock.now()):
                put_back(delivery)
                continue
            try:
                server.send_messages([mail_of(delivery)])
            except Exception as error:  # noqa: BLE001
                mark_failed(delivery, _said(error), clock.now())
            else:
                mark_sent(delivery, clock.now())
    finally:
        try:
            server.close()
        except Exception:  # noqa: BLE001 - the mails are marked already
            log.info("closing the mail connection failed", exc_info=True)


def _said(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:300]


# --- reminders before deadlines ------------------------------------------------------------


def write_reminders(now: datetime) -> int:
    """Write the "still missing" reminders of the deadlines due within the reminder window
    (only clocks set longer ago than the window: a quick clock's players are on the page).
    Each deadline reminds once: its Reminder row is written with the notifications."""
    window = timedelta(minutes=settings.NOTIFY_REMINDER_MINUTES)
    set_at = Event.objects.filter(
        match=OuterRef("match"), version=OuterRef("set_at_version")
    ).values("created_at")[:1]
    due = (
        Deadline.objects.filter(
            fired_at=None,
            cancelled=False,
            due_at__gt=now,
            due_at__lte=now + window,
            match__status=Match.Status.LIVE,
        )
        .annotate(set_at=Subquery(set_at))
        .filter(set_at__lt=F("due_at") - window)
        .exclude(pk__in=Reminder.objects.values("deadline_id"))
    )
    written = 0
    for deadline in list(due[:50]):
        try:
            with transaction.atomic():
                Reminder.objects.create(deadline=deadline, created_at=now)
                written += _remind(deadline, now)
        except IntegrityError:
            continue  # another deliverer reminded it
    return written


def _remind(deadline: Deadline, now: datetime) -> int:
    match = Match.objects.with_seats().get(pk=deadline.match_id)
    if state_deadlines(match.state).get(deadline.key) != deadline.due_at:
        return 0
    players = {s.index: s.user for s in match.seats.all() if s.user_id and not s.bot_level}
    view = match.game.view(match.state, Viewer.spectator())
    minutes = max(1, round((deadline.due_at - now).total_seconds() / 60))
    names = {index: user.get_username() for index, user in players.items()}
    message = decide.reminder(match.title, view, names, minutes)
    if message is None:
        return 0
    notify(
        users=[players[s] for s in message.seats],
        kind=message.kind,
        text=message.text,
        url=match.get_absolute_url(),
        match=match,
        now=now,
    )
    return 1


# --- the loop ------------------------------------------------------------------------------


def _step(busy: frozenset[str], receivers: int) -> list[Job]:
    now = clock.now()
    write_reminders(now)
    return claim(now, busy=busy, receivers=receivers) if receivers else []


async def run_forever(stop: asyncio.Event | None = None) -> None:
    """Write reminders and hand due deliveries to the pool, every poll, until ``stop``."""
    threads = settings.NOTIFY_DELIVERY_THREADS
    pool = ThreadPoolExecutor(threads, thread_name_prefix="notify")
    loop = asyncio.get_running_loop()
    step = database_sync_to_async(_step, thread_sensitive=False)
    busy: set[str] = set()
    log.info("notification deliverer running")
    try:
        while stop is None or not stop.is_set():
            try:
                jobs = await step(frozenset(busy), threads - len(busy))
            except Exception:
                log.exception("claiming notifications failed; retrying")
                jobs = []
            for job in jobs:
                busy.add(job.receiver)
                done = loop.run_in_executor(pool, _send_on_pool, job)
                done.add_done_callback(lambda _, key=job.receiver: busy.discard(key))
            await asyncio.sleep(settings.SCHEDULER_POLL_SECONDS)
    finally:
        pool.shutdown(wait=False)
