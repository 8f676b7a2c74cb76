"""Bejeweled 2: one swap through the whole server path, in process and live (issue 10).

In process: an Endless game is played through ``games.core.match.services`` as the websocket
consumer does it (the action inside ``broadcast.deferred()``, then each audience's frame rendered:
the player, the host (the same user here) and spectators), the greedy bot choosing each swap. For
every swap: the queries it took, the CPU time of applying it (rules, cascade steps, the view's
animation frames) and of rendering the frames, and the bytes sent: the update frame with only the
changed panels, the whole frame (a fresh connection) and the data-only frame (format=json). Runs on
SQLite in a temporary file unless DATABASE_URL is set.

Live: a real Daphne worker (tests/live_server.py's Worker, production settings: DEBUG off), the
player logged in on a page websocket (html frames, as a browser gets them) and one anonymous
spectator on another. The player plays an Endless game as fast as the acks come back: the greedy
bot chooses each swap from the view the player holds, the swap is sent, and the next one goes once
the ack and the player's own frame of that version have arrived. Measured: from sending the action
to its ack, and from sending it to the spectator's frame of that version. Once on SQLite (a
temporary file, the in-memory channel layer: ``make run``'s shape) and once on PostgreSQL + Redis
(a database of its own, redis db 13), each in a fresh interpreter. The worker's message rate limit
(10 a second) is raised for the run, since a load tool acks faster than a hand clicks. Target: p99
under 50 ms on both.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.core_actions import _percentile, _setup, _transaction_control

SWAPS_QUICK, SWAPS_FULL = 20, 200
LIVE_REDIS_URL = "redis://127.0.0.1:6379/13"
TARGET_P99_MS = 50
LAST_FRAME_SECONDS = 15.0  # the spectator's frame of the last swap, at most this long after it


def play(swaps: int, tag: int) -> list[dict[str, Any]]:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.bejeweled2 import bot
    from games.core.game.gamedef import Viewer
    from games.core.live import broadcast
    from games.core.match import seating, services
    from games.core.models import Match
    from games.core.render.rendering import update_frames

    ada = get_user_model().objects.create_user(f"bench-bj2-{tag}", password="x")
    match = seating.create_match(
        host=ada, game_key="bejeweled-2", title="bench", settings={"mode": "endless"}, roles=[""]
    )
    seating.take_seat(match, ada, match.seats.get().invite_token)
    held: dict[str, dict[str, str]] = {}
    samples = []
    for _ in range(swaps):
        match = Match.objects.with_seats().get(pk=match.pk)
        if match.is_over:
            break
        a, b = bot.choose_move(match.game.view(match.state, Viewer(seat=0)), "greedy")
        action = {"type": "swap", "a": a, "b": b}
        with CaptureQueriesContext(connection) as queries:
            started = time.process_time()
            with broadcast.deferred() as announced:
                services.submit_action(match, ada, action, expected_version=match.version)
            applied = time.process_time() - started
        started = time.process_time()
        frames = [frame for told in announced.events for frame in update_frames(told)]
        rendered = time.process_time() - started
        sent, whole, data = [], [], []
        for viewer, frame in frames:
            sent.append(len(frame.text(True, held.setdefault(viewer.audience, {}))))
            whole.append(len(frame.text(True, None)))
            data.append(len(frame.text(False, None)))
        samples.append(
            {
                "queries": len([q for q in queries if not _transaction_control(q["sql"])]),
                "apply_ms": applied * 1000,
                "render_ms": rendered * 1000,
                "sent": sent,
                "whole": whole,
                "data": data,
            }
        )
    return samples


def _row(name: str, values: list[float], scale: float = 1, digits: int = 1) -> str:
    cells = [statistics.median(values), _percentile(values, 0.95), max(values)]
    return f"| {name} | " + " | ".join(f"{v / scale:.{digits}f}" for v in cells) + " |"


def in_process(quick: bool) -> str:
    _setup()
    samples = play(SWAPS_QUICK if quick else SWAPS_FULL, int(time.time() * 1000) % 10**9)
    apply_ms = [s["apply_ms"] for s in samples]
    render_ms = [s["render_ms"] for s in samples]
    engine = "PostgreSQL" if os.environ.get("DATABASE_URL") else "SQLite"
    rows = [
        "## Bejeweled 2: one swap through the whole server path (in process)",
        "",
        f"{len(samples)} swaps of one Endless game on {engine}, the greedy bot choosing; every "
        "audience's frame rendered (player, spectators).",
        "",
        "| figure | median | p95 | max |",
        "|---|---:|---:|---:|",
        _row("queries per swap", [s["queries"] for s in samples], digits=0),
        _row("CPU to apply (ms)", apply_ms),
        _row("CPU to render the frames (ms)", render_ms),
        _row("worker CPU per swap (ms)", [a + r for a, r in zip(apply_ms, render_ms, strict=True)]),
        _row("update frame as sent (KB)", [b for s in samples for b in s["sent"]], 1000),
        _row("whole frame (KB)", [b for s in samples for b in s["whole"]], 1000),
        _row("data-only frame (KB)", [b for s in samples for b in s["data"]], 1000),
        "",
        "The frames carry the move's animation steps (and the board after each) in the view, so "
        "a page can play the cascade without asking again.",
    ]
    return "\n".join(rows)


# --- live: a real worker, a player and a spectator over websockets --------------------------------


def _make_game(tag: int) -> str:
    """A user with a password and an Endless game they sit in (started); its public id."""
    from django.contrib.auth import get_user_model
    from django.db import connections

    from benchmarks import _live
    from games.core.match import seating

    ada = get_user_model().objects.create_user(f"bj2-live-{tag}", password=_live.PASSWORD)
    match = seating.create_match(
        host=ada, game_key="bejeweled-2", title="bench", settings={"mode": "endless"}, roles=[""]
    )
    seating.take_seat(match, ada, match.seats.get().invite_token)
    connections.close_all()
    return match.public_id


async def _swap_as_fast_as_acked(url: str, public_id: str, swaps: int, tag: int) -> dict:
    from benchmarks import _live
    from games.bejeweled2 import bot
    from games.core.live.client import ArenaClient

    player_client, watcher_client = ArenaClient(url), ArenaClient(url)
    await asyncio.to_thread(player_client.login, f"bj2-live-{tag}", _live.PASSWORD)
    sent: dict[int, float] = {}
    acks: list[float] = []
    arrivals: dict[int, float] = {}
    sizes: list[int] = []
    async with (
        player_client.match_socket(public_id, json_only=False) as player,
        watcher_client.match_socket(public_id, json_only=False) as watcher,
    ):
        await player.recv_until("full")
        await watcher.recv_until("full")

        came = asyncio.Event()

        async def watch() -> None:
            while True:
                frame = await watcher.recv(timeout=60)
                if frame.get("type") == "update":
                    arrivals[frame["version"]] = time.perf_counter()
                    sizes.append(len(frame.get("html", "")))
                    came.set()

        async def until_arrived(version: int) -> None:
            while version not in arrivals:
                came.clear()
                await came.wait()

        watching = asyncio.create_task(watch())
        try:
            for _ in range(swaps):
                view = player.latest_view()["game"]
                move = bot.choose_move(view, "greedy")
                if view["over"] or move is None:
                    break
                began = time.perf_counter()
                version = await player.act({"type": "swap", "a": move[0], "b": move[1]})
                acks.append(time.perf_counter() - began)
                sent[version] = began
                await player.wait_version(version)
            # A version that never comes is counted lost, not waited for forever.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(until_arrived(max(sent)), LAST_FRAME_SECONDS)
        finally:
            watching.cancel()
    delivered = [arrivals[v] - began for v, began in sent.items() if v in arrivals]
    return {"acks": acks, "delivered": delivered, "lost": len(sent) - len(delivered)}


def live(backend: str, quick: bool) -> dict:
    """Run in a fresh interpreter: set up Django on ``backend``, start a worker, measure."""
    from benchmarks import _live

    os.environ.update(
        WS_RATE_PER_SECOND="100000", WS_RATE_BURST="100000", GEM_EXTRA_GAMES="tests.fixture_game"
    )
    _live.production_workers()
    if backend == "postgres":
        context: Any = _live.own_database("bj2b")
    else:
        os.environ.pop("DATABASE_URL", None)
        os.environ.pop("REDIS_URL", None)
        os.environ["DJANGO_SETTINGS_MODULE"] = "gemsite.test_settings"
        _setup()
        context = contextlib.nullcontext()
    with context:
        from tests.live_server import Worker

        tag = int(time.time() * 1000) % 10**9
        public_id = _make_game(tag)
        worker = Worker(scheduler=False).start()
        try:
            swaps = SWAPS_QUICK if quick else SWAPS_FULL
            cpu = _cpu_seconds(worker.process.pid)
            began = time.perf_counter()
            figures = asyncio.run(_swap_as_fast_as_acked(worker.url, public_id, swaps, tag))
            figures["wall"] = time.perf_counter() - began
            figures["worker_cpu"] = _cpu_seconds(worker.process.pid) - cpu
            return figures
        finally:
            worker.stop()


def _cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _live_in_subprocess(backend: str, quick: bool) -> dict | str:
    """The live figures of one backend, or why they are missing."""
    import json

    from benchmarks import _live

    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    if backend == "postgres":
        env["BENCH_REDIS_URL"] = LIVE_REDIS_URL
        reason = _live.missing_services()
        if reason:
            return reason
    command = [sys.executable, "-m", "benchmarks.bejeweled2_server", "--live", backend]
    done = subprocess.run(
        [*command, *(["--quick"] if quick else [])],
        cwd=_live.ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        return f"failed (exit {done.returncode}): {done.stderr[-1500:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def live_section(quick: bool) -> str:
    from benchmarks._live import percentile

    rows = [
        "## Bejeweled 2: one swap through a real worker (websocket action to ack)",
        "",
        "A Daphne worker (DEBUG off), the player on a page websocket and one spectator on "
        "another; an Endless game swapped as fast as the acks come back (the greedy bot choosing "
        "from the player's view, the next swap once the player's frame arrived). Ack: from "
        "sending the action to its ack. Spectator: from sending it to the spectator's frame of "
        f"that version. Target: ack p99 under {TARGET_P99_MS} ms. The load tool, the worker and "
        "the database share this machine's cores.",
        "",
        "| backend | swaps | ack p50 ms | ack p99 ms | spectator p50 ms | spectator p99 ms "
        "| worker CPU per swap ms | swaps a second | frames lost |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    notes = []
    for backend, name in (("sqlite", "SQLite"), ("postgres", "PostgreSQL + Redis")):
        figures = _live_in_subprocess(backend, quick)
        if isinstance(figures, str):
            notes.append(f"{name}: not measured: {figures}")
            continue
        acks, delivered = figures["acks"], figures["delivered"]
        cells = [
            percentile(acks, 0.5),
            percentile(acks, 0.99),
            percentile(delivered, 0.5),
            percentile(delivered, 0.99),
        ]
        cells.append(figures["worker_cpu"] / max(1, len(acks)))
        figures_ms = " | ".join(f"{v * 1000:.1f}" for v in cells)
        rate = len(acks) / figures["wall"]
        rows.append(f"| {name} | {len(acks)} | {figures_ms} | {rate:.0f} | {figures['lost']} |")
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    notes.append(
        f"Load average after the runs (1, 5, 15 min): {load} on {os.cpu_count()} cores; the "
        "p99 figures are the first to suffer when other work shares the cores."
    )
    return "\n".join([*rows, "", *notes])


def run(quick: bool = False) -> str:
    return in_process(quick) + "\n\n" + live_section(quick)


if __name__ == "__main__":
    if "--live" in sys.argv:
        import json

        sys.path.insert(0, str(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        backend = sys.argv[sys.argv.index("--live") + 1]
        print(json.dumps(live(backend, "--quick" in sys.argv)))
    else:
        print(run(quick=True))
