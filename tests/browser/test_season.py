"""A host runs a season in a real browser: starts it, sends the cast invite link (one player
asks to join through it), admits the cast, starts episode 1 (its main match seats everyone)
and reads the standings; a player opens their match from the episode. Once the main match is
settled the scheduler names the Elimination Candidate, who nominates on their page (the Token
of Life's holder shown as shielded); the host sets up the death match. Both screen sizes,
axe-core on each page. Screenshots: test-artifacts/season-*.png."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from games.core.match import host_operations
from games.core.models import Match, Season
from games.seasons import cast
from games.seasons.models import Episode
from tests.browser.pages import serious_axe_violations, shoot_both_sizes
from tests.waiting import until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def checked(page, name: str) -> None:
    shoot_both_sizes(page, name)
    assert serious_axe_violations(page) == [], name


def test_a_host_runs_a_season(login_context, make_user):
    make_user("hostess", is_staff=True)
    users = {name: make_user(name) for name in ("ada", "bob", "cy")}
    host = login_context("hostess")

    host.goto("/seasons/")
    host.get_by_role("link", name="Start a season").click()
    host.fill("#id_name", "ORG Browser")
    host.fill("#id_nomination_minutes", "90")
    checked(host, "season-new")
    host.get_by_role("button", name="Start the season").click()
    expect(host.locator("h1")).to_contain_text("ORG Browser")
    invite = host.locator("#cast-invite").input_value()
    assert "/join/" in invite

    ada = login_context("ada")
    ada.goto(invite)
    ada.fill("#id_name", "Ada Lovelace")
    checked(ada, "season-join")
    ada.get_by_role("button", name="Ask to join").click()
    expect(ada.locator(".messages")).to_contain_text("A host admits you")
    season = Season.objects.get(name="ORG Browser")
    for name in ("bob", "cy"):
        cast.ask_to_join(season, users[name], season.format.invite_token, name.title())

    host.reload()
    for name in ("Ada Lovelace", "Bob", "Cy"):
        host.get_by_role("button", name=f"Admit {name}").click()
        expect(host.locator(".messages")).to_contain_text(f"{name} is in")
    expect(host.locator("table.cast tbody tr")).to_have_count(3)
    checked(host, "season-cast")

    host.get_by_role("link", name="Seven Gem Swap").click()
    host.fill("#id_round_seconds", "3600")
    checked(host, "season-main-match")
    host.get_by_role("button", name="Create the main match").click()
    expect(host.locator("h1")).to_contain_text("episode 1")
    expect(host.locator(".messages")).to_contain_text("Episode 1 started")
    expect(host.locator("#main-title + p")).to_contain_text("Live")
    checked(host, "season-episode")

    host.get_by_role("link", name="the season's standings").click()
    row = host.locator("table.episodes tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Seven Gem Swap · Live")
    expect(row).to_contain_text("when it ends")
    expect(host.locator(".season-log")).to_contain_text("Episode 1 starts")
    checked(host, "season-standings")

    ada.goto(f"/seasons/{season.pk}/")
    expect(ada.locator(".episode-now")).to_contain_text("Main match")
    ada.get_by_role("link", name="Open episode 1").click()
    ada.locator("#main-title + p a").first.click()
    expect(ada.locator("h1, .match-head").first).to_be_visible()
    assert "/m/" in ada.url

    # The host ends the main match (seat 1 wins its 2 Tokens of Life) and settles the tie for
    # the lowest total: Bob. The scheduler then opens Bob's nomination.
    episode = season.episodes.get()
    main = Match.objects.with_seats().get(pk=episode.main_match_id)
    hostess = season.format.hosts.get()
    host_operations.host_adjudicate(main, hostess, {"winner": 0, "reason": "a walk-through"})
    host_operations.host_adjudicate(main, hostess, {"elimination_candidate": 1, "reason": "a coin"})
    bob = login_context("bob", locale="en-GB", timezone_id="Asia/Tokyo")  # Bob plays from Tokyo
    until(
        lambda: Episode.objects.filter(pk=episode.pk, phase=Episode.Phase.NOMINATION).exists(),
        "the scheduler to open Bob's nomination",
    )
    # The hosts see whom they wait for, with the clock to move; it counts down live.
    host.clock.install()
    host.goto(episode.get_absolute_url())
    box = host.locator(".nomination-clock")
    expect(box).to_contain_text("Waiting for Bob to name a Death Match Opponent")
    countdown = host.locator(".nomination .countdown")
    expect(countdown).to_have_text(re.compile(r"^1 h \d\d min left$"))
    before = countdown.text_content()
    host.clock.run_for(61_000)
    expect(countdown).not_to_have_text(before)
    expect(countdown).to_have_text(re.compile(r"^1 h \d\d min left$"))
    checked(host, "season-nomination-host")
    box.get_by_label("Minutes").fill("30")
    box.get_by_role("button", name="Give more time").click()
    expect(host.locator(".messages")).to_contain_text("The nomination clock now runs until")
    bob.goto(episode.get_absolute_url())
    form = bob.locator("form.nominate")
    expect(bob.locator(".nomination")).to_contain_text("You are the Elimination Candidate")
    expect(form.locator("label")).to_have_text(["Cy"])
    expect(bob.locator(".nomination")).to_contain_text("Ada Lovelace holds a Token of Life")
    # The nomination's deadline is told in Bob's own time, the UTC time kept as its title.
    episode.refresh_from_db()
    due = bob.locator(".nomination time")
    assert datetime.fromisoformat(due.get_attribute("datetime")) == episode.nomination_due
    in_tokyo = episode.nomination_due.astimezone(ZoneInfo("Asia/Tokyo"))
    expect(due).to_contain_text(in_tokyo.strftime("%H:%M"))
    expect(due).to_have_attribute("title", f"{episode.nomination_due:%Y-%m-%d %H:%M} UTC")
    checked(bob, "season-nomination")
    form.get_by_label("Cy").check()
    form.get_by_role("button", name="Nominate").click()
    expect(bob.locator(".nomination")).to_contain_text("Cy is the Death Match Opponent")

    host.goto(episode.get_absolute_url())
    host.get_by_role("link", name="Glittering Paths").click()
    host.get_by_role("button", name="Create the death match").click()
    expect(host.locator(".messages")).to_contain_text("both players are seated")
    host.goto(f"/seasons/{season.pk}/")
    row = host.locator("table.episodes tbody tr")
    expect(row).to_contain_text("Bob")
    expect(row).to_contain_text("Cy")
    expect(row).to_contain_text("Glittering Paths · Live")
    expect(row).to_contain_text(
        "1st Ada Lovelace (0, the winner the host named), 2nd (shared) Cy (0), "
        "2nd (shared) Bob (0, the EC, a tie the host settled)"
    )
    checked(host, "season-death-match")
