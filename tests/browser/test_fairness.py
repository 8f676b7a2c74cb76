"""Fair play on a phone (docs/fairness.md): a finished death match's page says its receipts
match, and says which do not when the server shows a sealed move other than the one its page
sealed (simulated here by changing the record after the match)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from games.core.match import services
from games.core.models import Match
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
