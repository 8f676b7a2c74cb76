"""Fair play on a phone (docs/fairness.md): a finished death match's page says its receipts
match, and says which do not when the server shows a sealed move other than the one its page
sealed (simulated here by changing the record after the match); ticked picks show their
receipt to everyone at once, and the clock that seals them reveals it, checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from playwright.sync_api import expect

from games.core.match import host_operations, services
from games.core.models import Match, Seat
from tests.bejeweled_dm.test_services import CHOSEN, PLUS_PROOF
from tests.core.test_replay import play_death_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture
def finished_match(transactional_db, make_user, clock):
    """Played before the browser starts (its event loop would stop the broadcasts)."""
    match = play_death_match(make_user, clock)
    while services.run_analyses():
        pass
    match.refresh_from_db()
    return match


def test_the_page_checks_every_receipt_and_names_a_move_changed_after_it(
    finished_match, login_context
):
    match = finished_match
    receipts = [r for r in match.fairness["receipts"] if r["state"] == "revealed"]
    assert receipts, "the death match's picks have receipts"
    page = login_context(None)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/m/{match.public_id}/")
    panel = page.locator("#match-fairness")
    check = panel.locator("[data-fairness-check]")
    expect(check).to_have_text(f"· all {len(receipts)} receipts match")
    panel.locator("summary").click()
    expect(panel.locator("li[data-receipt]").first).to_contain_text("has submitted a pick")
    expect(panel).to_contain_text(match.server_seed)
    ARTIFACTS.mkdir(exist_ok=True)
    panel.screenshot(path=str(ARTIFACTS / "fairness-390x844.png"))

    # The server shows another move than the one the page sealed.
    record = match.fairness
    changed = next(r for r in record["receipts"] if r["state"] == "revealed")
    changed["move"] = {
        **changed["move"],
        "starter": "Swap" if changed["move"]["starter"] != "Swap" else "Rotate",
    }
    Match.objects.filter(pk=match.pk).update(fairness=record)
    page.reload()
    expect(check).to_have_text(f"· 1 of {len(receipts)} receipts do NOT match their moves")
    expect(panel.locator("li.fairness-wrong")).to_have_count(1)


TICKED = {"starter": "Rotate", "passive": "Recolor", "active": "Refresh"}


def ticked_on_a_phone(login_context, seated_match):
    """Erin has picked; Dmitri ticks a whole pick on his phone and does not send it. Dmitri's,
    Erin's and a spectator's pages (375x812), open on the match."""
    settings = {**CHOSEN, "pick_seconds": 300}
    match, (erin, dmitri), host = seated_match("bejeweled-dm", "erin", "dmitri", settings=settings)
    services.submit_action(match, erin, {"type": "claim", "count": 5})
    services.submit_action(match, dmitri, {"type": "pass"})
    services.submit_action(match, erin, {"type": "proof", "proof": PLUS_PROOF})
    services.submit_action(
        match, erin, {"type": "pick", "starter": "Swap", "passive": "Chain", "active": "Column"}
    )
    pages = {"dmitri": login_context("dmitri"), "erin": login_context("erin")}
    pages["spectator"] = login_context(None)
    for page in pages.values():
        page.set_viewport_size({"width": 375, "height": 812})
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
    form = pages["dmitri"].locator("#bjdm-actions form[data-action=pick]")
    expect(form).to_be_visible(timeout=30_000)
    for name in TICKED.values():
        form.locator(f"input[value={name}]").check()
    return match, host, pages


def run_out_the_picking_time(match, host) -> None:
    match.refresh_from_db()
    left = int((parse_datetime(match.state["deadlines"]["pick"]) - timezone.now()).total_seconds())
    host_operations.host_change_clock(
        match, host, "pick", -(left - 6), "let the clock seal the ticks"
    )


def test_ticked_picks_show_their_receipt_to_everyone_and_the_clock_reveals_it_checked(
    login_context, seated_match
):
    """Dmitri's ticks: Erin and a spectator see his draft's receipt at once (never the ticks);
    the picking time ends, the clock seals his ticks, and every page checks the revealed pick
    against that receipt."""
    match, host, pages = ticked_on_a_phone(login_context, seated_match)
    ARTIFACTS.mkdir(exist_ok=True)
    for who, page in pages.items():
        panel = page.locator("#match-fairness")
        line = panel.locator("li[data-draft]")
        expect(line).to_have_count(1)
        expect(line).to_contain_text("Dmitri's draft pick: receipt")
        expect(line).not_to_contain_text("Rotate")
        panel.locator("summary").click()
        expect(line).to_be_visible()
        panel.screenshot(path=str(ARTIFACTS / f"fairness-draft-{who}-375x812.png"))
    match.refresh_from_db()
    (draft,) = [r for r in match.fairness["receipts"] if r.get("draft")]
    assert draft["by"] == "page"  # sealed by Dmitri's page, not the server

    run_out_the_picking_time(match, host)
    for who, page in pages.items():
        check = page.locator("#match-fairness [data-fairness-check]")
        expect(check).to_contain_text("all 2 receipts match", timeout=30_000)
        line = page.locator("#match-fairness li[data-draft]")
        expect(line).to_contain_text("(sealed by the clock, revealed)")
        if not line.is_visible():  # the new panel came closed
            page.locator("#match-fairness summary").click()
        page.locator("#match-fairness").screenshot(
            path=str(ARTIFACTS / f"fairness-draft-sealed-{who}-375x812.png")
        )
    expect(pages["dmitri"].locator("#match-fairness [data-fairness-check]")).to_contain_text(
        "your 1 listed as sent"
    )
    match.refresh_from_db()
    assert match.state["history"][0]["picks"]["1"] == TICKED


def test_ticks_the_server_changed_after_their_receipt_fail_every_pages_check(
    login_context, seated_match
):
    """The server (simulated) changes Dmitri's kept ticks once their receipt is shown: the
    clock seals the changed pick, and every page says its receipt does not match."""
    match, host, pages = ticked_on_a_phone(login_context, seated_match)
    for page in pages.values():
        expect(page.locator("#match-fairness li[data-draft]")).to_have_count(1)
    changed = {"starter": "Swap", "passive": "Chain", "active": "Column"}
    Seat.objects.filter(match=match, index=1).update(draft={"round": 1, "pick": changed})
    run_out_the_picking_time(match, host)
    for page in pages.values():
        check = page.locator("#match-fairness [data-fairness-check]")
        expect(check).to_contain_text("1 of 2 receipts do NOT match their moves", timeout=30_000)
        expect(page.locator("#match-fairness li.fairness-wrong[data-draft]")).to_have_count(1)
    pages["spectator"].locator("#match-fairness summary").click()
    pages["spectator"].locator("#match-fairness").screenshot(
        path=str(ARTIFACTS / "fairness-draft-changed-spectator-375x812.png")
    )
