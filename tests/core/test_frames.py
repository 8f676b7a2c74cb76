"""Update frames carry what changed, nothing more: measured on matches of every real game
played by its own bots (tests/bot_matches.py: every real game, by being registered), per
audience, in the page format."""

from __future__ import annotations

import copy
import json
import re

import msgpack
import pytest

from games.core.game.gamedef import Viewer
from games.core.match.replaying import state_at
from games.core.render import frame as frame_module
from games.core.render import htmlpatch, jsondiff, panelcache, rendering
from games.core.render.frame import PANEL_SEPARATOR, Frame
from games.core.render.lru import Lru
from games.core.render.rendering import (
    Announcement,
    render_panel_list,
    sent_view,
    update_frames,
    view_of,
)
from tests.bot_matches import TABLES, play

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def bot_matches(django_db_setup, django_db_blocker):
    """Each game's match of 30 events, played once for this file's tests (a play takes a few
    seconds): committed, so that each test's own transaction sees it; deleted after them."""
    from django.contrib.auth import get_user_model

    from tests.conftest import FakeClock

    with django_db_blocker.unblock(), pytest.MonkeyPatch.context() as patch:
        clock = FakeClock()
        patch.setattr("games.core.match.clock.now", clock)
        host = get_user_model().objects.create_user("frames-hostess")
        matches = {game: play(game, host, clock.advance, events=30) for game in sorted(TABLES)}
    yield matches
    with django_db_blocker.unblock():
        for played in matches.values():
            played.match.delete()
        host.delete()


@pytest.fixture(params=sorted(TABLES))
def played(request, bot_matches):
    return bot_matches[request.param]


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
        view = json.loads(
            json.dumps(sent_view(match, view_of(match, viewer, state_at(match, first))))
        )
        mine = [sent.frame for sent in played.frames if sent.viewer == viewer]
        for frame in mine:
            view = jsondiff.apply(copy.deepcopy(view), frame["patch"], frame["event"])
        end = view_of(match, viewer, state_at(match, mine[-1]["version"]))
        end = json.loads(json.dumps(sent_view(match, end)))
        assert view["game"] == end["game"], viewer.audience


def test_the_panels_a_page_holds_after_every_update_are_the_panels_drawn_afresh(played):
    """A page keeps each panel's HTML as sent and applies the next frames' patches of it: after
    the last update, what every audience holds is what a fresh page would draw."""
    match = played.match
    patched = 0
    for viewer in [Viewer(seat=s.index) for s in match.seats.all()] + [Viewer.spectator()]:
        mine = [sent.frame for sent in played.frames if sent.viewer == viewer]
        # The page was loaded just before its first update (tests/bot_matches.py): it holds
        # the panels of the version before, as the match was then (live).
        held = dict(played.loaded[viewer.audience])
        for frame in mine:
            for html in filter(None, frame["html"].split(PANEL_SEPARATOR)):
                held[_panel_id(html)] = html
            for panel_id, ops in frame.get("html_patch", []):
                held[panel_id] = htmlpatch.apply(held[panel_id], ops)
                patched += 1
            held = {panel_id: held[panel_id] for panel_id in frame["panel_ids"]}
        last = mine[-1]["version"]
        view = view_of(match, viewer, state_at(match, last))
        drawn = dict(render_panel_list(match, view, version=last, oob=True))
        assert held == drawn, viewer.audience
    assert patched, "no panel was ever sent as a patch"


def _panel_id(html: str) -> str:
    found = re.search(r'id="([^"]+)"', html)
    assert found, html[:80]
    return found.group(1)


def test_a_layer_message_is_one_string_parsed_once_by_each_worker(played):
    """Hundreds of connections of one audience receive the same message: each holds one string
    (no object a panel, which would wake the garbage collector mid-burst), and the worker
    parses it once."""
    match = played.match
    announcement = Announcement.stored(match, match.events.order_by("-version").first())
    for _viewer, frame in update_frames(announcement):
        message = frame.as_message()
        assert sorted(message) == ["digest", "frame", "head", "version"]
        assert isinstance(message["frame"], bytes)  # compressed JSON: one object
        first, second = (
            Frame.from_message(msgpack.unpackb(msgpack.packb(message))) for _ in range(2)
        )
        assert first is second
        # The head's text is cut out by its length; a message without it (from a worker of
        # the code before) is parsed whole, to the same frame.
        frame_module._parsed.clear()
        without = {key: value for key, value in message.items() if key != "head"}
        assert Frame.from_message(without) == first
        frame_module._parsed.clear()
        assert [panel.packed() for panel in first.panels] == [p.packed() for p in frame.panels]
        assert (first.version, first.head) == (frame.version, frame.head)
        assert (first.audience, first.holders) == (frame.audience, frame.holders)
        # A panel travels whole only where a page holding the version before needs it whole.
        for sent, drawn in zip(first.panels, frame.panels, strict=True):
            left_out = drawn.sure and (drawn.unchanged or drawn.patch)
            assert sent.escaped == ("" if left_out else drawn.escaped)


def test_a_page_that_lacks_a_panel_the_layer_did_not_carry_whole_gets_it_drawn_whole(played):
    """A connection whose page does not hold a panel the layer's message carries as unchanged
    or as a patch is sent the frame drawn whole on its own worker (the consumer's
    ``_drawn_whole``): the message alone says so."""
    match = played.match
    announcement = Announcement.stored(match, match.events.order_by("-version").first())
    for _viewer, frame in update_frames(announcement):
        message = Frame.from_message(msgpack.unpackb(msgpack.packb(frame.as_message())))
        held = {panel.id: panel.digest for panel in frame.panels if panel.unchanged}
        held |= {panel.id: panel.base for panel in frame.panels if panel.patch}
        carried = {panel.id for panel in message.panels if panel.escaped}
        assert not message.lacks(held)
        assert frame.text(True, dict(held)) == message.text(True, dict(held))
        if len(carried) < len(message.panels):
            assert message.lacks({})
            with pytest.raises(ValueError, match="did not travel whole"):
                message.text(True, {})


def test_panels_compared_with_a_drawing_again_of_the_version_before_travel_whole(
    played, monkeypatch
):
    """When no one kept what an audience was sent at the version before, it is drawn again
    here from the state before, with the match as it is now: a panel drawn from the match
    itself (the fair-play panel's receipts) may differ from what pages hold, so the layer
    carries every panel whole (pages in step then send only what changed)."""
    match = played.match
    announcement = Announcement.stored(match, match.events.order_by("-version").first())
    monkeypatch.setattr(panelcache, "kept", lambda *args, **kwargs: None)
    for _viewer, frame in update_frames(announcement):
        message = Frame.from_message(msgpack.unpackb(msgpack.packb(frame.as_message())))
        assert all(panel.escaped for panel in message.panels)
        assert not message.lacks({})


def test_another_worker_draws_the_same_frames_from_what_the_cache_kept(played, monkeypatch):
    """A worker that did not draw the version before reads what each audience was sent then
    from the shared cache (every audience's in one record, each distinct panel once): its
    frames are those of the worker that drew it. When the cache lost it, the panels before are
    drawn again from the state before: the same panels go, some of them whole."""
    match = played.match
    *_, previous, last = (
        Announcement.stored(match, event) for event in match.events.order_by("version")
    )
    shared = panelcache.cache
    read = []

    class Reading:
        """The shared cache, its reads recorded (``lost``: it lost everything)."""

        lost = False

        def get(self, key, default=None):
            read.append(None if self.lost else shared.get(key, default))
            return read[-1]

        def set(self, *args, **kwargs):
            return shared.set(*args, **kwargs)

        def add(self, *args, **kwargs):
            return shared.add(*args, **kwargs)

    reading = Reading()
    monkeypatch.setattr(panelcache, "cache", reading)

    def drawn():
        return [
            (viewer.audience, re.sub(r'"server_time":\d+', "", frame.head), frame.panels)
            for viewer, frame in update_frames(last)
        ]

    monkeypatch.setattr(panelcache, "_recent", Lru(256))
    update_frames(previous)  # this worker drew the version before
    read.clear()
    same_worker = drawn()
    assert not read
    monkeypatch.setattr(panelcache, "_recent", Lru(256))  # another worker
    assert drawn() == same_worker
    audiences = {viewer.audience for viewer in rendering.audiences(match)}
    assert read and audiences <= set(read[0]["audiences"])
    reading.lost = True
    monkeypatch.setattr(panelcache, "_recent", Lru(256))
    lost = drawn()
    assert [(a, head, [p.digest for p in panels]) for a, head, panels in lost] == [
        (a, head, [p.digest for p in panels]) for a, head, panels in same_worker
    ]
