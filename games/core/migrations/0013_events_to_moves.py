"""Events stop storing the whole state (issue 20): each event of every existing match gets the
move that made it, found by playing candidate moves on the state before it and keeping the one
that makes exactly the state it stored; an event no candidate explains (an end of round, an
award, an analysis, a correction) keeps its state as a snapshot, as does every
SNAPSHOT_EVERY-th event. Backwards, every event's state is rebuilt from the moves."""

import json
from datetime import timedelta

from django.db import migrations

from games.core.game.gamedef import state_deadlines
from games.core.game.registry import get_game
from games.core.match.replaying import SNAPSHOT_EVERY, Move, play


def _stored(state):
    return json.loads(json.dumps(state))


def _seat_names(seat):
    """The names a seat may have started with (bots were "Bot (club)", then "Club bot 2")."""
    if seat.bot_level:
        return [f"Bot ({seat.bot_level})", f"{seat.bot_level.capitalize()} bot {seat.index + 1}"]
    if seat.user_id is None:
        return ["open seat"]
    return [seat.user.first_name or seat.user.username]


def _candidates(match, seats, row, before):
    """The moves that may have made ``row``, most likely first."""
    at = row.created_at
    yield Move("keep", at)
    if row.action is not None and row.seat is not None:
        yield Move("act", at, seat=row.seat, action=row.action)
    if not before:
        for naming in (0, 1):
            infos = [
                {
                    "index": s.index,
                    "role": s.role,
                    "name": _seat_names(s)[naming] if s.bot_level else _seat_names(s)[0],
                    "is_bot": bool(s.bot_level),
                }
                for s in seats
            ]
            inputs = {"settings": match.settings, "seats": infos, "seed": match.seed}
            yield Move("start", at, inputs=inputs)
    clocks = state_deadlines(before) if isinstance(before, dict) else {}
    for key in sorted(clocks, key=clocks.get):
        yield Move("timeout", at, inputs={"clock": key})
    if row.kind == "aborted":
        yield Move("abort", at)
    after = state_deadlines(row.state) if isinstance(row.state, dict) else {}
    shifts = {after[key] - clocks[key] for key in clocks if key in after}
    for shift in shifts:
        microseconds = shift // timedelta(microseconds=1)
        yield Move("shift", at, inputs={"microseconds": microseconds})
        clock = (row.public or {}).get("clock")
        if clock in clocks:
            yield Move("shift", at, inputs={"microseconds": microseconds, "clock": clock})


def _move_of(game, match, seats, row, before):
    """The first candidate move that makes exactly the state ``row`` stored, or None."""
    if game is None:
        return None
    for move in _candidates(match, seats, row, before):
        try:
            if _stored(play(game, before, move).state) == row.state:
                return move
        except Exception:  # a candidate the rules refuse is simply not this event's move
            continue
    return None


def _game(key):
    try:
        return get_game(key)
    except Exception:  # a game no longer installed: every state of its matches is a snapshot
        return None


def to_moves(apps, schema_editor):
    Match = apps.get_model("core", "Match")
    Event = apps.get_model("core", "Event")
    Snapshot = apps.get_model("core", "Snapshot")
    for match in Match.objects.order_by("pk").iterator():
        game = _game(match.game_key)
        seats = list(match.seats.select_related("user").order_by("index"))
        before = {}
        for row in Event.objects.filter(match=match).order_by("version").iterator():
            move = _move_of(game, match, seats, row, before)
            row.move = move.stored(row.created_at, row.public) if move is not None else None
            row.save(update_fields=["move"])
            if move is None or row.version % SNAPSHOT_EVERY == 0:
                Snapshot.objects.create(match=match, version=row.version, state=row.state)
            before = row.state


def to_states(apps, schema_editor):
    Match = apps.get_model("core", "Match")
    Event = apps.get_model("core", "Event")
    Snapshot = apps.get_model("core", "Snapshot")
    for match in Match.objects.order_by("pk").iterator():
        game = _game(match.game_key)
        snapshots = dict(Snapshot.objects.filter(match=match).values_list("version", "state"))
        state = {}
        for row in Event.objects.filter(match=match).order_by("version").iterator():
            if row.version in snapshots:
                state = snapshots[row.version]
            else:
                state = play(game, state, Move.of(row)).state
            row.state = _stored(state)
            row.save(update_fields=["state"])


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0012_event_move_snapshot"),
    ]

    operations = [
        migrations.RunPython(to_moves, to_states),
    ]
