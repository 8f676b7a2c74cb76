"""The dashboard's season ledger and seasons."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db import transaction
from django.http import HttpRequest

from games.core.models import LedgerEntry, Season


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    """The season ledger: matches credit it; the host adjusts it with an entry and a reason."""

    list_display = ("user", "season", "garnets", "tokens_of_life", "reason", "match", "created_at")
    list_filter = ("season", "user")
    search_fields = ("user__username", "reason")

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        initial = super().get_changeform_initial_data(request)
        current = Season.current()
        if current is not None:
            initial.setdefault("season", current.pk)
        return initial


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    """Seasons group matches; new matches join the current one."""

    list_display = ("name", "is_current", "created_at")
    actions = ("make_current",)

    @admin.action(description="Make the selected season the current one")
    def make_current(self, request: HttpRequest, queryset: Any) -> None:
        if queryset.count() != 1:
            self.message_user(request, "choose exactly one season", messages.ERROR)
            return
        with transaction.atomic():
            Season.objects.update(is_current=False)
            queryset.update(is_current=True)
        self.message_user(request, f"{queryset.first()} is now the current season")
