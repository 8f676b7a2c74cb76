"""Update frames carry what changed, nothing more: measured on matches of every real game
played by its own bots (tests/bot_matches.py), per audience, in the page format."""

from __future__ import annotations

import copy
import json

import pytest

from games.core import viewpatch
from games.core.gamedef import Viewer
from games.core.rendering import view_of
from games.core.replaying import state_at
from tests.bot_matches import TABLES, play

pytestmark = pytest.mark.django_db


@pytest.fixture(params=sorted(TABLES))
def played(request, clock, make_user, django_capture_on_commit_callbacks):
    host = make_user("hostess")
    commits = django_capture_on_commit_callbacks
    return play(request.param, host, clock.advance, events=30, commits=commits)


def test_no_update_frame_carries_the_whole_view_and_each_patch_makes_the_next_view(played):
    match = played.match
    assert played.frames, "the bots played nothing"
    for sent in played.frames:
        frame = sent.frame
        assert frame["type"] == "update" and "view" not in frame
        whole = [op for op in frame["patch"] if op[1] in ([], ["game"])]
        assert not (whole and sent.state_before), (sent.kind, sent.audience, whole[0][0])
    # Every audience's patches, applied in order from the first view, give the view of the end.
    for viewer in [Viewer(seat=s.index) for s in match.seats.all()] + [Viewer.spectator()]:
        first = min(sent.version for sent in played.frames) - 1
        view = json.loads(json.dumps(view_of(match, viewer, state_at(match, first))))
        mine = [sent.frame for sent in played.frames if sent.viewer == viewer]
        for frame in mine:
            view = viewpatch.apply(copy.deepcopy(view), frame["patch"], frame["event"])
        end = json.loads(json.dumps(view_of(match, viewer, state_at(match, mine[-1]["version"]))))
        assert view["game"] == end["game"], viewer.audience
