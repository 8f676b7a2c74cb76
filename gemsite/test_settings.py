"""The test suite's settings: the site's own in development mode, with a fast password hasher.

pytest uses this module (pyproject's DJANGO_SETTINGS_MODULE) and so do the live workers it starts
(tests/live_server.py passes the module on). CI sets DATABASE_URL, which alone would mean
production (DEBUG off: a real SECRET_KEY, https only); the tests keep the development defaults
while still running on PostgreSQL and Redis.
"""

from __future__ import annotations

import os

os.environ.setdefault("DEBUG", "1")
# Every panel drawn from memory is drawn again and compared (games/core/render/panelmemo.py), in the
# tests' own process (the live workers it starts draw each once: tests/live_server.py).
os.environ.setdefault("PANEL_MEMO_CHECK", "1")
# pytest's own process pools no connections: a pooled one would hold the test database open when
# pytest drops it. (The live workers pool theirs, as production: tests/live_server.py.)
os.environ.setdefault("DB_POOL_SIZE", "0")
# `make test` runs the suite in two processes (pytest-xdist), each on its own database
# (pytest-django adds the worker's name to it). Their match ids overlap, so each also needs its
# own channel-layer prefix, or one's frames would reach the other's sockets. The live workers a
# process starts inherit its environment, prefix included.
_xdist_worker = os.environ.get("PYTEST_XDIST_WORKER")
_prefix = os.environ.get("CHANNEL_PREFIX", "gemarena")
if _xdist_worker and not _prefix.endswith(f"_{_xdist_worker}"):
    os.environ["CHANNEL_PREFIX"] = f"{_prefix}_{_xdist_worker}"

from gemsite.settings import *  # noqa: E402, F403

# Hashing passwords slowly is a defence for real accounts; tests create hundreds of throwaway ones.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Every test draws the same match seeds on every run (tests/seeds.py): a board, an offer or a
# random pick never differs between two runs of a test.
MATCH_SEED_SOURCE = "tests.seeds.next_seed"
