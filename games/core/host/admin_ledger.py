"""The dashboard's season ledger and seasons.

The ledger is append-only here too: the host reads every entry, adds an adjustment (with a
reason, never taking a player below 0) and reverses entries with a reason; nothing is changed or
deleted. Every write goes through games/core/match/ledger.py.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.html import format_html

from games.core.game.gamedef import ActionError
from games.core.match import authority, ledger
from games.core.models import LedgerEntry, Match, Season


class AdjustmentForm(forms.ModelForm):
    """The host's adjustment: a player, a season, what is given or taken, and why. Checked
    (under the player's ledger lock, held until the dashboard's transaction writes it)."""

    class Meta:
        model = LedgerEntry
        fields = ("user", "season", "garnets", "tokens_of_life", "reason")
        help_texts = {
            "garnets": "Positive gives, negative takes; a balance never goes below 0.",
            "reason": "The player reads it in their ledger.",
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        try:
            ledger.check_adjustment(
                data["user"],
                data.get("season"),
                data.get("garnets") or 0,
                data.get("tokens_of_life") or 0,
                data.get("reason", ""),
            )
        except ActionError as refusal:
            raise forms.ValidationError(refusal.message, code=refusal.code) from None
        return data


def _entries(count: int) -> str:
    return f"{count} entr{'y' if count == 1 else 'ies'}"


class ReverseForm(forms.Form):
    reason = forms.CharField(
        max_length=200, help_text="Why: the players read it in their ledger beside the reversal."
    )


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    """The season ledger: matches credit and charge it; the host adds adjustments and reverses
    entries, each with a reason. Entries are read, never changed or deleted."""

    form = AdjustmentForm
    list_display = (
        "pk",
        "user",
        "season",
        "garnets",
        "tokens_of_life",
        "reason",
        "match",
        "made_by",
        "reversal",
        "created_at",
    )
    list_display_links = ("pk",)
    list_filter = ("season", "user")
    search_fields = ("user__username", "reason")
    list_select_related = ("user", "season", "match", "made_by", "reverses", "reversed_by")
    actions = ("reverse_entries",)

    # Who reads and writes which entries: a season's hosts its season's, a match's host its
    # match's, a superuser all; no one the entries of a running match they hold a seat in (a
    # live match's charges tell who premoved). games/core/match/authority.py says who runs what.

    def get_queryset(self, request: HttpRequest) -> QuerySet[LedgerEntry]:
        entries = super().get_queryset(request)
        user = request.user
        if not user.is_superuser:
            entries = entries.filter(
                Q(season__in=authority.seasons_hosted(user)) | Q(match__host=user)
            )
        ended = [Match.Status.FINISHED, Match.Status.ABORTED]
        return entries.exclude(Q(match__seats__user=user) & ~Q(match__status__in=ended))

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is None:
            return self.has_module_permission(request)
        return self.get_queryset(request).filter(pk=obj.pk).exists()

    def has_add_permission(self, request: HttpRequest) -> bool:
        """An adjustment is written in a season its writer hosts (a superuser: any)."""
        user = request.user
        return self.has_module_permission(request) and (
            user.is_superuser or bool(authority.seasons_hosted(user))
        )

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if db_field.name == "season" and not request.user.is_superuser:
            field.queryset = field.queryset.filter(pk__in=authority.seasons_hosted(request.user))
            field.required = True
        return field

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        """An entry shown whole; the add form asks only for an adjustment's fields."""
        return ("match", "made_by", "reverses", "created_at") if obj is not None else ()

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        initial = super().get_changeform_initial_data(request)
        current = Season.current()
        if current is not None:
            initial.setdefault("season", current.pk)
        return initial

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        if object_id is None:
            extra_context = {**(extra_context or {}), "title": "Add an adjustment"}
        return super().changeform_view(request, object_id, form_url, extra_context)

    def save_model(self, request: HttpRequest, obj: LedgerEntry, form: Any, change: bool) -> None:
        """Written by the ledger, signed by the host (the form checked it under the lock)."""
        written = ledger.adjust(
            obj.user, obj.season, obj.garnets, obj.tokens_of_life, obj.reason, request.user
        )
        obj.pk, obj.made_by, obj.created_at = written.pk, written.made_by, written.created_at

    @admin.display(description="Reversal")
    def reversal(self, entry: LedgerEntry) -> str:
        """What this entry reverses or is reversed by, or a link to reverse it."""
        if entry.reverses_id is not None:
            return f"reverses #{entry.reverses_id}"
        done = getattr(entry, "reversed_by", None)
        if done is not None:
            return f"reversed by #{done.pk}"
        url = reverse("admin:core_ledgerentry_reverse") + f"?ids={entry.pk}"
        return format_html('<a href="{}">Reverse</a>', url)

    @admin.action(description="Reverse the selected entries (asks for a reason)")
    def reverse_entries(self, request: HttpRequest, queryset: QuerySet) -> HttpResponseRedirect:
        ids = ",".join(str(pk) for pk in queryset.values_list("pk", flat=True))
        return redirect(reverse("admin:core_ledgerentry_reverse") + f"?ids={ids}")

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view(self.reverse_view)
        return [path("reverse/", view, name="core_ledgerentry_reverse"), *super().get_urls()]

    def reverse_view(self, request: HttpRequest) -> HttpResponse:
        """Ask for the reason, then write one reversal per entry (all or none): of the entries
        the host may read (``get_queryset``: their seasons', their matches')."""
        if not self.has_module_permission(request):
            raise PermissionDenied
        ids = [int(pk) for pk in request.GET.get("ids", "").split(",") if pk.strip().isdigit()]
        readable = self.get_queryset(request).filter(pk__in=ids)
        entries = list(readable.select_related("user", "match"))
        form = ReverseForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid() and entries:
            try:
                made = ledger.reverse_entries(entries, request.user, form.cleaned_data["reason"])
            except ActionError as refusal:
                form.add_error(None, refusal.message)
            else:
                self.message_user(request, f"Reversed {_entries(len(made))}, each by a new entry.")
                return redirect("admin:core_ledgerentry_changelist")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Reverse {_entries(len(entries))}",
            "entries": entries,
            "form": form,
        }
        return render(request, "admin/core/ledgerentry/reverse.html", context)


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    """Seasons group matches; new matches join the current one."""

    list_display = ("name", "is_current", "created_at")
    actions = ("make_current",)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        """Only a superuser makes a season the current one (new matches of every host join it)."""
        found = super().get_actions(request)
        if not request.user.is_superuser:
            found.pop("make_current", None)
        return found

    @admin.action(description="Make the selected season the current one")
    def make_current(self, request: HttpRequest, queryset: Any) -> None:
        if queryset.count() != 1:
            self.message_user(request, "choose exactly one season", messages.ERROR)
            return
        with transaction.atomic():
            Season.objects.update(is_current=False)
            queryset.update(is_current=True)
        self.message_user(request, f"{queryset.first()} is now the current season")
