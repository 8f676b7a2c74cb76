"""The match page every game shares, in a real browser: banner, refusals beside their form,
controls disabled while paused, the reconnect banner, the live result, the layout at phone and
desktop sizes. Screenshots go to test-artifacts/page-*.png."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from django.db import connections
from playwright.sync_api import expect

from games.core.match import host_operations, seating, services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = {"width": 375, "height": 812}
DESKTOP = {"width": 1280, "height": 800}
# A form as a game's panel would have one (Tally, the fixture game, draws none of its own).
ADD_FORM = """() => {
  const form = document.createElement("form");
  form.dataset.action = "add";
  form.id = "add-form";
  form.innerHTML = '<input name="amount" data-int value="9"><button type="submit">Add</button>';
  document.getElementById("match-root").appendChild(form);
  window.gemArena.refreshControls();
}"""


def in_thread(function, *args):
    """Run a service call off the test thread: Playwright's event loop there keeps the call
    from announcing its event to the worker's viewers."""
    result = []
    worker = threading.Thread(target=lambda: result.append(function(*args)))
    worker.start()
    worker.join()
    connections.close_all()
    return result[0] if result else None


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"page-{name}.png"), full_page=False)


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def tally(make_user, title: str = "Page tally"):
    host, ada, bob = make_user("hostess"), make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host, game_key="fixture-tally", title=title, settings={}, roles=["EC", "DMO"]
    )
    for user, seat in zip([ada, bob], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    match.refresh_from_db()
    return match, ada, bob, host


def open_page(login_context, username, match, size=PHONE):
    page = login_context(username)
    page.set_viewport_size(size)
    page.goto(match.get_absolute_url())
    expect(page.locator("#connection")).to_have_text("connected")
    return page


def test_a_refusal_shows_beside_its_form_and_clears_after_an_accepted_action(
    login_context, make_user
):
    match, *_ = tally(make_user)
    page = open_page(login_context, "ada", match)
    page.evaluate(ADD_FORM)
    page.click("#add-form button")
    expect(page.locator("#add-form .action-error")).to_have_text("add 1, 2 or 3")
    expect(page.locator("#match-error")).to_have_text("")
    shot(page, "refusal-375")
    page.fill("#add-form input", "2")
    page.click("#add-form button")
    expect(page.locator("#match-version")).to_have_attribute("data-version", "4")
    expect(page.locator("#add-form .action-error")).to_be_hidden()
    assert no_sideways_scroll(page)


def test_a_refusal_fires_gem_refused_and_an_action_sent_by_script_shows_in_match_error(
    login_context, make_user
):
    match, *_ = tally(make_user)
    page = open_page(login_context, "bob", match)
    page.evaluate("document.addEventListener('gem:refused', (e) => { window.refusal = e.detail; })")
    page.evaluate("window.gemArena.send({type: 'add', amount: 1})")
    expect(page.locator("#match-error")).to_have_text("it is not your turn")
    refusal = page.evaluate("window.refusal")
    assert refusal["code"] == "not_your_turn"
    assert refusal["action"] == {"type": "add", "amount": 1}


def test_a_double_clicked_action_is_applied_once_without_an_alarm(login_context, make_user):
    match, *_ = tally(make_user)
    page = open_page(login_context, "ada", match)
    page.evaluate(ADD_FORM)
    page.fill("#add-form input", "1")
    page.dblclick("#add-form button")
    expect(page.locator("#match-version")).to_have_attribute("data-version", "4")
    expect(page.locator("#add-form button")).to_be_enabled()
    match.refresh_from_db()
    assert (match.version, match.state["total"]) == (4, 1)
    expect(page.locator("#match-error")).to_have_text("")
    assert page.locator("#add-form .action-error").count() == 0


def test_controls_are_disabled_while_paused_and_enabled_again_on_resume(login_context, make_user):
    match, *_ = tally(make_user)
    page = open_page(login_context, "ada", match)
    host = open_page(login_context, "hostess", match, size=DESKTOP)
    page.evaluate(ADD_FORM)
    expect(page.locator("#add-form button")).to_be_enabled()
    expect(page.locator("#banner-status")).to_be_hidden()
    host.click("#host-panel button:text('Pause')")
    expect(page.locator("#add-form button")).to_be_disabled()
    expect(page.locator("#banner-status")).to_be_visible()
    expect(page.locator("#banner-status")).to_contain_text("Paused")
    expect(host.locator("#host-panel button:text('Pause')")).to_have_count(0)
    shot(page, "paused-375")
    shot(host, "paused-host-1280")
    host.click("#host-panel button:text('Resume')")
    expect(page.locator("#add-form button")).to_be_enabled()
    expect(page.locator("#banner-status")).to_be_hidden()


def test_the_turn_shows_in_the_banner_and_the_tab_title(login_context, make_user):
    match, *_ = tally(make_user)
    page = open_page(login_context, "ada", match)
    expect(page.locator("#banner-turn")).to_be_visible()
    expect(page).to_have_title("(Your turn) Page tally · Gem Arena")
    assert page.evaluate("document.getElementById('favicon').href").startswith("data:image/png")
    page.evaluate("window.gemArena.send({type: 'add', amount: 1})")
    expect(page.locator("#banner-turn")).to_be_hidden()
    expect(page).to_have_title("Page tally · Gem Arena")


def test_the_banner_says_reconnecting_while_the_worker_is_down_and_clears_after(
    login_context, make_user, live_worker
):
    match, *_ = tally(make_user)
    page = open_page(login_context, "ada", match, size=DESKTOP)
    live_worker.stop()
    expect(page.locator("#connection")).to_have_text("reconnecting…")
    expect(page.locator("#match-banner")).to_be_in_viewport()
    shot(page, "reconnecting-1280")
    live_worker.start()
    expect(page.locator("#connection")).to_have_text("connected", timeout=30_000)
    expect(page.locator("#match-banner")).to_have_attribute("data-connection", "live")


def test_the_result_appears_live_with_a_replay_link_and_the_host_may_only_correct_it(
    login_context, make_user
):
    match, ada, bob, _host = tally(make_user)
    player = open_page(login_context, "ada", match)
    host = open_page(login_context, "hostess", match, size=DESKTOP)
    expect(host.locator("#host-panel button", has_text="Pause")).to_be_visible()
    for user in [ada, bob, ada, bob]:
        in_thread(services.submit_action, match, user, {"type": "add", "amount": 3})
    for page in (player, host):
        expect(page.locator("#match-result")).to_contain_text("Bob wins")
        replay = page.locator("#match-result a", has_text="replay")
        expect(replay).to_have_attribute("href", f"/m/{match.public_id}/replay/")
    expect(host.locator("#host-panel button", has_text="Pause")).to_have_count(0)
    expect(host.locator("#host-panel summary", has_text="Correct the result")).to_be_visible()
    expect(host.locator("#match-result button", has_text="Rematch")).to_be_visible()
    shot(player, "result-375")
    shot(host, "result-host-1280")
    host.click("#match-result button.rematch")
    host.wait_for_url(lambda url: match.public_id not in url)
    expect(player.locator("#match-result a.rematch-ready")).to_be_visible()


def death_match(make_user):
    host, ec, dmo = make_user("host1"), make_user("erin"), make_user("dmitri")
    match = seating.create_match(
        host=host, game_key="bejeweled-dm", title="Layout", settings={}, roles=["EC", "DMO"]
    )
    for user, seat in zip([ec, dmo], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    # Two rounds settled by the host: the rounds table (the widest thing on the page) is drawn.
    host_operations.host_adjudicate(match, host, {"winner": 0, "scope": "round"})
    match.refresh_from_db()
    return match


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["375", "1280"])
def test_the_death_match_page_fits_the_screen(login_context, make_user, size):
    match = death_match(make_user)
    page = open_page(login_context, "erin", match, size=size)
    expect(page.locator("#bjdm-history table")).to_be_attached()
    shot(page, f"death-match-{size['width']}")
    page.screenshot(
        path=str(ARTIFACTS / f"page-death-match-{size['width']}-full.png"), full_page=True
    )
    assert no_sideways_scroll(page)
    if size == DESKTOP:
        board = page.locator("#bjdm-board").bounding_box()
        actions = page.locator("#bjdm-actions").bounding_box()
        assert board["y"] + board["height"] <= size["height"]
        assert actions["y"] < size["height"] - 80
