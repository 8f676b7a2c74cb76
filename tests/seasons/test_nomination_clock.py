"""The hosts move the nomination clock from the episode page: more time, less, or (once it
ran out) time again for the Elimination Candidate; the page counts down to the deadline."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games.notifications import kinds
from games.notifications.models import Notification
from games.seasons import hosts, nominations, tick
from games.seasons.models import Episode

pytestmark = pytest.mark.django_db


def clock_url(episode: Episode) -> str:
    return f"/seasons/{episode.season_id}/episodes/{episode.number}/nomination-clock/"


def test_a_host_gives_the_nomination_clock_more_time_and_the_candidate_is_told(nominating, client):
    due = nominating.nomination_due
    host = nominating.season.format.hosts.get()
    client.force_login(host)
    page = client.get(nominating.get_absolute_url()).content.decode()
    assert "Give more time" in page and "Give less time" in page
    assert f'data-countdown="{due.isoformat()}"' in page

    client.post(clock_url(nominating), {"minutes": "90", "change": "more"})
    nominating.refresh_from_db()
    assert nominating.nomination_due == due + timedelta(minutes=90)
    note = Notification.objects.filter(kind=kinds.ELIMINATION_CANDIDATE).latest("pk")
    assert note.user == nominating.elimination_candidate.user
    assert f"{nominating.nomination_due:%Y-%m-%d %H:%M} UTC" in note.text
    assert "90 minutes more" in nominating.events.last().text

    client.post(clock_url(nominating), {"minutes": "30", "change": "less"})
    nominating.refresh_from_db()
    assert nominating.nomination_due == due + timedelta(minutes=60)


def test_the_clock_keeps_a_minute_and_only_hosts_move_it(nominating, client, clock):
    due = nominating.nomination_due
    client.force_login(nominating.season.format.hosts.get())
    minutes = int((due - clock()).total_seconds() // 60)
    client.post(clock_url(nominating), {"minutes": str(minutes), "change": "less"})
    nominating.refresh_from_db()
    assert nominating.nomination_due == due  # refused: less than a minute would stay
    client.force_login(nominating.elimination_candidate.user)
    page = client.get(nominating.get_absolute_url()).content.decode()
    assert "Give more time" not in page and "You name a Death Match Opponent" in page
    assert client.post(clock_url(nominating), {"minutes": "60"}).status_code == 403


def test_a_clock_that_ran_out_gets_time_again_and_the_candidate_nominates(
    nominating, client, clock, make_user
):
    clock.advance((nominating.nomination_due - clock()).total_seconds() + 1)
    tick.run_clocks()
    nominating.refresh_from_db()
    assert nominating.phase == Episode.Phase.HOST_NOMINATION
    host = nominating.season.format.hosts.get()
    make_user("helper")
    hosts.add_cohost(nominating.season, host, "helper")  # a co-host does it as the host does
    client.force_login(nominating.season.format.cohosts.get())
    client.post(clock_url(nominating), {"minutes": "15", "change": "more"})
    nominating.refresh_from_db()
    assert nominating.phase == Episode.Phase.NOMINATION
    assert nominating.nomination_due == clock() + timedelta(minutes=15)
    candidate = nominating.elimination_candidate
    opponent = nominations.nomination_state(nominating)["eligible"][0]
    nominations.nominate(nominating, candidate.user, opponent.pk)
    nominating.refresh_from_db()
    assert nominating.opponent == opponent and not nominating.nominated_by_host
