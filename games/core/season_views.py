"""Season standings: every player's garnets and Tokens of Life, for players and spectators.

The standings are public: they count the host's adjustments at once and a match's entries once
the match has ended. A signed-in player also sees their own entries and balance at once, live
matches included (their premoves), and never anyone else's live ones.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, render

from games.core import audit
from games.core.models import LedgerEntry, Season


def season_list(request: HttpRequest) -> HttpResponse:
    return render(request, "core/seasons.html", {"seasons": Season.objects.all()})


def season_page(request: HttpRequest, pk: int) -> HttpResponse:
    season = get_object_or_404(Season, pk=pk)
    context = {
        "season": season,
        "standings": season.standings(),
        "matches": season.matches.order_by("-created_at")[:50],
    }
    if request.user.is_authenticated:
        context["my_entries"] = LedgerEntry.objects.filter(
            season=season, user=request.user
        ).select_related("match", "reverses")
        context["my_balance"] = LedgerEntry.balance(request.user, season)
    return render(request, "core/season.html", context)


def season_audit(request: HttpRequest, pk: int) -> HttpResponse:
    """The host log of a season (staff only): every host operation of its matches and every
    ledger entry a host wrote, with who, when and why."""
    season = get_object_or_404(Season, pk=pk)
    if not (request.user.is_authenticated and request.user.is_staff):
        return HttpResponseForbidden("only the season's hosts can read its host log")
    context = {
        "title": f"Host log: {season.name}",
        "season": season,
        "rows": audit.season_log(season),
    }
    return render(request, "core/audit.html", context)
