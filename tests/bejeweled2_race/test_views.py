"""The Bejeweled 2 race through the services and its pages: a seat's page draws its own board as
Bejeweled 2 does and nothing of another's; spectators and the host get every board small with
the ranking; each move's update frames tell no other seat the mover's board; the result is read
by the seasons as every main match's."""

from __future__ import annotations

import json
import re

import pytest

from games.bejeweled2 import engine
from games.core.game.gamedef import Viewer
from games.core.host.console import running_clocks
from games.core.match import host_operations, replaying, seating, services
from games.core.models import LedgerEntry, Match
from games.core.render import jsondiff
from games.core.render.rendering import Announcement, render_panels, update_frames, view_of
from games.seasons.episodes import main_match_result

pytestmark = pytest.mark.django_db

NAMES = ("ada", "bob", "cyd")


@pytest.fixture
def race(seated_match, clock):
    match, users, host = seated_match(
        "bejeweled-2-race", *NAMES, settings={"mode": "classic_moves", "moves": 3}
    )
    return match, users, host


def board_of(match: Match, seat: int) -> str:
    return match.state["boards"][str(seat)]["board"]


def rows_of(board: str) -> list[str]:
    return board.split("\n")


def swap_best(match: Match, user, seat: int) -> None:
    a, b = engine.best_move(board_of(match, seat))
    services.submit_action(match, user, {"type": "swap", "a": a, "b": b})
    match.refresh_from_db()


def swap_last(match: Match, user, seat: int) -> None:
    """A legal move other than the best one (so that the board differs from a best mover's)."""
    here = board_of(match, seat)
    best = set(engine.best_move(here))
    others = [m for m in reversed(engine.legal_moves(here)) if set(m) != best]
    assert others, f"the board has no legal move but the best one; draw another seed:\n{here}"
    a, b = others[0]
    services.submit_action(match, user, {"type": "swap", "a": a, "b": b})
    match.refresh_from_db()


def test_a_seat_page_shows_its_own_board_and_a_spectator_every_board(client, race):
    match, (ada, bob, cyd), host = race
    assert match.status == Match.Status.LIVE
    swap_best(match, ada, 0)
    swap_last(match, bob, 1)
    assert board_of(match, 0) != board_of(match, 1)
    client.force_login(ada)
    html = client.get(match.get_absolute_url()).content.decode()
    assert 'id="bj2-board"' in html and 'data-grid="board"' in html
    assert "js/bejeweled2.js" in html and "css/bejeweled2_race.css" in html
    assert "race-mini" not in html and 'id="race-ranking"' not in html
    assert "/".join(rows_of(board_of(match, 1))) not in html
    assert "only you see your board" in html and "the ranking shows at the end" in html
    client.force_login(host)
    html = client.get(match.get_absolute_url()).content.decode()
    for seat in range(3):
        assert f'data-rows="{"/".join(rows_of(board_of(match, seat)))}"' in html
        assert f'id="race-seat-{seat}"' in html
    assert 'id="race-ranking"' in html and 'id="bj2-board"' not in html


def test_a_move_frame_tells_another_seat_nothing_of_the_mover_board(race):
    match, (ada, bob, cyd), host = race
    swap_last(match, bob, 1)  # boards now differ
    before = match.state
    a, b = engine.best_move(board_of(match, 0))
    services.submit_action(match, ada, {"type": "swap", "a": a, "b": b})
    match.refresh_from_db()
    event = match.events.order_by("-version").first()
    frames = dict(update_frames(Announcement(match, event, before, match.state)))
    mover = rows_of(board_of(match, 0))
    own_rows = {seat: set(rows_of(board_of(match, seat))) for seat in range(3)}
    for viewer, frame in frames.items():
        text = frame.text(True, None)
        fresh = [row for row in mover if row not in own_rows.get(viewer.seat, set())]
        if viewer.seat in (1, 2):
            assert not any(row in text for row in fresh), viewer
            data = json.loads(frame.head)
            assert data["event"]["data"] == {"seat": 0}
        elif viewer.seat == 0:
            assert json.loads(frame.head)["event"]["data"]["steps"]
        elif viewer.is_spectator:  # by default what the players see: no board
            assert not any(row in text for row in fresh), viewer
            assert json.loads(frame.head)["event"]["data"] == {"seat": 0}
        else:  # the host sees every board, small
            held = {"game": match.game.view(before, viewer)}
            data = json.loads(frame.head)
            view = jsondiff.apply(json.loads(json.dumps(held)), data["patch"], data["event"])
            assert view["game"]["boards"][0]["rows"] == mover


def test_the_race_result_is_read_as_every_main_match(race):
    match, (ada, bob, cyd), host = race
    services.submit_action(match, cyd, {"type": "end"})  # cyd stops: the score so far stands
    for _ in range(3):
        swap_best(match, ada, 0)
        swap_best(match, bob, 1)
    assert match.status == Match.Status.FINISHED
    result = main_match_result(match)
    assert result["totals"]["0"] == result["totals"]["1"] > result["totals"]["2"] == 0
    assert result["elimination_candidate"] == 2 and result["ec_tied"] == []
    assert match.result["winner"] is None  # seats 0 and 1 share first place
    # After the end every viewer sees every board and the final ranking.
    for viewer in (Viewer(seat=2), Viewer.spectator()):
        html = render_panels(match, view_of(match, viewer), version=match.version, oob=True)
        assert "Final ranking" in html and html.count('class="panel race-mini') == 3
        assert re.search(r"<b class=\"race-ec\">EC</b>", html)


def test_a_bot_seat_plays_its_own_board(make_user, clock):
    host, ada = make_user("hostess"), make_user("ada")
    match = seating.create_match(
        host=host,
        game_key="bejeweled-2-race",
        title="Bot race",
        settings={"mode": "classic_moves", "moves": 2},
        roles=["", ""],
    )
    seating.seat_bot(match, 1, "greedy")
    seating.take_seat(match, ada, match.seats.get(index=0).invite_token)
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    for _ in range(6):
        clock.advance(2)
        services.run_bots()
    match.refresh_from_db()
    assert match.state["boards"]["1"]["moves"] == 2 and match.state["runners"]["1"]["done"]
    assert match.state["boards"]["0"]["moves"] == 0 and match.status == Match.Status.LIVE


def test_a_season_episode_with_a_race_main_match_names_its_last_the_ec(make_user, clock):
    from games.seasons import cast, episodes, hosts, standings, tick
    from games.seasons.models import Episode

    host = make_user("hostess", is_staff=True)
    season = hosts.create_season(name="Race season", host=host, settings={})
    users = {}
    for name in ("ada", "bob", "cy"):
        users[name] = make_user(name)
        member = cast.ask_to_join(season, users[name], season.format.invite_token, name.title())
        cast.admit(season, host, member.pk)
    episode = episodes.start_episode(
        season, host, "bejeweled-2-race", {"mode": "classic_moves", "moves": 1}
    )
    match = Match.objects.with_seats().get(pk=episode.main_match_id)
    assert match.status == Match.Status.LIVE and match.seats.count() == 3
    by_seat = {seat.index: seat.user for seat in match.seats.all()}
    last = by_seat[2]
    services.submit_action(match, last, {"type": "end"})
    for seat in (0, 1):
        match.refresh_from_db()
        swap_best(match, by_seat[seat], seat)
    assert match.status == Match.Status.FINISHED
    tick.run_clocks()
    episode.refresh_from_db()
    assert episode.phase == Episode.Phase.NOMINATION
    assert episode.elimination_candidate.user == last
    placings = standings.season_table(season)["episodes"][0]["placings"]
    assert [row["place"] for row in placings] == [1, 1, 3]
    assert placings[-1]["elimination_candidate"] is True
    paid = {user.pk: 0 for user in by_seat.values()}
    for entry in LedgerEntry.objects.filter(match=match):
        paid[entry.user_id] += entry.garnets
    # The two who share first place each finished ahead of one seat: 2 garnets each.
    assert paid == {by_seat[0].pk: 2, by_seat[1].pk: 2, last.pk: 0}


def test_the_new_match_page_creates_a_race_for_thirteen(client, make_user):
    client.force_login(make_user("hostess"))
    page = client.get("/matches/new/bejeweled-2-race/")
    assert (
        page.status_code == 200 and "Show the live ranking to the players" in page.content.decode()
    )
    assert "What spectators see while the race runs" in page.content.decode()
    response = client.post(
        "/matches/new/bejeweled-2-race/",
        {
            "title": "Race night",
            "seat_count": "13",
            "mode": "classic_time",
            "minutes": "3",
            "moves": "30",
            "puzzle_first": "0",
            "puzzle_count": "3",
            "spectators": "as_players",
            "held_back_moves": "3",
        },
    )
    assert response.status_code == 302
    match = Match.objects.get(title="Race night")
    assert match.game_key == "bejeweled-2-race" and match.seats.count() == 13
    assert match.settings["mode"] == "classic_time" and match.settings["show_ranking"] is False
    assert match.settings["spectators"] == "as_players"


def test_the_host_console_names_each_bar_clock_for_its_player(seated_match, clock):
    match, (ada, _), host = seated_match(
        "bejeweled-2-race", "ada", "bob", settings={"mode": "action"}
    )
    names = [c["name"] for c in running_clocks(match, clock.current)]
    assert "Ada's bar" in names and "Bob's bar" in names
    assert not any("bar-" in name for name in names)
    host_operations.host_change_clock(match, host, "bar-0", 30, reason="lag")
    match.refresh_from_db()
    said = replaying.describe(match.game, match.events.latest("version").seen_by(Viewer.host()), {})
    assert said.startswith("The host gave Ada's bar 30 seconds more")


def test_a_finished_races_replay_opens_at_its_end_and_lists_the_end_once(client, race):
    match, (ada, bob, cyd), host = race
    services.submit_action(match, cyd, {"type": "end"})
    for _ in range(3):
        swap_best(match, ada, 0)
        swap_best(match, bob, 1)
    assert match.status == Match.Status.FINISHED
    host_operations.rematch(match, host)  # an event after the result
    match.refresh_from_db()
    page = client.get(f"/m/{match.public_id}/replay/").content.decode()
    assert f'data-version="{match.version}"' in page  # the end, not partway
    jumps = page.split('id="replay-mark"')[1].split("</select>")[0]
    assert jumps.count(">The end<") == 1 and jumps.count(">Start<") == 1
    assert re.search(r'<option value="\d+" selected>The end</option>', jumps)
    assert page.count('class="panel race-mini') == 3  # drawn small, as the live spectators see


def frames_of_move(match: Match, user, seat: int) -> dict:
    """``user`` swaps the best swap of ``seat``; every audience's frame of it, drawn here."""
    before = match.state
    swap_best(match, user, seat)
    event = match.events.order_by("-version").first()
    return dict(update_frames(Announcement(match, event, before, match.state)))


def on_the_other_worker(monkeypatch, match: Match, user, seat: int) -> dict:
    """``frames_of_move`` as the other worker draws it: kept in its memory, not this one's,
    and not yet in the shared cache."""
    from django.core.cache import cache

    from games.core.render import panelcache
    from games.core.render.lru import Lru

    here = panelcache._recent
    monkeypatch.setattr(panelcache, "_recent", Lru(256))
    frames = frames_of_move(match, user, seat)
    monkeypatch.setattr(panelcache, "_recent", here)
    cache.clear()
    return frames


def drawings_counted(monkeypatch) -> list[str]:
    """The audiences whose panels are drawn from now on, one entry a drawing."""
    from games.core.render import rendering

    drawn: list[str] = []
    draw = rendering.render_panel_list

    def counted(match, view, **kwargs):
        drawn.append(view["viewer"]["audience"])
        return draw(match, view, **kwargs)

    monkeypatch.setattr(rendering, "render_panel_list", counted)
    return drawn


def test_another_seats_move_draws_no_panel_for_a_seat_it_changes_nothing_for(
    race, settings, monkeypatch
):
    """Twelve of a race's fifteen audiences see nothing of a move but the version: their panels
    are the ones they hold, at the new version, drawn from nothing (PANEL_MEMO_CHECK, on in
    every other test, draws each such frame again and compares)."""
    settings.PANEL_MEMO_CHECK = False
    match, (ada, bob, _), _ = race
    first = frames_of_move(match, ada, 0)
    drawn = drawings_counted(monkeypatch)
    second = frames_of_move(match, bob, 1)
    assert sorted(drawn) == ["host", "seat-1"]  # the mover and the host's every board
    for viewer in (Viewer(seat=0), Viewer(seat=2), Viewer.spectator()):
        was = {panel.id: panel.digest for panel in first[viewer].panels}
        now = {panel.id: panel.digest for panel in second[viewer].panels}
        assert {key for key in now if now[key] != was.get(key)} == {"match-version"}, viewer
        version_attribute = json.dumps(f'data-version="{match.version}"')[1:-1]  # in JSON
        assert version_attribute in second[viewer].text(True, None)


def test_a_seat_the_other_workers_move_left_alone_is_drawn_from_this_workers_last_drawing(
    race, settings, monkeypatch
):
    """Two workers take turns drawing a race's versions, so the version before is seldom kept
    where the next is drawn. A seat whose view the moves between left as it was is drawn from
    what this worker last drew for it, not drawn again; its panels are a drawing's."""
    from games.core.render import rendering
    from games.core.render.frame import digest

    settings.PANEL_MEMO_CHECK = False
    match, (ada, bob, _), _ = race
    draw = rendering.render_panel_list
    frames_of_move(match, ada, 0)  # this worker
    on_the_other_worker(monkeypatch, match, bob, 1)
    drawn = drawings_counted(monkeypatch)
    frames = frames_of_move(match, ada, 0)
    assert "seat-2" not in drawn  # Cyd's board: neither move touched it
    assert "seat-1" in drawn  # Bob's: this worker's last drawing is from before his move
    cyd = Viewer(seat=2)
    fresh = dict(draw(match, view_of(match, cyd), version=match.version, oob=True))
    assert {panel.id: panel.digest for panel in frames[cyd].panels} == {
        panel_id: digest(html) for panel_id, html in fresh.items()
    }


def test_a_seats_own_move_after_the_other_workers_is_patched_from_what_this_worker_drew_it(
    race, settings, monkeypatch
):
    """Ada's sockets are on this worker; Cyd's move was drawn on the other. Ada's next move is
    patched from the panels her page holds (this worker's drawing of them, moved on), not from
    her panels drawn again from the state before."""
    from games.core.render import rendering

    settings.PANEL_MEMO_CHECK = False
    match, (ada, _, cyd), _ = race
    frames_of_move(match, ada, 0)  # this worker
    elsewhere = on_the_other_worker(monkeypatch, match, cyd, 2)
    drawn_before: list[str] = []
    panels_before = rendering._panels_before

    def counted(match, viewer, *args, **kwargs):
        drawn_before.append(viewer.audience)
        return panels_before(match, viewer, *args, **kwargs)

    monkeypatch.setattr(rendering, "_panels_before", counted)
    frames = frames_of_move(match, ada, 0)
    seat = Viewer(seat=0)
    assert "seat-0" not in drawn_before
    held = {panel.id: panel.digest for panel in elsewhere[seat].panels}
    patched = [panel for panel in frames[seat].panels if panel.patch]
    assert patched and all(panel.base == held[panel.id] for panel in patched)


def test_a_seat_the_other_workers_move_left_alone_is_neither_paged_nor_viewed_as_it_was(
    race, settings, monkeypatch
):
    """Its gate's answer is what this worker last paged for it, so the page is that one; and it
    was the same at the version before, so the view it holds is the one it gets: the state before
    is not viewed for it, and its patch changes nothing of its game."""
    from games.core.render import rendering

    settings.PANEL_MEMO_CHECK = False
    match, (ada, bob, _), _ = race
    frames_of_move(match, ada, 0)  # this worker
    on_the_other_worker(monkeypatch, match, bob, 1)
    viewed_before: list[str] = []
    game_view = rendering._game_view

    def viewed(match, viewer, state):
        viewed_before.append(viewer.audience)
        return game_view(match, viewer, state)

    monkeypatch.setattr(rendering, "_game_view", viewed)
    paged: list[dict] = []
    page = type(match.game).paged

    def counted(game, shown):
        paged.append(shown)
        return page(game, shown)

    monkeypatch.setattr(type(match.game), "paged", counted)
    frames = frames_of_move(match, ada, 0)
    # Ada's move, and the spectators' and host's every board, changed; Bob's answer did not
    # change with Ada's move (only with his own, since this worker last drew him).
    # Viewed as it was: the mover's and the host's (every board); not the seats Ada's move left
    # alone, nor the spectators (their answer did not change with it).
    assert sorted(viewed_before) == ["host", "seat-0"]
    # Paged: the four whose answer differs from this worker's last drawing of them (Ada's, the
    # host's, Bob's and the spectators': Bob moved since), and those two views before; never
    # Cyd's, whose answer is the one this worker last paged.
    assert len(paged) == 6
    for seat in (1, 2):
        patch = json.loads(frames[Viewer(seat=seat)].head)["patch"]
        assert [op for op in patch if op[1][0] == "game"] == [], seat


def test_a_moves_frames_read_no_host_words_where_the_host_never_spoke(
    race, monkeypatch, django_capture_on_commit_callbacks
):
    """Every frame tells its page the host's notice. Where the lock read that the host never
    operated on the match, it is "" without reading the host's latest words, even when the
    version before is not kept here (the other worker drew it); once the host has spoken,
    they are read."""
    from django.core.cache import cache

    from games.core.host import audit
    from games.core.live import broadcast
    from games.core.match import host_operations
    from games.core.render import panelcache
    from games.core.render.lru import Lru

    match, (ada, bob, _), host = race
    read: list[int] = []
    words = audit.latest_host_words

    def counted(match):
        read.append(match.version)
        return words(match)

    monkeypatch.setattr(audit, "latest_host_words", counted)

    def frames_of_a_move(user, seat: int) -> list:
        monkeypatch.setattr(panelcache, "_recent", Lru(256))  # drawn on the other worker
        cache.clear()
        with broadcast.deferred() as outbox, django_capture_on_commit_callbacks(execute=True):
            swap_best(match, user, seat)
        return [update_frames(told) for told in outbox.events]

    assert frames_of_a_move(ada, 0) and read == []
    host_operations.host_pause(match, host, reason="a moment")
    host_operations.host_resume(match, host, reason="back")
    assert frames_of_a_move(bob, 1) and read != []
