"""A player reads their notifications and chooses what they are told; a host sets the season's
webhook. Both screen sizes, axe-core on each page. Screenshots: test-artifacts/notifications-*."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.core.models import Season
from games.notifications import kinds
from games.notifications.models import OptOut, SeasonWebhook
from games.notifications.services import notify
from tests.browser.pages import serious_axe_violations, shoot_both_sizes

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def checked(page, name: str) -> None:
    shoot_both_sizes(page, name)
    assert serious_axe_violations(page) == [], name


def test_a_player_reads_and_chooses_and_a_host_sets_the_webhook(login_context, make_user):
    ada = make_user("ada", email="ada@example.org")
    make_user("hostess", is_staff=True, is_superuser=True)
    notify(users=[ada], kind=kinds.YOUR_TURN, text="Final: it is your move.", url="/")
    page = login_context("ada")

    page.goto("/")
    header = page.get_by_role("link", name="Notifications, 1 unread")
    expect(header.locator(".badge")).to_have_text("1")
    header.click()
    expect(page.locator(".notifications")).to_contain_text("Final: it is your move.")
    checked(page, "notifications-list")
    page.get_by_role("button", name="Mark all read").click()
    expect(page.locator(".badge")).to_have_count(0)

    page.get_by_role("link", name="Choose what you are told, and how").click()
    page.get_by_label("It is your turn: By email").uncheck()
    checked(page, "notifications-choices")
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text("saved")
    assert list(OptOut.objects.values_list("kind", "channel")) == [(kinds.YOUR_TURN, kinds.EMAIL)]

    season = Season.objects.create(name="ORG 2")
    host = login_context("hostess")
    host.goto(f"/notifications/season/{season.pk}/webhook/")
    # An address, not a name: the worker's resolver is the machine's (a public one either way).
    host.get_by_label("Webhook URL").fill("https://93.184.215.14/hooks/abc")
    checked(host, "notifications-webhook")
    host.get_by_role("button", name="Save").click()
    expect(host.locator(".messages")).to_contain_text("saved")
    assert SeasonWebhook.objects.get(season=season).url == "https://93.184.215.14/hooks/abc"
