"""A death match's ticked picks, sealed by the end of the picking time (issue 38): the draft a
clock may seal as a seat's pick gets a receipt when it is kept, every viewer sees that receipt
at once (never the draft), and it is the receipt the clock reveals, with the pick the clock made
of the draft, so that a draft changed after its receipt is caught by every page's check and by
the verifier (games/verify)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from games.core.game import fairness
from games.core.game.gamedef import ActionError, Viewer
from games.core.match import deadlines, host_operations, services
from games.core.models import Match, Seat
from games.core.render.fairplay import fairness_facts
from games.core.render.rendering import view_of
from games.verify import verify
from tests.bejeweled_dm.test_services import CHOSEN, PLUS_PROOF, dm, pick, sent

__all__ = ["dm"]  # the fixture

pytestmark = pytest.mark.django_db

DRAFTED = {"starter": "Rotate", "passive": "Recolor", "active": "Refresh"}
OTHER = {"starter": "Swap", "passive": "Chain", "active": "Column"}
NONCE = "5eed" * 8
EVERYONE = [Viewer(seat=0), Viewer(seat=1), Viewer.host(), Viewer.spectator()]


def sealed(pick: dict[str, str], nonce: str = NONCE) -> dict[str, object]:
    """A draft as the page sends it: the ticks, and the receipt of the pick they would be."""
    move = {"type": "pick", **pick}
    return {"pick": pick, "nonce": nonce, "receipt": fairness.receipt(move, nonce)}


@pytest.fixture
def picking(clock, dm):
    """A death match in its first pick phase: Ada won round 1, Bob has not picked yet."""
    match, ada, bob, host = dm(**CHOSEN)
    services.submit_action(match, ada, {"type": "claim", "count": 5})
    services.submit_action(match, bob, {"type": "pass"})
    services.submit_action(match, ada, {"type": "proof", "proof": PLUS_PROOF})
    match.refresh_from_db()
    assert match.state["phase"] == "pick"
    return match, ada, bob, host


def fresh(match: Match) -> Match:
    return Match.objects.with_seats().get(pk=match.pk)


def time_up(match: Match, clock) -> Match:
    clock.advance(600)
    deadlines.fire_due_deadlines()
    match = fresh(match)
    assert match.events.filter(kind="pick_time_up").exists()
    return match


def export_of(match: Match, user=None) -> dict:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client.get(f"/m/{match.public_id}/export.json").json()


def test_a_whole_ticked_pick_gets_its_pages_receipt_which_every_viewer_sees_at_once(picking):
    match, ada, bob, host = picking
    before = match.version
    draft = sealed(DRAFTED)
    assert services.save_draft(match, bob, draft) == {"round": 1, "pick": DRAFTED}
    match = fresh(match)
    event = match.events.last()
    assert (event.kind, event.version, event.informational) == ("draft_sealed", before + 1, True)
    assert event.action is None and event.seat is None
    (receipt,) = fairness_facts(match)["receipts"][-1:]
    assert receipt == {
        "seat": 1,
        "name": "Bob",
        "type": "pick",
        "version": event.version,
        "receipt": draft["receipt"],
        "by": "page",
        "draft": True,
        "state": "sealed",
    }
    for viewer in EVERYONE:
        frame = sent(match, viewer, event)
        assert frame["event"]["data"] == {"seat": 1, "receipt": draft["receipt"]}, viewer
        assert "Bob's draft pick: receipt <code" in frame["html"], viewer
        assert NONCE not in json.dumps(frame), viewer
    assert match.seats.get(index=1).draft == {"round": 1, "pick": DRAFTED}


def test_the_draft_and_its_nonce_reach_no_one_but_its_seat_and_the_host(picking, client):
    """Everyone sees the receipt; the ticks stay the seat's and the host's (as every draft),
    and the nonce is no one's before the reveal: not in any view, frame, page, record or
    export."""
    match, ada, bob, host = picking
    services.save_draft(match, bob, sealed(DRAFTED))
    match = fresh(match)
    event = match.events.last()
    for viewer in (Viewer(seat=0), Viewer.spectator()):
        shown = view_of(match, viewer)
        assert shown.get("draft") is None and "drafts" not in shown, viewer  # Ada's own: none
        assert shown["game"]["picks"]["mine"] is None, viewer
        assert '"drafts"' not in json.dumps(sent(match, viewer, event)), viewer
    assert view_of(match, Viewer(seat=1))["draft"]["pick"] == DRAFTED
    assert view_of(match, Viewer.host())["drafts"]["1"]["pick"] == DRAFTED
    pages = {"spectator": client.get(match.get_absolute_url()).content.decode()}
    for name, user in (("ada", ada), ("bob", bob), ("host", host)):
        client.force_login(user)
        pages[name] = client.get(match.get_absolute_url()).content.decode()
        pages[f"{name}'s export"] = client.get(f"/m/{match.public_id}/export.json").content
    pages["record"] = client.get(f"/m/{match.public_id}/fairness.json").content.decode()
    for name, page in pages.items():
        text = page.decode() if isinstance(page, bytes) else page
        assert NONCE not in text and match.server_seed not in text, name
    for name in ("ada", "spectator"):
        assert "Bob's draft pick: receipt" in pages[name]


def test_a_draft_receipt_makes_no_action_stale(picking):
    match, ada, bob, host = picking
    seen = match.version
    services.save_draft(match, bob, sealed(DRAFTED))
    assert not services._moved_on_since(fresh(match), seen)
    services.submit_action(match, ada, {"type": "pick", **OTHER}, expected_version=seen)


def test_the_clock_reveals_the_drafts_receipt_with_the_pick_it_made(picking, clock):
    match, ada, bob, host = picking
    pick(match, ada, *OTHER.values())
    draft = sealed(DRAFTED)
    services.save_draft(match, bob, draft)
    match = time_up(match, clock)
    assert match.state["history"][-1]["picks"]["1"] == DRAFTED
    receipts = fairness_facts(match)["receipts"]
    (revealed,) = [r for r in receipts if r.get("draft")]
    assert revealed["receipt"] == draft["receipt"]
    assert revealed["state"] == "revealed"
    assert (revealed["move"], revealed["nonce"]) == ({"type": "pick", **DRAFTED}, NONCE)
    assert fairness.receipts_match({"receipts": receipts}) == (2, [])
    assert "Bob's draft pick: receipt" in fairness_facts_line(match, draft["receipt"])


def fairness_facts_line(match: Match, digest: str) -> str:
    from games.core.render.fairplay import fairness_panel

    html = str(fairness_panel(match))
    line = next(li for li in html.split("<li") if digest in li)
    assert "(sealed by the clock, revealed)" in line
    return line


def test_a_replaced_draft_keeps_its_receipt_marked_replaced_and_never_shows_its_pick(
    picking, clock
):
    match, ada, bob, host = picking
    first, second = sealed(OTHER), sealed(DRAFTED, nonce="c0ffee" * 4)
    services.save_draft(match, bob, first)
    services.save_draft(match, bob, second)
    match = time_up(match, clock)
    drafts = [r for r in fairness_facts(match)["receipts"] if r.get("draft")]
    assert [(r["receipt"], r["state"]) for r in drafts] == [
        (first["receipt"], "replaced"),
        (second["receipt"], "revealed"),
    ]
    assert "move" not in drafts[0] and "nonce" not in drafts[0]
    assert fairness_facts(match)["receipts"][-1]["move"] == {"type": "pick", **DRAFTED}


def test_a_draft_overtaken_by_the_seats_own_pick_is_replaced_never_revealed(picking):
    match, ada, bob, host = picking
    services.save_draft(match, bob, sealed(DRAFTED))
    pick(match, bob, *OTHER.values())
    pick(match, ada, *OTHER.values())
    match = fresh(match)
    receipts = fairness_facts(match)["receipts"]
    assert [(r["type"], r.get("draft", False), r["state"]) for r in receipts] == [
        ("pick", True, "replaced"),
        ("pick", False, "revealed"),
        ("pick", False, "revealed"),
    ]
    assert "move" not in receipts[0]


def test_a_draft_that_is_no_longer_a_whole_pick_replaces_its_receipt(picking):
    match, ada, bob, host = picking
    services.save_draft(match, bob, sealed(DRAFTED))
    services.save_draft(match, bob, {"pick": {"starter": "Rotate"}})
    match = fresh(match)
    assert match.events.last().kind == "draft_unsealed"
    assert match.events.last().public == {"seat": 1}
    (receipt,) = fairness_facts(match)["receipts"]
    assert receipt["state"] == "replaced"


def test_a_drafts_seal_that_is_not_the_picks_is_refused_and_nothing_is_kept(picking):
    match, ada, bob, host = picking
    wrong = {**sealed(DRAFTED), "pick": OTHER}
    with pytest.raises(ActionError) as refused:
        services.save_draft(match, bob, wrong)
    assert refused.value.code == "bad_receipt"
    match = fresh(match)
    assert match.seats.get(index=1).draft is None
    assert not fairness_facts(match)["receipts"]


def test_a_whole_draft_sent_without_a_seal_gets_a_receipt_the_server_makes(picking, clock):
    """An older page's draft (no seal): the server seals the pick it would be, as it does a
    bot's move, so every draft a clock seals has a receipt; the same draft again adds none."""
    match, ada, bob, host = picking
    services.save_draft(match, bob, {"pick": DRAFTED})
    services.save_draft(match, bob, {"pick": DRAFTED})
    match = fresh(match)
    (receipt,) = fairness_facts(match)["receipts"]
    assert (receipt["by"], receipt["draft"], receipt["state"]) == ("server", True, "sealed")
    match = time_up(match, clock)
    (receipt,) = fairness_facts(match)["receipts"]
    assert receipt["state"] == "revealed"
    assert fairness.receipts_match({"receipts": [receipt]}) == (1, [])


def test_a_draft_sent_after_its_seats_pick_gets_no_receipt(picking):
    """The clock never seals the draft of a seat that has picked: no receipt, no event."""
    match, ada, bob, host = picking
    pick(match, bob, *OTHER.values())
    version = fresh(match).version
    services.save_draft(match, bob, sealed(DRAFTED))
    match = fresh(match)
    assert match.version == version
    assert [r.get("draft", False) for r in fairness_facts(match)["receipts"]] == [False]


def test_a_bot_match_with_a_clock_sealed_draft_passes_the_verifier(picking, clock):
    match, ada, bob, host = picking
    services.save_draft(match, bob, sealed(DRAFTED))
    match = time_up(match, clock)
    host_operations.host_abort(match, host, "the test has seen enough")
    report = verify(export_of(fresh(match)))
    assert report.ok, "\n".join(report.lines())
    assert "1 drafts sealed by a clock: each is the move its receipt sealed" in "\n".join(
        report.checked
    )


def test_a_draft_the_server_changed_after_its_receipt_is_caught_by_every_page_and_the_verifier(
    picking, clock
):
    """The server (simulated) changes Bob's kept ticks after their receipt was shown: the clock
    seals the changed pick, and the receipt revealed with it does not match, for every page's
    check (fairness.receipts_match is the page's check, static/js/fairness.js) and for the
    verifier."""
    match, ada, bob, host = picking
    draft = sealed(DRAFTED)
    services.save_draft(match, bob, draft)
    Seat.objects.filter(match=match, index=1).update(draft={"round": 1, "pick": OTHER})
    match = time_up(match, clock)
    assert match.state["history"][-1]["picks"]["1"] == OTHER
    checked, wrong = fairness.receipts_match(fairness_facts(match))
    assert checked == 1 and [w["receipt"] for w in wrong] == [draft["receipt"]]
    host_operations.host_abort(match, host, "the test has seen enough")
    report = verify(export_of(fresh(match)))
    assert not report.ok
    assert "the receipt of Bob's draft pick" in report.problem
    assert "does not match its revealed move" in report.problem


def test_the_verifier_names_a_clock_that_sealed_another_pick_than_the_drafts_receipt(
    picking, clock
):
    """A server that reveals the draft's pick as sealed, yet played another (its record
    changed): the move the rules make of the draft the clock found is not the receipt's."""
    match, ada, bob, host = picking
    services.save_draft(match, bob, sealed(DRAFTED))
    match = time_up(match, clock)
    host_operations.host_abort(match, host, "the test has seen enough")
    export = export_of(fresh(match))
    timeout = next(e for e in export["verify"]["events"] if e["kind"] == "pick_time_up")
    timeout["inputs"]["drafts"]["1"]["pick"] = OTHER
    report = verify(export)
    assert not report.ok
    assert f"v{timeout['version']} pick_time_up: the move the clock made of Bob's draft" in (
        report.problem
    )


def test_the_verifier_names_a_clock_sealed_draft_without_a_receipt(picking, clock):
    match, ada, bob, host = picking
    services.save_draft(match, bob, sealed(DRAFTED))
    match = time_up(match, clock)
    host_operations.host_abort(match, host, "the test has seen enough")
    export = export_of(fresh(match))
    export["fairness"]["receipts"] = [
        r for r in export["fairness"]["receipts"] if not r.get("draft")
    ]
    report = verify(export)
    assert not report.ok
    assert "Bob's draft, sealed by the clock, has no receipt" in report.problem


def test_a_draft_still_sealed_when_the_match_ends_is_never_shown(picking):
    """The host ends the match while Bob's ticks wait for the clock: the draft never became a
    pick, so its receipt is shown replaced, its ticks and nonce never, and the match checks."""
    match, ada, bob, host = picking
    services.save_draft(match, bob, sealed(DRAFTED))
    host_operations.host_abort(match, host, "the test has seen enough")
    match = fresh(match)
    (receipt,) = fairness_facts(match)["receipts"]
    assert receipt["state"] == "replaced" and "nonce" not in receipt
    export = export_of(match)
    assert NONCE not in json.dumps(export)
    report = verify(export)
    assert report.ok, "\n".join(report.lines())
