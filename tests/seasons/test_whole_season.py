"""A whole season run through its pages, as a host and a co-host run one: five players from
the cast invite to the winner's announcement, a real SMTP server and a webhook receiver that is
stopped mid-season and started again. Every mail and post arrives once, in order per receiver,
none cut mid-word and none private; the co-host does all the host does.

Pages are driven with Django's test client (the forms posted with the values the page gives,
as a browser does); the matches are decided from their host consoles and by their clocks, and
the scheduler's tick and the deliverer's claims run in this process (with the test's clock), so
the run costs a few seconds."""

from __future__ import annotations

import email
import json
import re
import threading
from collections.abc import Iterator
from email.header import decode_header, make_header
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from django.test import Client

from games.core.live import scheduler
from games.core.models import Match, Season
from games.notifications import delivery, kinds
from games.notifications.models import Delivery, Notification
from games.notifications.words import ELLIPSIS
from games.seasons.models import CastMember, Episode
from tests.live_server import free_port

pytestmark = pytest.mark.django_db

PLAYERS = ("ada", "bob", "cyd", "dee", "eve")
HOUR = 3600


# --- the receivers ----------------------------------------------------------------------------


class Mailbox:
    """The SMTP server's handler: every message it accepted, in order."""

    def __init__(self) -> None:
        self.accepted: list[email.message.Message] = []

    async def handle_DATA(self, server, session, envelope) -> str:  # type: ignore[no-untyped-def]
        self.accepted.append(email.message_from_bytes(envelope.content))
        return "250 OK"


class Hook(ThreadingHTTPServer):
    """A chat channel's incoming webhook: every post it took (Idempotency-Key, body)."""

    daemon_threads = True

    def __init__(self, port: int, posts: list[tuple[str, dict[str, Any]]]) -> None:
        self.posts = posts
        super().__init__(("127.0.0.1", port), _HookHandler)


class _HookHandler(BaseHTTPRequestHandler):
    server: Hook

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.posts.append((self.headers["Idempotency-Key"], body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


class Channel:
    """The webhook's receiver, stopped and started again on the same port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.posts: list[tuple[str, dict[str, Any]]] = []
        self.server: Hook | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> None:
        self.server = Hook(self.port, self.posts)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None


@pytest.fixture
def receivers(settings) -> Iterator[tuple[Mailbox, Channel]]:
    mailbox = Mailbox()
    smtp = Controller(mailbox, hostname="127.0.0.1", port=free_port())
    smtp.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", smtp.port
    settings.SITE_URL = "http://arena.test"
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]  # the chat server is on this machine
    channel = Channel()
    channel.start()
    yield mailbox, channel
    channel.stop()
    smtp.stop()


# --- the pages --------------------------------------------------------------------------------


class Forms(HTMLParser):
    """Every form of a page: its action and the values a browser would send untouched (inputs'
    values, checked boxes, each select's chosen option), and each select's options."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []
        self._select: str | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if tag == "form":
            self.forms.append({"action": a.get("action", ""), "values": {}, "options": {}})
        elif not self.forms:
            return
        form = self.forms[-1] if self.forms else None
        if tag == "input" and form is not None and a.get("name"):
            kind = a.get("type", "text")
            if kind in {"checkbox", "radio"}:
                form["options"].setdefault(a["name"], []).append(a.get("value", "on"))
                if "checked" in a:
                    form["values"].setdefault(a["name"], []).append(a.get("value", "on"))
            elif kind != "submit":
                form["values"][a["name"]] = a.get("value", "")
        elif tag == "select" and form is not None:
            self._select = a.get("name")
        elif tag == "option" and form is not None and self._select:
            form["options"].setdefault(self._select, []).append(a.get("value", ""))
            if "selected" in a or self._select not in form["values"]:
                form["values"][self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None

    def at(self, action: str, path: str = "") -> dict[str, Any]:
        """The form posting to an address ending in ``action`` (a form without an action
        posts to its page's ``path``)."""
        found = [form for form in self.forms if (form["action"] or path).endswith(action)]
        assert found, f"no form posting to {action}"
        return found[0]


class Person:
    """Someone at the site in their own browser (the test client, logged in)."""

    def __init__(self, user: Any) -> None:
        self.user = user
        self.client = Client()
        self.client.force_login(user)

    def page(self, path: str) -> str:
        response = self.client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        return response.content.decode()

    def submit(self, path: str, action: str, **changed: Any) -> str:
        """Open ``path``, fill its form posting to ``action`` with ``changed`` and send it;
        returns the page it leads to (its messages say what happened)."""
        form = Forms(self.page(path)).at(action, path)
        values = {**form["values"], **changed}
        response = self.client.post(form["action"] or path, values, follow=True)
        assert response.status_code == 200, (action, response.status_code)
        return response.content.decode()

    def options(self, path: str, action: str, field: str) -> list[str]:
        return Forms(self.page(path)).at(action, path)["options"].get(field, [])


def console(person: Person, match: Match, operation: str, **fields: Any) -> str:
    """A host console's operation on the match page, with its first offer when it has some."""
    path = match.get_absolute_url()
    action = f"/host/{operation}/"
    if "award" not in fields and operation in {"award", "settle"}:
        fields["award"] = [o for o in person.options(path, action, "award") if o][0]
    return person.submit(path, action, **fields)


# --- the scheduler and the deliverer ----------------------------------------------------------


def scheduler_tick() -> None:
    """What the scheduler process does on each tick: clocks, the seasons' moves."""
    scheduler.tick()


def deliver(clock: Any) -> None:
    """The deliverer, until nothing is due now: claim, send each receiver's rows, mark them."""
    for _ in range(50):
        jobs = delivery.claim(clock(), receivers=10)
        if not jobs:
            return
        for job in jobs:
            delivery.send_job(job)
    raise AssertionError("the deliverer never ran out of rows")


def latest_episode(season: Season) -> Episode:
    return season.episodes.order_by("-number").first()


def member(season: Season, user: Any) -> CastMember:
    return CastMember.objects.get(season=season, user=user)


# --- the season --------------------------------------------------------------------------------


def test_a_whole_season_through_its_pages(make_user, clock, receivers):
    mailbox, channel = receivers
    host = Person(make_user("hostess", is_staff=True, email="host@example.org"))
    cohost = Person(make_user("cora", email="cora@example.org"))
    players = {name: Person(make_user(name, email=f"{name}@example.org")) for name in PLAYERS}
    everyone = {p.user.username: p for p in [host, cohost, *players.values()]}

    # The host opens the season and makes Cora co-host; Cora sets the webhook and tries it.
    host.submit("/seasons/new/", "/seasons/new/", name="ORG 9", nomination_minutes="120")
    season = Season.objects.get(name="ORG 9")
    home = f"/seasons/{season.pk}/"
    host.submit(home, f"/seasons/{season.pk}/hosts/", username="cora")
    hook_page = f"/notifications/season/{season.pk}/webhook/"
    cohost.submit(hook_page, hook_page, url=channel.url, kind=list(kinds.PUBLIC_KINDS))
    tried = cohost.submit(hook_page, "/webhook/test/")
    assert "Sent: the webhook answered 200" in tried
    channel.posts.clear()  # the test post is no news of the season

    # Five players follow the invite link and ask; Cora admits them.
    invite = season.format.get_invite_url()
    for name, person in players.items():
        person.submit(invite, invite, name=name.title())
    for name in PLAYERS:
        cast = member(season, players[name].user)
        cohost.submit(home, f"/cast/{cast.pk}/admit/")
    assert season.cast.filter(status=CastMember.Status.IN).count() == 5
    cohost.submit(home, f"/seasons/{season.pk}/invite/", open="no")  # the cast is complete
    season.format.refresh_from_db()
    assert not season.format.invite_open
    deliver(clock)

    dm_game = "pointsweeper"

    def main_match(runner: Person, settler: Person) -> Episode:
        """An episode's main match: its clocks run out on everyone (bidding), the runner ends
        round 1 and awards the match; the lowest total is shared, the settler settles it."""
        new = f"/seasons/{season.pk}/episodes/new/seven-gem-swap/"
        fields = Forms(runner.page(new)).at(new, new)["values"]
        fields.update({k: str(HOUR) for k in fields if k.endswith("_seconds")})
        runner.client.post(new, fields)
        episode = latest_episode(season)
        match = episode.main_match
        assert match.status == Match.Status.LIVE
        clock.advance(HOUR + 1)
        scheduler_tick()  # the bidding clock ran out on everyone
        console(runner, match, "end_round", reason="round 1 took too long")
        console(runner, match, "award", reason="the show runs late")
        console(settler, Match.objects.get(pk=match.pk), "settle")
        scheduler_tick()
        episode.refresh_from_db()
        assert episode.phase == Episode.Phase.NOMINATION
        return episode

    def death_match(episode: Episode, runner: Person, decider: Person) -> None:
        path = f"/seasons/{season.pk}/episodes/{episode.number}/death-match/{dm_game}/"
        runner.submit(path, path)
        episode.refresh_from_db()
        console(decider, episode.death_match, "award", reason="decided for the test")
        scheduler_tick()

    def nominate(episode: Episode, who: Person) -> None:
        page = episode.get_absolute_url()
        first = who.options(page, "/nominate/", "nominee")[0]
        who.submit(page, "/nominate/", nominee=first)

    def candidate_of(episode: Episode) -> Person:
        episode.refresh_from_db()
        return everyone[episode.elimination_candidate.user.username]

    # Episode 1: the host runs it, Cora settles the tie; the EC nominates; Cora decides the DM.
    episode = main_match(host, cohost)
    deliver(clock)
    channel.stop()  # the chat server goes down mid-season
    nominate(episode, candidate_of(episode))
    death_match(episode, host, cohost)
    deliver(clock)  # every post fails now and waits, in order

    # Episode 2: Cora runs it; the EC lets the clock run out, Cora gives time back.
    episode = main_match(cohost, host)
    candidate = candidate_of(episode)
    clock.advance(121 * 60)
    scheduler_tick()
    episode.refresh_from_db()
    assert episode.phase == Episode.Phase.HOST_NOMINATION
    cohost.submit(episode.get_absolute_url(), "/nomination-clock/", minutes="30", change="more")
    nominate(episode, candidate)
    channel.start()  # back up: what waited goes first, in order
    clock.advance(10 * 60)
    deliver(clock)
    death_match(episode, cohost, host)
    deliver(clock)

    # Episode 3: the host again; then the final, set up by Cora and decided by the host.
    episode = main_match(host, cohost)
    nominate(episode, candidate_of(episode))
    death_match(episode, cohost, cohost)
    finalists = [m for m in season.cast.filter(status=CastMember.Status.IN)]
    assert len(finalists) == 2
    final = f"/seasons/{season.pk}/final/{dm_game}/"
    cohost.submit(final, final, candidate=str(finalists[0].pk))
    episode = latest_episode(season)
    console(host, episode.death_match, "award", reason="the final, decided for the test")
    scheduler_tick()
    deliver(clock)

    # Cora writes the winner a bonus, and corrects episode 1's death match after the season
    # moved on: the console says what stands, and both its players are told.
    winner = season.cast.get(status=CastMember.Status.WINNER)
    cohost.submit(home, "/ledger/", member=str(winner.pk), garnets="3", reason="best finale")
    first = season.episodes.get(number=1)
    dm = first.death_match
    page = cohost.page(dm.get_absolute_url())
    assert f"{first.eliminated.name}&#x27;s elimination stands" in page
    other = [o for o in cohost.options(dm.get_absolute_url(), "/host/correct/", "award") if o]
    other = [o for o in other if json.loads(o)["winner"] != dm.result["winner"]]
    console(cohost, dm, "correct", award=other[0], reason="the scores were swapped")
    scheduler_tick()
    deliver(clock)
    stands = Notification.objects.filter(text__contains="elimination stands")
    assert stands.count() == 2

    # The season has its winner, told and posted once.
    assert sum(f"{winner.name} wins ORG 9." in body["text"] for _, body in channel.posts) == 1
    assert Notification.objects.filter(kind=kinds.SEASON_WON, user=winner.user).exists()

    # The co-host was told what the host is told.
    assert Notification.objects.filter(kind=kinds.LEDGER_CHANGED, user=winner.user).exists()
    told = (kinds.CAST_ASKED, kinds.TIE_TO_SETTLE, kinds.NOMINATION_NOT_MADE)
    for kind in (*told, kinds.SUBMISSIONS_MISSED):
        assert Notification.objects.filter(kind=kind, user=cohost.user).exists(), kind
    # ... and may do everything the host does but delete the season.
    assert cohost.client.get(f"/admin/core/season/{season.pk}/delete/").status_code == 302

    # Every mail arrived once, in the order it was written, to its own player only.
    rows = Delivery.objects.order_by("pk")
    assert not rows.exclude(status=Delivery.Status.SENT).exists()
    mails = rows.filter(channel=Delivery.Channel.EMAIL).select_related("notification__user")
    ids = [m["Message-ID"] for m in mailbox.accepted]
    assert ids == [f"<{delivery.delivery_id(row)}>" for row in mails]
    for row, mail in zip(mails, mailbox.accepted, strict=True):
        note = row.notification
        assert mail["To"] == note.user.email
        body = mail.get_payload(decode=True).decode() if not mail.is_multipart() else ""
        subject = re.sub(r"\r?\n", "", str(make_header(decode_header(mail["Subject"]))))
        said = subject.removeprefix("Gem Arena: ")
        assert_whole_words(said, note.text)
        assert note.text in " ".join(body.split()) or not body
    # Every post arrived once and in order, public words only.
    posts = rows.filter(channel=Delivery.Channel.WEBHOOK)
    assert [key for key, _ in channel.posts] == [delivery.delivery_id(row) for row in posts]
    for row, (_, body) in zip(posts, channel.posts, strict=True):
        assert row.kind in kinds.PUBLIC_KINDS
        assert body["content"].startswith(delivery.discord_text(row.public_text))
        assert_whole_words(row.public_text, row.public_text)
    private = {kinds.SUBMISSION_MISSING, kinds.SUBMISSIONS_MISSED, kinds.TIE_TO_SETTLE}
    assert not posts.filter(kind__in=private).exists()
    assert posts.filter(attempts__gt=1).exists()  # the outage was real: posts waited it out
    # The clocks that ran out and the round the host ended told who sent nothing.
    missed = Notification.objects.filter(kind=kinds.SUBMISSION_MISSING)
    assert set(missed.values_list("user__username", flat=True)) == set(PLAYERS)
    assert missed.filter(text__contains="the host ended the round").exists()


def assert_whole_words(said: str, whole: str) -> None:
    """``said`` is ``whole`` or its start cut after a whole word, with an ellipsis."""
    if said == whole or not said.endswith(ELLIPSIS):
        assert said == whole, (said, whole)
        return
    head = said[: -len(ELLIPSIS)]
    assert whole.startswith(head), (said, whole)
    rest = whole[len(head) :]
    assert not rest or not re.match(r"\w", rest), f"cut mid-word: {said!r} of {whole!r}"
