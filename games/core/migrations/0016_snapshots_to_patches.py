"""Snapshots stop keeping the whole state each time (issue 20): every match's snapshots become
patches of the snapshot before them, with a whole state again only when the patches since the
last whole one would outweigh it (games/core/render/jsondiff.py), and are kept every SNAPSHOT_EVERY
events as the services now keep them (the states in between are played again from the moves;
a snapshot of an event no move makes again stays). Backwards, every snapshot is kept whole."""

import json

from django.db import migrations

from games.core.game.registry import get_game
from games.core.match.replaying import SNAPSHOT_EVERY, Move, play
from games.core.render import jsondiff


def _game(key):
    try:
        return get_game(key)
    except Exception:  # a game no longer installed: its snapshots are chained as they are
        return None


def to_patches(apps, schema_editor):
    Match = apps.get_model("core", "Match")
    Event = apps.get_model("core", "Event")
    Snapshot = apps.get_model("core", "Snapshot")
    for match in Match.objects.order_by("pk").iterator():
        game = _game(match.game_key)
        whole = dict(Snapshot.objects.filter(match=match).values_list("version", "state"))
        if not whole and game is None:
            continue
        Snapshot.objects.filter(match=match).delete()
        rows = Event.objects.filter(match=match).order_by("version")
        state, previous, chain = {}, None, 0
        for row in rows.iterator() if game is not None else []:
            if row.version in whole:
                state = whole[row.version]
            else:
                state = play(game, state, Move.of(row)).state
            if row.version in whole or row.version % SNAPSHOT_EVERY == 0:
                kept = jsondiff.keep(previous, chain, state)
                Snapshot.objects.create(
                    match=match,
                    version=row.version,
                    state=kept.state,
                    patch=kept.patch,
                    chain=kept.chain,
                )
                previous, chain = json.loads(json.dumps(state)), kept.chain
        for version in sorted(whole) if game is None else []:
            kept = jsondiff.keep(previous, chain, whole[version])
            Snapshot.objects.create(
                match=match, version=version, state=kept.state, patch=kept.patch, chain=kept.chain
            )
            previous, chain = json.loads(json.dumps(whole[version])), kept.chain


def to_whole(apps, schema_editor):
    Snapshot = apps.get_model("core", "Snapshot")
    matches = Snapshot.objects.values_list("match_id", flat=True).distinct().order_by("match_id")
    for match_id in matches.iterator():
        state = None
        for row in Snapshot.objects.filter(match_id=match_id).order_by("version").iterator():
            state = row.state if row.patch is None else jsondiff.apply(state, row.patch)
            row.state, row.patch, row.chain = state, None, 0
            row.save(update_fields=["state", "patch", "chain"])


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0015_snapshot_patches"),
    ]

    operations = [
        migrations.RunPython(to_patches, to_whole),
    ]
