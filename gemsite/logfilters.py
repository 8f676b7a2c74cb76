"""Filters for the site's log (settings.LOGGING)."""

from __future__ import annotations

import asyncio
import logging


class CancelledCleanup(logging.Filter):
    """Drops channels_redis's "Unexpected exception while cleaning-up channel" when what it
    caught is a cancellation: a consumer cancelled while it was already unsubscribing (a
    worker shutting down cancels every consumer). Nothing was lost, and a traceback in the log
    would read as a fault; any other exception there is still logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, asyncio.CancelledError)
