from __future__ import annotations

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

import tests.fixture_game  # noqa: F401  (registers the fixture game in this process)

# The files that take longest go first, longest first (their durations in a clean run), so
# that `make test`'s processes (pytest-xdist, whole files each) do not end on one of them alone;
# then any other browser, live or privacy file; then the rest, in their usual order.
_LONGEST_FIRST = (
    "tests/core/test_fuzz.py",
    "tests/seven_gem_swap/test_privacy.py",
    "tests/browser/test_host_console.py",
    "tests/core/test_live.py",
    "tests/browser/test_bejeweled2.py",
    "tests/browser/test_match_page.py",
    "tests/browser/test_every_game_page.py",
    "tests/browser/test_bejeweled2_modes.py",
    "tests/core/test_rebuilding.py",
    "tests/browser/test_seven_gem_swap.py",
    "tests/seven_gem_swap/test_live.py",
    "tests/browser/test_pointsweeper_motion.py",
    "tests/core/test_faults.py",
    "tests/browser/test_death_match_keyboard.py",
    "tests/core/test_client.py",
    "tests/browser/test_season.py",
    "tests/browser/test_death_match_motion.py",
    "tests/browser/test_death_match_phases.py",
    "tests/browser/test_pointsweeper.py",
    "tests/core/test_host_fuzz.py",
)
_LONG_KINDS = ("tests/browser/", "/test_live.py", "/test_privacy.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def weight(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        if path in _LONGEST_FIRST:
            return _LONGEST_FIRST.index(path)
        kind = next((i for i, part in enumerate(_LONG_KINDS) if part in path), len(_LONG_KINDS))
        return len(_LONGEST_FIRST) + kind

    items.sort(key=weight)  # stable: each file's tests keep their order


# Property tests check outcomes, never speed: a loaded 2-core machine must not fail them on time.
hypothesis_settings.register_profile(
    "arena", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("arena")


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
    from games.core import services

    host = make_user("hostess")
    make_user("ada")
    make_user("bob")
    return services.create_match(
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
    """A clock the test moves by hand; services read it through games.core.clock.now."""

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
    monkeypatch.setattr("games.core.clock.now", fake)
    return fake


@pytest.fixture
def seated_match(make_user):
    """A match of ``game_key`` made by "hostess", each named player in a seat in order (seats
    take the game's roles): (match, [users], host). A full match starts by itself."""
    from games.core import services
    from games.core.models import Match
    from games.core.registry import get_game

    def make(game_key: str, *names: str, settings: dict | None = None, title: str = "t"):
        host = make_user("hostess")
        users = [make_user(name) for name in names]
        roles = [*get_game(game_key).roles, *[""] * len(names)][: len(names)]
        match = services.create_match(
            host=host, game_key=game_key, title=title, settings=settings or {}, roles=roles
        )
        for user, seat in zip(users, match.seats.order_by("index"), strict=True):
            services.take_seat(match, user, seat.invite_token)
        return Match.objects.with_seats().get(pk=match.pk), users, host

    return make


@pytest.fixture
def tally_match(seated_match):
    """A started fixture-game match: (match, seat 0 user, seat 1 user, host)."""
    match, (ada, bob), host = seated_match("fixture-tally", "ada", "bob")
    return match, ada, bob, host


@pytest.fixture
def live_worker(transactional_db):
    """One real Daphne worker (with its scheduler) serving the test database. Each test has its
    own: a worker kept for the next test would read the tables while the test database is
    emptied after this one, and the two deadlock (seen in a full run)."""
    from tests.live_server import Worker

    worker = Worker().start()
    yield worker
    worker.stop()
    # pytest shows what a test printed only when it failed: the worker's log, for the reason.
    print(f"--- worker log ---\n{worker.log()[-8000:]}")
    worker.log_path.unlink(missing_ok=True)


@pytest.fixture
def seated_sockets(live_worker):
    """``seated_sockets(match, players=("ec", "dmo"), json_only=True)``: an async context of
    the players' sockets in seat order and a guest's, each past its first full view
    (tests/live_server.py ``Seated``)."""
    from functools import partial

    from tests.live_server import seated_sockets

    return partial(seated_sockets, live_worker.url)
