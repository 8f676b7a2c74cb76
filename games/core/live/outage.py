"""Redis (the channel layer) cannot be reached: new sockets are refused with the close code the
page reconnects on, and the log says so once per outage (issue 34, item 10).

Without this a socket opened during an outage failed in Channels' consumer before its handshake
(the layer subscribes each new socket's channel): an HTTP 500 and a traceback for every attempt,
and the layer's reader logged a traceback a second while it could not read. Failures less than
``QUIET_SECONDS`` apart are one outage; its first failure is logged as one line.
"""

from __future__ import annotations

import logging
import time
from typing import Any

log = logging.getLogger(__name__)

# Failures closer together than this are one outage (the layer's reader fails each second, and
# a page's reconnects back off to 16 s).
QUIET_SECONDS = 60.0


class Outage:
    """The failures of one service, told once per outage."""

    def __init__(self, service: str) -> None:
        self.service = service
        self.last_failure = float("-inf")

    def failed(self, error: BaseException) -> None:
        now = time.monotonic()
        if now - self.last_failure > QUIET_SECONDS:
            log.warning(
                "%s cannot be reached (%s: %s): new live connections are refused with close "
                "code 4503, which pages reconnect on, until it is back",
                self.service,
                type(error).__name__,
                error,
            )
        self.last_failure = now


CHANNEL_LAYER = Outage("Redis (the channel layer)")


async def refuse(receive: Any, send: Any, code: int) -> None:
    """Answer a websocket whose consumer could not start: its handshake accepted, then closed
    with ``code`` (a close before the handshake reads as a 403, without a code)."""
    opened = await receive()
    if opened.get("type") != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": code})
