"""Database connections: each process lends them from a pool (gemsite/env.py), so a worker serving
many requests, each in a thread of its own, holds no more than its pool's size open."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from gemsite.env import database_from_url

pytestmark = pytest.mark.django_db(transaction=True)

needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="PostgreSQL: set DATABASE_URL=postgres://postgres@127.0.0.1:5432/gemarena",
)


def test_a_database_url_gives_a_checked_pool_of_twenty_and_no_kept_connections(monkeypatch):
    monkeypatch.delenv("DB_POOL_SIZE", raising=False)
    entry = database_from_url("postgres://arena:secret@db.example:6543/arena")
    assert (entry["NAME"], entry["USER"], entry["HOST"], entry["PORT"]) == (
        "arena",
        "arena",
        "db.example",
        "6543",
    )
    assert entry["CONN_MAX_AGE"] == 0
    assert entry["CONN_HEALTH_CHECKS"] is True  # Django then has the pool check each loan
    assert entry["OPTIONS"]["pool"]["max_size"] == 20


def test_a_pool_size_of_zero_opens_a_connection_per_use(monkeypatch):
    monkeypatch.setenv("DB_POOL_SIZE", "0")
    assert database_from_url("postgres://db.example/arena")["OPTIONS"] == {}


def open_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        return cursor.fetchone()[0]


@needs_postgres
def test_a_worker_serving_many_requests_keeps_at_most_its_pool_open(live_worker):
    from games.core.live.client import ArenaClient

    def visit(_: int) -> None:
        ArenaClient(live_worker.url).get("/")

    # Counted against what was open before (this test's own connection, and any an earlier test
    # is still closing), so that only the worker's count.
    before = open_connections()
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(visit, range(90)))
    assert open_connections() - before <= 10  # DB_POOL_SIZE of the test workers
