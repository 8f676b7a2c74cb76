"""Provably fair matches (games/core/game/fairness.py, docs/fairness.md): committed seeds mixed with
the players' own, and receipts for sealed moves, shown to everyone alike and revealed only when
their time comes."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from games.core.game import fairness
from games.core.game.flowkit import derived_seed
from games.core.game.gamedef import ActionError, Viewer
from games.core.match import host_operations, seating, services
from games.core.models import Match
from games.core.render.fairplay import fairness_facts
from games.core.render.rendering import view_of

EVERYONE = [Viewer(seat=0), Viewer(seat=1), Viewer.host(), Viewer.spectator()]


def test_every_draw_is_an_hmac_of_the_server_seed_over_the_match_the_players_and_the_purpose():
    seed = fairness.match_seed("ab" * 32, "M1", "0=abc,1=")
    expected = hmac.new(bytes.fromhex("ab" * 32), b"M1|0=abc,1=|refill:3", hashlib.sha256)
    assert derived_seed(seed, "refill", 3) == int.from_bytes(expected.digest()[:8], "big")


def test_a_players_seed_changes_every_draw():
    one = fairness.match_seed("ab" * 32, "M1", "0=abc,1=")
    other = fairness.match_seed("ab" * 32, "M1", "0=abd,1=")
    assert derived_seed(one, "board") != derived_seed(other, "board")


def test_an_older_matchs_number_draws_as_it_always_did():
    digest = hashlib.sha256(b"12345:board:1").digest()
    assert derived_seed(12345, "board", 1) == int.from_bytes(digest[:8], "big")


def test_a_receipt_that_is_not_the_moves_is_refused():
    move = {"type": "bid", "bid": -5, "colours": "RGB"}
    nonce = "0f" * 16
    sealed = {**move, "nonce": nonce, "receipt": fairness.receipt(move, nonce)}
    assert fairness.split_seal(sealed) == (move, {"nonce": nonce, "receipt": sealed["receipt"]})
    with pytest.raises(ValueError, match="not this move's"):
        fairness.split_seal({**sealed, "bid": -6})


@pytest.fixture
def match(make_user, clock):
    host = make_user("fairhost")
    players = [make_user("ada"), make_user("bob")]
    match = seating.create_match(
        host=host, game_key="seven-gem-swap", title="", settings={}, roles=["", ""]
    )
    seeds = ["ada-seed-1", ""]
    for player, seat, seed in zip(players, match.seats.order_by("index"), seeds, strict=True):
        seating.take_seat(match, player, seat.invite_token, seed)
    match = Match.objects.with_seats().get(pk=match.pk)
    match.players, match.host_user = players, host
    return match


@pytest.mark.django_db
def test_the_commitment_and_players_seeds_are_everyones_and_the_server_seed_no_ones(match):
    assert match.status == Match.Status.LIVE
    facts = fairness_facts(match)
    assert facts["commitment"] == fairness.commitment(match.public_id, match.server_seed)
    assert facts["players"] == {"0": "ada-seed-1"}
    assert "server_seed" not in facts
    for viewer in EVERYONE:
        assert match.server_seed not in json.dumps(view_of(match, viewer)), viewer
    start = match.events.get(kind="started")
    assert start.move["seed"] == seating.match_seed(match)
    assert start.move["seed"].endswith(f"|{match.public_id}|0=ada-seed-1,1=")


@pytest.mark.django_db
def test_the_server_seed_is_shown_to_everyone_once_the_match_is_over(match):
    host_operations.host_abort(match, match.host_user, "testing")
    match = Match.objects.with_seats().get(pk=match.pk)
    assert fairness_facts(match)["server_seed"] == match.server_seed


@pytest.mark.django_db
def test_a_sealed_move_has_a_receipt_everyone_sees_and_its_nonce_stays_sealed(match):
    move = {"type": "bid", "bid": -4, "colours": "RGB"}
    nonce = "1234abcd" * 4
    sent = {**move, "nonce": nonce, "receipt": fairness.receipt(move, nonce)}
    services.submit_action(match, match.players[0], sent)
    match = Match.objects.with_seats().get(pk=match.pk)
    assert match.events.last().action == move  # the rules and the log keep the move alone
    (receipt,) = fairness_facts(match)["receipts"]
    assert receipt == {
        "seat": 0,
        "name": "Ada",
        "type": "bid",
        "version": match.version,
        "receipt": sent["receipt"],
        "by": "page",
        "state": "sealed",
    }
    for viewer in EVERYONE:
        assert nonce not in json.dumps(view_of(match, viewer)), viewer


@pytest.mark.django_db
def test_a_replaced_sealed_move_keeps_its_receipt_and_never_shows_its_move(match):
    services.submit_action(match, match.players[0], {"type": "bid", "bid": -4, "colours": "RGB"})
    services.submit_action(match, match.players[0], {"type": "bid", "bid": -2, "colours": "GRB"})
    services.submit_action(match, match.players[1], {"type": "bid", "bid": 0, "colours": "BGR"})
    host_operations.host_abort(match, match.host_user, "testing")
    match = Match.objects.with_seats().get(pk=match.pk)
    # Everyone: Seven Gem Swap's bids stay secret for good (its rules), receipts and all.
    public = fairness_facts(match)["receipts"]
    assert [r["state"] for r in public] == ["replaced", "sealed", "sealed"]
    assert not any("move" in r or "nonce" in r for r in public)
    # The host, who saw them, gets them opened once the match is over.
    receipts = fairness_facts(match, Viewer.host())["receipts"]
    assert [r["state"] for r in receipts] == ["replaced", "revealed", "revealed"]
    assert "move" not in receipts[0] and "nonce" not in receipts[0]
    assert receipts[1]["move"] == {"type": "bid", "bid": -2, "colours": "GRB"}
    assert fairness.receipts_match({"receipts": receipts}) == (2, [])


@pytest.mark.django_db
def test_a_move_whose_receipt_is_not_its_own_is_refused(match):
    move = {"type": "bid", "bid": -4, "colours": "RGB"}
    nonce = "1234abcd" * 4
    sent = {**move, "bid": -9, "nonce": nonce, "receipt": fairness.receipt(move, nonce)}
    with pytest.raises(ActionError) as refused:
        services.submit_action(match, match.players[0], sent)
    assert refused.value.code == "bad_receipt"


@pytest.mark.django_db
def test_a_bad_players_seed_is_refused(make_user, clock):
    host, player = make_user("h2"), make_user("p2")
    match = seating.create_match(
        host=host, game_key="seven-gem-swap", title="", settings={}, roles=["", ""]
    )
    with pytest.raises(ActionError) as refused:
        seating.take_seat(match, player, match.seats.first().invite_token, "no spaces allowed")
    assert refused.value.code == "bad_player_seed"


@pytest.mark.django_db
def test_every_page_shows_the_commitment_and_the_receipts_and_no_nonce_before_the_reveal(
    match, client
):
    move = {"type": "bid", "bid": -4, "colours": "RGB"}
    nonce = "1234abcd" * 4
    sent = {**move, "nonce": nonce, "receipt": fairness.receipt(move, nonce)}
    services.submit_action(match, match.players[0], sent)
    others = [("host", match.host_user), ("bob", match.players[1])]
    match = Match.objects.with_seats().get(pk=match.pk)
    pages = {"spectator": client.get(match.get_absolute_url()).content.decode()}
    for name, user in others:
        client.force_login(user)
        pages[name] = client.get(match.get_absolute_url()).content.decode()
    for name, page in pages.items():
        assert 'id="match-fairness"' in page, name
        assert match.seed_commitment in page, name
        assert "Ada has submitted a bid: receipt <code" in page, name
        assert sent["receipt"][:8] in page, name
        assert nonce not in page and match.server_seed not in page, name


@pytest.mark.django_db
def test_a_seated_page_gives_its_seed_before_the_start_and_only_once(make_user, clock, client):
    host, ada, bob = make_user("h3"), make_user("ada3"), make_user("bob3")
    match = seating.create_match(
        host=host, game_key="seven-gem-swap", title="", settings={}, roles=["", ""]
    )
    first, second = match.seats.order_by("index")
    seating.take_seat(match, ada, first.invite_token)  # seated without a seed
    client.force_login(ada)
    url = f"/m/{match.public_id}/seed/"
    assert client.post(url, {"player_seed": "from-adas-page"}).status_code == 204
    assert client.post(url, {"player_seed": "another"}).status_code == 204  # the first stands
    match.refresh_from_db()
    assert match.fairness["players"] == {"0": "from-adas-page"}
    assert match.events.last().public["player_seed"] == "from-adas-page"
    seating.take_seat(match, bob, second.invite_token)  # the last seat: the match starts
    client.force_login(bob)
    refused = client.post(url, {"player_seed": "too-late"})
    assert refused.status_code == 400 and b"has started" in refused.content
    match.refresh_from_db()
    assert match.events.get(kind="started").move["seed"].endswith("|0=from-adas-page,1=")


@pytest.mark.django_db
def test_the_whole_record_is_anyones_to_read_and_holds_no_nonce_before_its_reveal(match, client):
    move = {"type": "bid", "bid": -4, "colours": "RGB"}
    nonce = "1234abcd" * 4
    sent = {**move, "nonce": nonce, "receipt": fairness.receipt(move, nonce)}
    services.submit_action(match, match.players[0], sent)
    response = client.get(f"/m/{match.public_id}/fairness.json")
    assert response.status_code == 200
    facts = response.json()
    assert [r["receipt"] for r in facts["receipts"]] == [sent["receipt"]]
    assert nonce not in response.content.decode()
    assert match.server_seed not in response.content.decode()


@pytest.mark.django_db
def test_no_notification_carries_a_seed_or_a_nonce(match, django_capture_on_commit_callbacks):
    from games.notifications.models import Delivery, Notification

    move = {"type": "bid", "bid": -4, "colours": "RGB"}
    nonce = "1234abcd" * 4
    sent = {**move, "nonce": nonce, "receipt": fairness.receipt(move, nonce)}
    with django_capture_on_commit_callbacks(execute=True):
        services.submit_action(match, match.players[0], sent)
        services.submit_action(match, match.players[1], {"type": "bid", "bid": 0, "colours": "BGR"})
    notes = list(Notification.objects.values_list("text", "url"))
    deliveries = list(Delivery.objects.values_list("public_text", "url", "destination"))
    assert notes, "the match's start and its rounds tell the players"
    said = json.dumps([notes, deliveries])
    assert match.server_seed not in said and nonce not in said
