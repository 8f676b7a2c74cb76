"""A finished round's analysis, drawn when a player opens it: the round's board and every turn
beside the best path it had. Frames never carry it (they would on every round's end, for every
audience); the page asks for it when its round is opened (templates/glittering_paths/
_panels.html), through the same gate as the page (rendering.view_of)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from games.core.models import Match
from games.core.render.rendering import view_of
from games.glittering_paths import flow, page


def round_result(request: HttpRequest, public_id: str, round_no: int) -> HttpResponse:
    match = get_object_or_404(
        Match.objects.prefetch_related("seats__user"), public_id=public_id, game_key=flow.GAME
    )
    shown = view_of(match, match.viewer_for(request.user), drafts=False)["game"]
    entry = page.round_page(shown, round_no) if shown else None
    if entry is None:
        raise Http404("that round has not finished")
    context = {"match": match, "entry": entry}
    template = "_round.html" if request.htmx else "round.html"
    return render(request, f"glittering_paths/{template}", context)
