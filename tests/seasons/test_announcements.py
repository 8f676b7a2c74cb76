"""One announcement per happening: an episode's start is told once to each player and posted
once (the season's words, not also the core's "has started"); so is a death match's start
(issue 35, host needs)."""

from __future__ import annotations

import pytest

from games.core.models import Match
from games.notifications import kinds
from games.notifications.models import Delivery, Notification, SeasonWebhook
from games.seasons import episodes, nominations, tick

pytestmark = pytest.mark.django_db

STARTS = (kinds.MATCH_STARTED, kinds.EPISODE_STARTS)


def test_an_episode_start_is_told_and_posted_once(season):
    SeasonWebhook.objects.create(
        season=season, url="http://chat.example/hook", kinds=sorted(kinds.PUBLIC_KINDS)
    )
    host = season.format.hosts.get()
    episode = episodes.start_episode(season, host, "seven-gem-swap", {})
    match = Match.objects.get(pk=episode.main_match_id)
    assert match.status == Match.Status.LIVE

    told = Notification.objects.filter(match=match, kind__in=STARTS)
    assert sorted(told.values_list("user__username", flat=True)) == ["ada", "bob", "cy"]
    assert {note.text for note in told} == {
        "Episode 1 starts: the main match is Seven Gem Swap, 3 players. Your seat is waiting."
    }
    posts = Delivery.objects.filter(channel=Delivery.Channel.WEBHOOK, kind__in=STARTS)
    assert list(posts.values_list("public_text", flat=True)) == [
        "Episode 1 starts: the main match is Seven Gem Swap, 3 players."
    ]


def test_a_death_match_start_is_told_in_the_seasons_words_once(nominating):
    episode = nominating
    candidate = episode.elimination_candidate
    opponent = nominations.nomination_state(episode)["eligible"][0]
    nominations.nominate(episode, candidate.user, opponent.pk)
    host = episode.season.format.hosts.get()
    match = episodes.create_death_match(episode, host, "fixture-tally", {"target": 2})

    told = Notification.objects.filter(match=match, kind__in=STARTS)
    assert sorted(told.values_list("user_id", flat=True)) == sorted(
        [candidate.user_id, opponent.user_id]
    )
    assert all(note.text.startswith("Death match of episode 1:") for note in told)


def test_the_candidate_notice_is_its_own_kind_not_a_result(season, make_user):
    """A player who turned results off still gets the Elimination Candidate's deadline."""
    from games.core.match import host_operations
    from games.notifications.models import OptOut

    for member in season.cast.all():
        OptOut.objects.create(user=member.user, kind=kinds.ROUND_RESULT, channel=kinds.EMAIL)
        OptOut.objects.create(user=member.user, kind=kinds.ROUND_RESULT, channel=kinds.SITE)
    host = season.format.hosts.get()
    episode = episodes.start_episode(season, host, "seven-gem-swap", {})
    match = Match.objects.with_seats().get(pk=episode.main_match_id)
    host_operations.host_adjudicate(match, host, {"winner": 0, "reason": "test"})
    result = episodes.main_match_result(Match.objects.with_seats().get(pk=match.pk))
    host_operations.host_adjudicate(match, host, {"elimination_candidate": result["ec_tied"][0]})
    tick.run_clocks()
    episode.refresh_from_db()

    (note,) = Notification.objects.filter(kind=kinds.ELIMINATION_CANDIDATE)
    assert note.user_id == episode.elimination_candidate.user_id and note.in_site
    assert note.text.startswith("You are the Elimination Candidate of episode 1")
    assert not Notification.objects.filter(
        kind=kinds.ROUND_RESULT, text__contains="Elimination Candidate of episode"
    ).exists()


def test_a_main_match_end_is_one_post_naming_the_candidate(season, clock):
    from games.core.match import deadlines
    from tests.seven_gem_swap.test_services import bid_all

    SeasonWebhook.objects.create(
        season=season, url="http://chat.example/hook", kinds=sorted(kinds.PUBLIC_KINDS)
    )
    host = season.format.hosts.get()
    settings = {"bid_seconds": 7200, "round_seconds": 7200}
    episode = episodes.start_episode(season, host, "seven-gem-swap", settings)
    match = Match.objects.with_seats().get(pk=episode.main_match_id)
    bid_all(match, [seat.user for seat in match.seats.order_by("index")])  # start at 0, -1, -2
    for _ in range(20):  # every round's clock runs out with nothing sent: the totals stand
        clock.advance(7201)
        deadlines.fire_due_deadlines()
    assert Match.objects.get(pk=match.pk).status == Match.Status.FINISHED
    tick.run_clocks()
    episode.refresh_from_db()

    candidate = episode.elimination_candidate
    posts = Delivery.objects.filter(channel=Delivery.Channel.WEBHOOK).order_by("pk")
    naming = [p for p in posts.values_list("public_text", flat=True) if "Elimination Cand" in p]
    assert len(naming) == 1 and f"{candidate.name} is the Elimination Candidate" in naming[0]
    # The EC is told the end once: their deadline with the result, not the result again.
    ends = Notification.objects.filter(kind=kinds.ROUND_RESULT, text__contains="is over")
    assert sorted(ends.values_list("user__username", flat=True)) == sorted(
        {"ada", "bob", "cy"} - {candidate.user.username}
    )
    (told,) = Notification.objects.filter(kind=kinds.ELIMINATION_CANDIDATE)
    assert told.user == candidate.user
    assert told.text.startswith("You are the Elimination Candidate of episode 1: name your")
    assert "ORG 2, episode 1: main match is over: " in told.text
    assert told.text.endswith(f"{candidate.name} is the Elimination Candidate.")


def test_a_tie_the_host_settled_is_posted_by_the_season(season):
    from games.core.match import host_operations

    SeasonWebhook.objects.create(
        season=season, url="http://chat.example/hook", kinds=sorted(kinds.PUBLIC_KINDS)
    )
    host = season.format.hosts.get()
    episode = episodes.start_episode(season, host, "seven-gem-swap", {})
    match = Match.objects.with_seats().get(pk=episode.main_match_id)
    host_operations.host_adjudicate(match, host, {"winner": 0, "reason": "test"})  # 1 and 2 tie
    tied = episodes.main_match_result(Match.objects.with_seats().get(pk=match.pk))["ec_tied"]
    host_operations.host_adjudicate(match, host, {"elimination_candidate": tied[0]})
    tick.run_clocks()
    episode.refresh_from_db()

    posted = Delivery.objects.filter(channel=Delivery.Channel.WEBHOOK)
    assert posted.filter(
        public_text=f"{episode.elimination_candidate.name} is the Elimination Candidate of "
        "episode 1."
    ).exists()
