"""The final and the winner are announced: "Episode N is the final" to the finalists and the
season's webhook, "<name> wins <season>" posted with the final's result, and the winner (and
the rest of the cast) told (issue 35 item 6)."""

from __future__ import annotations

import pytest

from games.core.match import services
from games.core.models import Match
from games.notifications import kinds
from games.notifications.models import Delivery, Notification, SeasonWebhook
from games.seasons import cast, episodes, hosts, tick

pytestmark = pytest.mark.django_db


@pytest.fixture
def finalists(make_user):
    """ORG 9: Ada and Bob in, Cyd eliminated earlier (by hand), the webhook posting all."""
    host = make_user("hostess", is_staff=True)
    season = hosts.create_season(name="ORG 9", host=host, settings={})
    SeasonWebhook.objects.create(
        season=season, url="http://chat.example/hook", kinds=sorted(kinds.PUBLIC_KINDS)
    )
    members = []
    for name in ("ada", "bob", "cyd"):
        member = cast.ask_to_join(season, make_user(name), season.format.invite_token, name)
        cast.admit(season, host, member.pk)
        members.append(member)
    members[2].status = members[2].Status.ELIMINATED
    members[2].save()
    return season, host, members


def posts(season) -> list[str]:
    rows = Delivery.objects.filter(channel=Delivery.Channel.WEBHOOK, season=season)
    return list(rows.order_by("pk").values_list("public_text", flat=True))


def test_the_final_is_announced_to_the_finalists_and_the_channel(finalists):
    season, host, (ada, bob, _) = finalists
    episodes.start_final(season, host, "fixture-tally", {"target": 2}, ada.pk)

    said = "Episode 1 is the final: ada against bob"
    assert any(text.startswith(said) for text in posts(season)), posts(season)
    told = Notification.objects.filter(kind=kinds.EPISODE_STARTS, text__startswith=said)
    assert set(told.values_list("user__username", flat=True)) == {"ada", "bob"}


def test_the_winner_is_announced_and_told(finalists):
    season, host, (ada, bob, cyd) = finalists
    episode = episodes.start_final(season, host, "fixture-tally", {"target": 2}, ada.pk)
    final = Match.objects.with_seats().get(pk=episode.death_match_id)
    services.submit_action(final, ada.user, {"type": "add", "amount": 2})
    tick.run_clocks()

    assert "ada won the final: bob is eliminated. ada wins ORG 9." in posts(season)
    won = Notification.objects.filter(kind=kinds.SEASON_WON)
    assert {(n.user.username, n.text) for n in won} == {
        ("ada", "You win ORG 9: you won the final against bob."),
        ("cyd", "ada wins ORG 9."),
    }
    (out,) = Notification.objects.filter(user=bob.user, kind=kinds.ELIMINATED_OR_SAVED)
    assert out.text == "You were eliminated in the final: ada won it and wins ORG 9."


def test_the_episodes_table_says_the_final_has_no_places_once_it_ended(finalists, client):
    season, host, (ada, _, _) = finalists
    episode = episodes.start_final(season, host, "fixture-tally", {"target": 2}, ada.pk)
    final = Match.objects.with_seats().get(pk=episode.death_match_id)
    services.submit_action(final, ada.user, {"type": "add", "amount": 2})
    tick.run_clocks()

    page = client.get(season.get_absolute_url()).content.decode()
    assert "when it ends" not in page
    assert "none: the final is a death match" in page
