from __future__ import annotations

import pytest
from django.db import transaction

from games.core.models import Season
from games.notifications import kinds
from games.notifications.models import Delivery, Notification, OptOut, SeasonWebhook
from games.notifications.services import notify

pytestmark = pytest.mark.django_db


@pytest.fixture
def season():
    return Season.objects.create(name="Season 1", is_current=True)


@pytest.fixture
def players(make_user):
    return [make_user("ada", email="ada@example.org"), make_user("bob", email="bob@example.org")]


def test_it_writes_one_notification_and_one_mail_per_player(players):
    notify(users=players, kind=kinds.NOMINATED, text="You were nominated", url="/seasons/1/")

    assert sorted(Notification.objects.values_list("user__username", "text")) == [
        ("ada", "You were nominated"),
        ("bob", "You were nominated"),
    ]
    mails = Delivery.objects.filter(channel=Delivery.Channel.EMAIL)
    assert sorted(mails.values_list("destination", flat=True)) == [
        "ada@example.org",
        "bob@example.org",
    ]
    assert not Delivery.objects.filter(channel=Delivery.Channel.WEBHOOK).exists()


def test_it_keeps_to_each_players_choices(players):
    ada, bob = players
    OptOut.objects.create(user=ada, kind=kinds.NOMINATED, channel=kinds.EMAIL)
    OptOut.objects.create(user=bob, kind=kinds.NOMINATED, channel=kinds.SITE)

    notify(users=players, kind=kinds.NOMINATED, text="You were nominated", url="/")

    assert list(Delivery.objects.values_list("destination", flat=True)) == ["bob@example.org"]
    assert list(Notification.objects.unread().values_list("user__username", flat=True)) == ["ada"]


def test_it_posts_only_the_public_text_to_the_seasons_webhook(players, season):
    SeasonWebhook.objects.create(
        season=season, url="http://chat.example/hook", kinds=[kinds.ELIMINATED_OR_SAVED]
    )

    notify(
        users=players[:1],
        kind=kinds.ELIMINATED_OR_SAVED,
        text="You were eliminated in episode 2",
        url="/seasons/1/",
        season=season,
        public_text="Ada was eliminated in episode 2",
    )
    notify(
        users=players[1:],
        kind=kinds.ELIMINATED_OR_SAVED,
        text="You were saved",
        url="/",
        season=season,
    )

    (post,) = Delivery.objects.filter(channel=Delivery.Channel.WEBHOOK)
    assert (post.destination, post.public_text) == (
        "http://chat.example/hook",
        "Ada was eliminated in episode 2",
    )


def test_the_webhook_posts_only_the_kinds_the_host_let_through(players, season):
    SeasonWebhook.objects.create(season=season, url="http://chat.example/hook", kinds=[])

    notify(
        users=players,
        kind=kinds.NOMINATED,
        text="t",
        url="/",
        season=season,
        public_text="Ada nominated Bob",
    )

    assert not Delivery.objects.filter(channel=Delivery.Channel.WEBHOOK).exists()


def test_a_rolled_back_cause_leaves_no_notification(players):
    with pytest.raises(RuntimeError), transaction.atomic():
        notify(users=players, kind=kinds.NOMINATED, text="You were nominated", url="/")
        raise RuntimeError("the nomination failed")

    assert not Notification.objects.exists()
    assert not Delivery.objects.exists()


def test_it_refuses_an_unknown_kind_and_writes_nothing(players):
    with pytest.raises(ValueError, match="unknown notification kind"):
        notify(users=players, kind="gossip", text="t", url="/")

    assert not Notification.objects.exists()


def test_a_matchs_start_is_told_once_however_many_tell_it(players, season, make_user):
    from games.core.match import seating

    SeasonWebhook.objects.create(
        season=season, url="http://chat.example/h", kinds=list(kinds.KINDS)
    )
    match = seating.create_match(
        host=make_user("hostess"),
        game_key="fixture-tally",
        title="DM",
        settings={},
        roles=["EC", "DMO"],
    )
    for user, seat in zip(players, match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)  # the core tells the start

    notify(
        users=players,
        kind=kinds.MATCH_STARTED,
        text="Death match: Ada against Bob.",
        url=match.get_absolute_url(),
        match=match,
        public_text="Death match: Ada against Bob.",
    )

    assert Notification.objects.filter(kind=kinds.MATCH_STARTED).count() == 2
    assert Delivery.objects.filter(channel=Delivery.Channel.WEBHOOK).count() == 1
