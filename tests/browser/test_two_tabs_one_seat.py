"""One seat, one draft, shown in every tab: a player with two tabs of a match open sees in each
what the other composes (Glittering Paths' path being drawn, the death match's picks being
ticked), and what they add in the second tab goes on from there, never overwriting it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.core.match import seating, services
from games.core.models import Match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def two_tabs(login_context, name: str, match: Match):
    first = login_context(name)
    second = first.context.new_page()
    for page in (first, second):
        page.goto(match.get_absolute_url())
        expect(page.locator("#connection")).to_have_text("connected")
    return first, second


def test_two_tabs_of_one_seat_show_one_draft(login_context, seated_match, make_user):
    match, _, host = seated_match(
        "glittering-paths",
        "erin",
        "dmitri",
        settings={"race_seconds": 600, "turn_seconds": 600, "interval_seconds": 600},
    )
    first, second = two_tabs(login_context, "erin", match)
    path = first.locator("#gp-draw .gp-path-cells")
    other = second.locator("#gp-draw .gp-path-cells")
    first.click('#gp-board [data-cell="A1"]')
    first.click('#gp-board [data-cell="B1"]')
    expect(path).to_have_text("A1 → B1")
    expect(other).to_have_text("A1 → B1")
    second.click('#gp-board [data-cell="C1"]')
    expect(other).to_have_text("A1 → B1 → C1")
    expect(path).to_have_text("A1 → B1 → C1")
    match.refresh_from_db()
    assert match.seats.get(index=0).draft["cells"] == ["A1", "B1", "C1"]

    # The death match's picks, ticked in one tab, are ticked in the other.
    quick = {
        "first_offer": "chosen",
        "offered_starters": ["Pick"],
        "offered_passives": ["Bend"],
        "offered_actives": ["Plus"],
        "pick_seconds": 600,
    }
    ec, dmo = make_user("ec"), make_user("dmo")
    match = seating.create_match(
        host=host, game_key="bejeweled-dm", title="t", settings=quick, roles=["EC", "DMO"]
    )
    for user, seat in zip((ec, dmo), match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    services.submit_action(match, ec, {"type": "claim", "count": 1})
    services.submit_action(match, dmo, {"type": "pass"})
    services.submit_action(match, ec, {"type": "proof", "proof": "Plus A7; Bend; Pick A7"})
    first, second = two_tabs(login_context, "ec", match)
    form = "#bjdm-actions form[data-action=pick]"
    expect(first.locator(form)).to_be_visible()
    for kind, name in (("starter", "Rotate"), ("passive", "Chain")):
        first.check(f'{form} input[name={kind}][value="{name}"]')
        expect(second.locator(f'{form} input[name={kind}][value="{name}"]')).to_be_checked()
    second.check(f'{form} input[name=active][value="Column"]')
    expect(first.locator(f'{form} input[name=active][value="Column"]')).to_be_checked()
    expect(first.locator(f'{form} input[name=starter][value="Rotate"]')).to_be_checked()
