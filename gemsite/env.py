"""Small typed helpers that read settings from the environment."""

from __future__ import annotations

import os
from urllib.parse import unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

# The key `make run` and the tests use. It is in the repository, so it signs nothing real: with
# DEBUG off the site refuses to start on it (or on any other placeholder or short key).
DEVELOPMENT_SECRET_KEY = "gem-arena-development-key-change-me-in-production"
PLACEHOLDER_SECRET_KEYS = frozenset({DEVELOPMENT_SECRET_KEY, "change-me", "changeme", "secret"})


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


class MissingSecretKey(ImproperlyConfigured):
    """SECRET_KEY is unset or not a real key while DEBUG is off."""


def secret_key(*, debug: bool) -> str:
    """SECRET_KEY from the environment; the development key only while DEBUG is on.

    With DEBUG off the key must be set, not a known placeholder, and as strong as Django's
    deployment check asks (at least 50 characters, at least 5 of them different).
    """
    value = os.environ.get("SECRET_KEY", "").strip()
    if debug:
        return value or DEVELOPMENT_SECRET_KEY
    if not value:
        problem = "SECRET_KEY is not set"
    elif value in PLACEHOLDER_SECRET_KEYS:
        problem = "SECRET_KEY is a placeholder committed in the repository"
    elif len(value) < 50 or len(set(value)) < 5:
        problem = "SECRET_KEY is too short (50 characters or more, not all alike)"
    else:
        return value
    raise MissingSecretKey(
        f"{problem}: with DEBUG off the site will not start without a real secret key. Set "
        "SECRET_KEY to a long random value, e.g. the output of "
        "`python -c 'import secrets; print(secrets.token_urlsafe(50))'` (or DEBUG=1 to develop)."
    )


def database_from_url(url: str) -> dict[str, object]:
    """Turn postgres://user:pass@host:port/name into a Django DATABASES entry."""
    parsed = urlparse(url)
    if parsed.scheme not in {"postgres", "postgresql", "pgsql"}:
        raise ValueError(f"DATABASE_URL must be a postgres:// URL, not {parsed.scheme!r}")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parsed.path.lstrip("/")) or "postgres",
        "USER": unquote(parsed.username or ""),
        "PASSWORD": unquote(parsed.password or ""),
        "HOST": parsed.hostname or "",
        "PORT": str(parsed.port or ""),
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": database_pool(env_int("DB_POOL_SIZE", 20)),
    }


def database_pool(size: int) -> dict[str, object]:
    """Each worker's pool of PostgreSQL connections (none when ``size`` is 0). A websocket
    message's or a request's database work runs in a thread of its own, so connections cannot be
    kept per thread (CONN_MAX_AGE): a finished request's thread would leave its connection open
    until the garbage collector found it, and the server runs out of connections; without a pool
    every message would open a new one (a backend process forked per message). A pooled
    connection goes back to the pool when the work is done; with CONN_HEALTH_CHECKS Django has
    the pool check each one before it is lent, so connections a restarted server dropped are
    replaced, not handed out."""
    if not size:
        return {}
    # A loan waits at most 3 s: under load a connection comes back within milliseconds, and
    # while the database is down the player hears "unavailable" quickly instead of waiting.
    return {"pool": {"min_size": 1, "max_size": size, "timeout": 3}}
