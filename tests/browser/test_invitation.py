"""An invitee who is signed out follows their invite link: the login page says what they were
invited to, the header's "Sign up" keeps the invite, and the new account lands on the seat. EC
and DMO are explained where they appear."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.core.match import seating
from tests.browser.pages import shoot_both_sizes

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_signed_out_invitee_is_told_the_invitation_and_signs_up_to_their_seat(
    login_context, make_user
):
    host = make_user("hostess")
    match = seating.create_match(
        host=host,
        game_key="pointsweeper",
        title="Friday sweep",
        settings={},
        roles=["EC", "DMO"],
    )
    seat = match.seats.get(index=1)
    page = login_context(None)
    page.goto(seat.get_invite_url())
    page.wait_for_url("**/accounts/login/**")
    invited = page.locator(".invitation")
    expect(invited).to_contain_text("Hostess invites you to take Seat 2 as DMO")
    expect(invited).to_contain_text("“Friday sweep”, a match of Pointsweeper")
    expect(invited.locator("abbr")).to_have_attribute("title", "Death Match Opponent")
    shoot_both_sizes(page, "invitation-login")

    page.locator("header").get_by_role("link", name="Sign up").click()
    page.wait_for_url("**/accounts/signup/**")
    expect(page.locator(".invitation")).to_contain_text("Seat 2 as DMO")
    page.fill("input[name=username]", "newcomer")
    page.fill("input[name=display_name]", "Nell")
    page.fill("input[name=password1]", "a-long-pass-phrase-9")
    page.fill("input[name=password2]", "a-long-pass-phrase-9")
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url(f"**{seat.get_invite_url()}")
    page.get_by_role("button", name="Take the seat").click()
    page.wait_for_url(f"**{match.get_absolute_url()}")
    strip = page.locator(".seat-strip")
    expect(strip).to_contain_text("Nell")
    expect(strip.locator("abbr[title='Elimination Candidate']")).to_have_text("EC")
    expect(strip.locator("abbr[title='Death Match Opponent']")).to_have_text("DMO")

    page.goto("/rules/pointsweeper/")
    expect(page.locator(".rules-roles")).to_contain_text("EC, the Elimination Candidate")
