"""The seasons' shared fixtures: a season of three admitted players and an episode whose
Elimination Candidate is nominating."""

from __future__ import annotations

import pytest

from games.core.match import host_operations
from games.core.models import Match
from games.seasons import cast, episodes, hosts, tick
from games.seasons.models import Episode


@pytest.fixture
def season(make_user):
    host = make_user("hostess", is_staff=True)
    season = hosts.create_season(name="ORG 2", host=host, settings={})
    for name in ("ada", "bob", "cy"):
        user = make_user(name)
        member = cast.ask_to_join(season, user, season.format.invite_token, name.title())
        cast.admit(season, host, member.pk)
    return season


@pytest.fixture
def nominating(season) -> Episode:
    """Episode 1 of ``season``: the host awarded its main match to seat 0 at once, so the
    others tie on the lowest total, and named seat 1 the Elimination Candidate."""
    host = season.format.hosts.get()
    episode = episodes.start_episode(season, host, "seven-gem-swap", {})
    match = Match.objects.with_seats().get(pk=episode.main_match_id)
    host_operations.host_adjudicate(match, host, {"winner": 0, "reason": "test"})
    result = episodes.main_match_result(Match.objects.with_seats().get(pk=match.pk))
    if result["elimination_candidate"] is None:
        host_operations.host_adjudicate(
            match, host, {"elimination_candidate": result["ec_tied"][0]}
        )
    tick.run_clocks()
    episode.refresh_from_db()
    assert episode.phase == Episode.Phase.NOMINATION
    return episode
