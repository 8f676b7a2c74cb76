"""What runs after the current test in this test process: a fixture that is costly to start (the
browser) stays up for a next test that asks for it too, and stops otherwise."""

from __future__ import annotations

import pytest

NEXT_TEST = pytest.StashKey["pytest.Item | None"]()  # set by tests/conftest.py's hook


def next_test_uses(request: pytest.FixtureRequest, fixture: str) -> bool:
    following = request.node.stash.get(NEXT_TEST, None)
    return following is not None and fixture in following.fixturenames
