"""The host dashboard through Django's test client as a staff host: a live match is read-only but
for the logged host actions, seats and awards are named as players see them, the board is the
host's view, clocks show seconds and time left, and pause / resume / award are buttons."""

from __future__ import annotations

import html
import json
import re
from datetime import datetime

import pytest
from django.urls import reverse

from games.core.game.gamedef import SeatInfo, Viewer
from games.core.game.registry import get_game
from games.core.match import deadlines, host_operations, seating, services
from games.core.models import Event, LedgerEntry, Match
from games.core.render.rendering import render_panels, view_of
from tests.flows import T0
from tests.registered import real_games, seat_roles

# --- fixtures and helpers ---------------------------------------------------------------------


@pytest.fixture
def host_client(client, tally_match):
    """The test client logged in as the tally match's host, made staff."""
    match, ada, bob, host = tally_match
    host.is_staff = host.is_superuser = True
    host.save()
    client.force_login(host)
    return client


@pytest.fixture
def death_match(clock, make_user, client):
    """A live death match (Ada EC in seat 1, Bob DMO in seat 2) and a client logged in as its
    staff host."""
    host = make_user("hostess", is_staff=True, is_superuser=True)
    ada, bob = make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host, game_key="bejeweled-dm", title="Final", settings={}, roles=["EC", "DMO"]
    )
    seats = list(match.seats.all())
    seating.take_seat(match, ada, seats[0].invite_token)
    seating.take_seat(match, bob, seats[1].invite_token)
    match.refresh_from_db()
    client.force_login(host)
    return match, ada, bob, host


def change_page(client, match: Match) -> str:
    response = client.get(reverse("admin:core_match_change", args=[match.pk]))
    assert response.status_code == 200
    return response.content.decode()


def award_choices_on(page: str) -> dict[str, str]:
    """The award choices of a console: label -> value."""
    select = re.search(r'<select name="award"[^>]*>(.*?)</select>', page, re.S)
    found = re.findall(r'<option value="([^"]+)"[^>]*>([^<]*)</option>', select.group(1))
    return {html.unescape(label).strip(): html.unescape(value) for value, label in found}


def operation_url(match: Match, name: str) -> str:
    return reverse("host_operation", args=[match.public_id, name])


def award(client, match: Match, label_start: str, reason: str = ""):
    choices = award_choices_on(change_page(client, match))
    value = next(v for label, v in choices.items() if label.startswith(label_start))
    back = reverse("admin:core_match_change", args=[match.pk])
    return client.post(
        operation_url(match, "award"), {"award": value, "reason": reason, "next": back}
    )


def last_event(match: Match) -> Event:
    return match.events.order_by("-version").first()


# --- awards named as players see seats --------------------------------------------------------


@pytest.mark.django_db
def test_the_award_form_names_each_seat_as_players_see_them(host_client, tally_match):
    match, *_ = tally_match
    page = change_page(host_client, match)
    assert list(award_choices_on(page)) == [
        "Seat 1: Ada (EC) wins the match",
        "Seat 2: Bob (DMO) wins the match",
    ]
    assert "counting from 0" not in page


@pytest.mark.django_db
def test_awarding_seat_2_bob_makes_bob_the_winner(client, death_match):
    match, ada, bob, host = death_match
    response = award(client, match, "Seat 2: Bob (DMO) wins the match", "Ada left the call")
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    winner = match.seats.get(index=match.result["winner"])
    assert winner.user == bob
    assert LedgerEntry.balance(bob)["garnets"] > 0 and LedgerEntry.balance(ada)["garnets"] == 0


@pytest.mark.django_db
def test_awarding_a_round_gives_it_to_the_named_seat_and_the_match_goes_on(client, death_match):
    match, *_ = death_match
    response = award(client, match, "Seat 2: Bob (DMO) wins round 1")
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.state["score"] == [0, 1]
    assert match.status == Match.Status.LIVE
    assert last_event(match).kind == "adjudicated" and last_event(match).actor is not None


@pytest.mark.django_db
def test_an_award_not_on_offer_is_refused_and_changes_nothing(host_client, tally_match):
    match, *_ = tally_match
    forged = json.dumps({"scope": "match", "winner": 5})
    response = host_client.post(operation_url(match, "award"), {"award": forged}, follow=True)
    assert response.status_code == 200
    assert "that award is not on offer now" in response.content.decode()
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE and match.result is None


@pytest.mark.django_db
def test_the_award_reason_is_in_the_event_players_receive(host_client, tally_match):
    match, *_ = tally_match
    award(host_client, match, "Seat 2: Bob", "Ada's connection dropped for good")
    event = last_event(match)
    assert event.kind == "adjudicated"
    assert event.public["host_reason"] == "Ada's connection dropped for good"


@pytest.mark.django_db
def test_the_award_reason_is_passed_to_the_game(host_client, tally_match, monkeypatch):
    match, *_ = tally_match
    received = []
    monkeypatch.setattr(
        host_operations, "host_adjudicate", lambda match, actor, award: received.append(award)
    )
    award(host_client, match, "Seat 2: Bob", "  left the call  ")
    assert received == [{"scope": "match", "winner": 1, "reason": "  left the call  "}]


# --- a live match is read-only but for the host actions ---------------------------------------


@pytest.mark.django_db
def test_the_change_page_of_a_live_match_has_no_editable_status_settings_or_seat_users(
    host_client, tally_match
):
    match, *_ = tally_match
    page = change_page(host_client, match)
    for field in ("status", "settings", "game_key", "state", "host", "seats-0-user"):
        assert f'name="{field}"' not in page, field
    assert 'name="title"' in page


@pytest.mark.django_db
def test_posting_a_new_status_to_a_live_match_changes_nothing_but_the_title(
    host_client, tally_match
):
    match, *_ = tally_match
    page = change_page(host_client, match)
    form = page[page.index('id="match_form"') :]
    posted = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    posted.update(
        title="Semifinal",
        status="finished",
        settings='{"target": 1}',
        **{"seats-0-user": "", "seats-1-user": ""},
    )
    response = host_client.post(reverse("admin:core_match_change", args=[match.pk]), posted)
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.title == "Semifinal"
    assert match.status == Match.Status.LIVE
    assert match.settings["target"] == 10
    assert all(seat.user_id for seat in match.seats.all())


@pytest.mark.django_db
def test_a_match_is_not_added_in_the_dashboard(host_client):
    assert host_client.get(reverse("admin:core_match_add")).status_code == 403


@pytest.mark.django_db
def test_a_live_match_cannot_be_deleted(host_client, tally_match):
    match, *_ = tally_match
    response = host_client.get(reverse("admin:core_match_delete", args=[match.pk]))
    assert response.status_code == 403
    changelist = host_client.get(reverse("admin:core_match_changelist")).content.decode()
    assert "delete_selected" not in changelist and 'name="action"' not in changelist


@pytest.mark.django_db
def test_the_match_list_names_the_game_and_the_players(host_client, tally_match):
    page = host_client.get(reverse("admin:core_match_changelist")).content.decode()
    assert "Tally (test fixture)" in page
    assert "Seat 1: Ada (EC) · Seat 2: Bob (DMO)" in page


@pytest.mark.django_db
def test_seats_are_shown_named_as_players_see_them(host_client, tally_match):
    match, *_ = tally_match
    page = change_page(host_client, match)
    assert "Seat 1: Ada (EC) · Seat 2: Bob (DMO)" in page


# --- the host's view of the board -------------------------------------------------------------


@pytest.mark.django_db
def test_the_change_page_frames_the_hosts_view_of_the_board(client, death_match):
    match, *_ = death_match
    page = change_page(client, match)
    board_url = reverse("admin:core_match_board", args=[match.pk])
    assert f'<iframe class="host-board" src="{board_url}"' in page


@pytest.mark.django_db
def test_the_board_is_the_games_panels_with_its_stylesheets(client, death_match):
    match, *_ = death_match
    response = client.get(reverse("admin:core_match_board", args=[match.pk]))
    board = response.content.decode()
    host_view = view_of(match, Viewer.host())
    assert str(render_panels(match, host_view, version=match.version, oob=False)) in board
    assert len(set(re.findall(r'data-cell="([A-Z]\d+)"', board))) == 56
    assert "css/bejeweled_dm.css" in board and "css/arena.css" in board
    assert 'hx-swap-oob="true"' not in board
    assert f'data-ws-url="/ws/m/{match.public_id}/"' in board and "js/match.js" in board
    assert response["X-Frame-Options"] == "SAMEORIGIN"


@pytest.mark.django_db
def test_the_board_is_what_the_host_may_see(host_client, tally_match):
    match, *_ = tally_match
    board = host_client.get(reverse("admin:core_match_board", args=[match.pk])).content.decode()
    for secret in match.state["secrets"].values():
        assert secret in board


@pytest.mark.django_db
def test_the_raw_state_is_kept_collapsed_below(host_client, tally_match):
    match, *_ = tally_match
    page = change_page(host_client, match)
    raw = page.index("Raw data (for debugging)")
    assert page.rfind("<details", 0, raw) > page.rfind("</details>", 0, raw)
    assert "&quot;secrets&quot;" in page[raw:]
    assert page.index("The host&#x27;s view of the board") < raw


# --- clocks with seconds ----------------------------------------------------------------------


@pytest.mark.django_db
def test_a_running_clock_shows_the_time_left_in_seconds(clock, host_client, tally_match):
    match, *_ = tally_match
    clock.advance(18.4)
    page = change_page(host_client, match)
    assert "0:11 left" in page
    due = datetime.fromisoformat(match.state["deadlines"]["turn"])
    assert f"due {due:%H:%M:%S}, 0:11 left" in page


@pytest.mark.django_db
def test_a_fired_clock_shows_when_it_fired_and_its_successor_is_running(
    clock, host_client, tally_match
):
    match, *_ = tally_match
    clock.advance(31)
    deadlines.fire_due_deadlines()
    page = change_page(host_client, match)
    assert f"fired {clock.current:%H:%M:%S}" in page
    assert "0:30 left" in page


@pytest.mark.django_db
def test_a_replaced_clock_shows_cancelled(clock, host_client, tally_match):
    match, ada, *_ = tally_match
    clock.advance(5)
    services.submit_action(match, ada, {"type": "add", "amount": 1})
    assert "cancelled" in change_page(host_client, match)


@pytest.mark.django_db
def test_a_paused_match_shows_the_time_each_clock_keeps(clock, host_client, tally_match):
    match, *_ = tally_match
    clock.advance(10)
    host_operations.host_pause(match, match.host)
    clock.advance(100)
    assert "0:20 left when resumed (paused)" in change_page(host_client, match)


# --- pause, resume and award as buttons -------------------------------------------------------


@pytest.mark.django_db
def test_the_change_page_of_a_live_match_offers_pause_and_abort(host_client, tally_match):
    match, *_ = tally_match
    page = change_page(host_client, match)
    assert f'action="{operation_url(match, "pause")}"' in page
    assert f'action="{operation_url(match, "abort")}"' in page
    assert operation_url(match, "resume") not in page


@pytest.mark.django_db
def test_the_pause_button_pauses_the_match_and_is_logged(host_client, tally_match):
    match, _, _, host = tally_match
    back = reverse("admin:core_match_change", args=[match.pk])
    response = host_client.post(operation_url(match, "pause"), {"next": back})
    assert response.status_code == 302 and response["Location"] == back
    match.refresh_from_db()
    assert match.status == Match.Status.PAUSED
    event = last_event(match)
    assert (event.kind, event.actor) == ("paused", host)


@pytest.mark.django_db
def test_the_resume_button_resumes_the_match_and_is_logged(clock, host_client, tally_match):
    match, _, _, host = tally_match
    host_client.post(operation_url(match, "pause"))
    clock.advance(60)
    page = change_page(host_client, match)
    resume = operation_url(match, "resume")
    assert f'action="{resume}"' in page
    assert host_client.post(resume).status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    event = last_event(match)
    assert (event.kind, event.actor, event.public) == ("resumed", host, {"paused_seconds": 60})


@pytest.mark.django_db
def test_a_host_action_is_never_taken_by_a_get(host_client, tally_match):
    match, *_ = tally_match
    response = host_client.get(operation_url(match, "pause"))
    assert response.status_code == 405
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE


@pytest.mark.django_db
def test_a_refused_host_action_is_shown_as_an_error(host_client, tally_match):
    match, *_ = tally_match
    response = host_client.post(operation_url(match, "resume"), follow=True)
    assert "only a paused match can be resumed" in response.content.decode()


@pytest.mark.django_db
def test_the_abort_button_records_the_reason(host_client, tally_match):
    match, *_ = tally_match
    host_client.post(operation_url(match, "abort"), {"reason": "the venue lost power"})
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED
    assert last_event(match).public == {"host_reason": "the venue lost power"}
    assert "Aborted (the venue lost power)." in change_page(host_client, match)


@pytest.mark.django_db
def test_an_abort_without_a_reason_is_refused(host_client, tally_match):
    match, *_ = tally_match
    response = host_client.post(operation_url(match, "abort"), {"reason": "  "}, follow=True)
    assert "say why you abort the match" in response.content.decode()
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE


@pytest.mark.django_db
def test_a_finished_match_offers_only_a_correction(host_client, tally_match):
    match, *_ = tally_match
    host_operations.host_adjudicate(match, match.host, {"winner": 0})
    page = change_page(host_client, match)
    assert operation_url(match, "pause") not in page
    assert operation_url(match, "award") not in page
    assert operation_url(match, "abort") not in page
    assert operation_url(match, "correct") in page


# --- every game's award choices are awards the game accepts (no database) ---------------------


def started(game_key: str, seat_count: int):
    game = get_game(game_key)
    roles = (*game.roles, *[""] * seat_count)
    seats = [
        SeatInfo(index=i, role=roles[i], name=name)
        for i, name in enumerate(["Ada", "Bob", "Cy"][:seat_count])
    ]
    settings = game.clean_settings({})
    return game, game.start(settings, seats, 7, T0).state, seats


@pytest.mark.parametrize("game_key", real_games())
def test_every_award_offered_is_accepted_by_the_game(game_key):
    game, state, seats = started(game_key, get_game(game_key).min_seats)
    choices = game.award_choices(state, seats)
    assert choices
    for value, label in choices:
        outcome = game.adjudicate(state, json.loads(value), T0)
        assert outcome.kind, label


@pytest.mark.parametrize(
    ("game_key", "seat_count", "expected"),
    [
        (
            "bejeweled-dm",
            2,
            [
                "Seat 1: Ada (EC) wins round 1 (the match goes on)",
                "Seat 2: Bob (DMO) wins round 1 (the match goes on)",
                "Seat 1: Ada (EC) wins the match",
                "Seat 2: Bob (DMO) wins the match",
            ],
        ),
        ("bejeweled-2", 1, ["End the game: Seat 1: Ada wins", "End the game with no winner"]),
        (
            "seven-gem-swap",
            2,
            [
                "Seat 1: Ada wins the match (2 Tokens of Life)",
                "Seat 2: Bob wins the match (2 Tokens of Life)",
            ],
        ),
    ],
)
def test_each_game_offers_its_own_awards(game_key, seat_count, expected):
    game, state, seats = started(game_key, seat_count)
    assert [label for _, label in game.award_choices(state, seats)] == expected


def test_a_glittering_paths_round_is_ended_as_it_stands():
    game, state, seats = started("glittering-paths", 2)
    assert game.end_round_label(state).startswith("round 1 as it stands")
    ended = game.end_round(state, T0)
    assert ended.state["phase"] == "interval" and ended.public["reason"] == "host"
    labels = [label for _, label in game.award_choices(state, seats)]
    assert "Seat 2: Bob (DMO) wins the match" in labels


def test_no_award_is_offered_once_a_game_is_over():
    game, state, seats = started("bejeweled-dm", 2)
    over = game.adjudicate(state, {"winner": 1, "scope": "match"}, T0).state
    assert game.award_choices(over, seats) == []


@pytest.mark.django_db
def test_a_finished_match_says_who_won_by_name(client, death_match):
    match, *_ = death_match
    award(client, match, "Seat 2: Bob (DMO) wins the match")
    assert "Seat 2: Bob (DMO) won." in change_page(client, match)


@pytest.mark.django_db
@pytest.mark.parametrize("game_key", real_games())
def test_every_games_live_match_has_a_console_and_a_board(clock, client, make_user, game_key):
    host = make_user("hostess", is_staff=True, is_superuser=True)
    game = get_game(game_key)
    seat_count = game.min_seats
    roles = seat_roles(game, seat_count)
    match = seating.create_match(
        host=host, game_key=game_key, title="Heat", settings={}, roles=roles
    )
    for seat, name in zip(match.seats.all(), ["ada", "bob", "cy"], strict=False):
        seating.take_seat(match, make_user(name), seat.invite_token)
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    client.force_login(host)
    page = change_page(client, match)
    assert award_choices_on(page)
    board = client.get(reverse("admin:core_match_board", args=[match.pk])).content.decode()
    for sheet in game.stylesheets:
        assert sheet in board


def test_the_dashboard_is_named_for_the_hosts(host_client):
    page = host_client.get(reverse("admin:index")).content.decode()
    assert "Gem Arena host dashboard" in page
    assert "<title>Matches, seasons and players | Gem Arena hosts</title>" in page
    assert "Django administration" not in page
