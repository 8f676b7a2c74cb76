"""Seven Gem Swap's pages through Django's test client: the match page for a player, a
spectator and the host, the new-match page, and the host's clock extension."""

from __future__ import annotations

import json
import re

import pytest

from games.core.game.gamedef import Viewer
from games.core.match import deadlines, host_operations, seating, services
from games.core.models import Match
from games.core.render import panelmemo
from games.core.render.lru import Lru
from games.core.render.rendering import (
    Announcement,
    full_frame,
    render_panel_list,
    render_panels,
    sent_view,
    update_frames,
    view_of,
)
from games.seven_gem_swap import engine

pytestmark = pytest.mark.django_db


@pytest.fixture
def live_match(clock, make_user):
    host, ada, bob = make_user("hostess"), make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host,
        game_key="seven-gem-swap",
        title="Seven",
        settings={"bid_seconds": 600, "round_seconds": 600},
        roles=["", ""],
    )
    for user, seat in zip([ada, bob], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    match.refresh_from_db()
    return match, ada, bob, host


def in_round(live_match):
    match, ada, bob, host = live_match
    services.submit_action(match, ada, {"type": "bid", "bid": -3, "colours": "RGB"})
    services.submit_action(match, bob, {"type": "bid", "bid": 0, "colours": "GBR"})
    match.refresh_from_db()
    return match


def grid_cells(html: str) -> list[str]:
    cell = r'class="cell [^"]*\bsgs-(?:[ROYGBIV]|rock)\b[^"]*" data-cell="(\w\d+)"'
    return re.findall(cell, html)


def test_the_bidding_page_shows_a_player_the_grid_and_the_bid_form(client, live_match):
    match, ada, *_ = live_match
    client.force_login(ada)
    html = client.get(match.get_absolute_url()).content.decode()
    assert len(grid_cells(html)) == 100 and grid_cells(html)[:2] == ["A1", "B1"]
    assert 'class="sgs-bid-form"' in html and 'id="sgs-bid-colour-3"' in html
    assert "Bidding closes in" in html and "data-deadline=" in html
    assert "js/seven_gem_swap.js" in html and "css/seven_gem_swap.css" in html


def test_a_round_page_shows_a_player_the_composer(client, live_match):
    match = in_round(live_match)
    client.force_login(live_match[1])
    html = client.get(match.get_absolute_url()).content.decode()
    assert 'class="sgs-compose"' in html and 'class="sgs-pad"' in html
    assert "costs <b>2 garnets</b>" in html
    assert "No colour card is played in round 1" in html
    assert 'id="sgs-host"' not in html


def test_a_spectator_sees_the_grid_and_who_submitted_without_controls(client, live_match):
    match = in_round(live_match)
    ada = live_match[1]
    gem = engine.cell_name(engine.parse_board(match.state["board"]).cells.index("R"))
    # Eight moves: a two-letter needle turned up by chance in the page's random CSRF token.
    moves = "ULLURDDR"
    services.submit_action(match, ada, {"type": "submit", "gem": gem, "moves": moves})
    html = client.get(match.get_absolute_url()).content.decode()
    assert len(grid_cells(html)) == 100
    assert "Ada: submitted" in html and "Bob: composing" in html
    assert "sgs-compose" not in html and "sgs-bid-form" not in html and 'id="sgs-host"' not in html
    assert moves not in html


def test_the_host_sees_every_submission(client, live_match):
    match = in_round(live_match)
    ada = live_match[1]
    gem = engine.cell_name(engine.parse_board(match.state["board"]).cells.index("R"))
    services.submit_action(match, ada, {"type": "submit", "gem": gem, "moves": "ULD"})
    client.force_login(live_match[3])
    html = client.get(match.get_absolute_url()).content.decode()
    assert 'id="sgs-host"' in html
    assert f"{gem} ULD" in html


def status_title(client, match) -> str:
    html = client.get(match.get_absolute_url()).content.decode()
    return re.search(r'<p class="sgs-phase"><b>([^<]*)</b>', html).group(1)


def test_a_match_the_host_ends_early_says_how_far_it_went(client, live_match):
    match = in_round(live_match)
    host = live_match[3]
    host_operations.host_end_round(match, host, reason="everyone has sent")
    assert status_title(client, match) == "Round 2 of 8"
    host_operations.host_adjudicate(match, host, {"winner": 0})
    assert status_title(client, match) == "The match ended after round 1 of 8"


def test_a_match_awarded_before_its_first_round_says_so(client, live_match):
    match, _, _, host = live_match
    host_operations.host_adjudicate(match, host, {"winner": 1})
    assert status_title(client, match) == "The match ended before round 1"


def test_every_panel_has_an_id_and_swaps_out_of_band(live_match):
    match = in_round(live_match)
    for viewer in (Viewer(seat=0), Viewer.host(), Viewer.spectator()):
        html = render_panels(match, view_of(match, viewer), version=match.version, oob=True)
        tops = re.findall(r"^(?:\{%.*?%\})?<(?:section|div) id=\"([\w-]+)\"([^>]*)>", html, re.M)
        assert tops and all('hx-swap-oob="true"' in attrs for _, attrs in tops)
        assert "sgs-board" in [panel for panel, _ in tops]


def test_a_frame_sends_the_grids_cells_named_and_the_page_draws_what_is_in_them(live_match):
    """What is in each cell travels once, as the view's board (the page's script paints it); a
    frame's board panel holds the cells named and empty, the same every round. A page as loaded
    draws the grid whole, for a browser without the script."""
    match = in_round(live_match)
    for viewer in (Viewer(seat=0), Viewer.spectator()):
        view = view_of(match, viewer)
        framed = dict(render_panel_list(match, view, version=match.version, oob=True))
        page = dict(render_panel_list(match, view, version=match.version, oob=False))
        assert len(grid_cells(page["sgs-board"])) == 100
        assert grid_cells(framed["sgs-board"]) == []
        named = re.findall(r'data-cell="(\w\d+)" aria-label="(\w\d+)"', framed["sgs-board"])
        assert len(named) == 100 and all(cell == label for cell, label in named)
        assert sent_view(match, view)["game"]["board"] == match.state["board"]


def test_the_new_match_page_creates_a_seven_gem_swap_match(client, make_user):
    client.force_login(make_user("hostess"))
    page = client.get("/matches/new/seven-gem-swap/")
    assert page.status_code == 200 and "Each round" in page.content.decode()
    response = client.post(
        "/matches/new/seven-gem-swap/",
        {
            "title": "Friday seven",
            "seat_count": "7",
            "auto_start": "on",
            "bid_seconds": "300",
            "round_seconds": "300",
            "no_card_scores": "own_colour",
            "board": "",
        },
    )
    match = Match.objects.get(title="Friday seven")
    assert response.status_code == 302
    assert match.game_key == "seven-gem-swap" and match.seats.count() == 7
    assert match.settings["round_seconds"] == 300 and match.settings["board"] == ""


def test_every_step_of_a_whole_bot_match_renders_for_every_viewer(client, clock, make_user):
    """The panels of every phase (bidding, each round, the end) for a seat, the host and a
    spectator: the replay renders each version through the same templates as a live frame."""
    host = make_user("hostess")
    match = seating.create_match(
        host=host,
        game_key="seven-gem-swap",
        title="Bots",
        settings={"bid_seconds": 60, "round_seconds": 60},
        roles=[""] * 7,
    )
    for index in range(7):
        seating.seat_bot(match, index, "club")
    for _ in range(80):
        clock.advance(11)
        while services.run_bots():
            pass
        deadlines.fire_due_deadlines()
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    for viewer in (Viewer(seat=1), Viewer.host(), Viewer.spectator()):
        for event in match.events.all():
            view = view_of(match, viewer, event.state, drafts=False)
            html = render_panels(match, view, version=event.version, oob=True)
            if event.state.get("phase") in ("round", "over"):
                assert 'id="sgs-board"' in html
        # The worker refuses to send a websocket message above 64 KiB (games/core serve's
        # MAX_MESSAGE_BYTES applies to outgoing messages too): every frame, even a full one
        # with every panel, stays well under it.
        full = full_frame(match, viewer).text(with_html=True, sent=None)
        assert len(full.encode()) < 48 * 1024, (viewer, len(full))
        stored = Announcement.stored(match, match.events.order_by("-version").first())
        [(_, last)] = update_frames(stored, [viewer])
        size = len(last.text(with_html=True, sent=None).encode())
        assert size < 48 * 1024, (viewer, size)
    client.force_login(host)
    html = client.get(f"{match.get_absolute_url()}replay/?v={match.version}").content.decode()
    assert "Rounds played" in html and "Host: every secret" in html
    final = client.get(match.get_absolute_url()).content.decode()
    # the page as drawn, not its view data
    panels = re.sub(r'<script id="match-view".*?</script>', "", final, flags=re.S)
    # One result panel: "Match over" and the summary said once.
    assert panels.count(match.state["result"]["summary"].split(".")[0]) == 1
    assert panels.count("Match over") == 1


def test_the_players_table_is_one_drawing_for_every_viewer_and_a_page_marks_its_own_row(
    client, live_match, monkeypatch
):
    """A round's end changes the table for everyone alike: it is drawn once, not once a seat;
    so is the grid a frame sends to the seats. A player's page names its seat on #match-root,
    and the style marks that row "(you)"."""
    match, ada, bob, host = live_match
    match = in_round(live_match)
    drawings = Lru(2048)
    monkeypatch.setattr(panelmemo, "DRAWINGS", drawings)
    viewers = [Viewer(seat=0), Viewer(seat=1), Viewer.spectator(), Viewer.host()]
    drawn = [
        dict(render_panel_list(match, view_of(match, v), version=match.version, oob=True))
        for v in viewers
    ]
    tables = {panels["sgs-players"] for panels in drawn}
    assert len(tables) == 1
    # Each drawn once, kept under one key: the grid a frame sends is the same for both seats
    # (the page paints each one's own gems), another for those who compose nothing.
    kept = list(drawings._kept.values())
    assert sum(html.startswith('<section id="sgs-players"') for html in kept) == 1
    assert sum(html.startswith('<section id="sgs-board"') for html in kept) == 2
    (table,) = tables
    assert 'data-seat="0"' in table and 'data-seat="1"' in table
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).content.decode()
    assert re.search(r'id="match-root"[^>]* data-you="1"', page)
    client.force_login(host)
    page = client.get(match.get_absolute_url()).content.decode()
    assert not re.search(r'id="match-root"[^>]* data-you=', page)


def test_drawing_every_viewers_page_leaves_the_state_it_reads_as_it_was(live_match):
    """A view holds each round's public part as the state does (not a copy): drawing every
    viewer's view and page from a state with rounds played leaves that state unchanged."""
    match = in_round(live_match)
    _, ada, bob, _host = live_match
    for user, colour in ((ada, "R"), (bob, "G")):
        gem = next(i for i, c in enumerate(match.state["board"].replace("\n", "")) if c == colour)
        services.submit_action(
            match, user, {"type": "submit", "round": 1, "gem": engine.cell_name(gem), "moves": ""}
        )
    match.refresh_from_db()
    assert match.state["history"]
    kept = json.loads(json.dumps(match.state))
    for viewer in [Viewer(seat=0), Viewer(seat=1), Viewer.spectator(), Viewer.host()]:
        render_panel_list(match, view_of(match, viewer), version=match.version, oob=True)
        render_panels(match, view_of(match, viewer), version=match.version, oob=False)
    assert match.state == kept


# --- a replaced sealed submission in the exports and replays (issue 34, item 5) ----------------


def own_gem(state: dict, seat: int) -> str:
    colour = state["colours"][str(seat)]
    return engine.cell_name(engine.parse_board(state["board"]).cells.index(colour))


def test_a_replaced_submission_is_in_no_one_elses_export_or_replay(client, live_match):
    match = in_round(live_match)
    _, ada, bob, host = live_match
    gem = own_gem(match.state, 0)
    services.submit_action(match, ada, {"type": "submit", "gem": gem, "moves": ""})
    services.submit_action(match, ada, {"type": "submit", "gem": gem, "moves": "", "card": None})
    host_operations.host_abort(match, host, reason="the export is read once it is over")
    replaced = match.events.get(kind="submitted", seat=0, version=match.events.count() - 1)
    assert replaced.replaces_a_sealed_move()

    def ada_submitted(user) -> list[int]:
        if user is None:
            client.logout()
        else:
            client.force_login(user)
        export = json.loads(client.get(f"/m/{match.public_id}/export.json").content)
        events = export["events"]
        return [e["version"] for e in events if (e["kind"], e["seat"]) == ("submitted", 0)]

    assert ada_submitted(ada) == ada_submitted(host) == [replaced.version - 1, replaced.version]
    for other in (bob, None):
        assert ada_submitted(other) == [replaced.version - 1]
        # The replay steps from the first submission to the abort, past the replacement.
        page = client.get(f"/m/{match.public_id}/replay/?v={replaced.version - 1}").content
        assert f"?v={replaced.version + 1}".encode() in page
        assert f'?v={replaced.version}"'.encode() not in page
        stepped = client.get(f"/m/{match.public_id}/replay/?v={replaced.version}").content
        assert b'data-version="%d"' % (replaced.version - 1) in stepped


def test_a_replaced_submission_reaches_no_one_else_live_as_an_event(live_match):
    """Live, the version of a replacement passes for a rival and a spectator without an event
    and without a panel to redraw: their pages and logs read one "submitted" for the seat, as
    their export does."""
    match = in_round(live_match)
    _, ada, _, _ = live_match
    gem = own_gem(match.state, 0)
    services.submit_action(match, ada, {"type": "submit", "gem": gem, "moves": ""})
    services.submit_action(match, ada, {"type": "submit", "gem": gem, "moves": "", "card": None})
    match.refresh_from_db()
    replacement = match.events.get(version=match.version)
    assert replacement.replaces_a_sealed_move()
    first = match.events.get(version=match.version - 1)
    before = dict(update_frames(Announcement.stored(match, first)))
    for viewer, frame in update_frames(Announcement.stored(match, replacement)):
        held: dict[str, str] = {}  # the panels this viewer's page holds after the first
        before[viewer].text(with_html=True, sent=held)
        head = json.loads(frame.text(with_html=True, sent=held))
        assert head["version"] == replacement.version, viewer
        if viewer.is_host or viewer.seat == 0:
            assert head["event"]["kind"] == "submitted", viewer
            continue
        assert head["event"] is None, viewer
        # The match facts and a seat's own draft are set whole in every update; the game's
        # view is unchanged.
        assert [op for op in head["patch"] if op[1][0] == "game"] == [], viewer
        # No panel is drawn again but the version's own mark, which every version moves.
        redrawn = [panel_id for panel_id, _ in head.get("html_patch", [])]
        assert head["html"] == "" and redrawn == ["match-version"], viewer
