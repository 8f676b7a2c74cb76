"""The match core's cost per action: queries, worker CPU, frame bytes (issue 7).

A death match is played through ``games.core.match.services`` exactly as the websocket consumer does
it (the action inside ``broadcast.deferred()``, then the frames rendered once per distinct view):
both seats claim, pass, prove the optimum and pick, round after round, until the match is over. For
every action: the queries it took (Django's query log; the action's own transaction is not a query),
the CPU time of applying it and of rendering every audience's frame, and the bytes a connection
sends each audience: the whole frame (every panel, as a fresh connection or a resync gets it) and
the update frame as sent (only the panels that changed since the last frame to that audience). Runs
on SQLite in a temporary file unless DATABASE_URL is set.

Before this rework (the probe quoted in issue 7, same machine, PostgreSQL): 34-43 KB per audience
per update, the view twice (as data and inside the html), every panel every time; about 14 queries
per action; about 59 ms per action in process, 45 of them the broadcast (29 ms rendering four
audiences' html).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from typing import Any

ROUNDS_QUICK, MATCHES_FULL = 1, 3


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gemsite.test_settings")
    if not os.environ.get("DATABASE_URL"):
        os.environ["SQLITE_PATH"] = os.path.join(tempfile.mkdtemp(), "bench.sqlite3")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _transaction_control(sql: str) -> bool:
    return sql.startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT"))


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _next_action(view: dict[str, Any], seat: int) -> dict[str, Any] | None:
    """What a sharp player in ``seat`` does now (the practice bot's choices, without its pauses)."""
    from games.bejeweled_dm import bot

    phase = view.get("phase")
    board = view["board"]["text"]
    if phase == "claim" and seat == 0:
        best, _ = bot.optimum(board, bot.offer_of(view))
        return {"type": "claim", "count": max(best, 1)}
    return bot.decide(view, seat, bot.EXPERT, view and _far_future())


def _far_future():
    from datetime import UTC, datetime

    return datetime(2100, 1, 1, tzinfo=UTC)


def play_match(index: int) -> list[dict[str, Any]]:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.core.game.gamedef import Viewer
    from games.core.live import broadcast
    from games.core.match import seating, services
    from games.core.models import Match
    from games.core.render.rendering import update_frames

    users = get_user_model().objects
    host = users.create_user(f"bench-host-{index}", password="x")
    ada, bob = users.create_user(f"bench-a-{index}"), users.create_user(f"bench-b-{index}")
    match = seating.create_match(
        host=host,
        game_key="bejeweled-dm",
        title="bench",
        settings={"first_offer": "random"},
        roles=["EC", "DMO"],
    )
    seats = list(match.seats.all())
    seating.take_seat(match, ada, seats[0].invite_token)
    seating.take_seat(match, bob, seats[1].invite_token)
    players = {0: ada, 1: bob}
    panels_held: dict[str, dict[str, str]] = {}
    samples = []
    for _ in range(200):
        match = Match.objects.with_seats().get(pk=match.pk)
        if match.is_over:
            break
        acted = False
        for seat, user in players.items():
            action = _next_action(match.game.view(match.state, Viewer(seat=seat)), seat)
            if action is None:
                continue
            with CaptureQueriesContext(connection) as queries:
                started = time.process_time()
                with broadcast.deferred() as announced:
                    services.submit_action(match, user, action, expected_version=match.version)
                applied = time.process_time() - started
            started = time.process_time()
            frames = [frame for told in announced.events for frame in update_frames(told)]
            rendered = time.process_time() - started
            whole, sent, data_only = [], [], []
            for viewer, frame in frames:
                held = panels_held.setdefault(viewer.audience, {})
                whole.append(len(frame.text(True, None)))
                sent.append(len(frame.text(True, held)))
                data_only.append(len(frame.text(False, None)))
            samples.append(
                {
                    "kind": action["type"],
                    "queries": len([q for q in queries if not _transaction_control(q["sql"])]),
                    "apply_ms": applied * 1000,
                    "render_ms": rendered * 1000,
                    "whole": whole,
                    "sent": sent,
                    "data": data_only,
                }
            )
            acted = True
            break
        if not acted:
            break
    return samples


def run(quick: bool = False) -> str:
    _setup()
    from games.bejeweled_dm import solver

    solver.warm_up()
    samples: list[dict[str, Any]] = []
    for index in range(ROUNDS_QUICK if quick else MATCHES_FULL):
        samples.extend(play_match(int(time.time() * 1000) % 10**9 + index))
    queries = [s["queries"] for s in samples]
    apply_ms = [s["apply_ms"] for s in samples]
    render_ms = [s["render_ms"] for s in samples]
    cpu = [a + r for a, r in zip(apply_ms, render_ms, strict=True)]
    whole = [b for s in samples for b in s["whole"]]
    sent = [b for s in samples for b in s["sent"]]
    data = [b for s in samples for b in s["data"]]
    kinds = sorted({s["kind"] for s in samples})
    engine = "PostgreSQL" if os.environ.get("DATABASE_URL") else "SQLite"
    rows = [
        "## Match core: cost of one action (death match, in process)",
        "",
        f"{len(samples)} actions ({', '.join(kinds)}) over {MATCHES_FULL if not quick else 1} "
        f"match(es) on {engine}; four audiences (two seats, host, spectators) per action.",
        "",
        "| figure | median | p95 | max | before (issue 7 probe) |",
        "|---|---:|---:|---:|---:|",
        f"| queries per action | {statistics.median(queries):.0f} | "
        f"{_percentile(queries, 0.95):.0f} | {max(queries)} | ~14 |",
        f"| CPU to apply (ms) | {statistics.median(apply_ms):.1f} | "
        f"{_percentile(apply_ms, 0.95):.1f} | {max(apply_ms):.1f} | ~14 |",
        f"| CPU to render all audiences' frames (ms) | {statistics.median(render_ms):.1f} | "
        f"{_percentile(render_ms, 0.95):.1f} | {max(render_ms):.1f} | ~29 |",
        f"| worker CPU per action, apply + render (ms) | {statistics.median(cpu):.1f} | "
        f"{_percentile(cpu, 0.95):.1f} | {max(cpu):.1f} | ~59 |",
        f"| update frame as sent, changed panels only (KB) | "
        f"{statistics.median(sent) / 1000:.1f} | "
        f"{_percentile(sent, 0.95) / 1000:.1f} | {max(sent) / 1000:.1f} | 34-43 |",
        f"| whole frame, every panel (KB; connect, resync) | {statistics.median(whole) / 1000:.1f} "
        f"| {_percentile(whole, 0.95) / 1000:.1f} | {max(whole) / 1000:.1f} | 34-43 |",
        f"| data-only frame, format=json (KB) | {statistics.median(data) / 1000:.1f} | "
        f"{_percentile(data, 0.95) / 1000:.1f} | {max(data) / 1000:.1f} | ~10 |",
        "",
        "Targets (issue 7): at most 6 queries and under 10 ms of worker CPU per action. The ack "
        "is sent before the frames are rendered, and the rendering runs off the thread that "
        "applies actions, so a sender waits for the apply column only.",
    ]
    return "\n".join(rows)


if __name__ == "__main__":
    print(run(quick=True))
