"""What the test that runs next in this process asks for: a shared resource (a browser, a live
worker) is kept for it only when it asks for that resource too (tests/conftest.py notes each
test's successor before it runs)."""

from __future__ import annotations

import pytest

NEXT_TEST = pytest.StashKey["pytest.Item | None"]()


def next_asks_for(item: pytest.Item, fixture: str) -> bool:
    """Whether the test after ``item`` in this process asks for ``fixture``."""
    following = item.stash.get(NEXT_TEST, None)
    return following is not None and fixture in getattr(following, "fixturenames", ())
