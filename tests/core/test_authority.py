"""Who may run a match (games/core/match/authority.py), checked on every page and operation that
takes a match: every host operation (games.core.host.hosting.RUNS), every page whose URL names a
match (read from the URL patterns: a new one fails here until it says what it is), the exports
and the dashboard's pages of a match and of its ledger entries (read from the admin's own URL
patterns), for every registered game, against every kind of user.

Those who run a match: its host, its season's hosts and co-hosts, superusers; never a player
who holds one of its seats (a staff player co-hosting the season included), never a host of
another season, never staff as such. Each user sees the match as who they are in it: their
seat, the host's view, or a spectator's.

Each request that may change the match runs in a savepoint rolled back after it, so that every
kind of user meets the same live match: a refused one must leave its version as it was, an
allowed pause, replacement or abort must have changed it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib import admin
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from games.core.game.registry import all_games
from games.core.host import hosting
from games.core.match import host_operations, seating
from games.core.models import LedgerEntry, Match
from games.seasons import hosts

pytestmark = pytest.mark.django_db

PLAYER, SEATED_STAFF, SPECTATOR, ANONYMOUS = "player", "seated staff", "spectator", "anonymous"
HOST, CO_HOST, OTHER_HOST, SUPERUSER = (
    "this match's host",
    "this season's co-host",
    "another season's host",
    "superuser",
)
KINDS = (PLAYER, SEATED_STAFF, SPECTATOR, ANONYMOUS, HOST, CO_HOST, OTHER_HOST, SUPERUSER)
RUNNERS = {HOST, CO_HOST, SUPERUSER}
SEATED = (PLAYER, SEATED_STAFF)

# Every URL that names a match, by what it is. A new one fails
# test_every_page_of_a_match_is_classified until it is added here (and so checked below).
HOST_PAGES = {"host_operation": "post", "match_audit": "get", "rematch": "post", "seat_bot": "post"}
VIEWER_PAGES = {"match", "export", "replay"}  # drawn for the user's viewer (checked below)
OTHER_MATCH_PAGES = {
    "join_seat": "an invite link: whoever holds its token may take its open seat",
    "glittering_paths_round": "a finished round, drawn for the viewer (tests/glittering_paths)",
    "player_seed": "a seated player's page gives its seed before the start (test_fairness)",
    "fairness": "the match's fairness facts: the same for every viewer (test_fairness)",
}
# The dashboard's pages of a match, and of its ledger entries, by the admin's URL names.
NEVER_ALLOWED = {"core_match_add", "core_ledgerentry_delete"}  # made elsewhere; append-only
NOT_WHILE_LIVE = {"core_match_delete"}  # only a match that never started may be deleted
SEASON_PAGES = {"core_ledgerentry_add"}  # an adjustment is a season's: tests below


class Rollback(Exception):
    """Undo what one request did, after reading it."""


@dataclass
class Cast:
    users: dict[str, Any]
    season: Any
    other_season: Any


@pytest.fixture
def cast(make_user) -> Cast:
    users: dict[str, Any] = {
        PLAYER: make_user("player"),
        SEATED_STAFF: make_user("seated", is_staff=True),
        SPECTATOR: make_user("watcher"),
        ANONYMOUS: None,
        HOST: make_user("matchhost", is_staff=True),
        CO_HOST: make_user("cohost", is_staff=True),  # staff: the dashboard too
        OTHER_HOST: make_user("otherhost", is_staff=True),
        SUPERUSER: make_user("root", is_staff=True, is_superuser=True),
    }
    other = hosts.create_season(name="Season B", host=users[OTHER_HOST], settings={})
    lead = make_user("lead", is_staff=True)
    season = hosts.create_season(name="Season A", host=lead, settings={}, make_current=True)
    hosts.add_cohost(season, lead, "cohost")
    hosts.add_cohost(season, lead, "seated")  # a co-host who plays: the seat decides
    return Cast(users, season, other)


def make_match(cast: Cast, game: Any, seated: tuple[str, ...]) -> Match:
    count = max(game.min_seats, len(seated))
    roles = [*game.roles, *[""] * count][:count]
    match = seating.create_match(
        host=cast.users[HOST], game_key=game.key, title="Heat", settings={}, roles=roles
    )
    seats = list(match.seats.order_by("index"))
    for kind, seat in zip(seated, seats, strict=False):
        seating.take_seat(match, cast.users[kind], seat.invite_token)
    for seat in seats[len(seated) :]:
        seating.seat_bot(match, seat.index, game.bot_levels[0])
    match = Match.objects.with_seats().get(pk=match.pk)
    assert match.season_id == cast.season.pk and match.status == Match.Status.LIVE, game.key
    return match


def matches_of(cast: Cast, game: Any) -> dict[str, Match]:
    """The live match each kind of user meets: one with the player and the seated staff in
    seats 1 and 2; a game played alone has one match for each of them."""
    if game.max_seats >= 2:
        match = make_match(cast, game, SEATED)
        return dict.fromkeys(KINDS, match)
    alone = {kind: make_match(cast, game, (kind,)) for kind in SEATED}
    return {kind: alone.get(kind, alone[PLAYER]) for kind in KINDS}


def client_of(client: Any, user: Any) -> Any:
    client.logout()
    if user is not None:
        client.force_login(user)
    return client


def refused(response: Any) -> bool:
    """403, or sent to sign in (a signed-out user; the dashboard for a player)."""
    location = response.get("Location", "")
    return response.status_code == 403 or (response.status_code == 302 and "login/" in location)


def version_of(match: Match) -> int:
    return Match.objects.get(pk=match.pk).version


def operation_form(match: Match, name: str) -> dict[str, str]:
    """A form the console would send for ``name`` on ``match`` as it stands."""
    game, state = match.game, match.state
    choices = game.award_choices(state, match.seat_infos())
    clocks = sorted((state.get("deadlines") or {}).keys())
    return {
        "reason": "checking who may",
        "minutes": "5",
        "clock": clocks[0] if clocks else "",
        "award": choices[0][0] if choices else "{}",
        "seat": "0",
        "by": "invite",
    }


# Operations any live match takes from whoever runs it: the match must have changed.
CHANGE_A_LIVE_MATCH = {"pause", "replace", "abort"}


def expected_audience(kind: str, match: Match, cast: Cast) -> str:
    seat = match.seat_of(cast.users[kind])
    if seat is not None:
        return f"seat-{seat.index}"
    return "host" if kind in RUNNERS else "spectators"


MATCH_VIEW = re.compile(r'<script id="match-view" type="application/json">(.*?)</script>', re.S)


def audience_on(page: str) -> str:
    return json.loads(MATCH_VIEW.search(page).group(1))["viewer"]["audience"]


def match_url_names() -> set[str]:
    """Every URL pattern that names a match by its public id."""

    def walk(patterns: list[Any]) -> set[str]:
        found: set[str] = set()
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                found |= walk(pattern.url_patterns)
            elif isinstance(pattern, URLPattern) and "public_id" in pattern.pattern.converters:
                found.add(pattern.name)
        return found

    return walk(get_resolver().url_patterns)


def dashboard_pages(model: type) -> list[tuple[str, bool]]:
    """The dashboard's pages of ``model`` (its admin's own URL patterns): (URL name, whether
    it names one object)."""
    model_admin = admin.site._registry[model]
    pages = []
    for pattern in model_admin.urls:
        if isinstance(pattern, URLPattern) and pattern.name:
            converters = pattern.pattern.converters
            pages.append((pattern.name, bool({"object_id", "pk"} & set(converters))))
    return pages


def dashboard_url(name: str, takes_object: bool, pk: int) -> str:
    return reverse(f"admin:{name}", args=[pk] if takes_object else [])


# --- the tests ----------------------------------------------------------------------------------


def test_every_page_of_a_match_is_classified():
    classified = set(HOST_PAGES) | VIEWER_PAGES | set(OTHER_MATCH_PAGES)
    assert match_url_names() == classified


def test_the_dashboards_pages_of_matches_and_ledger_entries_are_all_checked():
    names = {name for model in (Match, LedgerEntry) for name, _ in dashboard_pages(model)}
    assert {"core_match_board", "core_match_change", "core_ledgerentry_reverse"} <= names
    assert names >= NEVER_ALLOWED | NOT_WHILE_LIVE | SEASON_PAGES


@pytest.mark.parametrize("game_key", sorted(game.key for game in all_games()))
def test_only_those_who_run_a_match_run_it_and_each_sees_it_as_who_they_are(
    client, cast, clock, game_key
):
    game = next(g for g in all_games() if g.key == game_key)
    matches = matches_of(cast, game)
    checked = 0
    for kind in KINDS:
        match, user = matches[kind], cast.users[kind]
        may = kind in RUNNERS
        # Every host operation.
        for name in hosting.RUNS:
            url = reverse("host_operation", args=[match.public_id, name])
            before = version_of(match)
            try:
                with transaction.atomic():
                    response = client_of(client, user).post(url, operation_form(match, name))
                    after = version_of(match)
                    raise Rollback
            except Rollback:
                pass
            if may:
                assert not refused(response), (game_key, kind, name, response.status_code)
                if name in CHANGE_A_LIVE_MATCH:
                    assert after == before + 1, (game_key, kind, name)
            else:
                assert refused(response), (game_key, kind, name, response.status_code)
                assert after == before, (game_key, kind, name)
            checked += 1
        # Every other host page.
        for name, method in HOST_PAGES.items():
            if name == "host_operation":
                continue
            args = [match.public_id, 0] if name == "seat_bot" else [match.public_id]
            url = reverse(name, args=args)
            before = version_of(match)
            try:
                with transaction.atomic():
                    asking = client_of(client, user)
                    form = {"level": game.bot_levels[0] if game.bot_levels else ""}
                    response = asking.post(url, form) if method == "post" else asking.get(url)
                    after = version_of(match)
                    raise Rollback
            except Rollback:
                pass
            assert refused(response) is not may, (game_key, kind, name, response.status_code)
            assert may or after == before
            checked += 1
        # The pages drawn for the user's viewer.
        audience = expected_audience(kind, match, cast)
        page = client_of(client, user).get(match.get_absolute_url()).content.decode()
        assert audience_on(page) == audience, (game_key, kind)
        export = json.loads(
            client_of(client, user).get(reverse("export", args=[match.public_id])).content
        )
        assert export["viewer"] == audience, (game_key, kind)
        checked += 2
        # The host's view of the board in the dashboard (each game draws its own).
        response = client_of(client, user).get(reverse("admin:core_match_board", args=[match.pk]))
        assert (response.status_code == 200) is may, (game_key, kind, response.status_code)
        checked += 1
    # Once it is over, the replay too is drawn for each user's viewer.
    for kind in KINDS:
        match = matches[kind]
        if not match.is_over:
            host_operations.host_abort(match, cast.users[SUPERUSER], reason="the replay opens")
            match.refresh_from_db()
        page = client_of(client, cast.users[kind]).get(reverse("replay", args=[match.public_id]))
        assert audience_on(page.content.decode()) == expected_audience(kind, match, cast)
    assert checked == len(KINDS) * (len(hosting.RUNS) + len(HOST_PAGES) - 1 + 2 + 1)


def test_the_dashboard_shows_a_match_and_its_ledger_only_to_those_who_run_it(client, cast, clock):
    """Every page of the dashboard's matches and ledger (the board, drawn by each game, is
    checked for every game above)."""
    match = make_match(cast, next(g for g in all_games() if g.key == "fixture-tally"), SEATED)
    entry = LedgerEntry.objects.create(
        user=cast.users[PLAYER], match=match, season=cast.season, reason=f"charge {match.pk}"
    )
    checked = 0
    for kind in KINDS:
        user, may = cast.users[kind], kind in RUNNERS
        # The dashboard: the match's pages, and the ledger's pages of its entry.
        for model, pk, shows in (
            (Match, match.pk, f"/admin/core/match/{match.pk}/change/"),
            (LedgerEntry, entry.pk, f"charge {match.pk}"),
        ):
            for name, takes_object in dashboard_pages(model):
                if name in SEASON_PAGES:
                    continue
                url = dashboard_url(name, takes_object, pk)
                if name == "core_ledgerentry_reverse":
                    url += f"?ids={entry.pk}"
                response = client_of(client, user).get(url)
                body = response.content.decode() if response.status_code == 200 else ""
                if name in NEVER_ALLOWED or (name in NOT_WHILE_LIVE and not may):
                    assert refused(response) or response.status_code in (302, 404), (kind, name)
                elif name in NOT_WHILE_LIVE:
                    assert response.status_code == 403, (kind, name)
                elif not takes_object and name != "core_ledgerentry_reverse":  # a list
                    assert (response.status_code == 200 and shows in body) is may, (kind, name)
                elif name == "core_ledgerentry_reverse":
                    assert (shows in body) is may, (kind, name)
                elif may:
                    assert response.status_code == 200, (kind, name)
                else:
                    assert response.status_code != 200, (kind, name)
                checked += 1
    pages = len(dashboard_pages(Match)) + len(dashboard_pages(LedgerEntry)) - len(SEASON_PAGES)
    assert checked == len(KINDS) * pages


def test_a_host_writes_adjustments_only_in_a_season_they_host(client, cast):
    client_of(client, cast.users[OTHER_HOST])
    page = client.get(reverse("admin:core_ledgerentry_add")).content.decode()
    assert "Season B" in page and "Season A" not in page
    response = client.post(
        reverse("admin:core_ledgerentry_add"),
        {
            "user": cast.users[PLAYER].pk,
            "season": cast.season.pk,
            "garnets": "5",
            "tokens_of_life": "0",
            "reason": "a gift from another season",
        },
    )
    assert response.status_code == 200  # the form again, with the refusal
    assert not LedgerEntry.objects.filter(reason="a gift from another season").exists()
    client_of(client, cast.users[SPECTATOR])
    assert refused(client.get(reverse("admin:core_ledgerentry_add")))


def test_a_host_who_plays_fills_the_open_match_then_runs_nothing(client, cast, clock):
    """Before the start there is nothing secret and nothing to decide: the host who sat down
    in their own match still reads the other seat's invite link and may seat a bot in it; once
    it runs they see it from their seat only and run nothing."""
    host = cast.users[HOST]
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="Mine", settings={}, roles=["EC", "DMO"]
    )
    mine, other = match.seats.order_by("index")
    seating.take_seat(match, host, mine.invite_token)
    client_of(client, host)
    page = client.get(match.get_absolute_url()).content.decode()
    assert other.get_invite_url() in page and "Seat a bot" in page
    assert refused(client.post(reverse("host_operation", args=[match.public_id, "abort"])))
    response = client.post(reverse("seat_bot", args=[match.public_id, 1]), {"level": "peek"})
    assert response.status_code == 302
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    page = client.get(match.get_absolute_url()).content.decode()
    assert audience_on(page) == "seat-0" and "host.js" not in page
    form = {"reason": "mine", "seat": "1", "by": "invite"}
    assert refused(client.post(reverse("host_operation", args=[match.public_id, "replace"]), form))
