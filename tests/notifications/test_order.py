"""One receiver's webhook posts leave in the order their events happened, retries included:
a post that failed holds back the ones after it until it is sent or given up (issue 35
item 5)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.notifications import delivery, kinds
from games.notifications.models import Delivery

pytestmark = pytest.mark.django_db

HOOK = "http://chat.example/hook"


class Receiver:
    """The chat service: down (every post fails) or up (each post is kept, in arrival order)."""

    def __init__(self) -> None:
        self.up = True
        self.posts: list[str] = []

    def __call__(self, row: Delivery) -> None:
        if not self.up:
            raise OSError("the webhook answered 503")
        self.posts.append(row.public_text)


@pytest.fixture
def receiver(monkeypatch, settings) -> Receiver:
    settings.NOTIFY_RETRY_SECONDS = [30.0, 120.0]
    settings.NOTIFY_SEND_TIMEOUT = 2.0
    settings.NOTIFY_LEASE_SECONDS = 60.0
    fake = Receiver()
    monkeypatch.setattr(delivery, "post_webhook", fake)
    return fake


def post(words: str, now, destination: str = HOOK) -> Delivery:
    return Delivery.objects.create(
        channel=Delivery.Channel.WEBHOOK,
        kind=kinds.ROUND_RESULT,
        public_text=words,
        url="/seasons/1/",
        destination=destination,
        due_at=now,
        created_at=now,
    )


def deliver(now) -> None:
    for job in delivery.claim(now, receivers=5):
        delivery.send_job(job)


def test_posts_written_during_an_outage_wait_for_the_one_that_failed(receiver, clock):
    receiver.up = False
    post("Episode 2 starts.", clock())
    deliver(clock())  # fails: tried again in 30 s
    receiver.up = True
    post("Eve spent a Token of Life.", clock())
    post("Episode 3 starts.", clock())

    deliver(clock())
    assert receiver.posts == []  # not before the post that happened first
    clock.advance(30)
    deliver(clock())

    assert receiver.posts == [
        "Episode 2 starts.",
        "Eve spent a Token of Life.",
        "Episode 3 starts.",
    ]
    assert set(Delivery.objects.values_list("status", flat=True)) == {Delivery.Status.SENT}


def test_a_failure_inside_a_job_stops_the_posts_after_it(receiver, clock):
    first = post("Episode 2 starts.", clock())
    post("Eve spent a Token of Life.", clock())
    receiver.up = False
    deliver(clock())

    first.refresh_from_db()
    assert (first.status, first.attempts) == (Delivery.Status.PENDING, 1)
    later = Delivery.objects.exclude(pk=first.pk).get()
    assert (later.status, later.attempts) == (Delivery.Status.PENDING, 0)  # never tried
    receiver.up = True
    clock.advance(30)
    deliver(clock())
    assert receiver.posts == ["Episode 2 starts.", "Eve spent a Token of Life."]


def test_a_post_given_up_no_longer_holds_the_others_back(receiver, clock):
    receiver.up = False
    post("Episode 2 starts.", clock())
    deliver(clock())
    clock.advance(30)
    deliver(clock())
    post("Episode 3 starts.", clock())
    clock.advance(120)
    deliver(clock())  # the third failure gives the first post up
    receiver.up = True
    clock.advance(timedelta(minutes=1).total_seconds())
    deliver(clock())
    assert receiver.posts == ["Episode 3 starts."]


def test_another_receivers_outage_holds_up_no_one_else(receiver, clock):
    receiver.up = False
    post("For a.", clock(), "http://a.example/hook")
    deliver(clock())
    receiver.up = True
    post("For b.", clock(), "http://b.example/hook")
    deliver(clock())
    assert receiver.posts == ["For b."]
