"""Match seeds the tests can count on: each test draws the same seeds on every run.

A match's seed decides its boards, refills, offers and random picks, so a test whose match drew
a new seed on each run could find a board it did not expect (a fresh clone once drew a race board
with a single legal move). gemsite/test_settings.py points ``MATCH_SEED_SOURCE`` here; the
autouse fixture in tests/conftest.py names the running test before it starts, in
``GEM_TEST_SEED`` and in the file ``GEM_TEST_SEED_FILE`` names, where the live workers (each
serving the test process's live tests) read it; they draw a sequence of their own
(``GEM_TEST_SEED_SALT``)."""

from __future__ import annotations

import hashlib
import itertools
import os
from pathlib import Path

_drawn = itertools.count()
_name_drawn_for = ""


def name_the_test(name: str) -> None:
    """Start the running test's sequence (tests/conftest.py, before each test). A live worker
    started earlier (one serves many tests) reads the name from GEM_TEST_SEED_FILE."""
    global _drawn, _name_drawn_for
    os.environ["GEM_TEST_SEED"] = name
    named = os.environ.get("GEM_TEST_SEED_FILE")
    if named:
        Path(named).write_text(name)
    _drawn, _name_drawn_for = itertools.count(), name


def _test_name() -> str:
    named = os.environ.get("GEM_TEST_SEED_FILE")
    if named:
        try:
            return Path(named).read_text()
        except OSError:
            pass
    return os.environ.get("GEM_TEST_SEED", "")


def next_seed() -> int:
    """The next 48-bit seed of the running test's sequence."""
    global _drawn, _name_drawn_for
    name = _test_name()
    if name != _name_drawn_for:  # a worker serving its next test
        _drawn, _name_drawn_for = itertools.count(), name
    salt = os.environ.get("GEM_TEST_SEED_SALT", "test")
    digest = hashlib.sha256(f"{name}|{salt}|{next(_drawn)}".encode()).digest()
    return int.from_bytes(digest[:6], "big")
