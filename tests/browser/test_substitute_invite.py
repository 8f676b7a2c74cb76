"""The host finds a substitute's invite link on the match page while the match runs (issue 36):
the page keeps it after its first frame, where the invites of a match not started yet go."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.core.match import host_operations
from tests.browser.pages import ARTIFACTS, PHONE
from tests.core.test_replay import CHOSEN

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_host_reads_the_substitutes_invite_link_on_the_running_match(
    login_context, seated_match
):
    match, _, host = seated_match("bejeweled-dm", "eve", "fay", settings=CHOSEN)
    host_operations.host_replace_seat(match, host, 1, "", "Fay left")
    invite = match.seats.get(index=1).get_invite_url()
    page = login_context("hostess")
    page.set_viewport_size(PHONE)
    page.goto(match.get_absolute_url())
    expect(page.locator("#connection")).to_have_text("connected")
    substitutes = page.locator(".invites.substitutes")
    expect(substitutes).to_be_visible()
    expect(substitutes).to_contain_text(invite)
    expect(page.locator('.seat-strip [data-seat="1"] .name')).to_have_text("open seat")
    expect(page.locator("#bjdm-status")).to_contain_text("open seat")
    page.screenshot(path=str(ARTIFACTS / "substitute-invite-phone.png"))
