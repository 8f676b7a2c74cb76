"""Where a season's webhook may post: public addresses only (issue 34, item 7).

A host types the webhook's URL, and the scheduler process posts to it from inside the site's
network, so an unchecked URL would let any host reach what only the server can (Redis, the
database, a cloud's metadata service at 169.254.169.254). The name is resolved once, every
address it resolves to is checked, and the post connects to a checked address itself (the name
still goes in the Host header and, for https, in the TLS server name), so a resolver cannot
answer one address to the check and another to the connection. Redirects are never followed
and a URL with a user name or password is refused.

Self-hosters whose chat server is on their own network list its networks in
``WEBHOOK_ALLOWED_NETWORKS`` (gemsite/settings.py), e.g. ``10.0.0.0/8`` or ``127.0.0.1/32``.

No installed library does this (the standard library's urllib follows redirects, reads proxy
variables and resolves the name again when it connects), so it is http.client on a socket
connected to the checked address.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, urlsplit

from django.conf import settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# IPv6 prefixes that carry an IPv4 address in their last 32 bits (NAT64, RFC 6052 and 8215).
NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


class RefusedAddress(ValueError):
    """A webhook URL the site will not post to; the message says why, for the host."""


@dataclass(frozen=True)
class Destination:
    """A checked webhook URL: where to connect (each address already checked) and what to ask."""

    url: SplitResult
    host: str
    port: int
    addresses: tuple[tuple[Any, ...], ...]  # getaddrinfo's entries, every one allowed

    @property
    def target(self) -> str:
        """The request line's path and query."""
        path = self.url.path or "/"
        return f"{path}?{self.url.query}" if self.url.query else path


def allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(net, strict=False) for net in settings.WEBHOOK_ALLOWED_NETWORKS]


def is_public(address: IPAddress) -> bool:
    """Reachable on the public internet: not loopback, private, link-local (cloud metadata),
    shared, reserved, multicast or unspecified, nor an IPv6 form of such an IPv4 address."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address.teredo is not None:
            embedded = address.teredo[1]
        if embedded is None and any(address in net for net in NAT64):
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None and not is_public(embedded):
            return False
    return address.is_global and not (address.is_multicast or address.is_reserved)


def may_post_to(address: IPAddress) -> bool:
    return is_public(address) or any(
        address.version == net.version and address in net for net in allowed_networks()
    )


def check_url(url: str) -> SplitResult:
    """The URL's parts, if its form is one the site posts to; RefusedAddress otherwise."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as error:
        raise RefusedAddress(f"that is not a web address ({error})") from None
    if parts.scheme not in ("http", "https"):
        raise RefusedAddress("a webhook URL starts with https:// (or http://)")
    if parts.username is not None or parts.password is not None:
        raise RefusedAddress("a webhook URL carries no user name or password")
    if not parts.hostname:
        raise RefusedAddress("a webhook URL names a server")
    if port == 0:
        raise RefusedAddress("port 0 is not a port")
    return parts


def resolve(url: str) -> Destination:
    """Check ``url`` and resolve its name once; every address must be one the site may post to
    (a name with one private address among public ones is refused: which one a connection
    gets is not ours to choose)."""
    parts = check_url(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as error:
        raise RefusedAddress(f"the server {host} cannot be found ({error})") from None
    if not found:
        raise RefusedAddress(f"the server {host} cannot be found")
    for entry in found:
        address = ipaddress.ip_address(str(entry[4][0]).split("%", 1)[0])
        if not may_post_to(address):
            raise RefusedAddress(
                f"{host} is at {address}, an address on a private network or this server "
                "itself; a webhook posts only to public addresses (a self-hosted site lists "
                "its own chat server's network in WEBHOOK_ALLOWED_NETWORKS)"
            )
    return Destination(parts, host, port, tuple(found))


class _Pinned(http.client.HTTPConnection):
    """An HTTP connection to a checked address, saying the URL's name as its Host."""

    def __init__(self, destination: Destination, entry: tuple[Any, ...], timeout: float) -> None:
        super().__init__(destination.host, destination.port, timeout=timeout)
        self.entry = entry

    def connect(self) -> None:
        family, kind, proto, _, address = self.entry
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(self.timeout)
            sock.connect(address)
        except BaseException:
            sock.close()
            raise
        self.sock = sock


class _PinnedTLS(_Pinned):
    """The same over TLS: the certificate is checked against the URL's name."""

    default_port = 443  # the Host header names a port only when it is not this one

    def connect(self) -> None:
        super().connect()
        context = ssl.create_default_context()
        self.sock = context.wrap_socket(self.sock, server_hostname=self.host)


def post(url: str, body: bytes, headers: dict[str, str], timeout: float) -> int:
    """POST ``body`` to ``url`` at an address checked now (the first checked address that
    takes the connection); returns the answer's status (a redirect is an answer, not followed).
    Only a connection refused moves on to the next address: a post that may have arrived is
    never sent twice."""
    destination = resolve(url)
    kind = _PinnedTLS if destination.url.scheme == "https" else _Pinned
    for number, entry in enumerate(destination.addresses, start=1):
        connection = kind(destination, entry, timeout)
        try:
            try:
                connection.connect()
            except OSError:
                if number == len(destination.addresses):
                    raise
                continue
            connection.request("POST", destination.target, body=body, headers=headers)
            return connection.getresponse().status
        finally:
            connection.close()
    raise AssertionError("resolve() answers at least one address")
