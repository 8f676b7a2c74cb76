"""A co-host is a season role, given and taken on the season's page, no staff status needed;
hosts and co-hosts adjust the ledger there and the player is told; a co-host is told what the
host is told (issue 35 items 3 and 4)."""

from __future__ import annotations

import pytest

from games.core.models import LedgerEntry, Match
from games.notifications import kinds
from games.notifications.models import Notification
from games.seasons import cast, roles, tick
from games.seasons.models import CastMember, Episode

pytestmark = pytest.mark.django_db


@pytest.fixture
def cohost(make_user, season, client):
    """Cyd, a player with no staff status, made co-host by the host on the season's page."""
    cyd = make_user("cyd", email="cyd@example.org")
    client.force_login(season.format.hosts.get())
    response = client.post(f"/seasons/{season.pk}/hosts/", {"username": "cyd"})
    assert response.status_code == 302
    return cyd


def test_the_host_makes_a_player_co_host_on_the_season_page(season, cohost, client):
    assert not cohost.is_staff
    assert roles.runs_season(cohost, season)
    page = client.get(f"/seasons/{season.pk}/").content.decode()
    assert f"Take co-hosting from {cohost.first_name}" in page
    assert "cyd co-hosts the season" in seasons_log(season).lower()


def test_a_co_host_runs_the_season_from_its_page(season, cohost, client, make_user):
    dee = make_user("dee")
    asked = cast.ask_to_join(season, dee, season.format.invite_token, "Dee")
    client.force_login(cohost)
    page = client.get(f"/seasons/{season.pk}/").content.decode()
    assert "Cast invite link" in page
    assert f'href="/seasons/{season.pk}/audit/"' in page  # the host log, no staff status
    assert client.get(f"/seasons/{season.pk}/audit/").status_code == 200
    client.post(f"/seasons/{season.pk}/cast/{asked.pk}/admit/")
    assert CastMember.objects.get(pk=asked.pk).status == CastMember.Status.IN
    response = client.post(
        f"/seasons/{season.pk}/episodes/new/seven-gem-swap/",
        {
            "title": "",
            "bid_seconds": 600,
            "round_seconds": 600,
            "no_card_scores": "own_colour",
            "board": "",
            "auto_start": "on",
        },
    )
    assert response.status_code == 302
    episode = Episode.objects.get(season=season, number=1)
    assert Match.objects.get(pk=episode.main_match_id).season_id == season.pk


def test_the_host_takes_co_hosting_away(season, cohost, client):
    host = season.format.hosts.get()
    response = client.post(f"/seasons/{season.pk}/hosts/{cohost.pk}/remove/")
    assert response.status_code == 302
    assert not roles.runs_season(cohost, season)
    assert roles.runs_season(host, season)
    client.force_login(cohost)
    member = CastMember.objects.filter(season=season).first()
    response = client.post(
        f"/seasons/{season.pk}/ledger/", {"member": member.pk, "garnets": 5, "reason": "x"}
    )
    assert response.status_code == 403
    assert not LedgerEntry.objects.filter(season=season, user=member.user).exists()


def test_a_co_host_fines_a_player_and_the_player_is_told(season, cohost, client):
    ada = CastMember.objects.get(season=season, name="Ada")
    client.force_login(cohost)
    client.post(
        f"/seasons/{season.pk}/ledger/",
        {"member": ada.pk, "garnets": 10, "tokens": 1, "reason": "won the side quest"},
    )
    client.post(
        f"/seasons/{season.pk}/ledger/",
        {"member": ada.pk, "garnets": -3, "tokens": 0, "reason": "late to episode 1"},
    )
    entries = LedgerEntry.objects.filter(season=season, user=ada.user).order_by("pk")
    assert [(e.garnets, e.tokens_of_life, e.made_by_id) for e in entries] == [
        (10, 1, cohost.pk),
        (-3, 0, cohost.pk),
    ]
    told = Notification.objects.filter(user=ada.user, kind=kinds.LEDGER_CHANGED).order_by("pk")
    assert [note.text for note in told] == [
        "A host gave you 10 garnets and 1 Token of Life in ORG 2: won the side quest.",
        "A host took 3 garnets from you in ORG 2: late to episode 1.",
    ]
    # A fine that would leave the player below 0 is refused, with the reason on the page.
    response = client.post(
        f"/seasons/{season.pk}/ledger/",
        {"member": ada.pk, "garnets": -100, "tokens": 0, "reason": "too much"},
        follow=True,
    )
    assert entries.count() == 2
    assert "below 0" in response.content.decode() or "not enough" in response.content.decode()


def test_a_player_cannot_adjust_the_ledger(season, client):
    ada = CastMember.objects.get(season=season, name="Ada")
    client.force_login(ada.user)
    response = client.post(
        f"/seasons/{season.pk}/ledger/",
        {"member": ada.pk, "garnets": 50, "tokens": 0, "reason": "me"},
    )
    assert response.status_code == 403
    assert not LedgerEntry.objects.filter(season=season, user=ada.user).exists()


def test_the_co_host_is_told_of_a_tie_to_settle(season, cohost, nominating):
    # The nominating fixture's main match ended in a tie for the lowest total.
    tie_told = Notification.objects.filter(kind=kinds.TIE_TO_SETTLE)
    host = season.format.hosts.get()
    assert set(tie_told.values_list("user__username", flat=True)) == {host.username, "cyd"}


def test_the_co_host_is_told_a_nomination_was_not_made(clock, season, cohost, nominating):
    clock.advance(24 * 3600 + 1)
    tick.run_clocks()
    told = Notification.objects.filter(kind=kinds.NOMINATION_NOT_MADE)
    assert set(told.values_list("user__username", flat=True)) == {"hostess", "cyd"}


def seasons_log(season) -> str:
    return " ".join(season.season_events.values_list("text", flat=True))


def test_a_co_host_runs_the_seasons_matches_from_the_host_console(season, cohost, client):
    from games.core.match import authority, seating

    host = season.format.hosts.get()
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="t", settings={}, roles=["", ""]
    )
    Match.objects.filter(pk=match.pk).update(season=season)  # one of the season's matches
    match.refresh_from_db()
    assert authority.may_run(match, cohost) and not cohost.is_staff
    client.force_login(cohost)
    response = client.post(f"/m/{match.public_id}/host/abort/", {"reason": "a test"})
    assert response.status_code in (200, 302), response.content[:300]
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED
