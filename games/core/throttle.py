"""Login throttling: django-axes counts failed logins per account and per address in the
database (AXES_* in gemsite/settings.py); this module is the password check it guards, who is
asking, and what a refused login is told."""

from __future__ import annotations

import functools
import ipaddress
from typing import Any

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


class ThrottledModelBackend(AxesStandaloneBackend, ModelBackend):
    """Django's password check, refused while the account or the address is locked out.

    One backend (not axes' standalone one before ModelBackend) so that ``login(request, user)``
    after a signup still needs no ``backend`` argument.
    """

    def authenticate(self, request: Any, username: Any = None, password: Any = None, **kwargs: Any):
        AxesStandaloneBackend.authenticate(self, request, username, password, **kwargs)
        return ModelBackend.authenticate(self, request, username, password, **kwargs)


def client_ip(request: HttpRequest) -> str:
    """The address a login comes from. Only a request from a trusted proxy (TRUSTED_PROXIES)
    may say it came from elsewhere: the X-Real-IP that proxy set (docker/nginx.conf overwrites
    any the client sent), else the nearest address in X-Forwarded-For that is not one of the
    trusted proxies. Anyone else is the socket's peer, whatever headers they send."""
    peer = request.META.get("REMOTE_ADDR", "")
    proxies = trusted_proxies()
    if not _is_among(peer, proxies):
        return peer
    real = request.META.get("HTTP_X_REAL_IP", "").strip()
    if _address(real) is not None:
        return real
    forwarded = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    for hop in reversed(forwarded):  # the proxy appended the address it saw last
        if _address(hop) is None:
            break  # what came before this was written by someone we cannot vouch for
        if not _is_among(hop, proxies):
            return hop
    return peer


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_proxies() -> tuple[Network, ...]:
    return _networks(tuple(settings.TRUSTED_PROXIES))


@functools.cache
def _networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _is_among(text: str, networks: tuple[Network, ...]) -> bool:
    address = _address(text)
    return address is not None and any(address in network for network in networks)


def locked_out(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """The page for a login refused after too many failures (HTTP 429)."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    context = {"failure_limit": settings.AXES_FAILURE_LIMIT, "cooloff_minutes": minutes}
    return render(request, "registration/locked_out.html", context, status=429)
