"""Provably fair matches (games/core/fairness.py, docs/fairness.md): committed seeds mixed with
the players' own, and receipts for sealed moves, shown to everyone alike and revealed only when
their time comes."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from games.core import fairness, services
from games.core.flowkit import derived_seed
from games.core.gamedef import ActionError, Viewer
from games.core.models import Match
from games.core.rendering import view_of

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
    match = services.create_match(
        host=host, game_key="seven-gem-swap", title="", settings={}, roles=["", ""]
    )
    seeds = ["ada-seed-1", ""]
    for player, seat, seed in zip(players, match.seats.order_by("index"), seeds, strict=True):
        services.take_seat(match, player, seat.invite_token, seed)
    match = Match.objects.with_seats().get(pk=match.pk)
    match.players, match.host_user = players, host
    return match


@pytest.mark.django_db
def test_the_commitment_and_players_seeds_are_everyones_and_the_server_seed_no_ones(match):
    assert match.status == Match.Status.LIVE
    for viewer in EVERYONE:
        shown = view_of(match, viewer)
        facts = shown["match"]["fairness"]
        assert facts["commitment"] == fairness.commitment(match.public_id, match.server_seed)
        assert facts["players"] == {"0": "ada-seed-1"}
        assert match.server_seed not in json.dumps(shown), viewer
    start = match.events.get(kind="started")
    assert start.move["seed"] == services.match_seed(match)
    assert start.move["seed"].endswith(f"|{match.public_id}|0=ada-seed-1,1=")


@pytest.mark.django_db
def test_the_server_seed_is_shown_to_everyone_once_the_match_is_over(match):
    services.host_abort(match, match.host_user, "testing")
    match = Match.objects.with_seats().get(pk=match.pk)
    for viewer in EVERYONE:
        assert view_of(match, viewer)["match"]["fairness"]["server_seed"] == match.server_seed


@pytest.mark.django_db
def test_a_sealed_move_has_a_receipt_everyone_sees_and_its_nonce_stays_sealed(match):
    move = {"type": "bid", "bid": -4, "colours": "RGB"}
    nonce = "1234abcd" * 4
    sent = {**move, "nonce": nonce, "receipt": fairness.receipt(move, nonce)}
    services.submit_action(match, match.players[0], sent)
    match = Match.objects.with_seats().get(pk=match.pk)
    assert match.events.last().action == move  # the rules and the log keep the move alone
    for viewer in EVERYONE:
        shown = view_of(match, viewer)
        (receipt,) = shown["match"]["fairness"]["receipts"]
        assert receipt == {
            "seat": 0,
            "type": "bid",
            "version": match.version,
            "receipt": sent["receipt"],
            "by": "page",
            "state": "sealed",
        }
        assert nonce not in json.dumps(shown), viewer


@pytest.mark.django_db
def test_a_replaced_sealed_move_keeps_its_receipt_and_never_shows_its_move(match):
    services.submit_action(match, match.players[0], {"type": "bid", "bid": -4, "colours": "RGB"})
    services.submit_action(match, match.players[0], {"type": "bid", "bid": -2, "colours": "GRB"})
    services.submit_action(match, match.players[1], {"type": "bid", "bid": 0, "colours": "BGR"})
    services.host_abort(match, match.host_user, "testing")
    match = Match.objects.with_seats().get(pk=match.pk)
    receipts = view_of(match, Viewer.spectator())["match"]["fairness"]["receipts"]
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
    match = services.create_match(
        host=host, game_key="seven-gem-swap", title="", settings={}, roles=["", ""]
    )
    with pytest.raises(ActionError) as refused:
        services.take_seat(match, player, match.seats.first().invite_token, "no spaces allowed")
    assert refused.value.code == "bad_player_seed"
