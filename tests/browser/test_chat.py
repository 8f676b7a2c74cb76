"""The match chat in a real browser: a player and a spectator chat in their channels, markup is
shown as text, and the host mutes the spectator from the page."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from games.core.match import chat, seating
from games.core.models import ChatMessage

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
SIZES = {"phone": (375, 812), "desktop": (1280, 800)}
SCRIPT = "<script>window.chatInjected = 1</script><b>bold?</b>"


def shoot(page: Page, name: str) -> None:
    """The chat panel at a phone's and a desktop's size; it fits the width at both."""
    ARTIFACTS.mkdir(exist_ok=True)
    for label, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.locator("#chat").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"chat-{name}-{label}.png"))
        box = page.locator("#chat").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5
        assert page.evaluate(
            "(c => c.scrollWidth <= c.clientWidth)(document.getElementById('chat'))"
        )


def send(page: Page, channel: str, text: str) -> None:
    form = page.locator(f'.chat-form[data-channel="{channel}"]')
    form.locator("input[name=text]").fill(text)
    form.locator("button[type=submit]").click()
    expect(form.locator("input[name=text]")).to_have_value("")


def lines(page: Page, channel: str):
    return page.locator(f'.chat-channel[data-channel="{channel}"] .chat-text')


def test_players_and_spectators_chat_apart_and_the_host_mutes_a_spectator(
    login_context, make_user, seated_match
):
    make_user("sam")
    settings = {"target": 10, "turn_seconds": 3600}
    match, (ada, bob), host = seated_match("fixture-tally", "ada", "bob", settings=settings)
    pages = {name: login_context(name) for name in ("ada", "sam", "hostess")}
    for page in pages.values():
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
    player, spectator, host_page = pages["ada"], pages["sam"], pages["hostess"]

    # Each sees only the channels of its role.
    expect(player.locator(".chat-channel")).to_have_count(1)
    expect(spectator.locator(".chat-channel")).to_have_count(1)
    expect(host_page.locator(".chat-channel")).to_have_count(2)

    send(player, "players", "good luck, Bob")
    expect(lines(host_page, "players")).to_have_text(["good luck, Bob"])
    send(spectator, "spectators", SCRIPT)
    expect(lines(host_page, "spectators")).to_have_text([SCRIPT])
    expect(lines(spectator, "spectators")).to_have_text([SCRIPT])
    assert host_page.evaluate("window.chatInjected") is None
    assert spectator.locator(".chat-channel b").count() == 0
    assert "good luck, Bob" not in spectator.content()
    assert SCRIPT not in player.locator("#chat").inner_text()
    shoot(host_page, "host")

    # The host mutes the spectator from the message's line: the spectator is told and stopped.
    host_page.locator(
        '.chat-channel[data-channel="spectators"] .chat-line button.chat-mute'
    ).click()
    expect(host_page.locator("[data-muted-users]")).to_contain_text("Sam")
    composer = spectator.locator('.chat-form[data-channel="spectators"]')
    expect(composer.locator(".chat-error")).to_have_text("The host muted you in this match's chat.")
    expect(composer.locator("input[name=text]")).to_be_disabled()
    shoot(spectator, "muted-spectator")

    # Unmuted, the spectator writes again; a reload shows the history, still as text.
    host_page.locator("[data-muted-users] button[data-unmute-user]").click()
    expect(composer.locator("input[name=text]")).to_be_enabled()
    send(spectator, "spectators", "thanks, host")
    expect(lines(host_page, "spectators")).to_have_text([SCRIPT, "thanks, host"])
    spectator.reload()
    expect(lines(spectator, "spectators")).to_have_text([SCRIPT, "thanks, host"])
    assert spectator.evaluate("window.chatInjected") is None
    shoot(player, "player")

    # Ada has just sent five messages in another match: refused here,
    # beside the box, with the text kept.
    elsewhere = seating.create_match(
        host=host, game_key="fixture-tally", title="Other", settings={}, roles=["EC", "DMO"]
    )
    ChatMessage.objects.bulk_create(
        ChatMessage(
            match=elsewhere, channel="spectators", author=ada, text="hi", created_at=timezone.now()
        )
        for _ in range(chat.RATE_COUNT)
    )
    form = player.locator('.chat-form[data-channel="players"]')
    form.locator("input[name=text]").fill("one more")
    form.locator("button[type=submit]").click()
    expect(form.locator(".chat-error")).to_contain_text("messages every 10 seconds; wait")
    expect(form.locator("input[name=text]")).to_have_value("one more")
    expect(form.locator("button[type=submit]")).to_be_enabled()
    shoot(player, "rate-limited")
