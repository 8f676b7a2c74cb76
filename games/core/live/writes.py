"""A worker's sockets send what they are given at once when nothing waits to be sent before it.

Twisted (which Daphne serves on) buffers every write and asks the event loop to say when the
socket can take it: each write to a socket with nothing buffered is a registration with epoll,
a turn of the loop, the send, and the registration undone. Three system calls where one would
do, and a worker handing a match's frames to a hundred spectators makes a write per spectator.
Each system call also hands the interpreter to a thread drawing frames, and the loop waits up
to the switch interval (``serve``'s GIL_SWITCH_SECONDS) to get it back, so the loop's writes
during a burst of moves cost it mostly waiting.

``send_at_once`` makes Twisted's TCP and Unix connections (``tcp.Connection`` and what derives
from it) try the send first when their buffer is empty, as asyncio's own transports do: what
the socket takes is gone, what it does not (a slow reader, a full buffer) is buffered as before,
and everything after it waits behind it in order. A push producer (every websocket has one: the
HTTP channel it was upgraded from registers itself) is paused, as before, only when data is
buffered. A connection with a pull producer (asked for more each time the buffer empties), one
speaking TLS, one closing, or one whose send fails goes Twisted's own way.
tests/core/test_writes.py checks it against the installed Twisted on real sockets.
"""

from __future__ import annotations

from typing import Any

from twisted.internet import tcp

_twisted_write = tcp.Connection.write


def _write(self: Any, data: bytes) -> None:
    """``tcp.Connection.write``, sending at once what the socket takes when nothing is
    buffered before it."""
    if (
        data
        and type(data) is bytes
        and self.connected
        and not self.TLS
        and not self.disconnecting
        and not self._writeDisconnected
        and (self.producer is None or self.streamingProducer)
        and not self._tempDataBuffer
        and self.offset >= len(self.dataBuffer)
    ):
        sent = self.writeSomeData(data)
        if isinstance(sent, int) and sent > 0:
            if sent >= len(data):
                return
            data = data[sent:]
    _twisted_write(self, data)


def send_at_once() -> None:
    """From now on, every TCP or Unix connection of this process sends at once (idempotent)."""
    tcp.Connection.write = _write  # type: ignore[method-assign]


def twisted_again() -> None:
    """Undo ``send_at_once`` (the tests)."""
    tcp.Connection.write = _twisted_write  # type: ignore[method-assign]
