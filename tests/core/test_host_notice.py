"""The host's notice on the match page belongs to the moment it was made: it shows from the
host's operation until the game sets a clock again (a new turn, round or phase), on the page
and in the frames sent live alike (issue 35 item 10)."""

from __future__ import annotations

import json

import pytest

from games.core.game.gamedef import Viewer
from games.core.match import host_operations, services
from games.core.models import Event, Match
from games.core.render.rendering import Announcement, update_frames
from tests.seven_gem_swap.test_services import bid_all, own_gem

pytestmark = pytest.mark.django_db

NOTICE = "the chat server restarted"


def latest(match: Match) -> Match:
    return Match.objects.with_seats().get(pk=match.pk)


def drawn_notice(match: Match) -> bool:
    """Whether the spectators' frame of the match's latest event holds the host's notice."""
    match = latest(match)
    event = Event.objects.get(match=match, version=match.version)
    ((_, frame),) = update_frames(Announcement.stored(match, event), [Viewer.spectator()])
    return "host-notice" in json.loads(frame.head)["panel_ids"]


def paged_notice(client, match: Match) -> bool:
    return NOTICE in client.get(match.get_absolute_url()).content.decode()


def test_a_host_notice_shows_until_the_next_round_starts(seated_match, client, clock):
    settings = {"bid_seconds": 7200, "round_seconds": 7200}
    match, users, host = seated_match("seven-gem-swap", "ada", "bob", "cy", settings=settings)
    bid_all(match, users)
    assert not drawn_notice(match)
    client.force_login(users[0])

    host_operations.host_change_clock(latest(match), host, "round", 600, NOTICE)
    assert drawn_notice(match) and paged_notice(client, match)
    state = latest(match).state
    services.submit_action(match, users[0], {"type": "submit", "gem": own_gem(state, 0)})
    assert drawn_notice(match) and paged_notice(client, match)  # round 1 still: still news

    services.submit_action(match, users[1], {"type": "submit", "gem": own_gem(state, 1)})
    services.submit_action(match, users[2], {"type": "submit", "gem": own_gem(state, 2)})
    assert latest(match).state["round"] == 2
    assert not drawn_notice(match)
    assert not paged_notice(client, match)
