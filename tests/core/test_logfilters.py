"""The site's log leaves out a worker's cancelled clean-ups and keeps every other fault."""

from __future__ import annotations

import asyncio
import logging

import pytest


def _log_with(error: BaseException) -> None:
    try:
        raise error
    except BaseException:
        logging.getLogger("channels_redis.pubsub").exception(
            "Unexpected exception while cleaning-up channel:"
        )


def test_a_cancelled_unsubscribe_is_left_out_and_a_failed_one_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    _log_with(asyncio.CancelledError())
    assert caplog.records == []
    _log_with(ConnectionError("redis went away"))
    assert [record.exc_info[1].args[0] for record in caplog.records] == ["redis went away"]
