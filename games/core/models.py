"""Matches, their seats, the append-only event log and the deadlines the scheduler fires."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.urls import reverse

from games.core.gamedef import GameDefinition, Viewer
from games.core.registry import get_game


def new_public_id() -> str:
    return secrets.token_urlsafe(8)


def new_invite_token() -> str:
    return secrets.token_urlsafe(16)


def new_seed() -> int:
    return secrets.randbits(48)


def display_name(user: Any) -> str:
    if user is None or not getattr(user, "is_authenticated", False):
        return "guest"
    return user.first_name or user.username


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
    seed = models.BigIntegerField(default=new_seed)
    version = models.PositiveIntegerField(default=0)
    state = models.JSONField(default=dict, blank=True)
    result = models.JSONField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    analysis_pending = models.BooleanField(default=False, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "matches"
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "-created_at"])]

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

    def seat_of(self, user: Any) -> Seat | None:
        if user is None or not getattr(user, "is_authenticated", False):
            return None
        return next((seat for seat in self.seats.all() if seat.user_id == user.pk), None)

    def viewer_for(self, user: Any) -> Viewer:
        """The server decides who the user is in this match: a seat, the host, or a spectator."""
        seat = self.seat_of(user)
        if seat is not None:
            return Viewer(seat=seat.index)
        is_host = bool(
            getattr(user, "is_authenticated", False) and (user.pk == self.host_id or user.is_staff)
        )
        return Viewer(is_host=is_host)


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
            return f"Bot ({self.bot_level})"
        return display_name(self.user) if self.user_id else "open seat"

    def get_invite_url(self) -> str:
        return reverse("join_seat", args=[self.match.public_id, self.invite_token])


class Event(models.Model):
    """One accepted action, timeout or host decision. Versions are gap-free per match."""

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
    state = models.JSONField(default=dict)
    informational = models.BooleanField(default=False)
    created_at = models.DateTimeField()

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

    def __str__(self) -> str:
        return f"v{self.version} {self.kind}"

    def seen_by(self, viewer: Viewer) -> dict[str, Any]:
        """The event as ``viewer`` may see it: public data plus that seat's private part."""
        data = dict(self.public)
        if viewer.is_host:
            for part in self.private.values():
                data.update(part)
        elif viewer.seat is not None:
            data.update(self.private.get(str(viewer.seat), {}))
        return {"version": self.version, "kind": self.kind, "seat": self.seat, "data": data}


class Deadline(models.Model):
    """A clock of a match as an absolute time. Fired exactly once by whichever scheduler wins."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="deadlines")
    key = models.CharField(max_length=40)
    due_at = models.DateTimeField(db_index=True)
    fired_at = models.DateTimeField(null=True, blank=True)
    cancelled = models.BooleanField(default=False)
    set_at_version = models.PositiveIntegerField()

    class Meta:
        ordering = ["due_at"]
        indexes = [models.Index(fields=["fired_at", "cancelled", "due_at"])]

    def __str__(self) -> str:
        return f"{self.key} at {self.due_at:%H:%M:%S}"


class LedgerEntry(models.Model):
    """Garnets (and Tokens of Life) a player earned or spent: credited by matches, adjustable by
    the host with a reason. A player's balance is the sum of their entries."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ledger_entries"
    )
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL)
    garnets = models.IntegerField(default=0)
    tokens_of_life = models.IntegerField(default=0)
    reason = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "ledger entries"

    def __str__(self) -> str:
        return f"{self.user}: {self.garnets:+d} garnets ({self.reason})"

    @staticmethod
    def balance(user: Any) -> dict[str, int]:
        totals = LedgerEntry.objects.filter(user=user).aggregate(
            garnets=models.Sum("garnets"), tokens=models.Sum("tokens_of_life")
        )
        return {"garnets": totals["garnets"] or 0, "tokens_of_life": totals["tokens"] or 0}
