"""Every host operation through the match page's console, in a real browser, as a host running a
Seven Gem Swap round would: pause with a reason, give the paused clock more time, resume, end
the round, replace a player, award (the confirmation names both players), correct the result;
abort with a reason on another match. Players and spectators see each in words.
Screenshots: test-artifacts/host-console-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.core.match import host_operations, services
from games.core.models import Match
from tests.browser.pages import ARTIFACTS, serious_axe_violations, shoot_both_sizes
from tests.waiting import until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def answer_dialogs(page, asked: list[str]) -> None:
    """Accept every confirmation, keeping its question."""
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))


def console_form(page, summary: str):
    """Open the console's box named ``summary`` and return its form."""
    box = page.locator("#host-panel details", has=page.locator(f"summary:text('{summary}')"))
    box.locator("summary").click()
    return box.locator("form")


def seven_in_round(seated_match) -> Match:
    settings = {"bid_seconds": 3600, "round_seconds": 3600}
    match, (ada, bob), _ = seated_match("seven-gem-swap", "ada", "bob", settings=settings)
    services.submit_action(match, ada, {"type": "bid", "bid": 0, "colours": "ROY"})
    services.submit_action(match, bob, {"type": "bid", "bid": -1, "colours": "GBR"})
    return Match.objects.get(pk=match.pk)


def test_every_host_operation_from_the_match_page(login_context, seated_match):
    match = seven_in_round(seated_match)
    host, ada, spectator = login_context("hostess"), login_context("ada"), login_context(None)
    asked: list[str] = []
    answer_dialogs(host, asked)
    for page in (host, ada, spectator):
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
    expect(ada.locator("#host-panel")).to_have_count(0)
    expect(spectator.locator("#host-panel")).to_have_count(0)

    # Pause, with a reason the players read.
    host.fill("#host-panel .host-pause input[name=reason]", "Bob's connection dropped")
    host.click("#host-panel .host-pause button")
    expect(ada.locator("#banner-status")).to_be_visible()
    expect(host.locator("#host-panel .host-clocks")).to_contain_text("left when resumed")
    shoot_both_sizes(host, "host-console-paused")

    # One more minute on the paused round clock.
    form = console_form(host, "Give a clock more or less time")
    form.locator("input[name=minutes]").fill("1")
    form.locator("input[name=reason]").fill("Bob is reconnecting")
    host.locator("#host-panel").screenshot(path=str(ARTIFACTS / "host-console-panel.png"))
    form.locator("button").click()
    one_hour_more = re.compile(r"round clock: 1:00:\d\d left when resumed")
    expect(host.locator("#host-panel .host-clocks")).to_have_text(one_hour_more)
    host.click("#host-panel .host-resume button")
    expect(ada.locator("#banner-status")).to_be_hidden()

    # End round 1 as it stands: everyone sees round 2.
    form = console_form(host, "End round 1 now")
    form.locator("input[name=reason]").fill("everyone has sent")
    form.locator("button").click()
    expect(spectator.locator("#sgs-status")).to_contain_text("Round 2")
    assert asked[-1].startswith("End round 1 now")

    # Replace Bob by a bot: the question names him.
    form = console_form(host, "Replace a player")
    form.locator("select[name=seat]").select_option(label="Seat 2: Bob")
    form.locator("select[name=by]").select_option("club")
    form.locator("input[name=reason]").fill("Bob left the season")
    form.locator("button").click()
    assert asked[-1] == "Free Seat 2: Bob? Bob can no longer play this match."
    expect(host.locator("#host-panel select[name=seat]")).to_contain_text("Club bot 2")
    for page in (ada, spectator):  # the seat strip and the players' table name the bot
        expect(page.locator('.seat-strip [data-seat="1"] .name')).to_have_text("Club bot 2")
        expect(page.locator("#sgs-players")).to_contain_text("Club bot 2")

    # Award: the question names the winner and what follows for the other.
    form = console_form(host, "Award")
    form.locator("select[name=award]").select_option(index=1)
    form.locator("input[name=reason]").fill("a tiebreak by the host")
    form.locator("button").click()
    expect(ada.locator("#match-result")).to_be_visible()
    assert asked[-1].startswith("Seat 1: Ada wins the match")
    assert "Club bot 2 loses the match; it ends now." in asked[-1]

    # Correct it: Bob's seat wins instead.
    form = console_form(host, "Correct the result")
    form.locator("select[name=award]").select_option(index=2)
    form.locator("input[name=reason]").fill("I awarded the wrong player")
    form.locator("button").click()
    assert asked[-1].startswith("Correct the result:")
    expect(spectator.locator("#match-result")).to_contain_text("I awarded the wrong player")
    shoot_both_sizes(host, "host-console-finished")
    assert serious_axe_violations(host, "#host-panel") == []

    # The host log says it all, in order.
    host.goto(f"/m/{match.public_id}/audit/")
    rows = host.locator("table.audit tbody tr")
    kinds = [rows.nth(i).get_attribute("data-kind") for i in range(rows.count())]
    assert kinds[:6] == [
        "result_corrected",
        "adjudicated",
        "seat_replaced",
        "round_time_up",
        "resumed",
        "clock_changed",
    ]
    shoot_both_sizes(host, "host-console-log")


def test_a_frame_keeps_what_the_host_is_typing_and_a_done_control_folds(
    login_context, seated_match
):
    match = seven_in_round(seated_match)
    host = login_context("hostess")
    answer_dialogs(host, [])
    host.goto(match.get_absolute_url())
    expect(host.locator("#connection")).to_have_text("connected")
    form = console_form(host, "Replace a player")
    form.locator("select[name=seat]").select_option(label="Seat 2: Bob")
    reason = form.locator("input[name=reason]")
    reason.fill("Bob the season")
    reason.press("Home")
    for _ in range(4):
        reason.press("ArrowRight")

    # The match is paused from elsewhere (the dashboard): the console the frame brings offers
    # Resume, and the host's box, choice, words and cursor are where they were.
    host_operations.host_pause(match, match.host, reason="a break")
    expect(host.locator("#host-panel .host-resume button")).to_be_visible()
    box = host.locator("#host-panel details.host-replace")
    expect(box).to_have_attribute("open", "")
    expect(box.locator("select[name=seat]")).to_have_value("1")
    expect(box.locator("input[name=reason]")).to_have_value("Bob the season")
    expect(box.locator("input[name=reason]")).to_be_focused()
    host.keyboard.type("left ")
    expect(box.locator("input[name=reason]")).to_have_value("Bob left the season")

    # A refusal that comes back after a frame replaced the form it answers is shown all the same,
    # and the refused form keeps what the host wrote.
    held = []
    host.route("**/host/clock/", lambda route: held.append(route))
    clock_box = console_form(host, "Give a clock more or less time")
    clock_box.locator("input[name=minutes]").fill("0")
    clock_box.locator("input[name=reason]").fill("nothing at all")
    clock_box.locator("button").click()
    until(lambda: held, "the console's clock request", page=host)
    assert len(held) == 1
    host_operations.host_resume(match, match.host)
    expect(host.locator("#host-panel .host-pause button")).to_be_visible()
    held[0].continue_()
    expect(host.locator("#host-error")).to_have_text(
        "give the clock more (say 5) or less (say -5) minutes"
    )
    expect(clock_box.locator("input[name=minutes]")).to_have_value("0")
    expect(clock_box.locator("input[name=reason]")).to_have_value("nothing at all")

    # Sent and done: the box folds and its form is empty again.
    box.locator("select[name=by]").select_option("club")
    box.locator("button").click()
    expect(host.locator("#host-panel select[name=seat]")).to_contain_text("Club bot 2")
    box = host.locator("#host-panel details.host-replace")
    expect(box).not_to_have_attribute("open", "")
    expect(box.locator("input[name=reason]")).to_have_value("")
    bob_seat = Match.objects.get(pk=match.pk).seats.get(index=1)
    assert (bob_seat.user, bob_seat.bot_level) == (None, "club")


def test_the_host_aborts_with_a_reason_and_the_players_read_it(login_context, seated_match):
    match = seven_in_round(seated_match)
    host, ada = login_context("hostess"), login_context("ada")
    asked: list[str] = []
    answer_dialogs(host, asked)
    for page in (host, ada):
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
    form = console_form(host, "Abort the match")
    form.locator("input[name=reason]").fill("the season was cancelled")
    form.locator("button").click()
    assert asked == ["Abort this match? It ends with no winner and no one can move again."]
    expect(ada.locator("#match-result")).to_contain_text("the season was cancelled")
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED


def test_a_dismissed_confirmation_changes_nothing(login_context, seated_match):
    match = seven_in_round(seated_match)
    host = login_context("hostess")
    host.on("dialog", lambda dialog: dialog.dismiss())
    host.goto(match.get_absolute_url())
    expect(host.locator("#connection")).to_have_text("connected")
    form = console_form(host, "Award")
    form.locator("select[name=award]").select_option(index=1)
    form.locator("button").click()  # the dismissed question stops the post before it is sent
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE


def test_players_read_the_latest_host_operation_on_the_page(login_context, seated_match):
    match = seven_in_round(seated_match)
    host, ada = login_context("hostess"), login_context("ada")
    for page in (host, ada):
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
    host.fill("#host-panel .host-pause input[name=reason]", "Bob's connection dropped")
    host.click("#host-panel .host-pause button")
    expect(ada.locator("#host-notice")).to_have_text(
        "Host The host paused the match; every clock stops: Bob's connection dropped."
    )
    shoot_both_sizes(ada, "host-console-player-paused")


def test_the_replay_has_no_console_and_its_host_buttons_work(login_context, seated_match):
    match = seven_in_round(seated_match)
    host_user = match.host
    host_operations.host_end_round(match, host_user, reason="everyone has sent")
    host_operations.host_adjudicate(match, host_user, {"winner": 0})
    match.refresh_from_db()
    host = login_context("hostess")
    errors: list[str] = []
    host.on("pageerror", lambda error: errors.append(str(error)))
    host.goto(f"/m/{match.public_id}/replay/?v={match.version}")
    expect(host.locator("#replay-body")).to_be_visible()
    assert host.locator("#host-panel").count() == 0
    assert host.locator("form.host-op").count() == 0
    before = host.locator(".sgs-toggle-before")
    expect(before).to_have_text("Show the grid before round 1")
    before.click()
    expect(before).to_have_attribute("aria-pressed", "true")
    host.locator(".sgs-host-play").click()
    assert errors == []


def test_the_host_settles_a_tied_elimination_candidate_from_the_page(login_context, seated_match):
    match, _, host_user = seated_match("seven-gem-swap", "ada", "bob", "cy")
    host_operations.host_adjudicate(match, host_user, {"winner": 0})  # Bob and Cy tie for last
    host, bob = login_context("hostess"), login_context("bob")
    asked: list[str] = []
    answer_dialogs(host, asked)
    for page in (host, bob):
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
    form = host.locator("#host-panel .host-award-form")
    form.locator("select[name=award]").select_option(
        label="Seat 3: Cy is the Elimination Candidate"
    )
    form.locator("input[name=reason]").fill("Cy bid later")
    form.locator("button").click()
    assert asked == ["Seat 3: Cy is the Elimination Candidate?"]
    expect(bob.locator("#match-result")).to_contain_text("The host named Cy")
    match.refresh_from_db()
    assert match.result["elimination_candidate"] == 2
