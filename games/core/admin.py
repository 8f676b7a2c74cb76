"""The host dashboard: matches with seats, state, event log and clocks, and the host's actions."""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.html import format_html

from games.core import services
from games.core.forms import AdjudicateForm
from games.core.models import Deadline, Event, LedgerEntry, Match, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("index", "role", "user", "bot_level", "invite_link", "joined_at")
    readonly_fields = ("invite_link", "joined_at")

    @admin.display(description="invite link")
    def invite_link(self, seat: Seat) -> str:
        return seat.get_invite_url() if seat.pk else ""


class EventInline(admin.TabularInline):
    model = Event
    extra = 0
    can_delete = False
    fields = ("version", "kind", "seat", "actor", "public", "private", "created_at")
    readonly_fields = fields
    ordering = ("-version",)
    max_num = 0

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class DeadlineInline(admin.TabularInline):
    model = Deadline
    extra = 0
    can_delete = False
    fields = ("key", "due_at", "fired_at", "cancelled", "set_at_version")
    readonly_fields = fields
    max_num = 0

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


def _run_host_operation(operation, label: str):  # type: ignore[no-untyped-def]
    @admin.action(description=label)
    def action(modeladmin: MatchAdmin, request: HttpRequest, queryset) -> None:  # type: ignore[no-untyped-def]
        for match in queryset:
            try:
                operation(match, request.user)
            except services.ActionRefused as refusal:
                modeladmin.message_user(request, f"{match}: {refusal.message}", messages.ERROR)
            else:
                modeladmin.message_user(request, f"{match}: done")

    action.__name__ = f"host_{operation.__name__}"
    return action


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("title", "game_key", "status", "version", "host", "created_at", "page")
    list_filter = ("status", "game_key")
    search_fields = ("title", "public_id")
    readonly_fields = (
        "public_id",
        "version",
        "state",
        "result",
        "seed",
        "started_at",
        "finished_at",
        "paused_at",
        "adjudicate_link",
    )
    inlines = [SeatInline, DeadlineInline, EventInline]
    actions = [
        _run_host_operation(services.host_start, "Start the selected matches"),
        _run_host_operation(services.host_pause, "Pause the selected matches"),
        _run_host_operation(services.host_resume, "Resume the selected matches"),
        _run_host_operation(services.host_abort, "Abort the selected matches"),
    ]

    @admin.display(description="page")
    def page(self, match: Match) -> str:
        return format_html('<a href="{}">open</a>', match.get_absolute_url())

    @admin.display(description="adjudicate")
    def adjudicate_link(self, match: Match) -> str:
        url = reverse("admin:core_match_adjudicate", args=[match.pk])
        return format_html('<a href="{}">Award the round or the match…</a>', url)

    def get_urls(self):  # type: ignore[no-untyped-def]
        extra = [
            path(
                "<int:pk>/adjudicate/",
                self.admin_site.admin_view(self.adjudicate_view),
                name="core_match_adjudicate",
            )
        ]
        return extra + super().get_urls()

    def adjudicate_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        match = get_object_or_404(Match, pk=pk)
        form = AdjudicateForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                services.host_adjudicate(match, request.user, form.cleaned_data)
            except services.ActionRefused as refusal:
                form.add_error(None, refusal.message)
            else:
                self.message_user(request, "Adjudication recorded as an event.")
                return redirect("admin:core_match_change", match.pk)
        context = {
            **self.admin_site.each_context(request),
            "match": match,
            "form": form,
            "title": f"Adjudicate {match}",
        }
        return render(request, "admin/core/adjudicate.html", context)


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    """The season ledger: matches credit it; the host adjusts it with an entry and a reason."""

    list_display = ("user", "garnets", "tokens_of_life", "reason", "match", "created_at")
    list_filter = ("user",)
    search_fields = ("user__username", "reason")
