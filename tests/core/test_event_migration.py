"""Migration 0013 turns events that stored whole states into moves and snapshots, and 0016
turns those snapshots, kept whole, into patches of the one before (a whole state again only when
the patches since the last outweigh it): a database holding matches of every game, written as
they were stored before (each event with its state), is migrated forward, and every version's
state is then rebuilt exactly."""

from __future__ import annotations

import importlib
import json
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from games.core.game.gamedef import SeatInfo, Viewer, state_deadlines
from games.core.game.registry import get_game
from games.core.match import replaying
from games.core.models import Match, Snapshot

BEFORE = [("core", "0011_event_sent_at")]
# Through the fair seeds' columns too (0017): the matches are read with today's model.
AFTER = [("core", "0017_fair_seeds")]
EVENTS = 45  # snapshots of 20 events apart before 0016, and of SNAPSHOT_EVERY after it

# (game, bot levels (the fixture game has no bot: its clock plays for it), settings)
GAMES = [
    ("bejeweled-dm", ["expert", "beginner"], {}),
    ("glittering-paths", ["best", "casual"], {"board_area": 36, "interval_seconds": 5}),
    ("pointsweeper", ["club", "beginner"], {"move_seconds": 20, "bank_seconds": 10}),
    ("seven-gem-swap", ["club", "club", "club"], {"bid_seconds": 120, "round_seconds": 120}),
    ("bejeweled-2", ["greedy"], {"mode": "action"}),
    ("fixture-count", ["clock", "clock"], {"turn_seconds": 30}),
]


def stored(state: Any) -> Any:
    return json.loads(json.dumps(state))


def recorded_match(game_key: str, levels: list[str], settings: dict) -> list[dict[str, Any]]:
    """A match played by the pure rules as the services played it (bots on their own views,
    clocks as they run out), each event with the whole state it made, as events were stored
    before migration 0013. A pause, its resume and a host's clock change come along the way."""
    game = get_game(game_key)
    now = timezone.now()
    # Bots were named "Bot (club)", then "Club bot 2": the fixture game's match has the new names.
    names = [f"Bot ({level})" for level in levels]
    if game_key == "fixture-count":
        names = [f"{level.capitalize()} bot {i + 1}" for i, level in enumerate(levels)]
    seats = [SeatInfo(i, "", name, True) for i, name in enumerate(names)]
    events: list[dict[str, Any]] = [
        {"kind": "seat_taken", "public": {"seat": i, "name": s.name}, "state": {}, "at": now}
        for i, s in enumerate(seats)
    ]
    outcome = game.start(game.clean_settings(settings), seats, 7, now)
    state = stored(outcome.state)
    events.append({"kind": outcome.kind, "public": outcome.public, "state": state, "at": now})
    while len(events) < EVENTS and state.get("deadlines"):
        now += timedelta(seconds=2)
        if len(events) == 10:  # the host pauses, changes a clock, resumes 61.5 seconds later
            key = sorted(state_deadlines(state))[0]
            extended = game.shift_clocks(state, timedelta(seconds=40), key)
            resumed = stored(game.shift_clocks(extended, timedelta(seconds=61.5)))
            events.append({"kind": "paused", "public": {}, "state": state, "at": now})
            public = {"clock": key, "seconds": 40}
            events.append({"kind": "clock_changed", "public": public, "state": extended, "at": now})
            now += timedelta(seconds=61.5)
            events.append({"kind": "resumed", "public": {}, "state": resumed, "at": now})
            state = resumed
            continue
        made = None
        for seat, level in enumerate(levels):
            if level in game.bot_levels:
                action = game.bot_action(game.view(state, Viewer(seat=seat)), seat, level, now)
                if action is not None:
                    made = (seat, action, game.act(state, seat, action, now))
                    break
        due = sorted((when, key) for key, when in state_deadlines(state).items())
        if made is None and due and due[0][0] <= now:
            made = (None, None, game.timeout(state, due[0][1], now, {}))
        if made is None:
            continue
        seat, action, outcome = made
        state = stored(outcome.state)
        events.append(
            {
                "kind": outcome.kind,
                "seat": seat,
                "action": action,
                "public": outcome.public,
                "private": {str(k): v for k, v in outcome.private.items()},
                "state": state,
                "at": now,
            }
        )
    # A decision no recorded input explains (a hand-edited state) is kept as a snapshot; the
    # pause after it is played again from there.
    noted = {**state, "noted": True}
    events.append({"kind": "noted", "public": {}, "state": noted, "at": now})
    events.append({"kind": "paused", "public": {}, "state": noted, "at": now})
    return events


@pytest.mark.django_db(transaction=True)
def test_matches_of_every_game_become_moves_and_snapshots(make_user, monkeypatch):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    OldMatch, OldSeat, OldEvent = (old.get_model("core", n) for n in ("Match", "Seat", "Event"))
    host = old.get_model("auth", "User").objects.create(username="old-host")
    written: dict[int, list[dict[str, Any]]] = {}
    for game_key, levels, settings in GAMES:
        events = recorded_match(game_key, levels, settings)
        match = OldMatch.objects.create(
            game_key=game_key,
            title=game_key,
            host=host,
            status="live",
            settings=get_game(game_key).clean_settings(settings),
            seed=7,
            version=len(events),
            state=events[-1]["state"],
        )
        for index, level in enumerate(levels):
            OldSeat.objects.create(match=match, index=index, bot_level=level)
        for version, event in enumerate(events, start=1):
            OldEvent.objects.create(
                match=match,
                version=version,
                kind=event["kind"],
                seat=event.get("seat"),
                action=event.get("action"),
                public=event["public"],
                private=event.get("private", {}),
                state=event["state"],
                created_at=event["at"],
            )
        written[match.pk] = events

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    # Databases migrated before snapshots became patches kept one every 20 events: 0016 keeps
    # them every SNAPSHOT_EVERY.
    monkeypatch.setattr(
        importlib.import_module("games.core.migrations.0013_events_to_moves"), "SNAPSHOT_EVERY", 20
    )
    executor.migrate(AFTER)

    for pk, events in written.items():
        match = Match.objects.get(pk=pk)
        assert len(events) > replaying.SNAPSHOT_EVERY, match.game_key
        for version, event in enumerate(events, start=1):
            assert replaying.rebuild(match, version) == event["state"], (match.game_key, version)
        snapshots = set(Snapshot.objects.filter(match=match).values_list("version", flat=True))
        every_k = set(range(replaying.SNAPSHOT_EVERY, len(events) + 1, replaying.SNAPSHOT_EVERY))
        # Every event but the hand-noted one has a move that makes it again.
        noted = next(v for v, e in enumerate(events, start=1) if e["kind"] == "noted")
        assert snapshots == every_k | {noted}, match.game_key
        kept = Snapshot.objects.filter(match=match).order_by("version")
        assert kept.first().patch is None and kept.first().state is not None
        assert kept.filter(patch__isnull=False).exists(), match.game_key  # patches after it
        rules = {rule for rule in match.events.values_list("move__rule", flat=True)}
        assert {"keep", "start", "shift"} <= rules, match.game_key

    # Backwards, every snapshot is whole again.
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([("core", "0014_remove_event_state")])
    Whole = executor.loader.project_state([("core", "0014_remove_event_state")]).apps
    for row in Whole.get_model("core", "Snapshot").objects.all():
        assert row.state == written[row.match_id][row.version - 1]["state"], row.version
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
