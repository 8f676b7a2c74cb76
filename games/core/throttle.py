"""Login throttling: django-axes counts failed logins per account and per address in the
database (AXES_* in gemsite/settings.py); this module is the password check it guards, who is
asking, and what a refused login is told."""

from __future__ import annotations

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
    """The address a login comes from: behind the proxy, the X-Real-IP it sets (it overwrites
    any the client sent; docker/nginx.conf), else the socket's peer."""
    if settings.BEHIND_PROXY:
        forwarded = request.META.get("HTTP_X_REAL_IP", "").strip()
        if forwarded:
            return forwarded
    return request.META.get("REMOTE_ADDR", "")


def locked_out(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """The page for a login refused after too many failures (HTTP 429)."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    context = {"failure_limit": settings.AXES_FAILURE_LIMIT, "cooloff_minutes": minutes}
    return render(request, "registration/locked_out.html", context, status=429)
