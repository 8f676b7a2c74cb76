"""Settings in one place. With no environment at all the site runs on SQLite and an in-memory
channel layer; DATABASE_URL and REDIS_URL switch it to PostgreSQL and channels-redis."""

from __future__ import annotations

import ipaddress
from datetime import timedelta
from pathlib import Path

from gemsite.env import database_from_url, env_bool, env_int, env_list, env_str, secret_key

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", default=not env_str("DATABASE_URL"))
# Draw every remembered panel again and compare (games/core/render/panelmemo.py): the tests' safety
# net.
PANEL_MEMO_CHECK = env_bool("PANEL_MEMO_CHECK", default=False)
# With DEBUG off this refuses to start unless SECRET_KEY holds a real key.
SECRET_KEY = secret_key(debug=DEBUG)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# Production sits behind a proxy (docker/nginx.conf) that terminates TLS and sets
# X-Forwarded-Proto and X-Real-IP, overwriting whatever a client sent. X-Forwarded-Proto is
# trusted when every request comes through such a proxy (BEHIND_PROXY). The address a login is
# counted by is taken from X-Real-IP / X-Forwarded-For only on requests from one of the
# TRUSTED_PROXIES (addresses or networks, e.g. "10.0.0.5,172.16.0.0/12"; none by default): a
# client that reaches a worker directly cannot name another address to dodge the login limit.
BEHIND_PROXY = env_bool("BEHIND_PROXY", default=not DEBUG)
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", [])
for _proxy in TRUSTED_PROXIES:  # a typo stops the start, not every login later
    ipaddress.ip_network(_proxy, strict=False)
# HTTPS only: redirect http to https, cookies only over https, and HSTS.
HTTPS = env_bool("HTTPS", default=not DEBUG)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 365 * 24 * 3600) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=True)

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "axes",
    "games.core",
    "games.bejeweled_dm",
    "games.bejeweled2",
    "games.bejeweled2_race",
    "games.glittering_paths",
    "games.pointsweeper",
    "games.seven_gem_swap",
    "games.notifications",
    "games.seasons",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last: it turns a login refused for too many failures into the "try again later" page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "gemsite.urls"
ASGI_APPLICATION = "gemsite.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.notifications.context.unread",
            ],
        },
    },
    # The panels drawn for every audience after every event (games/<app>/jinja2/): Jinja2,
    # compiled once and autoescaped (games/core/render/jinja.py; DEVELOPERS.md, "Templates").
    {
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "environment": "games.core.render.jinja.environment",
            "globals": {
                "mini_board": "games.bejeweled2_race.panels.mini_board",
                "bank_left_when_paused": "games.pointsweeper.panels.bank_left_when_paused",
            },
        },
    },
]

_database_url = env_str("DATABASE_URL")
if _database_url:
    DATABASES = {"default": database_from_url(_database_url)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
            # A file, not memory, so that live-server and worker tests share the test database.
            "TEST": {"NAME": str(BASE_DIR / ".test-db.sqlite3")},
        }
    }

# channels-redis reads each worker's channel with a blocking BZPOPMIN of this many seconds
# (RedisChannelLayer.brpop_timeout). redis-py 8 gives every socket a 5 s read timeout by default,
# which races that read and crashes idle consumers (close 1011), so the layer's connections wait
# well beyond one blocking read, and keepalive plus a PING before reuse find dead connections.
REDIS_LAYER_BLOCKING_READ_SECONDS = 5
REDIS_SOCKET_TIMEOUT = float(env_str("REDIS_SOCKET_TIMEOUT", "30"))

# CHANNEL_LAYER picks channels-redis's layer: "pubsub" (RedisPubSubChannelLayer: one PUBLISH per
# group per event, fanned out to the group's sockets inside each worker) or "core"
# (RedisChannelLayer: one message per socket through Redis). benchmarks/fanout.py measures both
# side by side: with 500 spectators on one worker, pubsub delivered at p99 1.3 s against core's
# 6.0 s (floors 0.27 s and 2.8 s) on the loaded benchmark machine, so pubsub is the default.
CHANNEL_LAYER_BACKENDS = {
    # channels-redis's pub/sub layer, with an event's frames sent in one round trip.
    "pubsub": "games.core.live.layer.PubSubLayer",
    "core": "channels_redis.core.RedisChannelLayer",
}
CHANNEL_LAYER = env_str("CHANNEL_LAYER", "pubsub")
if CHANNEL_LAYER not in CHANNEL_LAYER_BACKENDS:
    raise ValueError(
        f"CHANNEL_LAYER is {CHANNEL_LAYER!r}; use one of {sorted(CHANNEL_LAYER_BACKENDS)}"
    )

_redis_url = env_str("REDIS_URL")
if _redis_url:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": CHANNEL_LAYER_BACKENDS[CHANNEL_LAYER],
            "CONFIG": {
                "hosts": [
                    {
                        "address": _redis_url,
                        "socket_timeout": REDIS_SOCKET_TIMEOUT,
                        "socket_connect_timeout": 5,
                        "socket_keepalive": True,
                        "health_check_interval": 15,
                    }
                ],
                "prefix": env_str("CHANNEL_PREFIX", "gemarena"),
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "games.core.live.layer.MemoryLayer"}}

# The cache keeps what saves work, never what is needed (the panels each audience was sent, the
# base of the next frame's patches): shared by the workers on Redis, else in the process.
if _redis_url:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": _redis_url,
            "KEY_PREFIX": env_str("CHANNEL_PREFIX", "gemarena"),
            "OPTIONS": {"socket_timeout": REDIS_SOCKET_TIMEOUT, "socket_connect_timeout": 5},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
# Passwords are checked by Django's model backend behind django-axes, which counts failed logins
# in the database (shared by every worker, kept across restarts) per account at an address, and
# per address. After LOGIN_FAILURE_LIMIT failures, logins to that account from that address, and
# any login from that address, are refused until LOGIN_COOLOFF_MINUTES have passed since the last
# failure. An account is never locked everywhere: a guesser elsewhere cannot lock its owner out.
# A success does not reset the count (else a guesser could clear it by logging into an account
# of their own).
AUTHENTICATION_BACKENDS = ["games.core.throttle.ThrottledModelBackend"]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_RESET_ON_SUCCESS = False
AXES_CLIENT_IP_CALLABLE = "games.core.throttle.client_ip"
AXES_LOCKOUT_CALLABLE = "games.core.throttle.locked_out"
AXES_VERBOSE = False
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "lobby"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"

# Websocket limits: frames larger than this are refused; a connection may send at most
# WS_RATE_BURST frames at once and WS_RATE_PER_SECOND on average.
WS_MAX_FRAME_BYTES = env_int("WS_MAX_FRAME_BYTES", 8192)
WS_RATE_PER_SECOND = env_int("WS_RATE_PER_SECOND", 10)
WS_RATE_BURST = env_int("WS_RATE_BURST", 20)
# A worker freezes what it loaded at start-up out of the garbage collector's reach and lets more
# objects accumulate before a young collection: a frame fanned out to hundreds of sockets then
# meets no long collection pass mid-burst (benchmarks/fanout.py; 0 keeps Python's default).
# 10,000 against 20,000, with 500 spectators of each real game on a worker (reports/fanout.md):
# its longest collections 19-35 ms against 40-90, delivery p99 lower, the same CPU per action.
GC_GEN0_THRESHOLD = env_int("GC_GEN0_THRESHOLD", 10_000)
# Young collections between two of the middle generation: each of those goes over what that many
# young collections left alive. With a thousand spectators on each of two workers, 50 made one
# 0.3 s long; on a slower machine 10 made them 62-71 ms of CPU (103-123 ms waiting for a core)
# and 3 made them 42-44 ms (83-96 ms), reports/fanout.md.
GC_GEN1_EVERY = env_int("GC_GEN1_EVERY", 3)
# How long a thread drawing frames may hold the interpreter before the event loop (which writes
# to every socket) takes it back, in microseconds (Python's own default: 5,000; serve.py).
GIL_SWITCH_MICROSECONDS = env_int("GIL_SWITCH_MICROSECONDS", 1000)
# Whether a worker's sockets send what they are given at once when nothing is buffered before it
# (games/core/live/writes.py), rather than on the event loop's next turn as Twisted does.
SEND_AT_ONCE = env_bool("SEND_AT_ONCE", default=True)
# How long a thread drawing frames waits, before each frame, for the actions this worker is
# applying (each holds its match's row), in milliseconds; 0: it does not wait. A cast of 13
# swapping at once (benchmarks/cast_together.py, quick, two rounds each): acks p50 / p95 at
# 1.5 s 32-41 / 85-89 ms waiting 10, 61-91 / 142-195 not waiting; own updates alike.
DRAWING_YIELDS_MS = env_int("DRAWING_YIELDS_MS", 10)
# A client behind by more than this many events gets a full view instead of the missed updates.
RESYNC_MAX_EVENTS = env_int("RESYNC_MAX_EVENTS", 200)
# How often the scheduler looks for due deadlines when none is known to be due sooner.
SCHEDULER_POLL_SECONDS = float(env_str("SCHEDULER_POLL_SECONDS", "0.5"))
# A function drawing new matches' seeds in place of the secure random source (tests only:
# gemsite/test_settings.py).
MATCH_SEED_SOURCE: str | None = None

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "cancelled_cleanup": {"()": "gemsite.logfilters.CancelledCleanup"},
        "one_line_refusals": {"()": "gemsite.logfilters.OneLineRefusals"},
        "layer_outage": {"()": "gemsite.logfilters.LayerOutage"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "daphne": {"level": "WARNING"},
        "django.channels.server": {"level": "WARNING"},
        "channels_redis.pubsub": {"filters": ["cancelled_cleanup", "layer_outage"]},
        "django.request": {"filters": ["one_line_refusals"]},
    },
}

# Notifications (games/notifications, docs/notifications.md). Mail goes through Django's mail:
# SMTP when EMAIL_HOST is set, else printed to the console (`make run`).
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = env_int("EMAIL_PORT", 25)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS")
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Gem Arena <arena@localhost>")
# The site's address as mails and webhook posts link to it.
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# Turns and rounds are told only when their clock gives at least this long to act.
NOTIFY_SLOW_CLOCK_MINUTES = float(env_str("NOTIFY_SLOW_CLOCK_MINUTES", "10"))
# "Still missing" reminders go this long before a deadline (for clocks set longer ago than it).
NOTIFY_REMINDER_MINUTES = float(env_str("NOTIFY_REMINDER_MINUTES", "60"))
# A mail server or webhook gets this long to answer before the attempt counts as failed.
EMAIL_TIMEOUT = float(env_str("NOTIFY_SEND_TIMEOUT", "10"))
NOTIFY_SEND_TIMEOUT = EMAIL_TIMEOUT
# A deliverer's claim on a row lasts this long; a row still being sent after it (its deliverer
# died) is sent again.
NOTIFY_LEASE_SECONDS = float(env_str("NOTIFY_LEASE_SECONDS", "120"))
# Waits before each retry of a failed delivery; after the last, it is given up.
NOTIFY_RETRY_SECONDS = [
    float(s) for s in env_list("NOTIFY_RETRY_SECONDS", ["30", "120", "600", "1800", "7200"])
]
# Receivers served at once by one deliverer (each receiver one at a time).
NOTIFY_DELIVERY_THREADS = env_int("NOTIFY_DELIVERY_THREADS", 4)
# A season's webhook posts only to public addresses (games/notifications/addresses.py). A site
# whose chat server is on its own network lists that network here, comma-separated, e.g.
# "10.0.0.0/8" or "192.168.1.20/32" (or "127.0.0.1/32" for one on this machine). Checked at
# start: a network that does not parse stops the site.
WEBHOOK_ALLOWED_NETWORKS = env_list("WEBHOOK_ALLOWED_NETWORKS", [])
for _network in WEBHOOK_ALLOWED_NETWORKS:
    ipaddress.ip_network(_network, strict=False)
