"""Seasons: matches join the current season, prizes and premoves land in its ledger, and a
price the player's season ledger cannot pay is refused."""

from __future__ import annotations

import pytest

from games.core.match import host_operations, seating, services
from games.core.models import LedgerEntry, Match, Season
from tests.fixture_game import TALLY

pytestmark = pytest.mark.django_db


@pytest.fixture
def season():
    Season.objects.create(name="Season 1", is_current=False)
    return Season.objects.create(name="Season 2", is_current=True)


def test_a_new_match_joins_the_current_season(tally_match, season):
    match, *_ = tally_match
    # tally_match was made before the season existed; a new one joins it
    fresh = seating.create_match(
        host=match.host, game_key="fixture-tally", title="", settings={}, roles=["EC", "DMO"]
    )
    assert fresh.season == season
    assert match.season is None


def test_prizes_are_credited_in_the_matchs_season(make_user, season):
    host, ada, bob = make_user("h"), make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="", settings={}, roles=["EC", "DMO"]
    )
    seats = list(match.seats.all())
    seating.take_seat(match, ada, seats[0].invite_token)
    seating.take_seat(match, bob, seats[1].invite_token)
    for player, amount in [(ada, 3), (bob, 3), (ada, 3), (bob, 1)]:
        services.submit_action(match, player, {"type": "add", "amount": amount})
    assert LedgerEntry.balance(bob, season) == {"garnets": 3, "tokens_of_life": 0}
    assert LedgerEntry.balance(bob, Season.objects.get(name="Season 1"))["garnets"] == 0
    assert season.standings()[0]["name"] == "Ada"  # a Token of Life ranks first


def test_an_action_the_season_ledger_cannot_pay_is_refused(make_user, season, monkeypatch):
    host, ada, bob = make_user("h"), make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="", settings={}, roles=["EC", "DMO"]
    )
    seats = list(match.seats.all())
    seating.take_seat(match, ada, seats[0].invite_token)
    seating.take_seat(match, bob, seats[1].invite_token)
    monkeypatch.setattr(TALLY, "action_cost", lambda state, seat, action: {"garnets": 2})
    LedgerEntry.objects.create(user=ada, season=season, garnets=1, reason="host adjustment")
    version = Match.objects.get(pk=match.pk).version
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, ada, {"type": "add", "amount": 1})
    assert refused.value.code == "cannot_afford"
    assert "costs 2 garnets and you hold 1 in Season 2" in refused.value.message
    assert Match.objects.get(pk=match.pk).version == version
    LedgerEntry.objects.create(user=ada, season=season, garnets=1, reason="host adjustment")
    services.submit_action(match, ada, {"type": "add", "amount": 1})


def test_the_season_page_shows_the_standings(client, make_user, season):
    ada = make_user("ada")
    LedgerEntry.objects.create(user=ada, season=season, garnets=7, reason="won a match")
    html = client.get(season.get_absolute_url()).content.decode()
    assert "Season 2" in html and "Ada" in html and ">7<" in html
    assert "Season 2" in client.get("/seasons/").content.decode()


def test_the_host_makes_a_season_current_in_the_dashboard(client, make_user, season):
    host = make_user("boss", is_staff=True, is_superuser=True)
    client.force_login(host)
    first = Season.objects.get(name="Season 1")
    response = client.post(
        "/admin/core/season/", {"action": "make_current", "_selected_action": [first.pk]}
    )
    assert response.status_code == 302
    assert Season.current() == first
    assert Season.objects.filter(is_current=True).count() == 1


def test_a_rematch_joins_the_season_of_its_match(make_user, season):
    host, ada, bob = make_user("h"), make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="", settings={}, roles=["EC", "DMO"]
    )
    seats = list(match.seats.all())
    seating.take_seat(match, ada, seats[0].invite_token)
    seating.take_seat(match, bob, seats[1].invite_token)
    host_operations.host_abort(match, host)
    Season.objects.filter(pk=season.pk).update(is_current=False)  # a new season began since
    assert host_operations.rematch(match, host).season == season
