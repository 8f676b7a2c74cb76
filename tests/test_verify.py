"""The verifier (games/verify) on finished matches of every game, played by their bots: the
export of each passes, and a changed server seed, a changed revealed move and a changed outcome
are each caught and named."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from games.core.match import host_operations, seating, services
from games.verify import verify
from tests.bot_matches import TABLES, play

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def exports(django_db_setup, django_db_blocker):
    """Each game's bot match played to its end (or ended by the host after 300 events), and
    its export as a spectator downloads it: committed once for this file's tests."""
    from django.contrib.auth import get_user_model

    from tests.conftest import FakeClock

    found: dict[str, dict[str, Any]] = {}
    with django_db_blocker.unblock(), pytest.MonkeyPatch.context() as patch:
        clock = FakeClock()
        patch.setattr("games.core.match.clock.now", clock)
        host = get_user_model().objects.create_user("verify-host")
        matches = []
        for game in sorted(TABLES):
            match = play(game, host, clock.advance, events=300).match
            if not match.is_over:
                host_operations.host_abort(match, host, "the test has seen enough")
            matches.append(match)
            response = Client().get(f"/m/{match.public_id}/export.json")
            found[game] = response.json()
            if match.game.sealed_for_good:  # the host's export: every move, every receipt
                hosting = Client()
                hosting.force_login(host)
                found[f"{game}:host"] = hosting.get(f"/m/{match.public_id}/export.json").json()
    yield found
    with django_db_blocker.unblock():
        for match in matches:
            match.delete()
        host.delete()


@pytest.fixture(params=sorted(TABLES))
def export(request, exports):
    return copy.deepcopy(exports[request.param])


def test_it_passes_a_bot_match_of_every_game(export):
    report = verify(export)
    assert report.ok, "\n".join(report.lines())
    assert any("matches the commitment" in line for line in report.checked)
    assert any("events replayed" in line for line in report.checked)


def test_it_names_a_changed_server_seed(export):
    seed = export["fairness"]["server_seed"]
    export["fairness"]["server_seed"] = ("0" if seed[0] != "0" else "1") + seed[1:]
    report = verify(export)
    assert not report.ok
    assert "is not the one committed to" in report.problem


def test_it_names_a_changed_outcome(export):
    events = export["verify"]["events"]
    started = next(e for e in events if e["rule"] == "start")
    key = next(iter(started["public"]))
    started["public"][key] = "changed"
    report = verify(export)
    assert not report.ok
    assert f"v{started['version']} {started['kind']}: its {key!r} was recorded as" in (
        report.problem
    )


def test_the_command_prints_what_it_checked(exports, tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(exports["seven-gem-swap"]))
    done = subprocess.run(
        [sys.executable, "-m", "games.verify", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "All checks pass." in done.stdout
    assert "matches the commitment" in done.stdout


@pytest.mark.parametrize("game", ["bejeweled-dm", "seven-gem-swap:host"])
def test_it_names_a_revealed_move_that_is_not_its_receipts(exports, game):
    export = copy.deepcopy(exports[game])
    receipt = next(r for r in export["fairness"]["receipts"] if r["state"] == "revealed")
    key = next(k for k in receipt["move"] if k != "type")
    receipt["move"][key] = "changed"
    report = verify(export)
    assert not report.ok
    assert f"(v{receipt['version']}) does not match its revealed move" in report.problem


@pytest.mark.parametrize("game", ["bejeweled-dm", "seven-gem-swap:host"])
def test_it_names_a_sealed_move_the_server_changed_after_its_receipt(exports, game):
    """The server plays another move than the page sealed (its receipt and the move it
    reveals stay the page's): the move played is not the one the receipt sealed."""
    export = copy.deepcopy(exports[game])
    receipt = next(r for r in export["fairness"]["receipts"] if r["state"] == "revealed")
    event = next(e for e in export["verify"]["events"] if e["version"] == receipt["version"])
    key = next(k for k in event["action"] if k != "type")
    event["action"][key] = "changed"
    report = verify(export)
    assert not report.ok
    assert "the move played is not the one its receipt" in report.problem
    assert f"v{receipt['version']}" in report.problem


def test_it_names_a_changed_players_seed(export):
    players = export["fairness"]["players"]
    players["0"] = players.get("0", "") + "x"
    report = verify(export)
    assert not report.ok
    assert "started from another seed" in report.problem


@pytest.mark.parametrize("game", ["bejeweled-dm", "pointsweeper"])
def test_it_names_a_changed_result(exports, game):
    export = copy.deepcopy(exports[game])
    result = export["verify"]["result"]
    result["winner"] = 1 - result["winner"]
    report = verify(export)
    assert not report.ok
    assert "the result's 'winner' is recorded as" in report.problem


def test_it_lists_the_hosts_interventions_beside_the_checks(exports):
    export = copy.deepcopy(exports["bejeweled-dm"])
    report = verify(export)
    assert report.ok and report.interventions == []
    assert "Host interventions: none; the result stands as played." in report.lines()


def test_a_replaced_sealed_move_stays_sealed_and_the_match_still_checks_out(make_user, clock):
    """Ada replaces her bid: no export's record shows the first one (only the host's event log,
    as the host saw it come), and the verifier plays her final bid in its place (the state it
    leaves is the same)."""
    host, ada, bob = make_user("rhost"), make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host, game_key="seven-gem-swap", title="", settings={}, roles=["", ""]
    )
    for user, seat in zip((ada, bob), match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    services.submit_action(match, ada, {"type": "bid", "bid": -7, "colours": "ROY"})
    services.submit_action(match, ada, {"type": "bid", "bid": -2, "colours": "GRB"})
    services.submit_action(match, bob, {"type": "bid", "bid": 0, "colours": "BGR"})
    host_operations.host_abort(match, host, "enough")
    assert "ROY" not in Client().get(f"/m/{match.public_id}/export.json").content.decode()
    hosting = Client()  # the host, who saw every bid, checks the whole match
    hosting.force_login(host)
    export = hosting.get(f"/m/{match.public_id}/export.json").json()
    assert "ROY" not in json.dumps(export["verify"]) + json.dumps(export["fairness"])
    report = verify(export)
    assert report.ok, "\n".join(report.lines())
    assert "all 2 revealed receipts match their moves (1 replaced" in "\n".join(report.checked)
    assert any("aborted" in line and "enough" in line for line in report.interventions)


def test_a_seven_gem_swap_export_keeps_every_bid_and_sequence_secret_for_anyone_but_the_host(
    exports,
):
    """No one else ever sees another player's bid or sequence, during or after the match (the
    rules): a spectator's export withholds them and the verifier says what it could not replay;
    the host's export replays the whole match and opens every receipt."""
    spectators, hosts = exports["seven-gem-swap"], exports["seven-gem-swap:host"]
    secret = {"bid", "submit"}
    assert not any(
        (e.get("action") or {}).get("type") in secret for e in spectators["verify"]["events"]
    )
    assert all(r["state"] != "revealed" for r in spectators["fairness"]["receipts"])
    assert not any("nonce" in r or "move" in r for r in spectators["fairness"]["receipts"])
    report = verify(spectators)
    assert report.ok, "\n".join(report.lines())
    said = "\n".join(report.checked)
    assert "secret for good" in said and "the host's export replays" in said
    hosted = verify(hosts)
    assert hosted.ok, "\n".join(hosted.lines())
    assert "events replayed with the open rules give what was shown" in "\n".join(hosted.checked)
    assert any(r["state"] == "revealed" for r in hosts["fairness"]["receipts"])
