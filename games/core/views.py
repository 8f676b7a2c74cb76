"""Pages: lobby, accounts, new match, match page, seat invites, replay and export. Thin: every
change goes through services, every view of a match through rendering.view_of."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from games.core import services
from games.core.forms import SignupForm
from games.core.models import LedgerEntry, Match
from games.core.registry import UnknownGame, get_game, listed_games
from games.core.rendering import render_panels, view_of


def lobby(request: HttpRequest) -> HttpResponse:
    matches = Match.objects.prefetch_related("seats__user").select_related("host")
    context = {
        "open_matches": matches.filter(status=Match.Status.OPEN)[:50],
        "live_matches": matches.filter(status__in=[Match.Status.LIVE, Match.Status.PAUSED])[:50],
        "finished_matches": matches.filter(
            status__in=[Match.Status.FINISHED, Match.Status.ABORTED]
        )[:50],
        "games": listed_games(),
        "balance": LedgerEntry.balance(request.user) if request.user.is_authenticated else None,
    }
    template = "core/_match_lists.html" if request.htmx else "core/lobby.html"
    return render(request, template, context)


def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        return redirect(request.GET.get("next") or "lobby")
    return render(request, "registration/signup.html", {"form": form})


@login_required
def new_match(request: HttpRequest, game_key: str | None = None) -> HttpResponse:
    if game_key is None:
        return render(request, "core/new_match.html", {"games": listed_games()})
    try:
        game = get_game(game_key)
    except UnknownGame:
        raise Http404(f"unknown game {game_key!r}") from None
    if not game.listed:
        raise Http404(f"unknown game {game_key!r}")
    form_class = game.settings_form()
    form = form_class(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            match = services.create_match(
                host=request.user,
                game_key=game.key,
                title=form.cleaned_data["title"],
                settings=form.match_settings(),
                roles=form.roles(),
            )
        except ValueError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, "Match created. Send each player their seat's invite link.")
            return redirect(match)
    return render(request, "core/new_match_settings.html", {"game": game, "form": form})


def _match(public_id: str) -> Match:
    return get_object_or_404(
        Match.objects.prefetch_related("seats__user").select_related("host"), public_id=public_id
    )


def match_page(request: HttpRequest, public_id: str) -> HttpResponse:
    match = _match(public_id)
    viewer = match.viewer_for(request.user)
    view = view_of(match, viewer)
    panels = render_panels(match, viewer, view, version=match.version, oob=False)
    is_host = _is_host(request, match)
    return render(
        request,
        "core/match.html",
        {
            "match": match,
            "viewer": viewer,
            "panels": panels,
            "is_host": is_host,
            "my_seat": match.seat_of(request.user),
            "bot_levels": match.game.bot_levels,
        },
    )


def join_seat(request: HttpRequest, public_id: str, token: str) -> HttpResponse:
    match = _match(public_id)
    seat = match.seats.filter(invite_token=token).first()
    if seat is None:
        raise Http404("this invite link is not valid for this match")
    if not request.user.is_authenticated:
        messages.info(request, "Log in or sign up to take your seat.")
        return redirect(f"{reverse('login')}?next={request.path}")
    if request.method == "POST":
        try:
            services.take_seat(match, request.user, token)
        except services.ActionRefused as refusal:
            messages.error(request, refusal.message)
        return redirect(match)
    return render(request, "core/join_seat.html", {"match": match, "seat": seat})


HOST_OPERATIONS = {
    "start": services.host_start,
    "pause": services.host_pause,
    "resume": services.host_resume,
    "abort": services.host_abort,
}


def _is_host(request: HttpRequest, match: Match) -> bool:
    return request.user.is_authenticated and (
        request.user.pk == match.host_id or request.user.is_staff
    )


@require_POST
@login_required
def host_operation(request: HttpRequest, public_id: str, operation: str) -> HttpResponse:
    match = _match(public_id)
    if not _is_host(request, match):
        messages.error(request, "only the host can do that")
        return redirect(match)
    run = HOST_OPERATIONS.get(operation)
    if run is None:
        raise Http404(f"unknown operation {operation!r}")
    try:
        run(match, request.user)
    except services.ActionRefused as refusal:
        messages.error(request, refusal.message)
    return redirect(match)


@require_POST
@login_required
def seat_bot(request: HttpRequest, public_id: str, index: int) -> HttpResponse:
    match = _match(public_id)
    if not _is_host(request, match):
        messages.error(request, "only the host can seat a bot")
        return redirect(match)
    level = request.POST.get("level", "")
    if level not in match.game.bot_levels:
        messages.error(request, f"unknown bot level {level!r}")
        return redirect(match)
    try:
        services.seat_bot(match, index, level)
    except services.ActionRefused as refusal:
        messages.error(request, refusal.message)
    return redirect(match)


def replay(request: HttpRequest, public_id: str) -> HttpResponse:
    match = _match(public_id)
    if not match.is_over:
        messages.info(request, "The replay opens when the match is over.")
        return redirect(match)
    viewer = match.viewer_for(request.user)
    try:
        version = int(request.GET.get("v", match.version))
    except ValueError:
        version = match.version
    version = max(0, min(version, match.version))
    event = match.events.filter(version=version).first()
    state = event.state if event is not None else {}
    view = view_of(match, viewer, state)
    context = {
        "match": match,
        "viewer": viewer,
        "event": event.seen_by(viewer) if event else None,
        "version": version,
        "previous": version - 1 if version > 1 else None,
        "next": version + 1 if version < match.version else None,
        "panels": render_panels(match, viewer, view, version=version, oob=False) if event else "",
    }
    template = "core/_replay_body.html" if request.htmx else "core/replay.html"
    return render(request, template, context)


def export(request: HttpRequest, public_id: str) -> JsonResponse:
    match = _match(public_id)
    viewer = match.viewer_for(request.user)
    return JsonResponse(
        {
            "match": view_of(match, viewer)["match"],
            "game": match.game_key,
            "viewer": viewer.audience,
            "version": match.version,
            "events": [event.seen_by(viewer) for event in match.events.all()],
            "view": view_of(match, viewer)["game"],
        }
    )
