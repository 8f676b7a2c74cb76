"""The cast after the season is over: no one joins, no one is admitted (issue 35 item 1)."""

from __future__ import annotations

import pytest

from games.core.game.gamedef import ActionError
from games.core.match import services
from games.core.models import Match
from games.notifications import kinds
from games.notifications.models import Notification
from games.seasons import cast, episodes, hosts, tick
from games.seasons.models import CastMember

pytestmark = pytest.mark.django_db


@pytest.fixture
def season_won(make_user):
    """ORG 9, won by Ada in a final against Bob; Fay asked to join before it ended."""
    host = make_user("hostess", is_staff=True)
    season = hosts.create_season(name="ORG 9", host=host, settings={})
    token = season.format.invite_token
    ada, bob = (
        cast.ask_to_join(season, make_user(name), token, name.title()) for name in ("ada", "bob")
    )
    for member in (ada, bob):
        cast.admit(season, host, member.pk)
    fay = cast.ask_to_join(season, make_user("fay"), token, "Fay")
    episode = episodes.start_final(season, host, "fixture-tally", {"target": 2}, ada.pk)
    final = Match.objects.with_seats().get(pk=episode.death_match_id)
    services.submit_action(final, ada.user, {"type": "add", "amount": 2})
    tick.run_clocks()
    assert CastMember.objects.get(pk=ada.pk).status == CastMember.Status.WINNER
    return season, host, fay


def test_no_one_joins_a_season_that_is_over(season_won, make_user):
    season, _, _ = season_won
    with pytest.raises(ActionError) as refused:
        cast.ask_to_join(season, make_user("gus"), season.format.invite_token, "Gus")
    assert refused.value.code == "season_over"
    assert not CastMember.objects.filter(season=season, name="Gus").exists()


def test_a_host_cannot_admit_anyone_once_the_season_is_over(season_won):
    season, host, fay = season_won
    with pytest.raises(ActionError) as refused:
        cast.admit(season, host, fay.pk)
    assert refused.value.code == "season_over"
    assert CastMember.objects.get(pk=fay.pk).status == CastMember.Status.ASKED
    cast.admit(season, host, fay.pk, admitted=False)  # turning away still works
    assert CastMember.objects.get(pk=fay.pk).status == CastMember.Status.DECLINED


def test_the_invite_link_says_the_season_is_over(season_won, make_user, client):
    season, host, _ = season_won
    client.force_login(make_user("gus"))
    page = client.get(season.format.get_invite_url()).content.decode()
    assert "The season is over" in page and 'name="name"' not in page
    client.post(season.format.get_invite_url(), {"name": "Gus"})
    assert not CastMember.objects.filter(season=season, name="Gus").exists()
    client.force_login(host)
    page = client.get(season.get_absolute_url()).content.decode()
    assert "Turn Fay away" in page and "Admit Fay" not in page


def test_the_final_closes_the_invite_link(season_won):
    season, _, _ = season_won
    season.format.refresh_from_db()
    assert not season.format.invite_open


def test_a_host_closes_and_reopens_the_invite_link(season, client, make_user):
    host = season.format.hosts.get()
    client.force_login(host)
    assert "Close the invite link" in client.get(season.get_absolute_url()).content.decode()
    client.post(f"/seasons/{season.pk}/invite/", {"open": "no"})
    gus = make_user("gus")
    with pytest.raises(ActionError) as refused:
        cast.ask_to_join(season, gus, season.format.invite_token, "Gus")
    assert refused.value.code == "invite_closed"
    page = client.get(season.get_absolute_url()).content.decode()
    assert "The invite link is closed" in page and "Reopen the invite link" in page
    client.force_login(gus)
    assert "closed" in client.get(season.format.get_invite_url()).content.decode()
    client.force_login(host)
    client.post(f"/seasons/{season.pk}/invite/", {"open": "yes"})
    assert cast.ask_to_join(season, gus, season.format.invite_token, "Gus").name == "Gus"
    client.force_login(gus)
    assert client.post(f"/seasons/{season.pk}/invite/", {"open": "no"}).status_code == 403


def test_a_player_who_asked_waits_for_the_host_and_the_hosts_are_told(season, client, make_user):
    host = season.format.hosts.get()
    hosts.add_cohost(season, host, make_user("cyd").username)
    gus = make_user("gus")
    cast.ask_to_join(season, gus, season.format.invite_token, "Gus")
    told = Notification.objects.filter(kind=kinds.CAST_ASKED)
    assert set(told.values_list("user__username", flat=True)) == {"hostess", "cyd"}
    assert told.first().text == f"Gus asks to join {season.name}: admit them or turn them away."
    client.force_login(gus)
    page = client.get(season.get_absolute_url()).content.decode()
    assert "You asked to join as Gus: waiting for the host" in page
