"""Matches, their seats, the append-only event log and the deadlines the scheduler fires."""

from __future__ import annotations

import base64
import functools
import json
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, ClassVar

from django.conf import settings
from django.db import connections, models
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.module_loading import import_string

from games.core.game import fairness
from games.core.game.gamedef import GameDefinition, SeatInfo, Viewer
from games.core.game.registry import get_game
from games.core.match import authority


def new_public_id() -> str:
    """A match's id in its links: 8 random bytes, or (tests) drawn from
    ``settings.MATCH_SEED_SOURCE``, since a match's draws depend on its id."""
    if settings.MATCH_SEED_SOURCE:
        drawn = int(import_string(settings.MATCH_SEED_SOURCE)())
        return base64.urlsafe_b64encode(drawn.to_bytes(8, "big")).rstrip(b"=").decode()
    return secrets.token_urlsafe(8)


def new_invite_token() -> str:
    return secrets.token_urlsafe(16)


def new_seed() -> int:
    """A new match's seed: 48 random bits, or the next of ``settings.MATCH_SEED_SOURCE`` (a
    dotted path to a function; the tests name one so that each test draws the same seeds)."""
    if settings.MATCH_SEED_SOURCE:
        return int(import_string(settings.MATCH_SEED_SOURCE)())
    return secrets.randbits(48)


def new_server_seed() -> str:
    """A new match's server seed (games/core/game/fairness.py): 32 bytes from the secure source, or
    (tests) the next of ``settings.MATCH_SEED_SOURCE`` written as 64 hex digits."""
    if settings.MATCH_SEED_SOURCE:
        return f"{int(import_string(settings.MATCH_SEED_SOURCE)()):064x}"
    return fairness.new_server_seed()


def display_name(user: Any) -> str:
    if user is None or not getattr(user, "is_authenticated", False):
        return "guest"
    return user.first_name or user.username


class Season(models.Model):
    """A run of matches whose garnets and Tokens of Life are kept together: matches credit the
    ledger, premoves debit it, the host adjusts it. New matches join the current season."""

    name = models.CharField(max_length=80, unique=True)
    is_current = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_current"],
                condition=models.Q(is_current=True),
                name="one_current_season",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @staticmethod
    def current() -> Season | None:
        return Season.objects.filter(is_current=True).first()

    def get_absolute_url(self) -> str:
        return reverse("season", args=[self.pk])

    def standings(self) -> list[dict[str, Any]]:
        """Every player with public entries this season, by Tokens of Life, then garnets: the
        host's adjustments at once, a match's entries once it has ended (a live match's charges
        would tell everyone who premoved, and when)."""
        rows = (
            LedgerEntry.objects.public()
            .filter(season=self)
            .values("user_id", "user__username", "user__first_name")
            .annotate(garnets=models.Sum("garnets"), tokens=models.Sum("tokens_of_life"))
            .order_by("-tokens", "-garnets", "user__username")
        )
        return [
            {
                "user_id": row["user_id"],
                "name": row["user__first_name"] or row["user__username"],
                "garnets": row["garnets"] or 0,
                "tokens_of_life": row["tokens"] or 0,
            }
            for row in rows
        ]


class MatchQuerySet(models.QuerySet):
    def with_seats(self) -> MatchQuerySet:
        """Matches with their seats and the seats' users in the same reads (names are drawn
        for every audience of every frame)."""
        return self.prefetch_related(
            models.Prefetch("seats", queryset=Seat.objects.select_related("user"))
        )

    def locked(
        self,
        pk: int,
        *,
        client_action_id: str | None = None,
        user_id: int | None = None,
        since: int | None = None,
        snapshot_every: int | None = None,
    ) -> Match:
        """The match ``pk`` locked for update (where the database locks rows), with its seats
        and their users (names and emails: what an action reads of them), and ``rows_live``:
        whether it was live. With a client action id and its user, ``earlier_version`` is the
        version of the event that user's seat already sent with that id (ids are unique per
        seat). With ``since`` (the version a player acted on), ``moved_on``: whether an event
        a player acts on came after it. With ``snapshot_every``, ``snapshot_rows``: when the
        next event keeps a snapshot (its version a multiple of it), the snapshots its patch is
        made from (``replaying.keep_snapshot``), else None. ``host_has_spoken``: whether the
        host ever operated on the match (before this lock).

        Every action, clock and host operation takes this lock, and every statement under it
        is a round trip other actions on the match wait for: so it is one statement, written
        once (_locking_statement), the seats (and the snapshots) read in it as JSON."""
        db = self.db
        with_client_action = bool(client_action_id and user_id is not None)
        sql = _locking_statement(
            db, with_client_action, since is not None, snapshot_every is not None
        )
        params: list[Any] = [Match.Status.LIVE.value]
        if with_client_action:
            params += [client_action_id, user_id]
        if since is not None:
            params += [since, False]
        if snapshot_every is not None:
            params += [snapshot_every]
        found = list(Match.objects.using(db).raw(sql, [*params, pk]))
        if not found:
            raise Match.DoesNotExist(f"no match {pk}")
        match = found[0]
        match.keep_seats(_seats_read(db, match.seat_rows))
        del match.seat_rows
        match.host_has_spoken = bool(match.host_has_spoken)
        if since is not None:
            match.moved_on = bool(match.moved_on)
        if snapshot_every is not None and match.snapshot_rows is not None:
            rows = json.loads(match.snapshot_rows)
            match.snapshot_rows = sorted((tuple(row) for row in rows), key=lambda row: row[0])
        match.locked_version = match.version
        return match


def _seats_read(db: str, text: str | None) -> list[Seat]:
    """The seats of a match as ``_locking_statement`` reads them (a JSON array of rows), each
    with its user as a seat shows it (display_name) and notifications write to it (its email);
    any other field of the user reads itself when asked for."""
    user_model = Seat.user.field.related_model
    fields = Seat._meta.concrete_fields
    names = [f.attname for f in fields]
    seats = []
    for row in json.loads(text) if text else []:
        values = [_from_json(f, value) for f, value in zip(fields, row, strict=False)]
        seat = Seat.from_db(db, names, values)
        user = None
        if seat.user_id is not None:
            user = user_model.from_db(
                db, ["id", "username", "first_name", "email"], [seat.user_id, *row[len(fields) :]]
            )
        Seat.user.field.set_cached_value(seat, user)
        seats.append(seat)
    seats.sort(key=lambda seat: seat.index)
    return seats


def _from_json(field: models.Field, value: Any) -> Any:
    """A column's value as JSON gave it, as the field holds it (a time is text in JSON)."""
    if value is None or not isinstance(field, models.DateTimeField):
        return value
    when = parse_datetime(value)
    if when is not None and settings.USE_TZ and timezone.is_naive(when):
        when = timezone.make_aware(when, UTC)  # SQLite keeps times in UTC, without the zone
    return when


@functools.cache
def _row_fields() -> tuple[models.Field, ...]:
    """The fields ``Match.save_row`` writes: every column but the primary key."""
    return tuple(f for f in Match._meta.concrete_fields if not f.primary_key)


@functools.cache
def _update_statement(db: str) -> str:
    q = connections[db].ops.quote_name
    columns = ", ".join(f"{q(f.column)} = %s" for f in _row_fields())
    return f"UPDATE {q(Match._meta.db_table)} SET {columns} WHERE {q('id')} = %s"


@functools.cache
def _event_fields() -> tuple[models.Field, ...]:
    return tuple(f for f in Event._meta.concrete_fields if not f.primary_key)


@functools.cache
def _insert_statement(db: str) -> str:
    connection = connections[db]
    q = connection.ops.quote_name
    columns = ", ".join(q(f.column) for f in _event_fields())
    marks = ", ".join(["%s"] * len(_event_fields()))
    returned = connection.features.can_return_columns_from_insert
    returning = f" RETURNING {q('id')}" if returned else ""
    return f"INSERT INTO {q(Event._meta.db_table)} ({columns}) VALUES ({marks}){returning}"


Statement = tuple[str, list[Any]]
"""A statement's SQL and its parameters."""


def write_together(db: str, statements: list[Statement]) -> int:
    """Run the writes ``statements`` in order and return the id of the row the first one
    inserts (it returns it where the database can: ``_insert_statement``); the last, when
    there are several, writes one row. On PostgreSQL they go as one statement, each but the
    last a data-modifying WITH (run once and to its end, read or not; the rows each writes
    are others'): the match row stays locked for one round trip, not one per write. Elsewhere
    (SQLite, in process: no round trips) one at a time."""
    connection = connections[db]
    if connection.vendor == "postgresql" and len(statements) > 1:
        q = connection.ops.quote_name
        *first, (last, last_params) = statements
        written = ", ".join(f"w{index} AS ({sql})" for index, (sql, _) in enumerate(first))
        sql = f"WITH {written} {last} RETURNING (SELECT {q('id')} FROM w0)"
        statements = [(sql, [value for _, params in statements for value in params])]
    with connection.cursor() as cursor:
        for index, (sql, params) in enumerate(statements):
            cursor.execute(sql, params)
            if index == 0:
                returned = connection.features.can_return_columns_from_insert
                pk = cursor.fetchone()[0] if returned else cursor.lastrowid
    return pk


def insert_statement(db: str, instance: models.Model) -> Statement:
    """A plain INSERT of ``instance``'s row (its id left to the database), as ``save()``
    would write it, with its parameters."""
    connection = connections[db]
    q = connection.ops.quote_name
    fields = [f for f in instance._meta.concrete_fields if not f.primary_key]
    values = [f.get_db_prep_save(f.pre_save(instance, True), connection) for f in fields]
    columns = ", ".join(q(f.column) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {q(instance._meta.db_table)} ({columns}) VALUES ({marks})", values


def mark_events_sent(db: str, sent: dict[int, set[int]], at: datetime) -> None:
    """Set ``sent_at`` to ``at`` on these events (versions by match) not marked yet, in one
    UPDATE written here: built by the ORM (a Q per match, compiled), it took 0.5-0.7 ms of the
    worker's CPU, a tenth of a whole action's (benchmarks.frames)."""
    if not sent:
        return
    connection = connections[db]
    q = connection.ops.quote_name
    which, params = [], [connection.ops.adapt_datetimefield_value(at)]
    for match_pk, versions in sent.items():
        marks = ", ".join(["%s"] * len(versions))
        which.append(f"({q('match_id')} = %s AND {q('version')} IN ({marks}))")
        params += [match_pk, *sorted(versions)]
    sql = (
        f"UPDATE {q(Event._meta.db_table)} SET {q('sent_at')} = %s "
        f"WHERE {q('sent_at')} IS NULL AND ({' OR '.join(which)})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@functools.cache
def _locking_statement(
    db: str, with_client_action: bool, with_since: bool, with_snapshots: bool
) -> str:
    """The SQL of ``MatchQuerySet.locked``: the match row, its seats with their users' names
    as one JSON array, and (each when asked for) the earlier version of a client action id,
    whether the match moved on since a version, and the snapshots the next one is made from."""
    connection = connections[db]
    q = connection.ops.quote_name
    postgres = connection.vendor == "postgresql"
    table, seats, events, snapshots = (
        q(model._meta.db_table) for model in (Match, Seat, Event, Snapshot)
    )
    users = q(Seat.user.field.related_model._meta.db_table)
    match_id = f"{table}.{q('id')}"

    def json_rows(columns: list[str], rest: str) -> str:
        """A JSON array (as text) of one array of ``columns`` per row of ``rest``."""
        if postgres:
            return f"(SELECT json_agg(json_build_array({', '.join(columns)}))::text {rest})"
        return f"(SELECT json_group_array(json_array({', '.join(columns)})) {rest})"

    def as_json(column: str) -> str:
        return column if postgres else f"json({column})"  # SQLite keeps JSON as text

    columns = ", ".join(f"{table}.{q(f.column)}" for f in Match._meta.concrete_fields)
    select = f"SELECT {columns}, {table}.{q('status')} = %s AS rows_live"
    if with_client_action:
        their_seat = (
            f"SELECT s.{q('index')} FROM {seats} s WHERE s.{q('match_id')} = "
            f"{match_id} AND s.{q('user_id')} = %s"
        )
        select += (
            f", (SELECT e.{q('version')} FROM {events} e WHERE e.{q('match_id')} = "
            f"{match_id} AND e.{q('client_action_id')} = %s AND e.{q('seat')} = "
            f"({their_seat} LIMIT 1) LIMIT 1) AS earlier_version"
        )
    if with_since:
        select += (
            f", EXISTS (SELECT 1 FROM {events} e WHERE e.{q('match_id')} = {match_id} "
            f"AND e.{q('version')} > %s AND e.{q('informational')} = %s) AS moved_on"
        )
    seat_columns = [
        as_json(f"s.{q(f.column)}") if isinstance(f, models.JSONField) else f"s.{q(f.column)}"
        for f in Seat._meta.concrete_fields
    ]
    seat_columns += [f"u.{q(name)}" for name in ("username", "first_name", "email")]
    select += ", " + json_rows(
        seat_columns,
        f"FROM {seats} s LEFT JOIN {users} u ON u.{q('id')} = s.{q('user_id')} "
        f"WHERE s.{q('match_id')} = {match_id}",
    )
    select += " AS seat_rows"
    # Whether the host ever operated on the match (audit.is_host_operation): if not, the host's
    # notice is "" and the frames drawn after the action need not read it.
    select += (
        f", EXISTS (SELECT 1 FROM {events} h WHERE h.{q('match_id')} = {match_id} "
        f"AND h.{q('seat')} IS NULL AND h.{q('actor_id')} IS NOT NULL) AS host_has_spoken"
    )
    if with_snapshots:
        # As replaying._snapshot_rows: from the last whole state on.
        whole = (
            f"SELECT MAX(w.{q('version')}) FROM {snapshots} w WHERE w.{q('match_id')} = "
            f"{match_id} AND w.{q('state')} IS NOT NULL"
        )
        chain = json_rows(
            [
                f"n.{q('version')}",
                as_json(f"n.{q('state')}"),
                as_json(f"n.{q('patch')}"),
                f"n.{q('chain')}",
            ],
            f"FROM {snapshots} n WHERE n.{q('match_id')} = {match_id} "
            f"AND n.{q('version')} >= ({whole})",
        )
        select += (
            f", CASE WHEN ({table}.{q('version')} + 1) %% %s = 0 "
            f"THEN COALESCE({chain}, '[]') END AS snapshot_rows"
        )
    sql = f"{select} FROM {table} WHERE {match_id} = %s"
    if connection.features.has_select_for_update:
        sql += f" FOR UPDATE OF {table}" if postgres else " FOR UPDATE"
    return sql


class Match(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Waiting for players"
        LIVE = "live", "Live"
        PAUSED = "paused", "Paused"
        FINISHED = "finished", "Finished"
        ABORTED = "aborted", "Aborted"

    public_id = models.CharField(max_length=16, unique=True, default=new_public_id, editable=False)
    game_key = models.CharField("game", max_length=40)
    title = models.CharField(max_length=120)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_matches"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    settings = models.JSONField(default=dict, blank=True)
    # An older match's seed (its draws: sha256 of it); a match made since draws from its
    # server seed and its players' seeds (games/core/game/fairness.py, docs/fairness.md).
    seed = models.BigIntegerField(default=new_seed)
    # Secret until the match is over ("" for a match made before there were server seeds).
    server_seed = models.CharField(max_length=64, blank=True, default=new_server_seed)
    # What the fairness record keeps: the players' seeds ({"0": "ab12"}) and every sealed move's
    # receipt with its nonce (games/core/fairness_record.py); the nonces stay here until the
    # reveal.
    fairness = models.JSONField(default=dict, blank=True)
    version = models.PositiveIntegerField(default=0)
    state = models.JSONField(default=dict, blank=True)
    result = models.JSONField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    analysis_pending = models.BooleanField(default=False, db_index=True)
    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.SET_NULL, related_name="matches"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The version of the event that finished it: a correction of the result starts before it.
    finished_version = models.PositiveIntegerField(null=True, blank=True)

    objects = MatchQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "matches"
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "-created_at"]),
            # Bejeweled 2's high-score tables: its finished games by the mode and the score
            # their results recorded (``result__mode=...``), best first, newest first among
            # equals.
            models.Index(
                models.F("result__mode"),
                Cast(KT("result__score"), models.BigIntegerField()).desc(),
                models.F("finished_at").desc(),
                name="finished_by_result_score",
                # Only Bejeweled 2's results hold a number as their score (a death match's is
                # a list), and a row the expression cannot cast could not be written at all.
                condition=models.Q(status="finished", game_key="bejeweled-2"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.public_id})"

    @property
    def game(self) -> GameDefinition:
        return get_game(self.game_key)

    def get_absolute_url(self) -> str:
        return reverse("match", args=[self.public_id])

    @property
    def is_over(self) -> bool:
        return self.status in {self.Status.FINISHED, self.Status.ABORTED}

    @property
    def seed_commitment(self) -> str:
        """The server seed, sealed: shown to everyone from the start ("" for an older match)."""
        if not self.server_seed:
            return ""
        return fairness.commitment(self.public_id, self.server_seed)

    def finishing_event(self) -> Event | None:
        """The event that finished the match (None unless it is finished)."""
        if self.status != self.Status.FINISHED:
            return None
        events = self.events.all()
        if self.finished_version is not None:
            return events.filter(version=self.finished_version).first()
        # Finished before the version was kept: the first event at the moment it finished.
        return events.filter(created_at=self.finished_at).order_by("version").first()

    def save_row(self) -> None:
        """Write every field of this match's existing row, as ``save()`` would, by one UPDATE
        statement written once: every action writes the row, and ``save()`` builds the
        statement each time (0.7 ms of CPU for a Pointsweeper match; this takes 0.3, most of
        it the state's JSON)."""
        with connections[self._state.db or "default"].cursor() as cursor:
            cursor.execute(*self.update_statement())

    def update_statement(self) -> Statement:
        """The statement ``save_row`` runs, and its parameters (``write_together``)."""
        connection = connections[self._state.db or "default"]
        fields = _row_fields()
        values = [f.get_db_prep_save(f.pre_save(self, False), connection) for f in fields]
        return _update_statement(connection.alias), [*values, self.pk]

    def keep_seats(self, seats: list[Seat]) -> None:
        """Hold ``seats`` (this match's, in index order, their users read with them) as
        ``with_seats`` would have: ``self.seats.all()`` gives them without a query and each
        seat's match is this one."""
        for seat in seats:
            Seat.match.field.set_cached_value(seat, self)
        # As prefetch_related keeps what it read (django/db/models/query.py, prefetch_one_level).
        held = self.seats.get_queryset()
        held._result_cache = seats
        held._prefetch_done = True
        if not hasattr(self, "_prefetched_objects_cache"):
            self._prefetched_objects_cache = {}
        self._prefetched_objects_cache[Seat.match.field.remote_field.cache_name] = held

    def seat_infos(self) -> list[SeatInfo]:
        return [seat.info() for seat in self.seats.all()]

    def seat_of(self, user: Any) -> Seat | None:
        if user is None or not getattr(user, "is_authenticated", False):
            return None
        return next((seat for seat in self.seats.all() if seat.user_id == user.pk), None)

    def viewer_for(self, user: Any) -> Viewer:
        """The server decides who the user is in this match: a seat, the host, or a spectator
        (games/core/match/authority.py)."""
        return authority.viewer_for(self, user)


class SeatQuerySet(models.QuerySet):
    def drafts_cleared(self, pks: list[int]) -> Statement:
        """The statement clearing the drafts of the seats ``pks``, with its parameters
        (``write_together``: an event that uses drafts up writes it with the event)."""
        q = connections[self.db].ops.quote_name
        marks = ", ".join(["%s"] * len(pks))
        return (
            f"UPDATE {q(Seat._meta.db_table)} SET {q('draft')} = NULL WHERE {q('id')} IN ({marks})",
            list(pks),
        )


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    role = models.CharField(max_length=8, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
    )
    bot_level = models.CharField(max_length=16, blank=True)
    invite_token = models.CharField(max_length=32, unique=True, default=new_invite_token)
    joined_at = models.DateTimeField(null=True, blank=True)
    # What the player is composing (a path, a sequence, ticked picks): private to the seat and
    # the host, kept across reloads and restarts, never an event.
    draft = models.JSONField(null=True, blank=True)

    objects = SeatQuerySet.as_manager()

    class Meta:
        ordering = ["match", "index"]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="one_seat_per_index"),
            models.UniqueConstraint(
                fields=["match", "user"],
                condition=models.Q(user__isnull=False),
                name="one_seat_per_user",
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.index + 1} {self.role}".strip()

    @property
    def is_taken(self) -> bool:
        return self.user_id is not None or bool(self.bot_level)

    @property
    def player_name(self) -> str:
        if self.bot_level:
            return f"{self.bot_level.capitalize()} bot {self.index + 1}"  # two bots told apart
        return display_name(self.user) if self.user_id else OPEN_SEAT

    def info(self) -> SeatInfo:
        """The seat as a game sees it (name as every page shows it)."""
        return SeatInfo(
            index=self.index, role=self.role, name=self.player_name, is_bot=bool(self.bot_level)
        )

    def get_invite_url(self) -> str:
        return reverse("join_seat", args=[self.match.public_id, self.invite_token])


OPEN_SEAT = "open seat"
"""A seat no one holds, as every page names it (the header, the game's own panels, history)."""


class Event(models.Model):
    """One accepted action, timeout or host decision. Versions are gap-free per match. An
    event keeps what happened (its move, its public and private outcome, the time, the seat),
    not the state it made: that is rebuilt from the moves (games/core/match/replaying.py)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="events")
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=40)
    seat = models.SmallIntegerField(null=True, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    client_action_id = models.CharField(max_length=64, null=True, blank=True)
    action = models.JSONField(null=True, blank=True)
    public = models.JSONField(default=dict, blank=True)
    private = models.JSONField(default=dict, blank=True)
    # What the rules were given besides the seat, action and time (replaying.Move.stored).
    move = models.JSONField(null=True, blank=True)
    informational = models.BooleanField(default=False)
    created_at = models.DateTimeField()
    # When its frames reached the channel layer. An event still unsent a moment after it was
    # committed (its worker died right after the ack) is sent again by the scheduler.
    sent_at = models.DateTimeField(null=True, blank=True)

    def insert_row(self, db: str = "default") -> None:
        """Write this new event's row, as ``save()`` would, by one INSERT statement written
        once (every action appends one; building the statement each time cost more than
        writing it)."""
        self.inserted(write_together(db, [self.insert_statement(db)]), db)

    def insert_statement(self, db: str = "default") -> Statement:
        """The statement ``insert_row`` runs (returning the new row's id where the database
        can), and its parameters (``write_together``)."""
        connection = connections[db]
        fields = _event_fields()
        values = [f.get_db_prep_save(f.pre_save(self, True), connection) for f in fields]
        return _insert_statement(db), values

    def inserted(self, pk: int, db: str) -> None:
        """This event's row was written with ``pk``."""
        self.pk = pk
        self._state.adding = False
        self._state.db = db

    class Meta:
        ordering = ["match", "version"]
        constraints = [
            models.UniqueConstraint(fields=["match", "version"], name="one_event_per_version"),
            models.UniqueConstraint(
                fields=["match", "seat", "client_action_id"],
                condition=models.Q(client_action_id__isnull=False),
                name="one_event_per_client_action",
            ),
        ]
        indexes = [
            models.Index(
                fields=["created_at"], name="event_unsent", condition=models.Q(sent_at=None)
            ),
            # A match's host operations (audit._host_events): whether there are any is read
            # under every action's lock (``MatchQuerySet.locked``), in one step of this index.
            models.Index(
                fields=["match", "version"],
                name="event_host_operations",
                condition=models.Q(seat=None, actor__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"v{self.version} {self.kind}"

    # How a past state is rebuilt from the moves: games/core/match/replaying.py sets it as it loads
    # (the core app's ready() loads it), so the models never import the replays that read them.
    rebuild_state: ClassVar[Callable[[Match, int], dict[str, Any]] | None] = None

    @property
    def state(self) -> dict[str, Any]:
        """The state just after this event: the one it made when it was appended in this
        process, else rebuilt (``replaying.state_at``)."""
        if getattr(self, "_state_after", None) is None:
            if Event.rebuild_state is None:
                raise RuntimeError(
                    "games.core.match.replaying is not loaded (the core app loads it)"
                )
            self._state_after = Event.rebuild_state(self.match, self.version)
        return self._state_after

    @state.setter
    def state(self, value: dict[str, Any]) -> None:
        self._state_after = value

    def replaces_a_sealed_move(self) -> bool:
        """Whether this event replaced its seat's sealed move (a bid, a submission) of the same
        round: the game's private part for the seat says ``"replaced": true``."""
        if self.seat is None:
            return False
        return (self.private or {}).get(str(self.seat), {}).get("replaced") is True

    def kept_from(self, viewer: Viewer) -> bool:
        """Whether the event log ``viewer`` reads (an export, a replay) leaves this event out: a
        replaced sealed move is its seat's and the host's to know; anyone else would read the
        seat's sealed move twice in one round, and know it was replaced."""
        return self.replaces_a_sealed_move() and not (viewer.is_host or viewer.seat == self.seat)

    def seen_by(self, viewer: Viewer) -> dict[str, Any]:
        """The event as ``viewer`` may see it: public data plus that seat's private part."""
        data = dict(self.public)
        if viewer.is_host:
            if self.private:
                data["private"] = dict(self.private)  # keyed by seat: no part hides another
        elif viewer.seat is not None:
            data.update(self.private.get(str(viewer.seat), {}))
        return {"version": self.version, "kind": self.kind, "seat": self.seat, "data": data}


class Snapshot(models.Model):
    """The state of a match just after one event: where rebuilding a past state starts. Kept
    whole (``state``), or as the patch of the previous snapshot's state (``patch``; ``chain``:
    the bytes of the patches since the last whole state), games/core/render/jsondiff.py."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="snapshots")
    version = models.PositiveIntegerField()
    state = models.JSONField(null=True, blank=True)
    patch = models.JSONField(null=True, blank=True)
    chain = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["match", "version"]
        constraints = [
            models.UniqueConstraint(fields=["match", "version"], name="one_snapshot_per_version")
        ]

    def __str__(self) -> str:
        return f"snapshot v{self.version}"


class DeadlineQuerySet(models.QuerySet):
    def change(
        self, match_pk: int, version: int, cancelled: list[str], due: dict[str, datetime]
    ) -> None:
        """Cancel the pending rows of the clocks ``cancelled`` and write a row for each clock
        in ``due`` (set at ``version``)."""
        with connections[self.db].cursor() as cursor:
            for statement in self.change_statements(match_pk, version, cancelled, due):
                cursor.execute(*statement)

    def change_statements(
        self, match_pk: int, version: int, cancelled: list[str], due: dict[str, datetime]
    ) -> list[Statement]:
        """The statements of ``change``, with their parameters: none for no change, else a
        plain UPDATE and INSERT, as an action that moves a turn clock does this every time
        (the querysets' statements cost 0.5 ms more to build)."""
        connection = connections[self.db]
        q = connection.ops.quote_name
        table = q(Deadline._meta.db_table)
        statements: list[Statement] = []
        if cancelled:
            marks = ", ".join(["%s"] * len(cancelled))
            statements.append(
                (
                    f"UPDATE {table} SET {q('cancelled')} = %s WHERE {q('match_id')} = %s "
                    f"AND {q('key')} IN ({marks}) AND {q('fired_at')} IS NULL "
                    f"AND {q('cancelled')} = %s",
                    [True, match_pk, *cancelled, False],
                )
            )
        if due:
            due_at = Deadline._meta.get_field("due_at")
            rows = ", ".join(["(%s, %s, %s, NULL, %s, %s)"] * len(due))
            values = [
                value
                for key, at in due.items()
                for value in (
                    match_pk,
                    key,
                    due_at.get_db_prep_save(at, connection),
                    False,
                    version,
                )
            ]
            statements.append(
                (
                    f"INSERT INTO {table} ({q('match_id')}, {q('key')}, {q('due_at')}, "
                    f"{q('fired_at')}, {q('cancelled')}, {q('set_at_version')}) VALUES {rows}",
                    values,
                )
            )
        return statements


class Deadline(models.Model):
    """A clock of a match as an absolute time. Fired exactly once by whichever scheduler wins."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="deadlines")
    key = models.CharField(max_length=40)
    due_at = models.DateTimeField(db_index=True)
    fired_at = models.DateTimeField(null=True, blank=True)
    cancelled = models.BooleanField(default=False)
    set_at_version = models.PositiveIntegerField()

    objects = DeadlineQuerySet.as_manager()

    class Meta:
        ordering = ["due_at"]
        indexes = [models.Index(fields=["fired_at", "cancelled", "due_at"])]

    def __str__(self) -> str:
        return f"{self.key} at {self.due_at:%H:%M:%S}"


class AppendOnlyError(Exception):
    """A ledger entry is never changed or deleted: a correction is a new entry."""


class LedgerEntryQuerySet(models.QuerySet):
    def public(self) -> LedgerEntryQuerySet:
        """What everyone may count: the host's adjustments, and the entries of ended matches."""
        ended = [Match.Status.FINISHED, Match.Status.ABORTED]
        return self.filter(models.Q(match=None) | models.Q(match__status__in=ended))

    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyError("ledger entries are never changed; write a new entry instead")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("ledger entries are never deleted; reverse one instead")


class LedgerEntry(models.Model):
    """Garnets (and Tokens of Life) a player earned or spent: credited and charged by matches,
    adjusted by the host with a reason. Append-only: an entry is never changed or deleted; a
    correction is a new entry that names the one it ``reverses``. A player's balance is the sum
    of their entries; every write goes through games/core/match/ledger.py, which keeps it at 0 or
    more in each season."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="ledger_entries"
    )
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.PROTECT)
    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.PROTECT, related_name="entries"
    )
    garnets = models.IntegerField(default=0)
    tokens_of_life = models.IntegerField(default=0)
    reason = models.CharField(max_length=200)
    # The host who wrote an adjustment or a reversal; empty for what a match paid or charged.
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="ledger_entries_made",
    )
    # The version of the match's event that wrote it (empty for the host's adjustments): a
    # correction of a finished result reverses what the finishing event and later ones paid.
    version = models.PositiveIntegerField(null=True, blank=True)
    # The entry this one cancels; an entry is reversed at most once (a one-to-one column).
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = LedgerEntryQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "ledger entries"

    def __str__(self) -> str:
        return f"#{self.pk} {self.user}: {self.garnets:+d} garnets ({self.reason})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError("ledger entries are never changed; write a new entry instead")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("ledger entries are never deleted; reverse one instead")

    @staticmethod
    def balance(user: Any, season: Season | None = None) -> dict[str, int]:
        """A player's totals, live matches included (what the player sees of their own):
        in ``season``, or over every entry when None."""
        entries = LedgerEntry.objects.filter(user=user)
        if season is not None:
            entries = entries.filter(season=season)
        totals = entries.aggregate(
            garnets=models.Sum("garnets"), tokens=models.Sum("tokens_of_life")
        )
        return {"garnets": totals["garnets"] or 0, "tokens_of_life": totals["tokens"] or 0}


class ChatMessage(models.Model):
    """One line of a match's chat. Who may read and write each channel is decided in
    games/core/match/chat.py; the text is stored as typed and escaped wherever it is shown."""

    class Channel(models.TextChoices):
        PLAYERS = "players", "Players"
        SPECTATORS = "spectators", "Spectators"

    MAX_LENGTH = 300

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_messages")
    channel = models.CharField(max_length=12, choices=Channel.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages"
    )
    text = models.CharField(max_length=MAX_LENGTH)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["match", "id"]
        indexes = [
            models.Index(fields=["match", "channel", "-id"], name="chat_history"),
            models.Index(fields=["author", "-created_at"], name="chat_rate"),
        ]

    def __str__(self) -> str:
        return f"{self.channel}: {self.text[:40]}"


class ChatMute(models.Model):
    """The host silenced one user (in every channel of the match) or a whole channel."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat_mutes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="chat_mutes",
    )
    channel = models.CharField(max_length=12, blank=True, choices=ChatMessage.Channel.choices)
    muted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["match", "created_at"]
        constraints = [
            models.CheckConstraint(
                condition=(models.Q(user__isnull=False) & models.Q(channel=""))
                | (models.Q(user__isnull=True) & ~models.Q(channel="")),
                name="chat_mute_user_or_channel",
            ),
            models.UniqueConstraint(
                fields=["match", "user"],
                condition=models.Q(user__isnull=False),
                name="one_chat_mute_per_user",
            ),
            models.UniqueConstraint(
                fields=["match", "channel"],
                condition=models.Q(user__isnull=True),
                name="one_chat_mute_per_channel",
            ),
        ]

    def __str__(self) -> str:
        return f"mute {self.user or self.channel}"
