"""The host's one page action of Seven Gem Swap: more time on the running clock.

The extension goes through the core's adjudication path (services.host_adjudicate ->
game.adjudicate with ``{"extend_seconds": n}`` -> flow.extend_deadline), so it is an event in
the match log like any other host decision.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_POST

from games.core import services
from games.core.gamedef import ActionError
from games.core.models import Match
from games.seven_gem_swap.flow import GAME


@require_POST
@login_required
def extend_deadline(request: HttpRequest, public_id: str) -> JsonResponse:
    match = get_object_or_404(Match, public_id=public_id, game_key=GAME)
    if not (request.user.pk == match.host_id or request.user.is_staff):
        return JsonResponse(
            {"code": "not_host", "message": "only the host can extend the clock"}, status=403
        )
    text = request.POST.get("minutes", "").strip()
    if not text.isdigit() or not 0 < int(text) <= 30 * 24 * 60:
        return JsonResponse(
            {"code": "bad_seconds", "message": "give a whole number of minutes, 1 to 43200"},
            status=400,
        )
    try:
        services.host_adjudicate(match, request.user, {"extend_seconds": int(text) * 60})
    except ActionError as refusal:
        return JsonResponse({"code": refusal.code, "message": refusal.message}, status=400)
    match.refresh_from_db()
    return JsonResponse({"ok": True, "version": match.version})
