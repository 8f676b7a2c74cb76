"""Waiting for something the test can read (a row, a page's state, a list a callback fills),
never for a time: each wait polls what it waits for, gives up after PATIENCE_SECONDS and then
says what it waited for. The bound is the browser tests' own (tests/browser/pages.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")
PATIENCE_SECONDS = 30.0  # as long as a loaded two-core machine was seen to need, with room
POLL_SECONDS = 0.05


def until(
    check: Callable[[], T], what: str, *, page: Any = None, seconds: float = PATIENCE_SECONDS
) -> T:
    """``check()``'s first true value. With a Playwright ``page``, the page's events (a route
    handler, a frame) go on being handled between polls."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:.0f} s for {what}; last seen: {value!r}")
        if page is not None:
            page.wait_for_timeout(POLL_SECONDS * 1000)
        else:
            time.sleep(POLL_SECONDS)


async def until_async(
    check: Callable[[], Awaitable[T]], what: str, *, seconds: float = PATIENCE_SECONDS
) -> T:
    """``await check()``'s first true value, polled, as ``until``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        value = await check()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"waited {seconds:.0f} s for {what}; last seen: {value!r}")
        await asyncio.sleep(POLL_SECONDS)
