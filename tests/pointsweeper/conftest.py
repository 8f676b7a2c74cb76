"""What the Pointsweeper tests share."""

from __future__ import annotations

import pytest

EC, DMO = 0, 1


@pytest.fixture
def ps(seated_match):
    """A started match: (match, the EC's user, the DMO's user, the host)."""
    match, (ada, bob), host = seated_match("pointsweeper", "ada", "bob", title="ps")
    return match, ada, bob, host
