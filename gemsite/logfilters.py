"""Filters for the site's log (settings.LOGGING)."""

from __future__ import annotations

import asyncio
import logging

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError


class CancelledCleanup(logging.Filter):
    """Drops channels_redis's "Unexpected exception while cleaning-up channel" when what it
    caught is a cancellation: a consumer cancelled while it was already unsubscribing (a
    worker shutting down cancels every consumer). Nothing was lost, and a traceback in the log
    would read as a fault; any other exception there is still logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, asyncio.CancelledError)


class OneLineRefusals(logging.Filter):
    """A request refused with a 4xx (a 403 from PermissionDenied: a player on a host's page, a
    staff user on a dashboard page they may not use) is logged as its one line, "Forbidden
    (Permission denied): /path", without the traceback Django attaches: the refusal is the
    site working, and any signed-in user could otherwise fill the log at 35 lines a request.
    A 5xx keeps its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True


class LayerOutage(logging.Filter):
    """channels_redis's reader logs "Unexpected exception in receive task" with a traceback
    each second while Redis cannot be reached; such a failure is told as the outage, once
    (games/core/live/outage.py), and dropped. Any other exception there is still logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        unreachable = (RedisConnectionError, RedisTimeoutError, OSError)
        if record.msg == "Unexpected exception in receive task" and isinstance(error, unreachable):
            from games.core.live import outage

            outage.CHANNEL_LAYER.failed(error)
            return False
        return True
