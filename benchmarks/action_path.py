"""The statements of an action's transaction and how long it holds the match row (issues 39, 40).

Every real game is played by its own bots through the services (tests/bot_matches.py), as the
websocket consumer runs each action. For every transaction that locks a match row (an action,
or a clock the scheduler fires): the statements run inside it (on SQLite the ``BEGIN
IMMEDIATE`` too; the COMMIT is no statement Django runs through a cursor, so it is counted
apart: on PostgreSQL it is one more round trip), and the time from the start of the statement
that locks the row to the end of the COMMIT, during which every other action on that match
waits (13 seats of a race acting at once are served one after another). Outside the
transaction, the statement that marks the event sent after the frames leave
(games/core/live/broadcast.py) is counted apart.

    python -m benchmarks.action_path [--events 60] [--games bejeweled-2,pointsweeper]

Runs on SQLite in a temporary file unless DATABASE_URL is set (PostgreSQL: the round trips
under the lock are what the held time is made of).
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from benchmarks import frames

DEFAULT_GAMES = "bejeweled-2,bejeweled-2-race,glittering-paths,pointsweeper,seven-gem-swap"


@dataclass
class Transaction:
    statements: list[str] = field(default_factory=list)
    locked_at: float | None = None  # when the statement locking the match row started
    held_ms: float = 0.0  # from then to the end of the COMMIT
    waited_ms: float = 0.0  # of it, waiting for the database: its statements and the COMMIT


@dataclass
class Tally:
    transactions: list[Transaction] = field(default_factory=list)
    after_send: int = 0  # statements outside any transaction (the event marked sent)
    current: Transaction | None = None


def _watch(tally: Tally) -> Callable[..., Any]:
    """An execute wrapper keeping each statement in its transaction (or apart, outside one)."""
    from django.db import connection

    def watched(execute: Callable[..., Any], sql: str, *args: Any) -> Any:
        if not (connection.in_atomic_block or sql.startswith("BEGIN")):
            return execute(sql, *args)
        if tally.current is None:
            tally.current = Transaction()
        started = time.perf_counter()
        locks = "FOR UPDATE" in sql or (
            tally.current.locked_at is None and sql.startswith("BEGIN IMMEDIATE")
        )
        if locks and tally.current.locked_at is None:
            tally.current.locked_at = started
        tally.current.statements.append(sql)
        try:
            return execute(sql, *args)
        finally:
            if tally.current.locked_at is not None:
                tally.current.waited_ms += (time.perf_counter() - started) * 1000

    return watched


def _commits(tally: Tally) -> None:
    """Close each transaction as the connection commits it (or rolls it back)."""
    from django.db import connection

    commit, rollback = connection.commit, connection.rollback

    def closing(finish: Callable[[], None]) -> Callable[[], None]:
        def done() -> None:
            started = time.perf_counter()
            finish()
            ended = time.perf_counter()
            current, tally.current = tally.current, None
            if current is not None and current.locked_at is not None:
                current.held_ms = (ended - current.locked_at) * 1000
                current.waited_ms += (ended - started) * 1000
                tally.transactions.append(current)

        return done

    connection.commit = closing(commit)  # type: ignore[method-assign]
    connection.rollback = closing(rollback)  # type: ignore[method-assign]


def measure(game_key: str, events: int) -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.db import connection

    from benchmarks.frames import SEED, _Clock
    from games.core.match import clock as core_clock
    from tests.bot_matches import play

    fake = _Clock()
    core_clock.now = fake  # type: ignore[assignment]
    host = get_user_model().objects.create_user(f"host-{game_key}-{secrets.token_hex(4)}")
    tally = Tally()
    _commits(tally)
    watched = _watch(tally)
    marked = [0]

    def outside(execute: Callable[..., Any], sql: str, *args: Any) -> Any:
        if not connection.in_atomic_block and "sent_at" in sql and sql.startswith("UPDATE"):
            marked[0] += 1
        return execute(sql, *args)

    with connection.execute_wrapper(outside), connection.execute_wrapper(watched):
        played = play(game_key, host, fake.advance, events=events, seed=SEED)
    appending = [t for t in tally.transactions if any(_appends(s) for s in t.statements)]
    # The seating's events (seats taken, the start) come before the first the bots play.
    before = played.frames[0].version - 1 if played.frames else 0
    acting = appending[before:]
    return {
        "game": game_key,
        "events": len(acting),
        "statements": [len(t.statements) for t in acting],
        "held_ms": [t.held_ms for t in acting],
        "waited_ms": [t.waited_ms for t in acting],
        "marked": marked[0],
        "kinds": _kinds(acting),
    }


def _appends(sql: str) -> bool:
    return 'INSERT INTO "core_event"' in sql


def _kinds(transactions: list[Transaction]) -> dict[str, int]:
    """How often each kind of statement ran, over all the transactions."""
    seen: dict[str, int] = {}
    for t in transactions:
        for sql in t.statements:
            words = sql.replace('"', "").split()
            table = next((w for w in words if w.startswith("core_")), "").split(".")[0]
            kind = f"{words[0]} {table}".strip() if words else "?"
            if "rows_live" in sql:
                kind = "SELECT core_match (locked)"
            seen[kind] = seen.get(kind, 0) + 1
    return seen


def _cell(values: list[float], digits: int = 1) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"{statistics.median(values):.{digits}f} / {p95:.{digits}f} / {max(values):.{digits}f}"


def report(results: list[dict[str, Any]]) -> str:
    from django.db import connection

    engine = connection.vendor
    lines = [
        f"Statements per locked transaction on {engine} (median / p95 / max; the COMMIT not "
        "counted, on PostgreSQL one more round trip), the match row held locked per "
        "transaction in ms (median / p95 / max), statements after the send in all:",
        "",
        "| game | transactions appending events | statements in the transaction | "
        "held locked, ms | of it waiting for the database (statements, COMMIT), ms | "
        "marked sent |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        lines.append(
            f"| {r['game']} | {r['events']} | {_cell(r['statements'], 0)} | "
            f"{_cell(r['held_ms'], 2)} | {_cell(r['waited_ms'], 2)} | {r['marked']} |"
        )
    lines += ["", "Statements by kind, over every game's transactions:", ""]
    kinds: dict[str, int] = {}
    for r in results:
        for kind, count in r["kinds"].items():
            kinds[kind] = kinds.get(kind, 0) + count
    total = sum(r["events"] for r in results) or 1
    for kind, count in sorted(kinds.items(), key=lambda item: -item[1]):
        lines.append(f"- {kind}: {count} ({count / total:.2f} per event)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=60)
    parser.add_argument("--games", default=DEFAULT_GAMES)
    options = parser.parse_args()
    frames.set_up_as_a_worker()
    results = [measure(game, options.events) for game in options.games.split(",")]
    print(report(results))


if __name__ == "__main__":
    main()
