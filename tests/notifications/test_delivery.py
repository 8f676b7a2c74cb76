"""Claiming, sending, marking and retrying deliveries; reminders before deadlines."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail

from games.core.match import seating
from games.notifications import delivery, kinds
from games.notifications.models import Delivery, Notification, Reminder
from games.notifications.services import notify

pytestmark = pytest.mark.django_db

CLOSED_PORT_HOOK = "http://127.0.0.1:9/hook"  # the discard port: nothing listens there


@pytest.fixture
def ada(make_user):
    return make_user("ada", email="ada@example.org")


@pytest.fixture
def quick_retries(settings):
    settings.NOTIFY_RETRY_SECONDS = [30.0, 120.0]
    settings.NOTIFY_SEND_TIMEOUT = 2.0
    settings.NOTIFY_LEASE_SECONDS = 60.0


def webhook_row(now, destination=CLOSED_PORT_HOOK) -> Delivery:
    return Delivery.objects.create(
        channel=Delivery.Channel.WEBHOOK,
        kind=kinds.ROUND_RESULT,
        public_text="Final is over.",
        url="/m/x/",
        destination=destination,
        due_at=now,
        created_at=now,
    )


def test_a_claimed_mail_is_sent_once_and_marked_sent(ada, clock):
    notify(users=[ada], kind=kinds.NOMINATED, text="You were nominated", url="/seasons/1/")

    (job,) = delivery.claim(clock())
    delivery.send_job(job)

    (sent,) = mail.outbox
    assert sent.to == ["ada@example.org"]
    assert "You were nominated" in sent.body and "/seasons/1/" in sent.body
    row = Delivery.objects.get()
    assert sent.extra_headers["Message-ID"] == f"<{delivery.delivery_id(row)}>"
    assert "/notifications/unsubscribe/" in sent.extra_headers["List-Unsubscribe"]
    assert (row.status, row.attempts) == (Delivery.Status.SENT, 1)
    assert delivery.claim(clock()) == []


def test_a_failed_post_is_tried_again_later_then_given_up(clock, quick_retries):
    webhook_row(clock())

    delivery.send_job(delivery.claim(clock())[0])
    row = Delivery.objects.get()
    assert (row.status, row.attempts) == (Delivery.Status.PENDING, 1)
    assert row.due_at == clock() + timedelta(seconds=30)
    assert row.last_error
    assert delivery.claim(clock()) == []  # not before its time

    clock.advance(30)
    delivery.send_job(delivery.claim(clock())[0])
    clock.advance(120)
    delivery.send_job(delivery.claim(clock())[0])
    row.refresh_from_db()
    assert (row.status, row.attempts) == (Delivery.Status.FAILED, 3)
    clock.advance(3600)
    assert delivery.claim(clock()) == []


def test_a_claim_whose_deliverer_died_is_taken_again_after_its_lease(ada, clock, quick_retries):
    notify(users=[ada], kind=kinds.NOMINATED, text="You were nominated", url="/")
    (lost,) = delivery.claim(clock())  # its deliverer dies before sending

    assert delivery.claim(clock()) == []  # held by the claim
    clock.advance(60)
    (again,) = delivery.claim(clock())
    delivery.mark_sent(lost.deliveries[0], clock())  # the dead claim's word counts for nothing
    assert Delivery.objects.get().status == Delivery.Status.SENDING
    delivery.send_job(again)
    assert len(mail.outbox) == 1
    assert Delivery.objects.get().status == Delivery.Status.SENT


def test_each_receiver_gets_one_job_and_a_busy_one_waits(ada, clock):
    notify(users=[ada], kind=kinds.NOMINATED, text="One", url="/")
    notify(users=[ada], kind=kinds.NOMINATED, text="Two", url="/")
    webhook_row(clock(), "http://a.example/hook")
    webhook_row(clock(), "http://b.example/hook")

    jobs = delivery.claim(clock(), busy=frozenset({"webhook http://a.example/hook"}), receivers=5)

    assert sorted((job.receiver, len(job.deliveries)) for job in jobs) == [
        ("mail", 2),
        ("webhook http://b.example/hook", 1),
    ]
    assert Delivery.objects.filter(status=Delivery.Status.PENDING).count() == 1


def test_a_deadline_an_hour_away_reminds_who_is_missing_once(make_user, clock, settings):
    settings.NOTIFY_REMINDER_MINUTES = 60
    host = make_user("hostess")
    ada, bob = make_user("ada", email="a@example.org"), make_user("bob")
    match = seating.create_match(
        host=host,
        game_key="fixture-tally",
        title="Slow",
        settings={"turn_seconds": 7200},
        roles=["", ""],
    )
    for user, seat in zip([ada, bob], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)

    clock.advance(3599)
    assert delivery.write_reminders(clock()) == 0  # more than an hour left
    clock.advance(2)
    assert delivery.write_reminders(clock()) == 1
    assert delivery.write_reminders(clock()) == 0
    (note,) = Notification.objects.filter(kind=kinds.SUBMISSION_MISSING)
    assert note.user == ada and "60 minutes left" in note.text
    assert Reminder.objects.count() == 1


def test_a_quick_clock_gets_no_reminder(make_user, clock, seated_match):
    seated_match("fixture-tally", "ada", "bob", settings={"turn_seconds": 1800})
    clock.advance(1000)
    assert delivery.write_reminders(clock()) == 0


def test_rows_a_claim_has_no_time_left_for_are_put_back_untried(ada, clock, settings):
    settings.NOTIFY_LEASE_SECONDS = 60.0
    settings.NOTIFY_SEND_TIMEOUT = 10.0
    for text in ("One", "Two"):
        notify(users=[ada], kind=kinds.NOMINATED, text=text, url="/")
    (job,) = delivery.claim(clock())

    clock.advance(51)  # a slow mail server took most of the lease
    delivery.send_job(job)

    assert mail.outbox == []
    rows = Delivery.objects.all()
    assert {(row.status, row.attempts) for row in rows} == {(Delivery.Status.PENDING, 0)}
    assert len(delivery.claim(clock())[0].deliveries) == 2
