"""Notifications and their deliveries: rows written in the transaction of what caused them,
delivered after commit by the scheduler process (games/notifications/delivery.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.core.models import Deadline, Match, Season
from games.notifications import kinds

KIND_CHOICES = list(kinds.KINDS.items())


class NotificationQuerySet(models.QuerySet):
    def unread(self) -> NotificationQuerySet:
        return self.filter(in_site=True, read_at=None)


class Notification(models.Model):
    """Something that needs one person, in words they may read: the in-site list's entry and
    what an email to them says."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=32, choices=KIND_CHOICES)
    text = models.CharField(max_length=300)
    url = models.CharField(max_length=300, blank=True)
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL)
    season = models.ForeignKey(Season, null=True, blank=True, on_delete=models.SET_NULL)
    # Shown in the in-site list (the player did not turn that off for this kind).
    in_site = models.BooleanField(default=True)
    created_at = models.DateTimeField()
    read_at = models.DateTimeField(null=True, blank=True)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(
                fields=["user", "-created_at"],
                name="notification_unread",
                condition=models.Q(in_site=True, read_at=None),
            ),
            models.Index(fields=["user", "-created_at"], name="notification_list"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.user_id}: {self.text[:40]}"


class Delivery(models.Model):
    """One mail to a player or one post to a season's webhook, sent at least once and marked
    sent: claimed by a deliverer for a lease, retried with backoff when it fails."""

    class Channel(models.TextChoices):
        EMAIL = kinds.EMAIL, "Email"
        WEBHOOK = kinds.WEBHOOK, "Season webhook"

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting"
        SENDING = "sending", "Being sent"
        SENT = "sent", "Sent"
        FAILED = "failed", "Gave up"

    channel = models.CharField(max_length=8, choices=Channel.choices)
    kind = models.CharField(max_length=32, choices=KIND_CHOICES)
    # An email's notification (its player, words and link); a webhook post's season and text.
    notification = models.ForeignKey(
        Notification, null=True, blank=True, on_delete=models.CASCADE, related_name="deliveries"
    )
    season = models.ForeignKey(Season, null=True, blank=True, on_delete=models.CASCADE)
    public_text = models.CharField(max_length=300, blank=True)
    url = models.CharField(max_length=300, blank=True)
    # Where it goes (an address or a webhook URL): a slow receiver holds up only its own rows.
    destination = models.CharField(max_length=500)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    due_at = models.DateTimeField()
    # While SENDING: when the claim runs out and another deliverer may take the row again.
    lease_until = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["due_at", "pk"]
        verbose_name_plural = "deliveries"
        indexes = [
            models.Index(
                fields=["due_at"],
                name="delivery_open",
                condition=models.Q(status__in=["pending", "sending"]),
            )
        ]

    def __str__(self) -> str:
        return f"{self.channel} {self.kind} to {self.destination} ({self.status})"


class OptOut(models.Model):
    """A player turned one channel off for one kind (everything is on until then)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_opt_outs"
    )
    kind = models.CharField(max_length=32, choices=KIND_CHOICES)
    channel = models.CharField(max_length=8, choices=list(kinds.PLAYER_CHANNELS.items()))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind", "channel"], name="one_opt_out")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} off {self.kind} by {self.channel}"


class SeasonWebhook(models.Model):
    """Where a season's public notifications are posted (a chat channel's incoming webhook),
    set by the host."""

    season = models.OneToOneField(Season, on_delete=models.CASCADE, related_name="webhook")
    url = models.URLField(max_length=500, blank=True)
    # The kinds the host lets through (each notification's public text only).
    kinds = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"webhook of {self.season}"

    def posts(self, kind: str) -> bool:
        return bool(self.url) and kind in self.kinds


class Reminder(models.Model):
    """A deadline whose "still missing" reminder was written: each deadline reminds once."""

    deadline = models.OneToOneField(Deadline, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField()
