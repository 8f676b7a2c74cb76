"""Login throttling, production settings, and the end of a session's authority on logout."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from axes.models import AccessAttempt
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import RequestFactory
from django.urls import reverse

from gemsite.env import DEVELOPMENT_SECRET_KEY, MissingSecretKey, secret_key

ROOT = Path(__file__).resolve().parent.parent.parent
PASSWORD = "pw-for-tests-1"


# --- login throttling ---------------------------------------------------------------------------


@pytest.fixture
def three_strikes(settings):
    settings.AXES_FAILURE_LIMIT = 3
    return 3


def log_in(client, username: str, password: str, address: str = "198.51.100.7"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def is_logged_in(client) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.django_db
def test_it_refuses_even_the_right_password_from_the_address_that_failed_too_often(
    client, make_user, three_strikes
):
    make_user("ada")
    for attempt in range(three_strikes):
        log_in(client, "ada", f"guess-{attempt}", address="203.0.113.1")
    refused = log_in(client, "ada", PASSWORD, address="203.0.113.1")
    assert refused.status_code == 429
    page = refused.content.decode()
    assert "Too many failed logins" in page
    assert "Try again in 15 minutes" in page
    assert not is_logged_in(client)


@pytest.mark.django_db
def test_an_attackers_failures_do_not_lock_the_account_out_for_its_owner_elsewhere(
    client, make_user, three_strikes
):
    make_user("ada")
    for attempt in range(three_strikes + 5):
        log_in(client, "ada", f"guess-{attempt}", address="203.0.113.66")
    assert log_in(client, "ada", PASSWORD, address="192.0.2.50").status_code == 302
    assert is_logged_in(client)


@pytest.mark.django_db
def test_an_attackers_failures_do_not_lock_the_host_out_of_the_dashboard(
    client, make_user, three_strikes
):
    make_user("boss", is_staff=True, is_superuser=True)
    admin_login = reverse("admin:login")
    for attempt in range(three_strikes + 5):
        client.post(
            admin_login,
            {"username": "boss", "password": f"guess-{attempt}"},
            REMOTE_ADDR="203.0.113.66",
        )
    assert (
        client.post(
            admin_login, {"username": "boss", "password": PASSWORD}, REMOTE_ADDR="203.0.113.66"
        ).status_code
        == 429
    )
    signed_in = client.post(
        admin_login,
        {"username": "boss", "password": PASSWORD, "next": "/admin/"},
        REMOTE_ADDR="192.0.2.50",
    )
    assert signed_in.status_code == 302 and signed_in["Location"] == "/admin/"
    assert is_logged_in(client)


@pytest.mark.django_db
def test_it_refuses_logins_from_an_address_after_too_many_failures_from_it(
    client, make_user, three_strikes
):
    make_user("ada")
    for attempt in range(three_strikes):
        log_in(client, f"nobody-{attempt}", "guess", address="198.51.100.9")
    assert log_in(client, "ada", PASSWORD, address="198.51.100.9").status_code == 429
    assert not is_logged_in(client)
    assert log_in(client, "ada", PASSWORD, address="198.51.100.10").status_code == 302
    assert is_logged_in(client)


@pytest.mark.django_db
def test_a_few_failures_still_let_the_right_password_in(client, make_user, three_strikes):
    make_user("ada")
    for attempt in range(three_strikes - 1):
        page = log_in(client, "ada", f"guess-{attempt}")
        assert page.status_code == 200
        assert "Please enter a correct username and password" in page.content.decode()
    assert log_in(client, "ada", PASSWORD).status_code == 302


@pytest.mark.django_db
def test_failures_are_counted_in_the_database_not_in_a_process(client, make_user, three_strikes):
    make_user("ada")
    log_in(client, "ada", "guess")
    attempt = AccessAttempt.objects.get(username="ada")
    assert attempt.failures_since_start == 1
    assert attempt.ip_address == "198.51.100.7"


@pytest.mark.django_db
def test_rotating_forwarded_addresses_from_a_client_that_is_not_the_proxy_dodges_nothing(
    client, make_user, three_strikes, settings
):
    settings.TRUSTED_PROXIES = ["10.0.0.2"]
    make_user("ada")
    for attempt in range(three_strikes):
        client.post(
            reverse("login"),
            {"username": f"nobody-{attempt}", "password": "guess"},
            REMOTE_ADDR="198.51.100.9",
            HTTP_X_REAL_IP=f"203.0.113.{attempt + 1}",
            HTTP_X_FORWARDED_FOR=f"192.0.2.{attempt + 1}",
        )
    refused = client.post(
        reverse("login"),
        {"username": "ada", "password": PASSWORD},
        REMOTE_ADDR="198.51.100.9",
        HTTP_X_REAL_IP="203.0.113.99",
        HTTP_X_FORWARDED_FOR="192.0.2.99",
    )
    assert refused.status_code == 429
    assert not is_logged_in(client)


def address_of(**meta: str) -> str:
    from games.core.throttle import client_ip

    return client_ip(RequestFactory().post("/", **meta))


def test_only_the_trusted_proxy_says_where_a_login_comes_from(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.2"]
    assert address_of(REMOTE_ADDR="10.0.0.2", HTTP_X_REAL_IP="203.0.113.5") == "203.0.113.5"
    assert address_of(REMOTE_ADDR="10.0.0.3", HTTP_X_REAL_IP="203.0.113.5") == "10.0.0.3"
    settings.TRUSTED_PROXIES = []
    assert address_of(REMOTE_ADDR="10.0.0.2", HTTP_X_REAL_IP="203.0.113.5") == "10.0.0.2"


def test_behind_a_trusted_network_the_nearest_untrusted_forwarded_address_counts(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    # The client wrote the first address itself; the proxy appended the one it saw.
    forwarded = "192.0.2.1, 203.0.113.5, 10.1.1.1"
    assert address_of(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=forwarded) == "203.0.113.5"
    assert address_of(REMOTE_ADDR="10.0.0.2", HTTP_X_REAL_IP="not an address") == "10.0.0.2"


def test_production_settings_trust_no_forwarded_address_unless_told_which_proxy():
    shown = manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.test import RequestFactory; from games.core.throttle import client_ip; "
        "print(client_ip(RequestFactory().post('/', REMOTE_ADDR='198.51.100.9', "
        "HTTP_X_REAL_IP='203.0.113.5', HTTP_X_FORWARDED_FOR='203.0.113.6')))",
        env=production_environment(),
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == "198.51.100.9"


# --- production settings ------------------------------------------------------------------------


def test_with_debug_on_the_development_key_needs_no_environment(monkeypatch):
    monkeypatch.delenv("SECRET_KEY", raising=False)
    assert secret_key(debug=True) == DEVELOPMENT_SECRET_KEY


@pytest.mark.parametrize("value", ["", "change-me", DEVELOPMENT_SECRET_KEY, "short-key"])
def test_with_debug_off_a_missing_or_placeholder_key_is_refused(monkeypatch, value):
    monkeypatch.setenv("SECRET_KEY", value)
    with pytest.raises(MissingSecretKey, match="SECRET_KEY"):
        secret_key(debug=False)


def production_environment(**overrides: str) -> dict[str, str]:
    """DEBUG off, PostgreSQL and Redis as .ci/run sets them, and nothing the tests set."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key
        not in {"DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DEBUG", "HTTPS", "BEHIND_PROXY"}
        | {"TRUSTED_PROXIES"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="gemsite.settings",
        DEBUG="0",
        DATABASE_URL=os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gemarena"),
        REDIS_URL=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        SECRET_KEY=secrets.token_urlsafe(50),
    )
    env.update(overrides)
    return env


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_deployment_check_is_clean_with_production_settings():
    checked = manage("check", "--deploy", "--fail-level", "WARNING", env=production_environment())
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert "System check identified no issues (0 silenced)." in checked.stdout
    assert "WARNING" not in checked.stderr + checked.stdout


def test_production_settings_refuse_to_start_without_a_secret_key():
    env = production_environment()
    del env["SECRET_KEY"]
    refused = manage("check", env=env)
    assert refused.returncode != 0
    assert "SECRET_KEY is not set" in refused.stderr
    assert "will not start without a real secret key" in refused.stderr


def test_the_proxy_sets_the_headers_the_production_settings_trust():
    nginx = (ROOT / "docker" / "nginx.conf").read_text()
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in nginx
    assert "proxy_set_header X-Real-IP $remote_addr;" in nginx
    compose = (ROOT / "docker" / "compose.yaml").read_text()
    assert "change-me" not in compose
    assert "${SECRET_KEY:?" in compose


# --- logging out ends the authority of live sockets ---------------------------------------------


@pytest.fixture
async def closing_connections():
    """Close the database connection that ORM calls from these async tests opened in asgiref's
    one sync thread, so the test database can be dropped afterwards."""
    yield
    await sync_to_async(connections.close_all)()


@pytest.mark.django_db(transaction=True)
async def test_logging_out_tells_every_socket_of_that_user(
    async_client, make_user, closing_connections
):
    ada = await sync_to_async(make_user)("ada")
    await sync_to_async(async_client.force_login)(ada)
    layer = get_channel_layer()
    socket_channel = await layer.new_channel()
    await layer.group_add(f"user.{ada.pk}", socket_channel)
    try:
        await async_client.post(reverse("logout"))
        message = await asyncio.wait_for(layer.receive(socket_channel), 5)
        assert message == {"type": "session.ended"}
    finally:
        await layer.group_discard(f"user.{ada.pk}", socket_channel)


@pytest.mark.django_db(transaction=True)
async def test_a_socket_opened_before_logout_is_closed_by_it(
    client, tally_match, closing_connections
):
    from gemsite.asgi import application

    match, ada, _bob, _host = tally_match
    await sync_to_async(client.force_login)(ada)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    socket_ = WebsocketCommunicator(
        application,
        f"/ws/m/{match.public_id}/?format=json",
        headers=[(b"cookie", cookie.encode()), (b"origin", b"http://testserver")],
    )
    connected, _ = await socket_.connect(timeout=30)
    assert connected
    try:
        full = await socket_.receive_json_from(timeout=30)
        assert full["type"] == "full" and full["view"]["viewer"]["seat"] == 0
        await sync_to_async(client.post)(reverse("logout"))
        ended = await socket_.receive_json_from(timeout=30)
        assert ended["type"] == "error" and ended["code"] == "session_ended"
        closed = await socket_.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": 4401}
    finally:
        await socket_.disconnect()
    await sync_to_async(match.refresh_from_db)()
    assert match.version == 3
