"""The season's pages: who may open a season, join it, admit, start an episode and nominate;
the standings, the episode page and the exports show nothing sealed in a live match."""

from __future__ import annotations

import json

import pytest

from games.core.match import services
from games.core.models import Match, Season
from games.seasons import nominations, roles
from games.seasons.models import CastMember, Episode

pytestmark = pytest.mark.django_db

SEQUENCE = "RRDDLLUURDLU"  # a sealed sequence no page of the season may show


def test_only_staff_start_a_season(client, make_user):
    client.force_login(make_user("player"))
    assert client.get("/seasons/new/").status_code == 403
    client.force_login(make_user("boss", is_staff=True))
    form = {"name": "ORG 3", "nomination_minutes": 30, "death_match_picker": "host"}
    response = client.post("/seasons/new/", form)
    season = Season.objects.get(name="ORG 3")
    assert response.status_code == 302 and response["Location"] == f"/seasons/{season.pk}/"
    assert season.format.settings["nomination_minutes"] == 30
    assert roles.runs_season(season.format.hosts.get(), season)


def test_a_player_joins_by_the_link_and_a_host_admits_them(client, make_user, season):
    url = f"/seasons/{season.pk}/join/{season.format.invite_token}/"
    assert client.get(url)["Location"] == f"/accounts/login/?next={url}"
    dee = make_user("dee")
    client.force_login(dee)
    assert client.get(f"/seasons/{season.pk}/join/wrong/").status_code == 404
    assert client.post(url, {"name": "Ada"}).status_code == 200  # the name is taken
    assert not CastMember.objects.filter(user=dee).exists()
    client.post(url, {"name": "Dee the Bold"})
    member = CastMember.objects.get(user=dee)
    assert member.status == CastMember.Status.ASKED
    admit = f"/seasons/{season.pk}/cast/{member.pk}/admit/"
    assert client.post(admit).status_code == 403  # a player cannot admit themselves
    client.force_login(season.format.hosts.get())
    page = client.get(f"/seasons/{season.pk}/").content.decode()
    assert "Dee the Bold" in page and season.format.invite_token in page
    # The hosts find the season's webhook from its page; a player's page does not offer it.
    webhook = f'href="/notifications/season/{season.pk}/webhook/"'
    assert webhook in page
    client.post(admit)
    member.refresh_from_db()
    assert member.status == CastMember.Status.IN
    client.force_login(dee)
    assert webhook not in client.get(f"/seasons/{season.pk}/").content.decode()


def test_nothing_sealed_in_a_live_main_match_shows_on_the_season(client, season):
    host = season.format.hosts.get()
    client.force_login(host)
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
    episode = Episode.objects.get(season=season)
    assert response["Location"] == episode.get_absolute_url()
    match = Match.objects.with_seats().get(pk=episode.main_match_id)
    players = [seat.user for seat in match.seats.all()]
    for player, colours in zip(players, ("ROY", "GBI", "VRO"), strict=True):
        services.submit_action(match, player, {"type": "bid", "bid": -7, "colours": colours})
    match.refresh_from_db()
    assert match.state["phase"] == "round"
    gem = next(
        cell for cell, gem in _cells(match.state["board"]) if gem == match.state["colours"]["0"]
    )
    services.submit_action(
        match, players[0], {"type": "submit", "gem": gem, "moves": SEQUENCE, "card": None}
    )
    assert SEQUENCE in json.dumps(Match.objects.get(pk=match.pk).state)
    for viewer in (None, players[1], host):
        client.logout()
        if viewer is not None:
            client.force_login(viewer)
        for url in (
            f"/seasons/{season.pk}/",
            episode.get_absolute_url(),
            f"/seasons/{season.pk}/export.json",
            f"/seasons/{season.pk}/export.csv",
        ):
            body = client.get(url).content.decode()
            assert SEQUENCE not in body and '"totals"' not in body, url
    exported = client.get(f"/seasons/{season.pk}/export.json").json()
    assert exported["episodes"][0]["main_match"]["status"] == "live"
    assert exported["episodes"][0]["placings"] == []


def _cells(board: str):
    """Each cell of a Seven Gem Swap grid (ten lines of ten) with its gem."""
    for row, line in enumerate(board.split("\n")):
        for col, gem in enumerate(line):
            yield f"{'ABCDEFGHIJ'[col]}{row + 1}", gem


def test_only_the_candidate_sees_the_nomination_form(client, season, nominating):
    episode = nominating
    candidate = episode.elimination_candidate
    other = nominations.nomination_state(episode)["eligible"][0]
    client.force_login(other.user)
    page = client.get(episode.get_absolute_url()).content.decode()
    assert "Name your Death Match Opponent" not in page
    said = " ".join(page.split())
    assert f"<b>{candidate.name}</b> is the Elimination Candidate. {candidate.name} names" in said
    response = client.post(
        f"/seasons/{season.pk}/episodes/{episode.number}/nominate/", {"nominee": other.pk}
    )
    assert response.status_code == 302
    episode.refresh_from_db()
    assert episode.opponent is None
    client.force_login(candidate.user)
    page = client.get(episode.get_absolute_url()).content.decode()
    assert "Name your Death Match Opponent" in page and other.name in page
    # The page talks to the candidate: "you", not "they".
    said = " ".join(page.split())
    assert "<b>You</b> are the Elimination Candidate. You name a Death Match Opponent by" in said
    assert f"{candidate.name} names" not in page
    client.post(f"/seasons/{season.pk}/episodes/{episode.number}/nominate/", {"nominee": other.pk})
    episode.refresh_from_db()
    assert episode.opponent == other and episode.phase == Episode.Phase.DEATH_MATCH_SETUP


def test_the_host_log_holds_what_the_hosts_did_to_the_season(client, season, make_user):
    client.force_login(make_user("nosy", is_staff=True))
    assert client.get(f"/seasons/{season.pk}/audit/").status_code == 403  # not its host
    client.force_login(season.format.hosts.get())
    page = client.get(f"/seasons/{season.pk}/audit/").content.decode()
    assert "Cy joined the cast." in page and "Hostess opened ORG 2." in page
    assert "asked to join" not in page  # the players' own doings are in the season's log


def test_the_dashboard_lists_the_cast_and_episodes_read_only(admin_client, season):
    page = admin_client.get("/admin/seasons/castmember/").content.decode()
    assert "Ada" in page and "Cy" in page
    assert admin_client.get("/admin/seasons/episode/").status_code == 200
    assert admin_client.get("/admin/seasons/castmember/add/").status_code == 403


def test_a_candidate_holding_a_token_may_spend_it_on_the_page(client, nominating):
    from games.core.match import ledger

    episode = nominating
    candidate = episode.elimination_candidate
    client.force_login(candidate.user)
    assert "Spend a Token of Life" not in client.get(episode.get_absolute_url()).content.decode()
    host = episode.season.format.hosts.get()
    ledger.adjust(candidate.user, episode.season, 0, 1, "a gift", host)
    assert "Spend a Token of Life" in client.get(episode.get_absolute_url()).content.decode()
    # One click does not spend it: the player says they are sure (it cannot be taken back).
    page = client.post(f"/seasons/{episode.season_id}/episodes/1/token/", follow=True)
    assert "tick that you are sure" in page.content.decode()
    episode.refresh_from_db()
    assert not episode.token_spent and episode.phase == Episode.Phase.NOMINATION
    client.post(f"/seasons/{episode.season_id}/episodes/1/token/", {"sure": "yes"})
    episode.refresh_from_db()
    assert episode.token_spent and episode.phase == Episode.Phase.OVER
    page = client.get(episode.get_absolute_url()).content.decode()
    assert "You spent a Token of Life: no death match" in page


def test_a_tie_the_host_settled_shows_as_a_shared_place_the_host_settled(client, nominating):
    season = nominating.season
    candidate = nominating.elimination_candidate.name
    page = client.get(f"/seasons/{season.pk}/").content.decode()
    # Everyone scored 0: the host named the winner and then the EC among the tied.
    assert "(0, the winner the host named)" in page
    assert f"2nd (shared) {candidate} (0, the EC, a tie the host settled)" in page
    episode_page = client.get(nominating.get_absolute_url()).content.decode()
    assert "(Elimination Candidate: a tie the host settled)" in " ".join(episode_page.split())
