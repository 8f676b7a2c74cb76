"""What runs after the current test in this test process: fixtures that are costly to start (a
live worker, a browser) stay up for a next test that asks for them too, and stop otherwise."""

from __future__ import annotations

import pytest

NEXT_TEST = pytest.StashKey["pytest.Item | None"]()  # set by tests/conftest.py's hook


def next_test_uses(request: pytest.FixtureRequest, fixture: str) -> bool:
    following = request.node.stash.get(NEXT_TEST, None)
    return following is not None and fixture in following.fixturenames
