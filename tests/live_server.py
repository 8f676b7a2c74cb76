"""Real Daphne workers in subprocesses, on the test database, for tests over real websockets."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, connections

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "pw-for-tests-1"  # every test account's (tests/conftest.py's make_user)
START_SECONDS = 120


async def in_db(function):  # type: ignore[no-untyped-def]
    """Run ORM code from an async test in a thread, closing that thread's connection after."""
    import asyncio

    def run():  # type: ignore[no-untyped-def]
        try:
            return function()
        finally:
            connections.close_all()

    return await asyncio.to_thread(run)


def create_through_the_page(
    url: str, game_key: str, form: dict[str, str], players: tuple[str, ...] = ("ec", "dmo")
) -> Any:
    """A match made as people make one: "boss" fills in the new-match page with ``form``, then
    each of ``players`` opens their seat's invite link, in seat order."""
    from games.core.live.client import ArenaClient
    from games.core.models import Match

    host = ArenaClient(url)
    host.login("boss", PASSWORD)
    host.post_form(f"/matches/new/{game_key}/", form)
    match = Match.objects.get(title=form["title"])
    for username, seat in zip(players, match.seats.order_by("index"), strict=True):
        player = ArenaClient(url)
        player.login(username, PASSWORD)
        player.post_form(seat.get_invite_url(), {})
    match.refresh_from_db()
    connections.close_all()
    return match


def seat_ada_and_bob(url: str, match: Any) -> Any:
    """ "ada" and "bob" open the invite links of seats 1 and 2; returns ada's signed-in client."""
    from games.core.live.client import ArenaClient

    ada, bob = ArenaClient(url), ArenaClient(url)
    ada.login("ada", PASSWORD)
    bob.login("bob", PASSWORD)
    seats = list(match.seats.order_by("index"))
    ada.post_form(seats[0].get_invite_url(), {})
    bob.post_form(seats[1].get_invite_url(), {})
    return ada


@dataclass
class Seated:
    """A live match's seats on their sockets and a signed-out watcher's, each past its first
    full view; ``clients`` (by username, "guest" for the watcher) fetch pages as they would."""

    sockets: dict[int, Any]
    watcher: Any
    clients: dict[str, Any]

    @property
    def everyone(self) -> tuple[Any, ...]:
        return (*self.sockets.values(), self.watcher)


@asynccontextmanager
async def seated_sockets(
    url: str, match: Any, players: tuple[str, ...] = ("ec", "dmo"), *, json_only: bool = True
) -> AsyncIterator[Seated]:
    """Each of ``players`` signs in and opens the match's socket as seat 0, 1, ...; a guest
    watches. Every socket has its full view before the test's first move."""
    import asyncio

    from games.core.live.client import ArenaClient

    clients = {name: ArenaClient(url) for name in (*players, "guest")}
    for name in players:
        await asyncio.to_thread(clients[name].login, name, PASSWORD)
    async with AsyncExitStack() as stack:
        sockets = [
            await stack.enter_async_context(
                client.match_socket(match.public_id, json_only=json_only)
            )
            for client in clients.values()
        ]
        for socket_ in sockets:
            await socket_.recv_until("full")
        yield Seated(dict(enumerate(sockets[:-1])), sockets[-1], clients)


async def step(actor: Any, action: dict[str, Any], *others: Any) -> int:
    """``actor`` acts; returns the new version once the actor and every other socket hold it."""
    version = await actor.act(action)
    for other in others:
        await other.wait_version(version)
    await actor.wait_version(version)
    return version


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def worker_environment(*, scheduler_poll: float = 0.25) -> dict[str, str]:
    """The environment that points a worker at the database the tests are using. Its scheduler
    looks for new clocks, bots' turns and notifications every ``scheduler_poll`` seconds (a
    clock it knows of fires on time whatever the poll): every 0.05 s, an idle worker kept 30%
    of a core busy, every 0.25 s 8%."""
    env = {**os.environ, "GEM_EXTRA_GAMES": "tests.fixture_game", "DEBUG": "1"}
    # The worker draws the running test's seeds too (tests/seeds.py), a sequence of its own.
    env["GEM_TEST_SEED_SALT"] = "worker"
    # The settings module the tests run on (gemsite.test_settings: its password hasher made the
    # test users' passwords, so a worker on other settings could not log them in).
    env["DJANGO_SETTINGS_MODULE"] = settings.SETTINGS_MODULE
    env["SCHEDULER_POLL_SECONDS"] = str(scheduler_poll)
    # Panels drawn from memory are checked against a fresh drawing in this process's tests,
    # on every audience of every game's bot matches (tests/core/test_frames.py); a worker
    # serving a browser draws each only once, as in production (the check cost a fifth of a
    # live test's time).
    env["PANEL_MEMO_CHECK"] = "0"
    # Workers pool their database connections, as in production (only pytest's own process
    # does not: gemsite/test_settings.py). A stopped worker's connections close with it.
    env["DB_POOL_SIZE"] = "10"
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        env["SQLITE_PATH"] = str(db["NAME"])
        env.pop("DATABASE_URL", None)
    else:
        auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
        env["DATABASE_URL"] = (
            f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
        )
    return env


class Worker:
    """One `manage.py serve` process. ``restart`` kills it hard and starts it again."""

    def __init__(self, *, scheduler: bool = True) -> None:
        self.port = free_port()
        self.scheduler = scheduler
        self.process: subprocess.Popen[bytes] | None = None
        # The worker's standard error, every start of it, goes to a file: a pipe nobody reads
        # would block a worker that logs a lot; ``log()`` reads it for a failing test.
        self.log_path = Path(tempfile.gettempdir()) / f"gem-arena-worker-{self.port}.log"
        self.log_path.write_text("")
        self.log_mark = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Worker:
        command = [sys.executable, "manage.py", "serve", "--port", str(self.port)]
        if not self.scheduler:
            command.append("--no-scheduler")
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=worker_environment(),
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        # Starting is waited for, never timed: a loaded machine takes long to import Django.
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker died: {self.log()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"worker did not start listening in {START_SECONDS} s")

    def log(self) -> str:
        """What the worker (every start of it) has written to its standard error since
        ``mark_log`` (or since it was made)."""
        with self.log_path.open("rb") as log:
            log.seek(self.log_mark)
            return log.read().decode(errors="replace")

    def mark_log(self) -> None:
        """From now on, ``log()`` starts here (a worker serving several tests)."""
        self.log_mark = self.log_path.stat().st_size

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def restart(self) -> Worker:
        self.kill()
        return self.start()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
