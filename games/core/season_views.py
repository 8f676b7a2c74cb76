"""Season standings: every player's garnets and Tokens of Life, for players and spectators."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from games.core.models import LedgerEntry, Season


def season_list(request: HttpRequest) -> HttpResponse:
    return render(request, "core/seasons.html", {"seasons": Season.objects.all()})


def season_page(request: HttpRequest, pk: int) -> HttpResponse:
    season = get_object_or_404(Season, pk=pk)
    mine = None
    if request.user.is_authenticated:
        mine = LedgerEntry.objects.filter(season=season, user=request.user).select_related("match")
    return render(
        request,
        "core/season.html",
        {
            "season": season,
            "standings": season.standings(),
            "matches": season.matches.order_by("-created_at")[:50],
            "my_entries": mine,
        },
    )
