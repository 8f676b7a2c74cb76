"""The cast after the season is over: no one joins, no one is admitted (issue 35 item 1)."""

from __future__ import annotations

import pytest

from games.core import services
from games.core.gamedef import ActionError
from games.core.models import Match
from games.seasons import services as seasons
from games.seasons.models import CastMember

pytestmark = pytest.mark.django_db


@pytest.fixture
def season_won(make_user):
    """ORG 9, won by Ada in a final against Bob; Fay asked to join before it ended."""
    host = make_user("hostess", is_staff=True)
    season = seasons.create_season(name="ORG 9", host=host, settings={})
    token = season.format.invite_token
    ada, bob = (
        seasons.ask_to_join(season, make_user(name), token, name.title()) for name in ("ada", "bob")
    )
    for member in (ada, bob):
        seasons.admit(season, host, member.pk)
    fay = seasons.ask_to_join(season, make_user("fay"), token, "Fay")
    episode = seasons.start_final(season, host, "fixture-tally", {"target": 2}, ada.pk)
    final = Match.objects.with_seats().get(pk=episode.death_match_id)
    services.submit_action(final, ada.user, {"type": "add", "amount": 2})
    seasons.run_clocks()
    assert CastMember.objects.get(pk=ada.pk).status == CastMember.Status.WINNER
    return season, host, fay


def test_no_one_joins_a_season_that_is_over(season_won, make_user):
    season, _, _ = season_won
    with pytest.raises(ActionError) as refused:
        seasons.ask_to_join(season, make_user("gus"), season.format.invite_token, "Gus")
    assert refused.value.code == "season_over"
    assert not CastMember.objects.filter(season=season, name="Gus").exists()


def test_a_host_cannot_admit_anyone_once_the_season_is_over(season_won):
    season, host, fay = season_won
    with pytest.raises(ActionError) as refused:
        seasons.admit(season, host, fay.pk)
    assert refused.value.code == "season_over"
    assert CastMember.objects.get(pk=fay.pk).status == CastMember.Status.ASKED
    seasons.admit(season, host, fay.pk, admitted=False)  # turning away still works
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
