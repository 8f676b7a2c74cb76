"""A host's correction of a match's result, after the season read it: the season follows while
it still can (the nomination open, or no later episode begun), and says so when it cannot."""

from __future__ import annotations

import pytest

from games.core import services
from games.core.models import Match
from games.seasons import services as seasons
from games.seasons.models import CastMember, Episode

pytestmark = pytest.mark.django_db


def test_a_corrected_main_match_names_another_elimination_candidate(nominating):
    episode = nominating
    host = episode.season.format.hosts.get()
    main = Match.objects.with_seats().get(pk=episode.main_match_id)
    first = episode.elimination_candidate
    services.host_correct_result(main, host, {"winner": 1}, "seat 2 won, not seat 1")
    seasons.run_clocks()
    episode.refresh_from_db()
    assert episode.phase == Episode.Phase.MAIN_MATCH and episode.elimination_candidate is None
    services.host_adjudicate(main, host, {"elimination_candidate": 2, "reason": "a coin"})
    seasons.run_clocks()
    episode.refresh_from_db()
    third = CastMember.objects.get(user=main.seats.get(index=2).user)
    assert episode.phase == Episode.Phase.NOMINATION
    assert episode.elimination_candidate == third != first
    assert [event.text for event in episode.events.all()][-2:] == [
        f"The host corrected the main match: {first.name} is no longer the EC.",
        f"{third.name} is the Elimination Candidate of episode 1.",
    ]


def test_a_corrected_death_match_eliminates_the_other_player(nominating):
    episode = nominating
    host = episode.season.format.hosts.get()
    candidate = episode.elimination_candidate
    opponent = seasons.nomination_state(episode)["eligible"][0]
    seasons.nominate(episode, candidate.user, opponent.pk)
    dm = seasons.create_death_match(episode, host, "fixture-tally", {"target": 2})
    services.submit_action(dm, candidate.user, {"type": "add", "amount": 2})
    seasons.run_clocks()
    opponent.refresh_from_db()
    assert opponent.status == CastMember.Status.ELIMINATED and opponent.elimination_order == 1

    services.host_correct_result(dm, host, {"winner": 1}, "the DMO's last add was lost")
    seasons.run_clocks()
    seasons.run_clocks()  # read once: nothing more happens
    episode.refresh_from_db()
    candidate.refresh_from_db()
    opponent.refresh_from_db()
    assert episode.eliminated == candidate
    assert candidate.status == CastMember.Status.ELIMINATED and candidate.elimination_order == 1
    assert candidate.eliminated_by == opponent
    assert opponent.status == CastMember.Status.IN and opponent.elimination_order is None
    texts = [event.text for event in episode.events.all()]
    assert texts[-2:] == [
        f"The host corrected the death match of episode 1: {opponent.name} won it and is back in.",
        f"{opponent.name} won the death match: {candidate.name} is eliminated (episode 1).",
    ]
