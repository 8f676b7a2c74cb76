"""The match core for every game: sealed actions against one version, drafts, bots that see only
their seat's view, prizes per seat, the host's view of private parts (fixture games)."""

from __future__ import annotations

import json

import pytest
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from games.core.game.gamedef import Viewer
from games.core.match import deadlines, seating, services
from games.core.models import LedgerEntry, Match, Seat
from games.core.render.rendering import view_of
from tests.fixture_game import TALLY

pytestmark = pytest.mark.django_db


@pytest.fixture
def sealed_match(make_user, clock):
    def make(seats: int):
        host = make_user("host-sealed")
        players = [make_user(f"s{i}") for i in range(seats)]
        match = seating.create_match(
            host=host, game_key="fixture-sealed", title="", settings={}, roles=[""] * seats
        )
        for player, seat in zip(players, match.seats.order_by("index"), strict=True):
            seating.take_seat(match, player, seat.invite_token)
        match.refresh_from_db()
        return match, players

    return make


@pytest.mark.parametrize("seats", [2, 7])
def test_sealed_submissions_against_the_same_version_are_all_accepted(sealed_match, seats):
    match, players = sealed_match(seats)
    seen = match.version
    for index, player in enumerate(players):
        services.submit_action(match, player, {"type": "bid", "bid": -index}, expected_version=seen)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result == {"bids": {str(i): -i for i in range(seats)}}


def test_a_versioned_action_sent_against_an_old_version_is_still_refused(tally_match):
    match, ada, bob, _ = tally_match
    seen = match.version
    services.submit_action(match, ada, {"type": "add", "amount": 1}, expected_version=seen)
    with pytest.raises(services.ActionError) as refused:
        services.submit_action(match, bob, {"type": "add", "amount": 1}, expected_version=seen)
    assert refused.value.code == "stale_version"


def test_a_draft_is_kept_for_its_seat_and_the_host_only(tally_match):
    match, ada, bob, _ = tally_match
    kept = services.save_draft(match, ada, {"amount": 2})
    assert kept == {"amount": 2}
    match = Match.objects.get(pk=match.pk)  # as a reload reads it
    assert view_of(match, Viewer(seat=0))["draft"] == {"amount": 2}
    assert view_of(match, Viewer.host())["drafts"] == {"0": {"amount": 2}}
    assert view_of(match, Viewer(seat=1))["draft"] is None
    assert "drafts" not in view_of(match, Viewer.spectator())
    for viewer in (Viewer(seat=1), Viewer.spectator()):
        assert '"amount": 2' not in json.dumps(view_of(match, viewer))


def test_a_draft_the_game_refuses_is_not_kept(tally_match):
    match, ada, *_ = tally_match
    with pytest.raises(services.ActionError) as refused:
        services.save_draft(match, ada, {"amount": 9})
    assert refused.value.code == "bad_draft"
    assert Seat.objects.get(match=match, index=0).draft is None


def test_a_spectator_cannot_keep_a_draft(tally_match, make_user):
    match, *_ = tally_match
    with pytest.raises(services.ActionError) as refused:
        services.save_draft(match, make_user("eve"), {"amount": 1})
    assert refused.value.code == "not_seated"


def test_an_accepted_action_clears_its_seats_draft(tally_match):
    match, ada, *_ = tally_match
    services.save_draft(match, ada, {"amount": 2})
    services.submit_action(match, ada, {"type": "add", "amount": 3})
    assert Seat.objects.get(match=match, index=0).draft is None


def test_a_deadline_seals_what_the_draft_holds(tally_match, clock):
    match, ada, *_ = tally_match
    services.save_draft(match, ada, {"amount": 2})
    clock.advance(31)
    assert deadlines.fire_due_deadlines() == 1
    match.refresh_from_db()
    assert match.state["total"] == 2
    assert match.events.last().kind == "draft_sealed"
    assert Seat.objects.get(match=match, index=0).draft is None


def test_a_bot_decides_from_its_seats_view_without_the_other_secret(make_user, clock):
    host, ada = make_user("hb"), make_user("ada-b")
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="", settings={}, roles=["EC", "DMO"]
    )
    seats = list(match.seats.all())
    seating.seat_bot(match, 1, "peek")
    seating.take_seat(match, ada, seats[0].invite_token)
    match.refresh_from_db()
    TALLY.bot_views.clear()
    services.submit_action(match, ada, {"type": "add", "amount": 1})
    assert services.run_bots() == 1
    match.refresh_from_db()
    ada_secret = match.state["secrets"]["0"]
    assert TALLY.bot_views, "the bot was asked"
    for view in TALLY.bot_views:
        assert view["my_secret"] == match.state["secrets"]["1"]
        assert ada_secret not in json.dumps(view)
        assert "secrets" not in view


def test_a_prize_per_seat_lands_in_the_ledger(tally_match):
    match, ada, bob, _ = tally_match
    for player, amount in [(ada, 3), (bob, 3), (ada, 3), (bob, 1)]:
        services.submit_action(match, player, {"type": "add", "amount": amount})
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert LedgerEntry.balance(bob) == {"garnets": 3, "tokens_of_life": 0}
    assert LedgerEntry.balance(ada) == {"garnets": 0, "tokens_of_life": 1}


def test_the_host_sees_each_seats_private_part_under_its_seat(tally_match):
    match, ada, bob, _ = tally_match
    services.submit_action(match, ada, {"type": "add", "amount": 1})
    event = match.events.last()
    host_data = event.seen_by(Viewer.host())["data"]
    assert set(host_data["private"]) == {"0"}
    assert "note" not in event.seen_by(Viewer(seat=1))["data"]


def test_the_lock_reads_the_match_and_its_seats_as_the_querysets_do(tally_match):
    """Match.objects.locked: the row with every field, the seats in order with their users'
    names and emails (what an action reads) without another query, and a client action id
    already used by that user's seat."""
    match, ada, bob, _ = tally_match
    ada.first_name, ada.email = "Ada <L>", "ada@example.org"
    ada.save()
    services.submit_action(match, ada, {"type": "add", "amount": 2}, client_action_id="a1")
    expected = Match.objects.with_seats().get(pk=match.pk)
    with transaction.atomic():
        locked = Match.objects.locked(match.pk, client_action_id="a1", user_id=ada.pk)
        with CaptureQueriesContext(connection) as queries:
            seats = [(s.index, s.user_id, s.player_name, s.user.email) for s in locked.seats.all()]
            assert all(seat.match is locked for seat in locked.seats.all())
        assert queries.captured_queries == []
        assert seats == [
            (s.index, s.user_id, s.player_name, s.user.email) for s in expected.seats.all()
        ]
        assert seats[0][2] == "Ada <L>" and seats[0][3] == "ada@example.org"
        for field in Match._meta.concrete_fields:
            assert getattr(locked, field.attname) == getattr(expected, field.attname), field.name
        assert locked.rows_live and locked.earlier_version == match.version + 1
        assert (
            Match.objects.locked(match.pk, client_action_id="a1", user_id=bob.pk).earlier_version
            is None
        )
    with transaction.atomic(), pytest.raises(Match.DoesNotExist):
        Match.objects.locked(10**9)


def test_an_action_takes_at_most_six_queries(tally_match):
    match, ada, *_ = tally_match
    with CaptureQueriesContext(connection) as queries:
        services.submit_action(
            match,
            ada,
            {"type": "add", "amount": 1},
            client_action_id="a1",
            expected_version=match.version,
        )
    # The test runs inside a transaction, so the action's own shows as a savepoint: not a query.
    sql = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert len(sql) <= 6, [q[:90] for q in sql]


@override_settings(PANEL_MEMO_CHECK=False)
def test_a_memo_block_is_rendered_once_per_distinct_value_and_never_mixed_up():
    from django.template import engines

    page = engines["jinja2"].env.from_string(
        "<b>{% memo %}{{ board.text }}:{{ seat }}{{ tick() }}{% endmemo %}</b>"
    )
    drawn: list[int] = []

    def tick() -> str:
        drawn.append(1)
        return ""

    def render(board: dict, seat: int) -> str:
        return page.render(board=board, seat=seat, tick=tick)

    first = render({"text": "RGB"}, 0)
    again = render({"text": "RGB"}, 0)
    other = render({"text": "YYY"}, 0)
    theirs = render({"text": "RGB"}, 1)
    assert first == again == "<b>RGB:0</b>" and other == "<b>YYY:0</b>" and theirs == "<b>RGB:1</b>"
    assert len(drawn) == 3  # the second rendering of the same board and seat reused the first
