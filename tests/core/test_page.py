"""The match page every game shares: banner, host controls, result, award, rematch; the lobby."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.urls import reverse

from games.core.game.gamedef import Viewer
from games.core.game.registry import get_game
from games.core.match import host_operations, seating, services
from games.core.models import Match
from games.core.render.rendering import render_panel_list, view_of

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def page_of(client, match: Match, user=None) -> str:
    if user is not None:
        client.force_login(user)
    return client.get(match.get_absolute_url()).content.decode()


def finish(match: Match, ada, bob) -> Match:
    """Each adds 3 in turn: Bob, second, reaches the target of 10 (with 12)."""
    for user in [ada, bob, ada, bob]:
        services.submit_action(match, user, {"type": "add", "amount": 3})
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    return match


def host_panel(match: Match) -> str:
    match.refresh_from_db()
    panels = dict(
        render_panel_list(match, view_of(match, Viewer.host()), version=match.version, oob=True)
    )
    return panels["host-panel"]


# --- the banner -----------------------------------------------------------------------------


def test_the_banner_is_on_every_match_page_with_the_connection_state(client, clock, tally_match):
    match, ada, *_ = tally_match
    page = page_of(client, match, ada)
    assert 'id="match-banner"' in page
    assert 'id="connection"' in page
    assert 'id="match-announce"' in page and 'role="status"' in page


def test_the_banner_shows_the_paused_notice_only_while_paused(client, clock, tally_match):
    match, ada, bob, host = tally_match
    assert 'id="banner-status" class="banner-status" hidden' in page_of(client, match, ada)
    host_operations.host_pause(match, host)
    paused = page_of(client, match)
    assert 'id="banner-status" class="banner-status">Paused by the host' in paused


# --- host controls ----------------------------------------------------------------------------


def test_a_player_gets_no_host_controls(client, clock, tally_match):
    match, ada, *_ = tally_match
    assert 'id="host-panel"' not in page_of(client, match, ada)


def test_the_host_of_a_live_match_can_pause_award_and_abort(client, clock, tally_match):
    match, *_, host = tally_match
    page = page_of(client, match, host)
    assert reverse("host_operation", args=[match.public_id, "pause"]) in page
    assert reverse("host_operation", args=[match.public_id, "award"]) in page
    assert reverse("host_operation", args=[match.public_id, "abort"]) in page
    assert reverse("host_operation", args=[match.public_id, "resume"]) not in page


def test_the_host_controls_offer_resume_while_paused(clock, tally_match):
    match, *_, host = tally_match
    host_operations.host_pause(match, host)
    panel = host_panel(match)
    assert "/host/resume/" in panel
    assert "/host/pause/" not in panel


def test_once_the_match_is_over_the_host_may_only_correct_it(clock, tally_match):
    match, ada, bob, _host = tally_match
    finish(match, ada, bob)
    panel = host_panel(match)
    assert "/host/correct/" in panel
    for gone in ("pause", "resume", "award", "abort", "clock", "replace"):
        assert f"/host/{gone}/" not in panel


def test_a_host_control_over_htmx_answers_with_the_refusal_only(client, clock, tally_match):
    match, *_, host = tally_match
    client.force_login(host)
    url = reverse("host_operation", args=[match.public_id, "resume"])
    response = client.post(url, headers=HTMX)
    assert response.status_code == 200
    assert response.content.decode() == "only a paused match can be resumed"


def test_a_host_control_over_htmx_answers_empty_when_done(client, clock, tally_match):
    match, *_, host = tally_match
    client.force_login(host)
    response = client.post(reverse("host_operation", args=[match.public_id, "pause"]), headers=HTMX)
    assert response.content == b""
    match.refresh_from_db()
    assert match.status == Match.Status.PAUSED


# --- award by name ----------------------------------------------------------------------------


def award_options(page: str) -> list[tuple[str, str, str]]:
    """The award select's options: (value, confirmation, label)."""
    select = re.search(r'<select name="award" required>(.*?)</select>', page, re.S).group(1)
    found = re.findall(
        r'<option value="([^"]*)"(?: data-confirm="([^"]*)")?>([^<]*)</option>', select
    )
    return [(html.unescape(v), html.unescape(c), html.unescape(label)) for v, c, label in found]


def test_the_award_form_names_each_player_and_preselects_no_one(client, clock, tally_match):
    match, *_, host = tally_match
    options = award_options(page_of(client, match, host))
    assert options[0] == ("", "", "Choose…")
    labels = [label for _, _, label in options[1:]]
    assert labels == ["Seat 1: Ada (EC) wins the match", "Seat 2: Bob (DMO) wins the match"]


def test_the_award_confirmation_names_the_winner_and_the_loser(client, clock, tally_match):
    match, *_, host = tally_match
    confirms = [confirm for _, confirm, _ in award_options(page_of(client, match, host))[1:]]
    assert confirms[1] == (
        "Seat 2: Bob (DMO) wins the match? Ada (EC) loses the match; it ends now."
    )


def test_the_host_awards_the_match_to_the_player_chosen(client, clock, tally_match):
    match, ada, bob, host = tally_match
    client.force_login(host)
    bobs = award_options(page_of(client, match, host))[2][0]
    url = reverse("host_operation", args=[match.public_id, "award"])
    client.post(url, {"award": bobs, "reason": "Ada left"}, headers=HTMX)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result["winner"] == 1
    assert "<b>Bob</b> wins" in page_of(client, match, ada)


@pytest.mark.parametrize("headers", [HTMX, {}])
def test_a_player_cannot_award_the_match_and_is_answered_403(client, clock, tally_match, headers):
    match, ada, *_ = tally_match
    client.force_login(ada)
    award = json.dumps({"scope": "match", "winner": 0})
    url = reverse("host_operation", args=[match.public_id, "award"])
    response = client.post(url, {"award": award}, headers=headers)
    assert response.status_code == 403
    assert response.content.decode() == "only the host can do that"
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE


def test_an_award_to_no_seat_is_refused(client, clock, tally_match):
    match, *_, host = tally_match
    client.force_login(host)
    url = reverse("host_operation", args=[match.public_id, "award"])
    response = client.post(url, {"award": '{"scope": "match", "winner": 7}'}, headers=HTMX)
    assert response.content.decode() == (
        "that award is not on offer now (the match has moved on); choose again"
    )


# --- the result -------------------------------------------------------------------------------


def test_no_result_panel_while_the_match_is_live(client, clock, tally_match):
    match, ada, *_ = tally_match
    assert 'id="match-result"' not in page_of(client, match, ada)


def test_the_result_names_the_winner_and_links_the_replay(client, clock, tally_match):
    match, ada, bob, _host = tally_match
    finish(match, ada, bob)
    page = page_of(client, match, bob)
    assert 'id="match-result"' in page
    assert '<b>Bob</b> wins (<abbr title="Death Match Opponent">DMO</abbr>)' in page
    assert reverse("replay", args=[match.public_id]) in page


def test_the_result_panel_comes_in_the_frame_that_ends_the_match(clock, tally_match):
    from games.core.render.rendering import Announcement, update_frames

    match, ada, bob, _host = tally_match
    finish(match, ada, bob)
    last = match.events.order_by("version").last()
    for _viewer, frame in update_frames(Announcement.stored(match, last)):
        assert any(panel.id == "match-result" for panel in frame.panels)


def test_the_host_gets_a_rematch_button_and_players_do_not(client, clock, tally_match):
    match, ada, bob, host = tally_match
    finish(match, ada, bob)
    rematch_url = reverse("rematch", args=[match.public_id])
    assert rematch_url in page_of(client, match, host)
    assert rematch_url not in page_of(client, match, ada)


# --- rematch ----------------------------------------------------------------------------------


def test_a_rematch_copies_game_settings_title_and_seats_the_same_players(
    client, clock, tally_match
):
    match, ada, bob, host = tally_match
    finish(match, ada, bob)
    client.force_login(host)
    response = client.post(reverse("rematch", args=[match.public_id]))
    fresh = Match.objects.exclude(pk=match.pk).get()
    assert response["Location"] == fresh.get_absolute_url()
    assert (fresh.game_key, fresh.title, fresh.settings) == (
        match.game_key,
        match.title,
        match.settings,
    )
    assert [(s.index, s.role, s.user) for s in fresh.seats.all()] == [
        (0, "EC", ada),
        (1, "DMO", bob),
    ]
    assert fresh.status == Match.Status.LIVE  # every seat taken: it starts by itself


def test_a_rematch_keeps_each_bot_at_its_level(clock, make_user):
    host, ada = make_user("h"), make_user("ada")
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="Bots", settings={}, roles=["EC", "DMO"]
    )
    seating.seat_bot(match, 0, "peek")
    seating.take_seat(match, ada, match.seats.get(index=1).invite_token)
    host_operations.host_abort(match, host)
    fresh = host_operations.rematch(match, host)
    assert [(s.bot_level, s.user) for s in fresh.seats.all()] == [("peek", None), ("", ada)]


def test_the_players_get_the_rematch_link_in_the_result(client, clock, tally_match):
    match, ada, bob, host = tally_match
    finish(match, ada, bob)
    fresh = host_operations.rematch(match, host)
    page = page_of(client, match, bob)
    assert f'href="{fresh.get_absolute_url()}"' in page
    assert "Rematch ready" in page


def test_asking_for_a_rematch_twice_gives_the_same_match(clock, tally_match):
    match, ada, bob, host = tally_match
    finish(match, ada, bob)
    assert host_operations.rematch(match, host).pk == host_operations.rematch(match, host).pk
    assert Match.objects.count() == 2


def test_a_rematch_is_refused_while_the_match_is_live(client, clock, tally_match):
    match, *_, host = tally_match
    client.force_login(host)
    response = client.post(reverse("rematch", args=[match.public_id]), headers=HTMX)
    assert response.content.decode() == "a rematch is made once the match is over"
    assert Match.objects.count() == 1


def test_only_the_host_makes_a_rematch(client, clock, tally_match):
    match, ada, bob, _host = tally_match
    finish(match, ada, bob)
    client.force_login(ada)
    client.post(reverse("rematch", args=[match.public_id]), headers=HTMX)
    assert Match.objects.count() == 1


def test_a_rematch_over_htmx_sends_the_host_to_the_new_match(client, clock, tally_match):
    match, ada, bob, host = tally_match
    finish(match, ada, bob)
    client.force_login(host)
    response = client.post(reverse("rematch", args=[match.public_id]), headers=HTMX)
    fresh = Match.objects.exclude(pk=match.pk).get()
    assert response["HX-Redirect"] == fresh.get_absolute_url()


# --- invites, lobby, wording ------------------------------------------------------------------


def test_each_invite_link_and_the_spectators_link_have_a_copy_button(client, make_user):
    host = make_user("h")
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="", settings={}, roles=["EC", "DMO"]
    )
    page = page_of(client, match, host)
    assert page.count('class="copy" data-copy=') == 3
    for seat in match.seats.all():
        assert seat.get_invite_url() in page


def test_the_lobby_lists_each_game_with_its_description(client):
    page = client.get(reverse("lobby")).content.decode()
    game = get_game("bejeweled-dm")
    assert f"<h3>{game.title}</h3>" in page
    assert game.rules_summary in page


def test_the_lobby_links_a_games_own_start_page(client, monkeypatch):
    game = get_game("bejeweled-2")
    monkeypatch.setattr(type(game), "play_url_name", "bejeweled2_play")
    page = client.get(reverse("lobby")).content.decode()
    assert f'href="{reverse("bejeweled2_play")}">Play</a>' in page


def test_the_new_match_page_names_the_game_once(client, make_user):
    client.force_login(make_user("h"))
    page = client.get(reverse("new_match_settings", args=["bejeweled-dm"])).content.decode()
    assert "New match: Bejeweled death match" in page
    assert "match match" not in page
