"""Delivery for real: the scheduler process (`manage.py run_scheduler`) sends mails to an SMTP
server (aiosmtpd) and posts to local HTTP receivers (season webhooks). Every kind of
notification arrives once; nothing private is in the webhook or in another player's mail; the
deliverer killed mid-send and started again loses and repeats nothing; a receiver that fails or
hangs holds up no other."""

from __future__ import annotations

import asyncio
import email
import json
import re
import subprocess
import sys
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from django.db import connections
from django.utils import timezone

from games.core.match import host_operations, seating, services
from games.core.models import Match, Season
from games.notifications import kinds
from games.notifications.models import Delivery, Notification, SeasonWebhook
from games.notifications.services import notify
from tests.live_server import ROOT, free_port, worker_environment

pytestmark = pytest.mark.django_db(transaction=True)

WAIT_SECONDS = 60
# Seven Gem Swap's bid of -17 garnets is sealed for good: no mail or post may say it. As a number
# on its own: a mail's random links may hold "-17" inside a token.
SEALED_BID = re.compile(r"(?<![\w-])-17(?!\w)")


class Mailbox:
    """An SMTP server's handler: keeps every message it accepted. The ``hold_at``-th message
    to arrive is held unanswered until ``release``, then refused (451), as a server does whose
    client went away: it was never accepted."""

    def __init__(self, hold_at: int) -> None:
        self.hold_at = hold_at
        self.arrived = 0
        self.accepted: list[email.message.Message] = []
        self.holding = threading.Event()
        self.release = threading.Event()

    async def handle_DATA(self, server, session, envelope) -> str:  # type: ignore[no-untyped-def]
        self.arrived += 1
        if self.arrived == self.hold_at:
            self.holding.set()
            # Held until the test releases it (bounded: a test that never does fails here).
            assert await asyncio.to_thread(self.release.wait, 60), "the held mail was never let go"
            return "451 4.3.0 try again later"
        self.accepted.append(email.message_from_bytes(envelope.content))
        return "250 OK"


class Hooks(ThreadingHTTPServer):
    """Webhook receivers: /ok keeps each post, /fail answers 500, /hang answers nothing until
    ``release``."""

    daemon_threads = True

    def __init__(self) -> None:
        self.posts: list[tuple[str, str, dict]] = []  # path, Idempotency-Key, body
        self.hung = 0
        self.hang_answered = 0
        self.release = threading.Event()
        super().__init__(("127.0.0.1", 0), _HookHandler)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"


class _HookHandler(BaseHTTPRequestHandler):
    server: Hooks

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/hang":
            self.server.hung += 1
            self.server.release.wait(WAIT_SECONDS)
            self.server.hang_answered += 1
        elif self.path == "/ok":
            self.server.posts.append((self.path, self.headers["Idempotency-Key"], body))
        self.send_response(500 if self.path == "/fail" else 200)
        self.end_headers()

    def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
        pass


class Deliverer:
    """`manage.py run_scheduler` on the test database, mailing to ``smtp_port``."""

    def __init__(self, smtp_port: int, log_path: Path) -> None:
        self.env = {
            **worker_environment(),
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(smtp_port),
            "SITE_URL": "http://arena.test",
            "NOTIFY_SEND_TIMEOUT": "4",
            "NOTIFY_LEASE_SECONDS": "5",
            "NOTIFY_RETRY_SECONDS": "0.5,0.5",
            # The receivers are on this machine: a self-hoster's own network, let through.
            "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.1/32",
        }
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "manage.py", "run_scheduler"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=log,
            )

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def wait_for(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"waited {WAIT_SECONDS} s for {what}")


def given_up(destination: str) -> bool:
    """Whether the deliveries to ``destination`` are marked failed (read afresh)."""
    rows = Delivery.objects.filter(destination=destination)
    done = rows.exists() and not rows.exclude(status=Delivery.Status.FAILED).exists()
    connections.close_all()
    return done


def open_deliveries() -> int:
    """Rows for working receivers not yet marked sent (read afresh on each call)."""
    rows = (
        Delivery.objects.exclude(status=Delivery.Status.SENT)
        .exclude(destination__endswith="/hang")
        .exclude(destination__endswith="/fail")
    )
    count = rows.count()
    connections.close_all()
    return count


def posts_left(url: str) -> int:
    """Rows for ``url`` still to be sent or given up."""
    open_statuses = [Delivery.Status.PENDING, Delivery.Status.SENDING]
    count = Delivery.objects.filter(destination=url, status__in=open_statuses).count()
    connections.close_all()
    return count


@pytest.fixture
def receivers():
    mailbox = Mailbox(hold_at=2)
    smtp = Controller(mailbox, hostname="127.0.0.1", port=free_port())
    smtp.start()
    hooks = Hooks()
    threading.Thread(target=hooks.serve_forever, daemon=True).start()
    yield mailbox, smtp, hooks
    mailbox.release.set()
    hooks.release.set()
    hooks.shutdown()
    smtp.stop()


def seat(match: Match, users) -> Match:  # type: ignore[no-untyped-def]
    for user, place in zip(users, match.seats.order_by("index"), strict=True):
        seating.take_seat(match, user, place.invite_token)
    return Match.objects.get(pk=match.pk)


def tally(host, title: str, turn_seconds: int) -> Match:  # type: ignore[no-untyped-def]
    return seating.create_match(
        host=host,
        game_key="fixture-tally",
        title=title,
        settings={"turn_seconds": turn_seconds},
        roles=["", ""],
    )


def test_every_kind_arrives_once_through_a_restart_and_past_a_hanging_receiver(
    make_user, clock, receivers, tmp_path
):
    mailbox, smtp, hooks = receivers
    host = make_user("hostess", email="host@example.org", is_staff=True)
    ada, bob, cy = (make_user(n, email=f"{n}@example.org") for n in ("ada", "bob", "cy"))
    season = Season.objects.create(name="Live season", is_current=True)
    SeasonWebhook.objects.create(season=season, url=hooks.url("/ok"), kinds=list(kinds.KINDS))
    failing = Season.objects.create(name="Failing")
    SeasonWebhook.objects.create(season=failing, url=hooks.url("/fail"), kinds=list(kinds.KINDS))
    hanging = Season.objects.create(name="Hanging")
    SeasonWebhook.objects.create(season=hanging, url=hooks.url("/hang"), kinds=list(kinds.KINDS))
    real_now = timezone.now()

    # The broken receivers' posts are due first.
    clock.current = real_now - timedelta(hours=3)
    for broken in (hanging, failing):
        notify(
            users=[ada],
            kind=kinds.EPISODE_STARTS,
            text="Episode 9 starts.",
            url="/",
            season=broken,
            public_text=f"{broken.name}: episode 9 starts.",
        )
    # A: started two hours ago; Ada moved, so Bob's two-hour clock runs out in a minute and
    # the deliverer reminds him that his move is still missing.
    clock.current = real_now - timedelta(seconds=7150)
    a = seat(tally(host, "Match A", 7200), [ada, bob])
    clock.advance(10)
    services.submit_action(a, ada, {"type": "add", "amount": 1})
    # B: Ada's ten-minute clock ran out 100 s ago; the deliverer's process fires it.
    clock.current = real_now - timedelta(seconds=700)
    seat(tally(host, "Match B", 600), [ada, bob])
    # C: settled by the host: the result. D: Ada's bid is sealed and stays so.
    clock.current = real_now - timedelta(seconds=5)
    c = seat(tally(host, "Match C", 7200), [ada, cy])
    host_operations.host_adjudicate(c, host, {"scope": "match", "winner": 0})
    d = seating.create_match(
        host=host,
        game_key="seven-gem-swap",
        title="Match D",
        settings={"bid_seconds": 7200, "round_seconds": 7200},
        roles=["", "", ""],
    )
    d = seat(d, [ada, bob, cy])
    services.submit_action(d, ada, {"type": "bid", "bid": -17, "colours": "RGB"})
    # What the seasons app tells (games/seasons calls notify so).
    notify(
        users=[bob],
        kind=kinds.NOMINATED,
        text="You were named DMO of Ada (episode 1).",
        url="/",
        season=season,
        public_text="Ada named Bob Death Match Opponent.",
    )
    notify(
        users=[cy],
        kind=kinds.ELIMINATED_OR_SAVED,
        text="You were eliminated in episode 1.",
        url="/",
        season=season,
        public_text="Cy was eliminated in episode 1.",
    )
    notify(
        users=[ada, bob, cy],
        kind=kinds.EPISODE_STARTS,
        text="Episode 2 starts. Your seat is waiting.",
        url="/",
        season=season,
        public_text="Episode 2 starts.",
    )
    notify(
        users=[bob],
        kind=kinds.LEDGER_CHANGED,
        text="A host took 3 garnets from you in Live season: late.",
        url="/",
        season=season,
    )
    notify(
        users=[ada],
        kind=kinds.SEASON_WON,
        text="You win Live season: you won the final against Bob.",
        url="/",
        season=season,
    )
    notify(
        users=[cy],
        kind=kinds.ELIMINATION_CANDIDATE,
        text="You are the Elimination Candidate of episode 2: name your DMO.",
        url="/",
        season=season,
        public_text="Cy is the Elimination Candidate of episode 2.",
    )
    notify(  # what a round resolving into the next tells (a Seven Gem Swap past its bidding)
        users=[ada, bob],
        kind=kinds.ROUND_STARTED,
        text="Match E: Round 2 has started.",
        url="/",
        season=season,
        public_text="Match E: Round 2 has started.",
    )
    notify(
        users=[host],
        kind=kinds.CAST_ASKED,
        text="Dee asks to join Live season: admit them or turn them away.",
        url="/",
        season=season,
    )
    notify(
        users=[host],
        kind=kinds.NOMINATION_NOT_MADE,
        text="Ada let the nomination clock run out. Name the DMO.",
        url="/",
        season=season,
    )
    notify(
        users=[host],
        kind=kinds.TIE_TO_SETTLE,
        text="Match E ended in a tie to settle.",
        url="/",
        season=season,
    )
    connections.close_all()

    log = tmp_path / "deliverer.log"
    first = Deliverer(smtp.port, log)
    first.start()
    try:
        assert mailbox.holding.wait(WAIT_SECONDS), log.read_text()
        # Killed in the middle of sending the second mail (once the quick webhook is done:
        # a kill between a receiver's answer and its row's mark is the one window a repeat
        # could come from, docs/notifications.md).
        wait_for(lambda: posts_left(hooks.url("/ok")) == 0, "the webhook's posts")
        first.kill()
    finally:
        mailbox.release.set()
        first.kill()
    second = Deliverer(smtp.port, log)
    second.start()
    try:
        wait_for(
            lambda: (
                open_deliveries() == 0
                and Notification.objects.filter(
                    kind=kinds.SUBMISSION_MISSING, text__contains="minutes left"
                ).exists()
                # The failing webhook's retries end on their own clock, after the others.
                and given_up(hooks.url("/fail"))
            ),
            "every working receiver's deliveries, and the failing one given up",
        )
        # Everything else arrived while the hanging webhook still had no answer.
        assert hooks.hung >= 1 and hooks.hang_answered == 0
    finally:
        second.kill()
        hooks.release.set()

    sent = {d.pk: d for d in Delivery.objects.select_related("notification__user")}
    mails = {
        f"<gemarena-delivery-{pk}@arena.test>": d
        for pk, d in sent.items()
        if d.channel == Delivery.Channel.EMAIL
    }
    posts = {
        f"gemarena-delivery-{pk}@arena.test": d
        for pk, d in sent.items()
        if d.destination.endswith("/ok")
    }
    # Once each: every mail and post accepted exactly once, none lost across the restart.
    accepted_ids = [m["Message-ID"] for m in mailbox.accepted]
    assert sorted(accepted_ids) == sorted(mails), log.read_text()[-3000:]
    assert sorted(key for _, key, _ in hooks.posts) == sorted(posts)
    assert mailbox.arrived == len(mails) + 1  # and the one held when the deliverer was killed
    # Every kind came through.
    assert {d.kind for d in mails.values()} == set(kinds.KINDS)
    # Each mail is its addressee's alone.
    texts = list(Notification.objects.values_list("user__email", "text"))
    for message in mailbox.accepted:
        row = mails[message["Message-ID"]]
        body = message.get_payload(decode=True).decode()
        assert message["To"] == row.notification.user.email == row.destination
        assert row.notification.text in body
        mine = {text for to, text in texts if to == message["To"]}
        assert not any(text in body for to, text in texts if text not in mine)
        assert not SEALED_BID.search(body)
    # The webhook carries public words only.
    public = set(Delivery.objects.exclude(public_text="").values_list("public_text", flat=True))
    for _, _, body in hooks.posts:
        # The same words for Slack and Discord (these have nothing to escape but Discord's
        # markup characters), and no mention parsed.
        assert body["content"].replace("\\", "") == body["text"]
        assert body["allowed_mentions"] == {"parse": []}
        assert any(body["text"].startswith(words) for words in public)
        assert not any(text in body["text"] for _, text in texts if text not in public)
        assert not SEALED_BID.search(body["text"])
    failed = Delivery.objects.get(destination=hooks.url("/fail"))
    # Given up after its three attempts (a fourth when the kill cut one short).
    assert failed.status == Delivery.Status.FAILED and failed.attempts in (3, 4)
