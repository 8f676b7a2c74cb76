"""The seasons in the host dashboard, read only: every change goes through the season's page
(its actions: games/seasons/hosts.py, cast.py, tokens.py, episodes.py, nominations.py), so
that each is checked and written in the season's log."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from games.seasons.models import CastMember, Episode, SeasonEvent


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(CastMember)
class CastMemberAdmin(ReadOnly):
    list_display = ("name", "season", "status", "elimination_order", "eliminated_in")
    list_filter = ("season", "status")


@admin.register(Episode)
class EpisodeAdmin(ReadOnly):
    list_display = ("season", "number", "phase", "elimination_candidate", "opponent", "eliminated")
    list_filter = ("season", "phase")


@admin.register(SeasonEvent)
class SeasonEventAdmin(ReadOnly):
    list_display = ("created_at", "season", "text", "actor")
    list_filter = ("season",)
