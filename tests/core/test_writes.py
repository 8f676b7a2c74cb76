"""games.core.live.writes: a socket with nothing buffered sends at once; what it does not take
waits in Twisted's buffer, and everything after it behind it, in order."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from twisted.internet import tcp
from twisted.internet.error import ConnectionLost
from twisted.internet.protocol import Protocol

from games.core.live import writes


class Reactor:
    """What a connection asks of its reactor: to be told when its socket can take more."""

    def __init__(self) -> None:
        self.writers: list[object] = []

    def addWriter(self, writer: object) -> None:  # noqa: N802 (Twisted's name)
        if writer not in self.writers:
            self.writers.append(writer)

    def removeWriter(self, writer: object) -> None:  # noqa: N802
        if writer in self.writers:
            self.writers.remove(writer)


class Producer:
    """A producer that counts how often it is asked for more."""

    def __init__(self) -> None:
        self.asked = 0

    def resumeProducing(self) -> None:  # noqa: N802 (Twisted's names)
        self.asked += 1

    def pauseProducing(self) -> None:  # noqa: N802
        pass

    def stopProducing(self) -> None:  # noqa: N802
        pass


@pytest.fixture
def connection() -> Iterator[tuple[tcp.Connection, socket.socket, Reactor]]:
    """A Twisted connection on one end of a socket pair (the other end the test reads), sending
    at once."""
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    reactor = Reactor()
    made = tcp.Connection(ours, Protocol(), reactor)  # type: ignore[arg-type]
    made.connected = True
    writes.send_at_once()
    try:
        yield made, theirs, reactor
    finally:
        writes.twisted_again()
        ours.close()
        theirs.close()


def read_all(theirs: socket.socket, size: int) -> bytes:
    got = b""
    theirs.settimeout(10)
    while len(got) < size:
        got += theirs.recv(size - len(got))
    return got


def test_a_write_with_nothing_buffered_is_sent_without_asking_the_reactor(connection):
    made, theirs, reactor = connection
    made.write(b"frame one")
    assert read_all(theirs, 9) == b"frame one"
    assert reactor.writers == []


def test_a_connection_upgraded_from_http_sends_at_once_too(connection):
    """Twisted's HTTP channel registers itself as the connection's push producer, and a
    websocket keeps the connection it was upgraded on: its frames go at once as well."""
    made, theirs, reactor = connection
    made.registerProducer(Producer(), True)
    made.write(b"frame one")
    assert read_all(theirs, 9) == b"frame one"
    assert reactor.writers == []


def test_a_pull_producers_connection_writes_as_twisted_does(connection):
    """A pull producer is asked for more each time the buffer empties (Twisted's doWrite): its
    writes go Twisted's way, so that it is asked."""
    made, theirs, reactor = connection
    producer = Producer()
    made.registerProducer(producer, False)
    made.write(b"a chunk")
    assert reactor.writers == [made]
    made.doWrite()  # the chunk went, the buffer is empty: the producer is asked for the next
    assert read_all(theirs, 7) == b"a chunk"
    assert producer.asked == 2


def test_what_the_socket_does_not_take_waits_and_every_later_write_waits_behind_it(connection):
    made, theirs, reactor = connection
    big = bytes(range(256)) * 4096  # far more than the socket's buffers take at once
    made.write(big)
    assert reactor.writers == [made]  # the rest waits for the socket
    made.write(b"after")
    assert made._tempDataBuffer  # buffered behind the rest, not sent ahead of it
    got = b""
    theirs.settimeout(10)
    while made in reactor.writers:
        got += theirs.recv(65536)
        assert made.doWrite() is None
    assert got + read_all(theirs, len(big) + 5 - len(got)) == big + b"after"


def test_a_connection_whose_peer_is_gone_is_lost_as_twisted_loses_it(connection):
    made, theirs, reactor = connection
    theirs.close()
    made.write(b"to no one")  # the send fails: buffered, and Twisted's next write says so
    assert reactor.writers == [made]
    assert isinstance(made.doWrite(), ConnectionLost)
