"""The season's webhook posts only to public addresses (issue 34, item 7): every private
address is refused when the host saves it and again when a post is sent, the address checked is
the one connected to, redirects are not followed, credentials are refused, and a self-hoster's
network can be let through. Names in posts ping no one (item 8)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from games.core.models import Season
from games.notifications import delivery, kinds
from games.notifications.models import Delivery, SeasonWebhook
from tests.notifications.conftest import PUBLIC_ADDRESS, FakeDNS

pytestmark = pytest.mark.django_db

# The addresses the probe saved (issue 34): each must be refused. The cloud metadata name
# resolves to the metadata service, as it does inside that cloud.
PROBED = [
    "http://127.0.0.1:6395/",
    "http://127.0.0.1:5432/",
    "http://169.254.169.254/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://[::1]/hook",
    "http://10.0.0.1/hook",
    "http://192.168.1.1/hook",
    "http://0.0.0.0/hook",
    "http://user:pass@127.0.0.1/hook",
    # and a name of the host's own whose address is this server's, or an IPv4 one in IPv6 form
    "http://chat.sneaky.test/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://[64:ff9b::a00:1]/hook",
]


class Receiver(ThreadingHTTPServer):
    """A webhook receiver on this machine: keeps each post (path, Host, body); /moved answers
    302 to /ok."""

    daemon_threads = True

    def __init__(self) -> None:
        self.posts: list[tuple[str, str, dict]] = []
        super().__init__(("127.0.0.1", 0), _Handler)

    @property
    def port(self) -> int:
        return self.server_address[1]


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.posts.append((self.path, self.headers["Host"], body))
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{self.server.port}/ok")
        else:
            self.send_response(200)
        self.end_headers()

    def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
        pass


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def dns(fake_dns: FakeDNS) -> FakeDNS:
    fake_dns.add("metadata.google.internal", ["169.254.169.254"])
    fake_dns.add("chat.sneaky.test", ["127.0.0.1"])
    fake_dns.add("chat.test", ["127.0.0.1"])
    return fake_dns


def post_row(destination: str, words: str = "Final is over.") -> Delivery:
    now = timezone.now()
    return Delivery.objects.create(
        channel=Delivery.Channel.WEBHOOK,
        kind=kinds.ROUND_RESULT,
        public_text=words,
        url="/m/x/",
        destination=destination,
        due_at=now,
        created_at=now,
    )


def send(row: Delivery) -> Delivery:
    (job,) = delivery.claim(timezone.now())
    delivery.send_job(job)
    row.refresh_from_db()
    return row


def on_port(url: str, port: int) -> str:
    """``url`` with its server's port replaced by ``port`` (the local receiver's)."""
    scheme, rest = url.split("://", 1)
    server, path = rest.split("/", 1)
    host = server.rsplit("@", 1)[-1]
    credentials = server[: -len(host)]
    host = host.split(":", 1)[0]  # (a name or an IPv4 address: no brackets)
    return f"{scheme}://{credentials}{host}:{port}/{path}"


@pytest.fixture
def host_page(client, make_user):  # type: ignore[no-untyped-def]
    season = Season.objects.create(name="S1")
    client.force_login(make_user("boss", is_staff=True, is_superuser=True))
    return season, reverse("notifications:season_webhook", args=[season.pk])


@pytest.mark.parametrize("url", PROBED)
def test_it_refuses_to_save_a_private_address_with_a_clear_error(client, host_page, dns, url):
    season, page = host_page
    response = client.post(page, {"url": url, "kind": [kinds.ROUND_RESULT]})

    assert response.status_code == 302
    (said,) = [str(m) for m in get_messages(response.wsgi_request)]
    assert said.startswith("Nothing changed: ")
    assert "public addresses" in said or "no user name or password" in said, said
    assert not SeasonWebhook.objects.filter(season=season).exists()


def test_it_saves_a_public_address(client, host_page, dns):
    season, page = host_page
    client.post(page, {"url": "https://chat.example/hooks/abc", "kind": [kinds.ROUND_RESULT]})

    assert SeasonWebhook.objects.get(season=season).url == "https://chat.example/hooks/abc"


def test_it_refuses_a_name_that_cannot_be_found(client, host_page, dns):
    season, page = host_page
    response = client.post(page, {"url": "https://chat.nowhere.test/h"})

    (said,) = [str(m) for m in get_messages(response.wsgi_request)]
    assert "chat.nowhere.test cannot be found" in said
    assert not SeasonWebhook.objects.filter(season=season).exists()


@pytest.mark.parametrize("url", PROBED)
def test_a_post_to_a_private_address_is_refused_though_its_receiver_listens(
    receiver, dns, url, settings
):
    settings.NOTIFY_RETRY_SECONDS = [30.0]
    if url.startswith("http://127.0.0.1") or "sneaky" in url or "user:" in url:
        url = on_port(url, receiver.port)  # the receiver is there, listening
    row = send(post_row(url))

    assert receiver.posts == []
    assert row.status == Delivery.Status.PENDING and row.attempts == 1
    assert "RefusedAddress" in row.last_error


def test_a_self_hosters_network_is_let_through_and_the_post_arrives(receiver, dns, settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    row = send(post_row(f"http://chat.test:{receiver.port}/ok"))

    assert row.status == Delivery.Status.SENT, row.last_error
    ((path, host, body),) = receiver.posts
    assert (path, host) == ("/ok", f"chat.test:{receiver.port}")  # the name, not the address
    assert body["text"].startswith("Final is over.") and body["content"].startswith("Final")


def test_credentials_are_refused_even_on_an_allowed_network(receiver, dns, settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    row = send(post_row(f"http://user:pass@chat.test:{receiver.port}/ok"))

    assert receiver.posts == []
    assert "no user name or password" in row.last_error


def test_a_redirect_is_not_followed(receiver, dns, settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    row = send(post_row(f"http://chat.test:{receiver.port}/moved"))

    assert [path for path, _, _ in receiver.posts] == ["/moved"]  # never /ok
    assert row.status != Delivery.Status.SENT
    assert "302, a redirect; redirects are not followed" in row.last_error


def test_the_address_connected_to_is_the_one_checked(dns, monkeypatch):
    """A resolver that answers a public address to the check and this server to the next
    lookup (DNS rebinding) gets one lookup: the connection goes to the checked address."""
    dns.add("rebinding.test", [PUBLIC_ADDRESS], ["127.0.0.1"])
    connected: list[tuple] = []

    def connect(sock: socket.socket, address: tuple) -> None:
        connected.append(address)
        raise ConnectionRefusedError("no network in tests")

    monkeypatch.setattr(socket.socket, "connect", connect)
    row = send(post_row("http://rebinding.test/hook"))

    assert dns.lookups == ["rebinding.test"]
    assert connected == [(PUBLIC_ADDRESS, 80)]
    assert "ConnectionRefusedError" in row.last_error


def test_one_private_address_among_public_ones_is_refused(dns):
    dns.add("mixed.test", [PUBLIC_ADDRESS, "10.1.2.3"])
    row = send(post_row("http://mixed.test/hook"))

    assert "10.1.2.3" in row.last_error and "public addresses" in row.last_error


# --- names in posts (item 8) ----------------------------------------------------------------------

CAST_NAME = "@everyone <!channel> <@U024BE7LH> **Bob** & @here"


def test_names_reach_the_post_as_plain_text_that_pings_no_one(receiver, dns, settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    send(post_row(f"http://chat.test:{receiver.port}/ok", f"Ada named {CAST_NAME} DMO."))

    ((_, _, body),) = receiver.posts
    slack, discord = body["text"], body["content"]
    # Slack and Mattermost: <, > and & escaped, so no <!channel> or <@user> is left to read,
    # and no @word either (Mattermost pings @here, @channel and users); no markup read.
    assert slack.startswith(
        "Ada named @\u200beveryone &lt;!channel&gt; &lt;@\u200bU024BE7LH&gt; **Bob** &amp; "
        "@\u200bhere DMO."
    )
    assert body["mrkdwn"] is False
    # Discord: no mention parsed at all, and its markup characters escaped.
    assert body["allowed_mentions"] == {"parse": []}
    assert discord.startswith(
        r"Ada named @" + "\u200b" + r"everyone \<!channel\> \<@" + "\u200b"
        r"U024BE7LH\> \*\*Bob\*\* & @" + "\u200b" + "here DMO."
    )
    # Both still say the name, and end with the link.
    assert slack.endswith("http://127.0.0.1:8000/m/x/") or slack.endswith("/m/x/")
    for field in (slack, discord):
        shown = field.replace("\u200b", "").replace("\\", "")
        shown = shown.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        assert CAST_NAME in shown


def test_the_dashboards_form_refuses_a_private_address_too(client, host_page, dns):
    season, _ = host_page
    add = reverse("admin:notifications_seasonwebhook_add")
    response = client.post(
        add, {"season": season.pk, "url": "http://169.254.169.254/", "kinds": "[]"}
    )

    assert response.status_code == 200  # the form again, with its error
    assert "a webhook posts only to public addresses" in response.content.decode()
    assert not SeasonWebhook.objects.exists()
    client.post(add, {"season": season.pk, "url": "https://chat.example/h", "kinds": "[]"})
    assert SeasonWebhook.objects.get().url == "https://chat.example/h"


def self_signed(name: str, folder) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A certificate for ``name`` and its key, as files in ``folder``."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(cert_path), str(key_path)


def test_over_https_the_certificate_is_checked_against_the_urls_name(
    receiver, dns, settings, tmp_path, monkeypatch
):
    """The post connects to the checked address and asks for the URL's name in TLS (SNI): a
    certificate for that name is accepted, one for another name is not."""
    import ssl

    cert, key = self_signed("chat.test", tmp_path)
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    served.load_cert_chain(cert, key)
    receiver.socket = served.wrap_socket(receiver.socket, server_side=True)
    trusting = ssl.create_default_context
    monkeypatch.setattr(ssl, "create_default_context", lambda: trusting(cafile=cert))
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    dns.add("other.test", ["127.0.0.1"])

    row = send(post_row(f"https://chat.test:{receiver.port}/ok"))
    assert row.status == Delivery.Status.SENT, row.last_error
    assert [(path, host) for path, host, _ in receiver.posts] == [
        ("/ok", f"chat.test:{receiver.port}")
    ]

    wrong = send(post_row(f"https://other.test:{receiver.port}/ok"))
    assert "CERTIFICATE_VERIFY_FAILED" in wrong.last_error
    assert len(receiver.posts) == 1
