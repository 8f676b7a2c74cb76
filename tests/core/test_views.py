from __future__ import annotations

import pytest
from django.urls import reverse

from games.core.match import seating, services
from games.core.models import Match

pytestmark = pytest.mark.django_db


def test_the_lobby_lists_open_live_and_finished_matches(client, clock, tally_match, make_user):
    match, *_ = tally_match
    seating.create_match(
        host=make_user("h9"),
        game_key="fixture-tally",
        title="Still open",
        settings={},
        roles=["EC", "DMO"],
    )
    page = client.get(reverse("lobby")).content.decode()
    assert "Still open" in page
    assert match.title in page
    assert "Live now" in page


def test_the_lobby_refreshes_its_lists_as_a_fragment_for_htmx(client):
    response = client.get(reverse("lobby"), headers={"HX-Request": "true"})
    assert b"<html" not in response.content
    assert b"Waiting for players" in response.content


def test_signing_up_logs_in_with_a_display_name(client, django_user_model):
    response = client.post(
        reverse("signup"),
        {
            "username": "newbie",
            "display_name": "New Bie",
            "password1": "a-long-pass-99",
            "password2": "a-long-pass-99",
        },
    )
    assert response.status_code == 302
    assert django_user_model.objects.get(username="newbie").first_name == "New Bie"
    assert b"New Bie" in client.get(reverse("lobby")).content


def test_an_invite_link_asks_a_guest_to_log_in_first(client, make_user):
    match = seating.create_match(
        host=make_user("h"), game_key="fixture-tally", title="", settings={}, roles=["EC", "DMO"]
    )
    seat = match.seats.first()
    response = client.get(seat.get_invite_url())
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_following_an_invite_link_takes_the_seat(client, make_user):
    match = seating.create_match(
        host=make_user("h"), game_key="fixture-tally", title="", settings={}, roles=["EC", "DMO"]
    )
    player = make_user("pat")
    client.force_login(player)
    seat = match.seats.first()
    assert b"Take the seat" in client.get(seat.get_invite_url()).content
    client.post(seat.get_invite_url())
    seat.refresh_from_db()
    assert seat.user == player


def test_a_forged_invite_token_is_not_found(client, make_user):
    match = seating.create_match(
        host=make_user("h"), game_key="fixture-tally", title="", settings={}, roles=["EC", "DMO"]
    )
    client.force_login(make_user("pat"))
    assert client.get(reverse("join_seat", args=[match.public_id, "forged"])).status_code == 404


def test_an_unknown_match_is_not_found(client):
    assert client.get(reverse("match", args=["nope"])).status_code == 404


def test_the_fixture_game_cannot_be_created_from_the_site(client, make_user):
    client.force_login(make_user("h"))
    assert client.get(reverse("new_match_settings", args=["fixture-tally"])).status_code == 404
    assert b"Tally" not in client.get(reverse("new_match")).content


def test_the_match_page_shows_a_player_only_their_own_secret(client, clock, tally_match):
    match, ada, bob, host = tally_match
    client.force_login(ada)
    page = client.get(match.get_absolute_url()).content.decode()
    assert match.state["secrets"]["0"] in page
    assert match.state["secrets"]["1"] not in page


def test_only_the_host_sees_invite_links(client, make_user):
    host = make_user("h")
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="", settings={}, roles=["EC", "DMO"]
    )
    token = match.seats.first().invite_token
    assert token not in client.get(match.get_absolute_url()).content.decode()
    client.force_login(host)
    assert token in client.get(match.get_absolute_url()).content.decode()


def test_the_host_pauses_from_the_match_page_and_others_cannot(client, clock, tally_match):
    match, ada, bob, host = tally_match
    client.force_login(ada)
    client.post(reverse("host_operation", args=[match.public_id, "pause"]))
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    client.force_login(host)
    client.post(reverse("host_operation", args=[match.public_id, "pause"]))
    match.refresh_from_db()
    assert match.status == Match.Status.PAUSED


def test_the_replay_steps_through_a_finished_match(client, clock, tally_match):
    match, ada, bob, host = tally_match
    for user in [ada, bob, ada, bob]:
        services.submit_action(match, user, {"type": "add", "amount": 3})
    page = client.get(reverse("replay", args=[match.public_id]) + "?v=4").content.decode()
    assert "Event <b>4</b> of 7" in page
    assert "?v=3" in page and "?v=5" in page


def test_the_replay_waits_for_the_end_of_the_match(client, clock, tally_match):
    match, *_ = tally_match
    response = client.get(reverse("replay", args=[match.public_id]))
    assert response.status_code == 302


def test_the_admin_dashboard_lists_matches_with_events(client, clock, tally_match):
    match, ada, bob, host = tally_match
    host.is_staff = host.is_superuser = True
    host.save()
    client.force_login(host)
    page = client.get(reverse("admin:core_match_change", args=[match.pk])).content.decode()
    assert "seat_taken" in page and "started" in page
    response = client.post(
        reverse("host_operation", args=[match.public_id, "award"]),
        {"award": '{"scope": "match", "winner": 1}', "reason": "opponent left"},
    )
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.result == {"winner": 1, "host_reason": "opponent left"}
