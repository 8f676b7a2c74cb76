"""The in-site list, a player's choices, one-click unsubscribe and the season's webhook. Thin:
services.py does every write."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from games.core.models import Season
from games.notifications import delivery, kinds, services
from games.notifications.delivery import UNSUBSCRIBE_SALT
from games.notifications.models import Notification, SeasonWebhook

LIST_LENGTH = 50


@login_required
def notification_list(request: HttpRequest) -> HttpResponse:
    notes = Notification.objects.filter(user=request.user, in_site=True)[:LIST_LENGTH]
    return render(request, "notifications/list.html", {"notifications": notes})


@login_required
def open_notification(request: HttpRequest, pk: int) -> HttpResponse:
    """A notification's link (in the list, in its mail): marked read, then where it points."""
    note = get_object_or_404(Notification, pk=pk, user=request.user)
    services.mark_opened(note)
    where = note.url if note.url.startswith("/") and not note.url.startswith("//") else "/"
    return redirect(where)


@login_required
@require_POST
def read_all(request: HttpRequest) -> HttpResponse:
    services.mark_read(request.user)
    return redirect("notifications:list")


@login_required
def preferences(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        on = {tuple(value.split(":", 1)) for value in request.POST.getlist("on") if ":" in value}
        try:
            services.set_choices(request.user, on, request.POST.get("email", ""))  # type: ignore[arg-type]
        except (ValueError, ValidationError) as error:
            message = error.messages[0] if isinstance(error, ValidationError) else str(error)
            messages.error(request, f"Nothing changed: {message}")
        else:
            messages.success(request, "Your notification choices are saved.")
        return redirect("notifications:preferences")
    on = services.choices_of(request.user)
    rows = [
        {
            "kind": kind,
            "label": label,
            "for_host": kind in kinds.HOST_KINDS,
            "channels": [
                {"value": f"{kind}:{channel}", "label": name, "on": (kind, channel) in on}
                for channel, name in kinds.PLAYER_CHANNELS.items()
            ],
        }
        for kind, label in kinds.KINDS.items()
    ]
    return render(request, "notifications/preferences.html", {"rows": rows})


@csrf_exempt  # the signed token is the proof; mail programs post it (RFC 8058)
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """A mail's link: a page with one button, or (a POST, as mail programs send for
    List-Unsubscribe-Post) at once. No login: the signature names the player and the kind."""
    try:
        signed = signing.loads(token, salt=UNSUBSCRIBE_SALT)
        user_id, kind = int(signed["u"]), str(signed["k"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return HttpResponseBadRequest("This unsubscribe link is not valid; nothing changed.")
    if kind not in kinds.KINDS:
        return HttpResponseBadRequest("This unsubscribe link is not valid; nothing changed.")
    done = request.method == "POST"
    if done:
        services.unsubscribe(user_id, kind)
    context = {"label": kinds.KINDS[kind], "done": done, "token": token}
    return render(request, "notifications/unsubscribe.html", context)


@require_POST
@login_required
def season_webhook_test(request: HttpRequest, pk: int) -> HttpResponse:
    """The host sends a test post to the saved webhook and reads its answer on the page."""
    season = get_object_or_404(Season, pk=pk)
    if not services.may_set_webhook(season, request.user):
        raise PermissionDenied("only the season's hosts set its webhook")
    hook = SeasonWebhook.objects.filter(season=season).first()
    if hook is None or not hook.url:
        messages.error(request, "Save a webhook URL first: there is nothing to post to.")
    else:
        sent, answer = delivery.send_test_post(season, hook.url)
        (messages.success if sent else messages.error)(request, answer)
    return redirect("notifications:season_webhook", pk=season.pk)


@login_required
def season_webhook(request: HttpRequest, pk: int) -> HttpResponse:
    """The host sets the season's webhook: its URL and the kinds it posts (public text only)."""
    season = get_object_or_404(Season, pk=pk)
    if not services.may_set_webhook(season, request.user):
        raise PermissionDenied("only the season's hosts set its webhook")
    if request.method == "POST":
        try:
            services.set_season_webhook(
                season, request.user, request.POST.get("url", ""), set(request.POST.getlist("kind"))
            )
        except (ValueError, ValidationError) as error:
            message = error.messages[0] if isinstance(error, ValidationError) else str(error)
            messages.error(request, f"Nothing changed: {message}")
        else:
            messages.success(request, "The season's webhook is saved.")
        return redirect("notifications:season_webhook", pk=season.pk)
    hook = SeasonWebhook.objects.filter(season=season).first()
    chosen = set(hook.kinds) if hook else set(kinds.PUBLIC_KINDS)
    rows = [
        {"kind": kind, "label": label, "on": kind in chosen}
        for kind, label in kinds.KINDS.items()
        if kind in kinds.PUBLIC_KINDS
    ]
    context = {"season": season, "url": hook.url if hook else "", "rows": rows}
    return render(request, "notifications/season_webhook.html", context)
