"""Match seeds the tests can count on: each test draws the same seeds on every run.

A match's seed decides its boards, refills, offers and random picks, so a test whose match drew
a new seed on each run could find a board it did not expect (a fresh clone once drew a race board
with a single legal move). gemsite/test_settings.py points ``MATCH_SEED_SOURCE`` here; the
autouse fixture in tests/conftest.py names the running test in ``GEM_TEST_SEED`` before it
starts, and the live workers a test starts inherit that name (they draw their own sequence:
``GEM_TEST_SEED_SALT``)."""

from __future__ import annotations

import hashlib
import itertools
import os

_drawn = itertools.count()


def restart() -> None:
    """Start the sequence again (at the start of each test)."""
    global _drawn
    _drawn = itertools.count()


def next_seed() -> int:
    """The next 48-bit seed of the running test's sequence."""
    name = os.environ.get("GEM_TEST_SEED", "")
    salt = os.environ.get("GEM_TEST_SEED_SALT", "test")
    digest = hashlib.sha256(f"{name}|{salt}|{next(_drawn)}".encode()).digest()
    return int.from_bytes(digest[:6], "big")
