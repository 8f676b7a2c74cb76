"""The match page catches up when an ack names a version whose update never comes."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from games.core.match import seating

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class LostUpdate:
    """Between the page and the worker: the update that follows the page's first ack is lost,
    as when the worker died right after the ack, and no pong comes to tell (the page pings only
    every 10 s). Asked for what it lacks, it answers as a worker would: with that update."""

    def __init__(self) -> None:
        self.asked: list[dict] = []
        self.lost: dict | None = None
        self.acked = False

    def __call__(self, page_side) -> None:  # type: ignore[no-untyped-def]
        server = page_side.connect_to_server()

        def answer() -> None:
            if self.lost is not None and any(m["type"] == "resync" for m in self.asked):
                page_side.send(json.dumps(self.lost))

        def from_page(text: str) -> None:
            message = json.loads(text)
            self.asked.append(message)
            if message["type"] == "resync" and self.acked:
                answer()  # now, or once the update has been lost (it may still be on its way)
            else:
                server.send(text)

        def from_server(text: str) -> None:
            frame = json.loads(text)
            if frame["type"] == "pong":
                return
            if frame["type"] == "update" and self.acked and self.lost is None:
                self.lost = frame
                answer()
                return
            self.acked = self.acked or frame["type"] == "ack"
            page_side.send(text)

        page_side.on_message(from_page)
        server.on_message(from_server)


def test_a_page_whose_acked_update_never_comes_asks_for_it(login_context, make_user):
    host, ada, bob = make_user("h"), make_user("ada"), make_user("bob")
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="Lost", settings={}, roles=["EC", "DMO"]
    )
    for user, seat in zip([ada, bob], match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, seat.invite_token)
    player = login_context("ada")
    between = LostUpdate()
    player.route_web_socket("**/ws/m/**", between)
    player.goto(match.get_absolute_url())
    expect(player.locator("#connection")).to_have_text("connected")
    expect(player.locator("#match-version")).to_have_attribute("data-version", "3")
    player.evaluate("window.gemArena.send({type: 'add', amount: 2})")
    expect(player.locator("#match-version")).to_have_attribute("data-version", "4")
    expect(player.locator("#game-state dd").first).to_have_text("2")
    assert between.lost is not None and between.lost["version"] == 4
    assert {"type": "resync", "since": 3, "behind": True} in between.asked
