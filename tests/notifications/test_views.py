from __future__ import annotations

import threading

import pytest
from django.urls import reverse

from games.core.models import Season
from games.notifications import delivery, kinds
from games.notifications.models import Delivery, Notification, OptOut, SeasonWebhook
from games.notifications.services import notify

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada(make_user, client):
    user = make_user("ada", email="ada@example.org")
    client.force_login(user)
    return user


def test_the_header_counts_unread_and_the_list_marks_them_read(client, ada):
    notify(users=[ada], kind=kinds.YOUR_TURN, text="Final: it is your move.", url="/m/x/")

    page = client.get(reverse("lobby")).content.decode()
    assert 'Notifications <span class="badge">1</span>' in page
    listing = client.get(reverse("notifications:list")).content.decode()
    assert "Final: it is your move." in listing
    client.post(reverse("notifications:read_all"))
    assert not Notification.objects.unread().exists()
    assert 'class="badge"' not in client.get(reverse("lobby")).content.decode()


def test_choices_are_saved_per_kind_and_channel(client, ada):
    on = [f"{kind}:{kinds.SITE}" for kind in kinds.KINDS] + [f"{kinds.YOUR_TURN}:{kinds.EMAIL}"]
    client.post(reverse("notifications:preferences"), {"on": on, "email": "new@example.org"})

    ada.refresh_from_db()
    assert ada.email == "new@example.org"
    off = set(OptOut.objects.filter(user=ada).values_list("kind", "channel"))
    assert off == {(k, kinds.EMAIL) for k in kinds.KINDS if k != kinds.YOUR_TURN}


def test_a_bad_address_changes_nothing(client, ada):
    client.post(reverse("notifications:preferences"), {"on": [], "email": "not an address"})

    ada.refresh_from_db()
    assert ada.email == "ada@example.org"
    assert not OptOut.objects.exists()


def test_the_mails_link_unsubscribes_in_one_click_without_a_login(client, ada):
    client.logout()
    url = delivery.unsubscribe_url(ada.pk, kinds.NOMINATED).split("testserver")[-1]
    path = url[url.index("/notifications/") :]

    assert client.get(path).status_code == 200
    assert not OptOut.objects.exists()  # a mail scanner's GET changes nothing
    client.post(path)
    assert OptOut.objects.filter(user=ada, kind=kinds.NOMINATED, channel=kinds.EMAIL).exists()


def test_a_forged_unsubscribe_link_is_refused(client, ada):
    response = client.post(reverse("notifications:unsubscribe", args=["bogus:token"]))
    assert response.status_code == 400
    assert not OptOut.objects.exists()


def test_only_a_host_sets_the_seasons_webhook(client, ada, make_user, fake_dns):
    season = Season.objects.create(name="S1")
    url = reverse("notifications:season_webhook", args=[season.pk])
    assert client.post(url, {"url": "http://chat.example/h"}).status_code == 403

    client.force_login(make_user("staffer", is_staff=True))  # staff, not this season's host
    assert client.post(url, {"url": "http://chat.example/h"}).status_code == 403
    client.force_login(make_user("boss", is_staff=True, is_superuser=True))
    client.post(url, {"url": "http://chat.example/h", "kind": [kinds.ROUND_RESULT]})
    hook = SeasonWebhook.objects.get(season=season)
    assert (hook.url, hook.kinds) == ("http://chat.example/h", [kinds.ROUND_RESULT])
    client.post(url, {"url": "ftp://chat.example/h"})
    hook.refresh_from_db()
    assert hook.url == "http://chat.example/h"


def test_opening_a_notification_marks_it_read(client, ada, make_user):
    notify(users=[ada], kind=kinds.YOUR_TURN, text="Final: it is your move.", url="/m/x/")
    notify(users=[ada], kind=kinds.NOMINATED, text="You were named DMO.", url="/seasons/1/")
    turn, named = (Notification.objects.get(kind=k) for k in (kinds.YOUR_TURN, kinds.NOMINATED))
    opening = reverse("notifications:open", args=[turn.pk])
    assert f'href="{opening}"' in client.get(reverse("notifications:list")).content.decode()

    response = client.get(opening)

    assert response.status_code == 302 and response["Location"] == "/m/x/"
    assert list(Notification.objects.unread().values_list("pk", flat=True)) == [named.pk]
    assert (
        'Notifications <span class="badge">1</span>'
        in client.get(reverse("lobby")).content.decode()
    )
    client.force_login(make_user("bob"))
    assert client.get(reverse("notifications:open", args=[named.pk])).status_code == 404
    assert Notification.objects.get(pk=named.pk).read_at is None


def test_a_host_sends_a_test_post_and_reads_the_webhooks_answer(client, make_user, settings):
    from tests.notifications.test_webhook_addresses import Receiver

    receiver = Receiver()
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
        season = Season.objects.create(name="ORG <1>")
        client.force_login(make_user("boss", is_superuser=True))
        page = reverse("notifications:season_webhook", args=[season.pk])
        test = reverse("notifications:season_webhook_test", args=[season.pk])
        hook = f"http://127.0.0.1:{receiver.port}/hook"
        client.post(page, {"url": hook, "kind": [kinds.ROUND_RESULT]})
        assert "Send a test post" in client.get(page).content.decode()

        answer = client.post(test, follow=True).content.decode()

        assert "Sent: the webhook answered 200" in answer
        ((path, _, body),) = receiver.posts
        assert path == "/hook" and "the news of ORG &lt;1&gt; will be posted here" in body["text"]

        settings.WEBHOOK_ALLOWED_NETWORKS = []  # this machine is not a public address
        answer = client.post(test, follow=True).content.decode()
        assert "Not sent: 127.0.0.1 is at 127.0.0.1, an address on a private network" in answer
        assert len(receiver.posts) == 1
        assert not Delivery.objects.exists()  # a test post is no delivery row
    finally:
        receiver.shutdown()
        receiver.server_close()


def test_only_a_host_sends_a_test_post(client, ada):
    season = Season.objects.create(name="S1")
    test = reverse("notifications:season_webhook_test", args=[season.pk])
    assert client.post(test).status_code == 403
