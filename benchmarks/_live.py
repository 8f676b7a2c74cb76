"""What the live benchmarks and the soak share: a database of their own, Django set up on it,
Daphne workers on the production shape (PostgreSQL + Redis, DEBUG off), and small statistics.

The live benchmarks run in a subprocess of ``benchmarks.run`` (``python -m benchmarks._live
<module> [--quick]``), so that Django is set up on their own database and channel layer whatever
other benchmarks did in the runner's process. Load goes only to 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_URL = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
PASSWORD = "pw-for-bench-1"


def reachable(url: str, default_port: int) -> bool:
    parts = urllib.parse.urlsplit(url)
    try:
        with socket.create_connection((parts.hostname, parts.port or default_port), timeout=2):
            return True
    except OSError:
        return False


def missing_services() -> str | None:
    """Why the live benchmarks cannot run here, or None."""
    if not reachable(POSTGRES_URL, 5432):
        return f"PostgreSQL is not answering at {POSTGRES_URL}"
    if not reachable(REDIS_URL, 6379):
        return f"Redis is not answering at {REDIS_URL}"
    return None


def in_subprocess(module: str, quick: bool, timeout: float = 3600) -> str:
    """Run ``module``'s ``main(quick)`` in a fresh interpreter; return the markdown it prints."""
    reason = missing_services()
    if reason:
        return f"## {module}\n\nNot measured: {reason}.\n"
    command = [sys.executable, "-m", "benchmarks._live", module, *(["--quick"] if quick else [])]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
    )
    sys.stderr.write(done.stderr[-4000:])
    if done.returncode != 0:
        return (
            f"## {module}\n\nFailed (exit {done.returncode}):\n\n```\n{done.stderr[-3000:]}\n```\n"
        )
    return done.stdout


@contextlib.contextmanager
def own_database(name_hint: str) -> Iterator[str]:
    """A fresh PostgreSQL database for this run (migrated, Django set up on it), dropped after."""
    import psycopg

    name = f"gemarena_{name_hint}_{os.getpid()}"
    with psycopg.connect(f"{POSTGRES_URL}/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    url = f"{POSTGRES_URL}/{name}"
    os.environ.update(
        DATABASE_URL=url,
        REDIS_URL=REDIS_URL,
        CHANNEL_PREFIX=f"bench{os.getpid()}",
        DJANGO_SETTINGS_MODULE="gemsite.test_settings",
        GEM_EXTRA_GAMES="tests.fixture_game",
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    try:
        yield url
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(f"{POSTGRES_URL}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def production_workers() -> None:
    """Make tests.live_server's workers run as production does: DEBUG off (no query log), a real
    secret key; plain http on 127.0.0.1 (no TLS here, so no https redirect or secure cookies)."""
    from tests import live_server

    plain = live_server.worker_environment

    def environment(**kwargs: float) -> dict[str, str]:
        env = plain(**kwargs)
        env.update(
            DEBUG="0",
            HTTPS="0",
            BEHIND_PROXY="0",
            SECRET_KEY=secrets.token_urlsafe(50),
            ALLOWED_HOSTS="127.0.0.1,localhost",
        )
        return env

    live_server.worker_environment = environment


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The load generator's own garbage collector paused while it measures. Its sockets keep
    every frame they got, and a full collection over them stopped this process's event loop
    for 100-300 ms, three times a pace of ``cast_together``: every swap and frame in flight
    then, at the seats and at the spectators alike, was timed as that much later, though the
    server had sent it. A browser's pause is its own; the server's are what is measured (the
    workers keep their collector: serve.py). What was set up before is frozen out of the
    collector's sight, and the collector runs again once the measuring is over."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


SPEED_GAME_MOVES = 300
SPEED_GAME_SEED = 40


def speed_game() -> list[tuple[str, str]]:
    """A seeded Endless game of Bejeweled 2, ``SPEED_GAME_MOVES`` best swaps (each the hint's
    search of every swap, then the move played out with its cascades; a stuck board
    reshuffled): the same moves on every machine."""
    from games.bejeweled2 import engine

    board = engine.generate_board(SPEED_GAME_SEED)
    played = []
    for n in range(SPEED_GAME_MOVES):
        move = engine.best_move(board)
        if move is None:
            board = engine.reshuffle(board, SPEED_GAME_SEED + n)
            move = engine.best_move(board)
            assert move is not None, "a reshuffled board has a legal swap"
        board = engine.swap(board, *move, SPEED_GAME_SEED + n).board
        played.append(move)
    return played


def machine_speed(tries: int = 5) -> float:
    """The CPU seconds of ``speed_game`` on this machine, the median of ``tries``: the machines
    of different sessions run the same code at different speeds, so a live benchmark's report
    says how fast its machine was, and two reports compare only beside it."""
    times = []
    for _ in range(tries):
        started = time.process_time()
        speed_game()
        times.append(time.process_time() - started)
    return sorted(times)[len(times) // 2]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port} after {timeout} s")


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    module = next(arg for arg in argv if not arg.startswith("-"))
    sys.path.insert(0, str(ROOT))
    print(importlib.import_module(f"benchmarks.{module}").main(quick))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
