from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest

# A public address (example.com's) that the tests' made-up names resolve to by default.
PUBLIC_ADDRESS = "93.184.215.14"


class FakeDNS:
    """``socket.getaddrinfo`` answering the names a test gives (``answers[name]``: the
    addresses of each lookup in turn, the last one repeated) and refusing any other name; an
    address written as one is answered as the real resolver would. ``lookups`` lists the names
    asked for."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.answers: dict[str, list[list[str]]] = {"chat.example": [[PUBLIC_ADDRESS]]}
        self.lookups: list[str] = []

    def add(self, name: str, *lookups: list[str]) -> None:
        self.answers[name] = list(lookups)

    def __call__(self, host: Any, port: Any, *args: Any, **options: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        try:
            ipaddress.ip_address(name)
        except ValueError:
            pass
        else:
            return self.real(host, port, *args, **options)
        self.lookups.append(name)
        if name not in self.answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        answers = self.answers[name]
        found = answers.pop(0) if len(answers) > 1 else answers[0]
        entries = []
        for text in found:
            address = ipaddress.ip_address(text)
            if address.version == 6:
                entries.append(
                    (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (text, int(port), 0, 0))
                )
            else:
                entries.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (text, int(port))))
        return entries


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDNS]:
    dns = FakeDNS(socket.getaddrinfo)
    monkeypatch.setattr(socket, "getaddrinfo", dns)
    yield dns
