"""The host dashboard: matches with seats, the host's view of the board, clocks and the event
log, and the host's actions.

A match changes only through the host operations (games.core.host.hosting: the same console as the
match page's), each an event through games.core.match.services; the dashboard edits nothing else of
a match but its title, and deletes only a match that never started.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.views.decorators.clickjacking import xframe_options_sameorigin

from games.core.game.gamedef import Viewer, seat_label, state_deadlines
from games.core.host import console
from games.core.match import authority, clock
from games.core.models import Deadline, Event, Match, Seat
from games.core.render.rendering import render_panels, view_of

# The dashboard is the hosts' own page, named in their words rather than Django's.
admin.site.site_header = "Gem Arena host dashboard"
admin.site.site_title = "Gem Arena hosts"
admin.site.index_title = "Matches, seasons and players"

# --- clocks, written for a host watching them ------------------------------------------------


def clock_time(when: datetime) -> str:
    """A time of day with seconds, in the site's time zone: "12:03:11"."""
    return timezone.localtime(when).strftime("%H:%M:%S")


def duration(span: timedelta) -> str:
    """A span as a clock shows it: "0:42", "12:05", "1:02:03" (whole seconds, rounded down)."""
    seconds = max(0, int(span.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


def time_left(due: datetime, now: datetime) -> str:
    """ "0:42 left", or "due now" once it has run out (the scheduler fires it shortly)."""
    return f"{duration(due - now)} left" if due > now else "due now"


def deadline_status(deadline: Deadline, now: datetime) -> str:
    """What became of a Deadline row: "0:42 left", "fired 12:03:11" or "cancelled"."""
    if deadline.fired_at is not None:
        return f"fired {clock_time(deadline.fired_at)}"
    if deadline.cancelled:
        return "cancelled"
    return time_left(deadline.due_at, now)


def running_clocks(match: Match, now: datetime) -> list[tuple[str, str]]:
    """The clocks of the match's state as (key, what the host reads): due time and time left;
    while paused, the time each clock will have left when the match resumes."""
    clocks = []
    for key, due in sorted(state_deadlines(match.state).items(), key=lambda kv: kv[1]):
        if match.status == Match.Status.PAUSED and match.paused_at is not None:
            clocks.append((key, f"{duration(due - match.paused_at)} left when resumed (paused)"))
        elif match.status == Match.Status.LIVE:
            clocks.append((key, f"due {clock_time(due)}, {time_left(due, now)}"))
    return clocks


# --- seats and results as players see them -----------------------------------------------------


def _seat_name(match: Match, index: int | None) -> str:
    seat = next((s for s in match.seats.all() if s.index == index), None)
    if seat is None:
        return ""
    return seat_label(seat.info())


def result_text(match: Match) -> str:
    """How the match ended, in words: who won (named as players see them) or why it was
    aborted; empty while it runs."""
    result = match.result or {}
    if match.status == Match.Status.ABORTED:
        reason = result.get("host_reason") or "no reason given"
        return f"Aborted ({reason})."
    if match.status != Match.Status.FINISHED:
        return ""
    winner = result.get("winner")
    if isinstance(winner, int) and not isinstance(winner, bool):
        told = f"{_seat_name(match, winner)} won."
    else:
        told = "No single winner."
    summary = result.get("summary")
    return f"{told} {summary}" if summary else told


def _json_block(data: Any) -> str:
    return format_html("<pre>{}</pre>", json.dumps(data, indent=2, sort_keys=True))


def _json_line(data: Any) -> str:
    """Event data on one wrapping line, so long boards do not widen the event table."""
    text = json.dumps(data, ensure_ascii=False)
    return format_html('<code style="white-space:pre-wrap;word-break:break-all">{}</code>', text)


# --- inlines: seats, clocks and events, all read-only ----------------------------------------


def _may_run(request: HttpRequest, match: Any) -> bool:
    """Who may run a match reads it here (games/core/match/authority.py), whatever their Django
    permissions: a host who holds none still runs their own matches; a staff user runs no one
    else's."""
    return authority.may_run(match, request.user)


class _ReadOnlyInline(admin.TabularInline):
    extra = 0
    max_num = 0
    can_delete = False

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Shown on the change page of a match (``obj``) its reader may run; without one (the
        rows' query), the match's page has decided already."""
        return obj is None or _may_run(request, obj)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(_ReadOnlyInline):
    """Seats are taken through invite links and the match page's "Seat a bot", each a logged
    event; the dashboard only shows them, named as every page names them."""

    model = Seat
    fields = ("seat", "user", "bot_level", "invite_link", "joined_at", "draft")
    readonly_fields = fields

    @admin.display(description="seat")
    def seat(self, seat: Seat) -> str:
        return seat_label(seat.info())

    @admin.display(description="invite link")
    def invite_link(self, seat: Seat) -> str:
        if seat.is_taken:
            return "taken"
        return seat.get_invite_url()


class DeadlineInline(_ReadOnlyInline):
    model = Deadline
    verbose_name_plural = "clock history"
    fields = ("key", "due", "status", "set_at_version")
    readonly_fields = fields

    @admin.display(description="due")
    def due(self, deadline: Deadline) -> str:
        return clock_time(deadline.due_at)

    @admin.display(description="status")
    def status(self, deadline: Deadline) -> str:
        return deadline_status(deadline, clock.now())


class EventInline(_ReadOnlyInline):
    model = Event
    fields = ("version", "time", "kind", "by", "public_data", "private_data")
    readonly_fields = fields
    ordering = ("-version",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Event]:
        rows = super().get_queryset(request).select_related("actor", "match")
        return rows.prefetch_related("match__seats")

    @admin.display(description="time")
    def time(self, event: Event) -> str:
        return clock_time(event.created_at)

    @admin.display(description="by")
    def by(self, event: Event) -> str:
        if event.seat is not None:
            return _seat_name(event.match, event.seat)
        if event.actor_id is not None:
            return f"host ({event.actor})"
        return ""

    @admin.display(description="public")
    def public_data(self, event: Event) -> str:
        return _json_line(event.public)

    @admin.display(description="private (by seat)")
    def private_data(self, event: Event) -> str:
        return _json_line(event.private) if event.private else ""


# --- the match --------------------------------------------------------------------------------


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("title", "game_title", "status", "players", "version", "host", "created_at")
    list_display_links = ("title",)
    list_filter = ("status", "game_key")
    search_fields = ("title", "public_id")
    inlines = [SeatInline, DeadlineInline, EventInline]
    actions = None  # no bulk actions: each host operation names its match, with a reason
    fieldsets = (
        (None, {"fields": ("title", "game_title", "status", "players", "host", "page")}),
        ("The host's view of the board", {"fields": ("board",)}),
        ("Clocks", {"fields": ("clocks", "started_at", "paused_at", "finished_at")}),
        (
            "Raw data (for debugging)",
            {
                "classes": ("collapse",),
                "fields": ("public_id", "version", "settings_json", "result_json", "state_json"),
            },
        ),
    )
    # Everything but the title: a match changes only through the logged host actions.
    readonly_fields = (
        "game_title",
        "status",
        "players",
        "host",
        "page",
        "board",
        "clocks",
        "started_at",
        "paused_at",
        "finished_at",
        "public_id",
        "version",
        "settings_json",
        "result_json",
        "state_json",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a match is created on the "New match" page, with its seats

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """The list shows each host the matches they may run; a match, only to them."""
        if obj is None:
            return self.has_module_permission(request)
        return _may_run(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_view_permission(request, obj)  # the title; the rest is host operations

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Only a match that never started may be deleted, by whoever may run it: any other's
        log and ledger entries are its history (abort it instead)."""
        if obj is None or obj.status != Match.Status.OPEN:
            return False
        return _may_run(request, obj)

    # --- what the page shows -------------------------------------------------------------

    @admin.display(description="game")
    def game_title(self, match: Match) -> str:
        return match.game.title

    @admin.display(description="players")
    def players(self, match: Match) -> str:
        return " · ".join(seat_label(seat) for seat in match.seat_infos())

    @admin.display(description="page")
    def page(self, match: Match) -> str:
        url = match.get_absolute_url()
        return format_html('<a href="{}">{}</a> (the live page; as host you see it all)', url, url)

    @admin.display(description="board")
    def board(self, match: Match) -> str:
        if match.status == Match.Status.OPEN:
            return "The board appears once the match has started."
        url = reverse("admin:core_match_board", args=[match.pk])
        return format_html(
            '<iframe class="host-board" src="{}" title="The host\'s view of the board" '
            'style="width:100%;min-height:16rem;border:0;border-radius:8px"></iframe>'
            "<p>The board is live; the console above shows the match as this page loaded "
            '(reload it after a change). <a href="{}" target="_blank">Open the board on its '
            "own</a>.</p>",
            url,
            url,
        )

    @admin.display(description="running clocks")
    def clocks(self, match: Match) -> str:
        running = running_clocks(match, clock.now())
        if not running:
            return "none"
        return format_html_join(mark_safe("<br>"), "<b>{}</b>: {}", running)

    @admin.display(description="settings")
    def settings_json(self, match: Match) -> str:
        return _json_block(match.settings)

    @admin.display(description="result")
    def result_json(self, match: Match) -> str:
        return _json_block(match.result)

    @admin.display(description="state")
    def state_json(self, match: Match) -> str:
        return _json_block(match.state)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        """The matches the host may run: none they hold a seat in (a player sees their match
        only from their seat)."""
        matches = super().get_queryset(request).select_related("host").with_seats()
        return authority.runnable(matches, request.user)

    # --- the host console on the change page ---------------------------------------------

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        match = self.get_object(request, object_id)
        context = dict(extra_context or {})
        if match is not None:
            context["host_console"] = console.for_match(match, clock.now())
            context["host_result"] = result_text(match)
            context["host_next"] = request.get_full_path()
        return super().change_view(request, object_id, form_url, context)

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        extra = [path("<int:pk>/board/", view(self.board_view), name="core_match_board")]
        return extra + super().get_urls()

    @xframe_options_sameorigin
    def board_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """The host's view of the match as the match page draws it, with the game's styles and
        scripts, live over the match's websocket; framed by the change page (its own document,
        so the site's styles leave the dashboard's alone)."""
        match = get_object_or_404(Match.objects.with_seats(), pk=pk)
        if not _may_run(request, match):
            raise PermissionDenied("only those who run this match see its board")
        view = view_of(match, Viewer.host())
        panels = render_panels(match, view, version=match.version, oob=False)
        context = {"match": match, "view": view, "panels": panels}
        return render(request, "core/admin_board.html", context)


# The ledger and seasons are registered in their own module (kept apart from the match console).
from games.core.host import admin_ledger  # noqa: E402, F401
