from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

import tests.fixture_game  # noqa: F401  (registers the fixture game in this process)
from tests.following import NEXT_TEST, next_asks_for

# Where this process names the running test for the live workers it starts (tests/seeds.py).
os.environ["GEM_TEST_SEED_FILE"] = str(
    Path(tempfile.gettempdir()) / f"gem-arena-test-{os.getpid()}.seed"
)

# The files that take longest go first, longest first, so that `make test`'s processes
# (pytest-xdist, whole files each) do not end on one of them alone. Their times are those of the
# last whole run, which writes them to tests/durations.json (commit it with a change that moves
# them); a file not yet timed counts as NEW_FILE_SECONDS.
DURATIONS = Path(__file__).with_name("durations.json")
NEW_FILE_SECONDS = 20.0


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _recorded_durations() -> dict[str, float]:
    try:
        return {str(k): float(v) for k, v in json.loads(DURATIONS.read_text()).items()}
    except (OSError, ValueError, AttributeError):
        return {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    recorded = _recorded_durations()

    def weight(item: pytest.Item) -> float:
        return -recorded.get(_file_of(item.nodeid), NEW_FILE_SECONDS)

    items.sort(key=weight)  # stable: each file's tests keep their order


_spent_by_file: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Each file's time (setup, call and teardown of its tests), in the process that reports
    the run (with pytest-xdist, the controller receives every worker's reports)."""
    path = _file_of(report.nodeid)
    _spent_by_file[path] = _spent_by_file.get(path, 0.0) + report.duration


def _whole_run(config: pytest.Config) -> bool:
    """A run of the whole suite as `make test` runs it (no selection of files or tests)."""
    option = config.option
    if option.keyword or option.markexpr or getattr(option, "lf", False):
        return False
    tests = Path(__file__).parent
    return all(Path(arg).resolve() == tests for arg in config.args)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if hasattr(config, "workerinput") or not _whole_run(config) or not _spent_by_file:
        return
    if exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return  # interrupted: the times are partial
    spent = {path: round(seconds, 1) for path, seconds in _spent_by_file.items()}
    DURATIONS.write_text(
        json.dumps(dict(sorted(spent.items(), key=lambda kv: -kv[1])), indent=1) + "\n"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """With GEM_REQUIRE_ALL set (CI: .ci/run), a skipped test fails: a run missing a tool or a
    service (chromium, nginx, Redis) must not pass having tested less than it says."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("GEM_REQUIRE_ALL") and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped in a run that must run every test (GEM_REQUIRE_ALL): {reason}"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per reason tests were skipped, with how many and what to install (a missing
    tool or service skips a whole group: say so where everyone reads it)."""
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        if isinstance(report.longrepr, tuple):
            reason = report.longrepr[2].removeprefix("Skipped: ")
            reasons[reason] = reasons.get(reason, 0) + 1
    if reasons:
        terminalreporter.section("skipped, and why", sep="-")
        for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
            terminalreporter.line(f"{count} {'test' if count == 1 else 'tests'} skipped: {reason}")


@pytest.fixture(autouse=True)
def _seeded_matches(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every match the test (or a live worker it starts) makes draws its seed from the test's
    own name (tests/seeds.py): the same boards on every run."""
    from tests import seeds

    monkeypatch.setenv("GEM_TEST_SEED", request.node.nodeid)
    seeds.name_the_test(request.node.nodeid)


# Property tests check outcomes, never speed: a loaded 2-core machine must not fail them on time.
# The default run draws the same examples every time (derandomize: a failure can be run again);
# `make soak` draws new ones, and more (the "soak" profile, GEM_FUZZ_SCALE).
hypothesis_settings.register_profile(
    "arena",
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
hypothesis_settings.register_profile(
    "soak", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "arena"))


@pytest.fixture
def make_user(django_user_model):
    def make(username: str, password: str = "pw-for-tests-1", **extra):
        return django_user_model.objects.create_user(
            username=username, password=password, first_name=username.title(), **extra
        )

    return make


@pytest.fixture
def slow_tally(make_user):
    """A fixture-game match (hostess; ada and bob invited) whose turn clock cannot fire while a
    test runs."""
    from games.core.match import seating

    host = make_user("hostess")
    make_user("ada")
    make_user("bob")
    return seating.create_match(
        host=host,
        game_key="fixture-tally",
        title="Slow tally",
        settings={"turn_seconds": 600},
        roles=["EC", "DMO"],
    )


@pytest.fixture
def three_accounts(make_user):
    """The host "boss" and the players "ec" and "dmo" of the live two-player matches."""
    for name in ("boss", "ec", "dmo"):
        make_user(name)


class FakeClock:
    """A clock the test moves by hand; services read it through games.core.match.clock.now."""

    def __init__(self) -> None:
        from django.utils import timezone

        self.current = timezone.now()

    def __call__(self):
        return self.current

    def advance(self, seconds: float) -> None:
        from datetime import timedelta

        self.current += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr("games.core.match.clock.now", fake)
    return fake


@pytest.fixture
def seated_match(make_user):
    """A match of ``game_key`` made by "hostess", each named player in a seat in order (seats
    take the game's roles): (match, [users], host). A full match starts by itself."""
    from games.core.game.registry import get_game
    from games.core.match import seating
    from games.core.models import Match

    def make(game_key: str, *names: str, settings: dict | None = None, title: str = "t"):
        host = make_user("hostess")
        users = [make_user(name) for name in names]
        roles = [*get_game(game_key).roles, *[""] * len(names)][: len(names)]
        match = seating.create_match(
            host=host, game_key=game_key, title=title, settings=settings or {}, roles=roles
        )
        for user, seat in zip(users, match.seats.order_by("index"), strict=True):
            seating.take_seat(match, user, seat.invite_token)
        return Match.objects.with_seats().get(pk=match.pk), users, host

    return make


@pytest.fixture
def tally_match(seated_match):
    """A started fixture-game match: (match, seat 0 user, seat 1 user, host)."""
    match, (ada, bob), host = seated_match("fixture-tally", "ada", "bob")
    return match, ada, bob, host


@pytest.fixture(scope="session", autouse=True)
def _flush_without_truncate() -> None:
    """Empty the test database after a test with DELETE, not TRUNCATE (PostgreSQL). A live
    worker serves many tests (``live_worker``) and reads the tables between them (its
    scheduler looks for clocks); TRUNCATE needs every table to itself and deadlocked with such a
    read (seen in a full run), while DELETE takes row locks only. Django's foreign keys on
    PostgreSQL are checked at commit, so the tables empty in any order in one transaction.

    The matches' table is locked against writes first (reads go on): the worker's scheduler
    fired a finished test's clock while the tables emptied, its event was written after the
    events were deleted and before its match was, and the commit failed on the event's key
    (a clean-clone run). Locked, the scheduler's lock of the match row waits for the flush,
    and then finds no match."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):  # type: ignore[no-untyped-def]
        if reset_sequences or allow_cascade:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        deletes = [f"DELETE FROM {self.quote_name(table)};" for table in tables]
        if "core_match" in tables:
            deletes.insert(0, f"LOCK TABLE {self.quote_name('core_match')} IN EXCLUSIVE MODE;")
        return deletes

    DatabaseOperations.sql_flush = sql_flush  # type: ignore[method-assign]
    yield
    DatabaseOperations.sql_flush = truncate  # type: ignore[method-assign]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Each test notes the test that runs after it in this process (tests/following.py)."""
    item.stash[NEXT_TEST] = nextitem


@pytest.fixture(scope="session")
def _shared_worker(django_db_setup, django_db_blocker):  # type: ignore[no-untyped-def]
    """The live worker of this test process, started by a live test and kept for the live
    tests right after it, file after file (a start costs about 3 s of a core: over forty
    starts a run when each file had its own). It stops before any other test: its scheduler
    would fire the clocks and deliver the notifications of tests that run their own, or none.
    The tests' matches never meet: the database is emptied after each test and its ids are
    never reused."""
    from tests.live_server import Worker

    worker = Worker()
    yield worker
    worker.stop()
    worker.log_path.unlink(missing_ok=True)


@pytest.fixture
def live_worker(request, transactional_db, _shared_worker):  # type: ignore[no-untyped-def]
    """A real Daphne worker (with its scheduler) serving the test database, shared by the
    process's consecutive live tests (started again if a test stopped or killed it). Its
    ``log()`` is what it wrote during this test."""
    worker = _shared_worker
    if not worker.running():
        worker.start()
    worker.mark_log()
    yield worker
    # pytest shows what a test printed only when it failed: the worker's log, for the reason.
    print(f"--- worker log ---\n{worker.log()[-8000:]}")
    if not next_asks_for(request.node, "live_worker"):
        worker.stop()


@pytest.fixture
def seated_sockets(live_worker):
    """``seated_sockets(match, players=("ec", "dmo"), json_only=True)``: an async context of
    the players' sockets in seat order and a guest's, each past its first full view
    (tests/live_server.py ``Seated``)."""
    from functools import partial

    from tests.live_server import seated_sockets

    return partial(seated_sockets, live_worker.url)
