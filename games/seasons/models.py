"""A season as reality game hosts run it: its format (invite link, hosts, settings), its cast
and its episodes (a main match, the nomination, the death match), and the log players read.

The garnets and Tokens of Life stay in the core's ledger (games/core/match/ledger.py); a season's
matches stay core matches. Every change here goes through the season's actions (games/seasons/
__init__.py lists them).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.urls import reverse

from games.core.models import Match, Season


def new_season_invite() -> str:
    return secrets.token_urlsafe(12)


class SeasonFormat(models.Model):
    """What a core season needs to be run as a show: who hosts it, its cast invite link and
    its settings (games/seasons/rules.py SETTINGS, cleaned there)."""

    season = models.OneToOneField(Season, on_delete=models.CASCADE, related_name="format")
    hosts = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="hosted_seasons")
    # A season role, given and taken by its hosts on the season's page: any user (no staff
    # status), who runs the season as a host does (games/seasons/roles.py).
    cohosts = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="cohosted_seasons", blank=True
    )
    invite_token = models.CharField(max_length=32, unique=True, default=new_season_invite)
    # The hosts close and reopen the cast invite link; the final closes it by itself.
    invite_open = models.BooleanField(default=True)
    settings = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"format of {self.season}"

    def get_invite_url(self) -> str:
        return reverse("season_join", args=[self.season_id, self.invite_token])


class CastMember(models.Model):
    """One player of a season: asked to join, then in, then eliminated or the winner."""

    class Status(models.TextChoices):
        ASKED = "asked", "Asked to join"
        IN = "in", "In"
        ELIMINATED = "eliminated", "Eliminated"
        WINNER = "winner", "Winner"
        DECLINED = "declined", "Not admitted"

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="cast")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seasons_cast"
    )
    name = models.CharField("display name", max_length=40)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.ASKED)
    asked_at = models.DateTimeField()
    # Eliminated: in which episode, by whom (the death match's winner), and as the how-manyth.
    eliminated_in = models.ForeignKey(
        "Episode", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    eliminated_by = models.ForeignKey(
        "CastMember", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    elimination_order = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["season", "name"]
        constraints = [
            models.UniqueConstraint(fields=["season", "user"], name="one_cast_row_per_user"),
            models.UniqueConstraint(fields=["season", "name"], name="one_cast_name_per_season"),
        ]

    def __str__(self) -> str:
        return self.name


class Episode(models.Model):
    """One episode: the main match, the Elimination Candidate's nomination of a Death Match
    Opponent (on a clock), then the death match whose loser leaves."""

    class Phase(models.TextChoices):
        MAIN_MATCH = "main_match", "Main match"
        NOMINATION = "nomination", "The Elimination Candidate nominates"
        HOST_NOMINATION = "host_nomination", "The host names the Death Match Opponent"
        DEATH_MATCH_SETUP = "death_match_setup", "The death match is being set up"
        DEATH_MATCH = "death_match", "Death match"
        OVER = "over", "Over"

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="episodes")
    number = models.PositiveSmallIntegerField()
    phase = models.CharField(max_length=20, choices=Phase.choices, default=Phase.MAIN_MATCH)
    main_match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # The main match's version last read for its Elimination Candidate (a tie waits for the
    # host; a host's correction comes later).
    main_match_read_at = models.PositiveIntegerField(default=0)
    elimination_candidate = models.ForeignKey(
        CastMember, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    opponent = models.ForeignKey(
        CastMember, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    nomination_due = models.DateTimeField(null=True, blank=True)
    nominated_by_host = models.BooleanField(default=False)
    token_spent = models.BooleanField(default=False)
    death_match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # The death match's version last read for its loser (a host's correction comes later).
    death_match_read_at = models.PositiveIntegerField(default=0)
    eliminated = models.ForeignKey(
        CastMember, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    saved = models.ForeignKey(
        CastMember, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["season", "number"]
        constraints = [
            models.UniqueConstraint(fields=["season", "number"], name="one_episode_per_number"),
        ]
        indexes = [
            models.Index(
                fields=["nomination_due"],
                name="nomination_clock",
                condition=models.Q(phase="nomination"),
            )
        ]

    def __str__(self) -> str:
        return f"{self.season} episode {self.number}"

    def get_absolute_url(self) -> str:
        return reverse("season_episode", args=[self.season_id, self.number])


class SeasonEvent(models.Model):
    """A line of the season's log, in the words players read: who joined, who is the
    Elimination Candidate, who was nominated, a Token of Life spent, who left."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="season_events")
    episode = models.ForeignKey(
        Episode, null=True, blank=True, on_delete=models.CASCADE, related_name="events"
    )
    kind = models.CharField(max_length=40)
    text = models.CharField(max_length=300)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["season", "created_at", "pk"]

    def __str__(self) -> str:
        return self.text

    def as_json(self) -> dict[str, Any]:
        return {"at": self.created_at.isoformat(), "kind": self.kind, "text": self.text}
