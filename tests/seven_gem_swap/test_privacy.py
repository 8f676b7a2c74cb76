"""No player's sequence, gem, premove or bid reaches anyone but its author and the host.

A whole seven-player match is played over real websockets; every frame each seat, the host and a
spectator receive is kept, with their match pages in the middle of every round, and after the
match the replay steps (every one for the spectator; across the seats, each once) and the
export, for each of them. Each player's sequences and drafts are
distinct 14-20 move strings, looked for in everything the others received; and the data of every
frame and export is searched for any secret field that is not the viewer's own (a draft's or a
sent sequence's preview among them)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.seven_gem_swap.live_play import HOST, Played, play_match, player_name

pytestmark = pytest.mark.django_db(transaction=True)

SECRET_KEYS = {
    "bids",
    "submissions",
    "premoves",
    "drafts",
    "host",
    "host_rows",
    "secret",
    "steps",
    "positions",
    "allocation",
    "private",
}
OWN_KEYS = {"bid", "submission", "draft", "premove", "won_by", "premove_price", "preview"}


@pytest.fixture
def accounts(make_user):
    for name in [HOST, *(player_name(seat) for seat in range(7))]:
        make_user(name)


def secret_fields(data: Any, path: tuple = ()) -> list[tuple]:
    """Every secret field of ``data`` (a frame or an export), with its path. An update frame's
    patch (games/core/render/jsondiff.py) is read as what it writes: each operation's value at its
    place in the view."""
    found = []
    if isinstance(data, dict):
        for key, value in data.items():
            if path and path[-1] == "viewer":
                continue  # who is looking ({"seat", "host", "audience"}), not a secret
            if not path and key == "patch":
                found.extend(patched_secret_fields(value))
                continue
            if key in SECRET_KEYS or key in OWN_KEYS:
                found.append((*path, key))
            found.extend(secret_fields(value, (*path, key)))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found.extend(secret_fields(value, (*path, index)))
    return found


def patched_secret_fields(patch: list[list[Any]]) -> list[tuple]:
    found = []
    for op in patch:
        place = ("view", *op[1])
        found.extend(
            place[: index + 1]
            for index, key in enumerate(place)
            if key in SECRET_KEYS or key in OWN_KEYS
        )
        if op[0] in ("s", "a"):  # set or append a value ("e" points into the event; "d" deletes)
            found.extend(secret_fields(op[2], place))
    return found


def allowed_for_seat(path: tuple) -> bool:
    """A seat's own part: its ``me`` view, its draft (with the draft's preview), its event's
    private data (which the core merges into the event's data for that seat only)."""
    keys = [p for p in path if isinstance(p, str)]
    if keys[-1] in SECRET_KEYS:
        return False
    return (
        "me" in keys
        or "draft" in keys
        or ("data" in keys and "event" in keys)
        or ("events" in keys and "data" in keys)
    )


async def test_no_sequence_reaches_anyone_but_its_author_and_the_host(live_worker, accounts):
    records: dict[str, list[str]] = {}

    def keep(audience: str, text: str) -> None:
        records.setdefault(audience, []).append(text)

    async def pages(played: Played, round_number: int) -> None:
        for audience, client in played.clients.items():
            html = await asyncio.to_thread(client.get, played.match.get_absolute_url())
            keep(audience, html)

    played = await play_match(live_worker.url, seats=7, pages=pages)
    match = played.match
    seats = sum(audience.startswith("seat-") for audience in played.clients)
    for audience, client in played.clients.items():
        # Every replay step for the spectators; for the seats, each step for one of them (seat
        # k the steps k+1, k+1+7, ...), and every seventh for the host (their frames and
        # pages are the host's positive control). Each one's export below holds every event as
        # they see it.
        first = int(audience.split("-")[1]) + 1 if audience.startswith("seat-") else 1
        every = 1 if audience == "spectators" else seats
        for version in range(first, match.version + 1, every):
            url = f"{match.get_absolute_url()}replay/?v={version}"
            keep(audience, await asyncio.to_thread(client.get, url))
        keep(
            audience, await asyncio.to_thread(client.get, f"{match.get_absolute_url()}export.json")
        )
    frames = {audience: socket.frames for audience, socket in played.sockets.items()}
    for audience, received in frames.items():
        assert received, audience
        records.setdefault(audience, []).extend(json.dumps(frame) for frame in received)

    # A seat's drafts come back with their preview (a positive control for the field search).
    assert any(
        frame.get("type") == "draft" and frame["draft"].get("preview") for frame in frames["seat-0"]
    )
    # The host sees every sequence (a positive control: the needles are findable).
    host_text = "\n".join(records["host"])
    for seat, needles in played.secrets.items():
        assert all(needle in host_text for needle in needles), f"host misses seat {seat}"

    for audience, texts in records.items():
        if audience == "host":
            continue
        own = int(audience.split("-")[1]) if audience.startswith("seat-") else None
        text = "\n".join(texts)
        for seat, needles in played.secrets.items():
            if seat == own:
                assert all(n in text for n in needles[1::2]), f"{audience} misses its own sequences"
                continue
            leaked = [n for n in needles if n in text]
            assert not leaked, f"{audience} received seat {seat}'s sequence(s) {leaked}"
        # The data: no secret field anywhere, except the seat's own part.
        documents = [*frames[audience], json.loads(texts[-1 - len(frames[audience])])]
        for document in documents:
            for path in secret_fields(document):
                assert own is not None and allowed_for_seat(path), f"{audience}: {path}"
        assert "Host: every secret" not in text
