"""Pages: lobby, accounts, new match, match page, seat invites, replay and export. Thin: every
change goes through services, every view of a match through rendering.view_of."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, Resolver404, resolve, reverse
from django.utils.html import escape
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from games.core.forms import MatchSettingsForm, SignupForm
from games.core.game.gamedef import ActionError
from games.core.game.registry import UnknownGame, get_game, listed_games
from games.core.host import audit, hosting
from games.core.match import authority, host_operations, seating
from games.core.models import LedgerEntry, Match, Season, Seat
from games.core.render.fairplay import fairness_facts
from games.core.render.rendering import render_panel_list, render_panels, view_of


def lobby(request: HttpRequest) -> HttpResponse:
    matches = Match.objects.prefetch_related("seats__user").select_related("host")
    context = {
        "open_matches": matches.filter(status=Match.Status.OPEN)[:50],
        "live_matches": matches.filter(status__in=[Match.Status.LIVE, Match.Status.PAUSED])[:50],
        "finished_matches": matches.filter(
            status__in=[Match.Status.FINISHED, Match.Status.ABORTED]
        )[:50],
        "games": [(game, _play_url(game.play_url_name)) for game in listed_games()],
        "balance": (
            LedgerEntry.balance(request.user, Season.current())
            if request.user.is_authenticated
            else None
        ),
    }
    template = "core/_match_lists.html" if request.htmx else "core/lobby.html"
    return render(request, template, context)


def _play_url(url_name: str) -> str | None:
    """A game's own start page (``GameDefinition.play_url_name``), if it has one."""
    if not url_name:
        return None
    try:
        return reverse(url_name)
    except NoReverseMatch:
        return None


def _safe_next(request: HttpRequest) -> str:
    """Where a sign-in or sign-up goes afterwards: ``next`` when it is a page of this site."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return wanted if allowed else ""


def invitation(next_url: str) -> Seat | None:
    """The seat an invite link offers, when a sign-in is on its way to one (its match and host
    loaded): the login and sign-up pages say what the invitee was invited to."""
    try:
        found = resolve(urlsplit(next_url).path)
    except Resolver404:
        return None
    if found.url_name != "join_seat":
        return None
    return (
        Seat.objects.select_related("match__host")
        .filter(match__public_id=found.kwargs["public_id"], invite_token=found.kwargs["token"])
        .first()
    )


class LoginView(auth_views.LoginView):
    """Django's login page, telling an invitee what the invite link offers them."""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["invitation"] = invitation(context.get("next") or "")
        return context


def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    next_url = _safe_next(request)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        return redirect(next_url or "lobby")
    context = {"form": form, "next": next_url, "invitation": invitation(next_url)}
    return render(request, "registration/signup.html", context)


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
    form_class = MatchSettingsForm.for_game(game)
    form = form_class(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            match = seating.create_match(
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
    core, panels = _page_regions(render_panel_list(match, view, version=match.version, oob=False))
    is_host = _is_host(request, match)
    game = match.game
    bot_levels = [(level, game.bot_level_help.get(level, "")) for level in game.bot_levels]
    seats = list(match.seats.all())
    running = match.status in (Match.Status.LIVE, Match.Status.PAUSED)
    return render(
        request,
        "core/match.html",
        {
            "match": match,
            "seats": seats,
            # Seats the host freed for a substitute while the match runs: their new invite links.
            "open_seats": [seat for seat in seats if not seat.is_taken] if running else [],
            "viewer": viewer,
            "core_panels": core,
            "panels": panels,
            "view": view,
            "is_host": is_host,
            "may_seat": authority.may_seat(match, request.user),
            "my_seat": match.seat_of(request.user),
            "bot_levels": bot_levels,
            "base_url": f"{request.scheme}://{request.get_host()}",
        },
    )


def _page_regions(panels: list[tuple[str, str]]) -> tuple[str, str]:
    """The match's own panels (status, result, host controls: marked ``data-region="core"`` in
    core/_panels.html) apart from the game's, so that a game lays its panels out alone."""
    core: list[str] = []
    game: list[str] = []
    for _panel_id, html in panels:
        first_tag = html.split(">", 1)[0]
        (core if 'data-region="core"' in first_tag else game).append(html)
    return mark_safe("\n".join(core)), mark_safe("\n".join(game))  # our own templates


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
            seating.take_seat(match, request.user, token, request.POST.get("player_seed", ""))
        except ActionError as refusal:
            messages.error(request, refusal.message)
        return redirect(match)
    return render(request, "core/join_seat.html", {"match": match, "seat": seat})


def fairness(request: HttpRequest, public_id: str) -> JsonResponse:
    """The match's fairness facts, the same for every viewer (fairplay.fairness_facts): the
    whole list of receipts a page checks at a reveal (its panel lists the latest)."""
    return JsonResponse(fairness_facts(_match(public_id)))


@require_POST
@login_required
def player_seed(request: HttpRequest, public_id: str) -> HttpResponse:
    """The seed a seated player's page gives the match's draws before the start, when it did
    not take its seat through its own page (a season's host seated it): docs/fairness.md."""
    match = _match(public_id)
    try:
        seating.give_player_seed(match, request.user, request.POST.get("player_seed", ""))
    except ActionError as refusal:
        return HttpResponse(escape(refusal.message), status=400)
    return HttpResponse(status=204)


def _is_host(request: HttpRequest, match: Match) -> bool:
    return host_operations.is_host(match, request.user)


def _host_reply(
    request: HttpRequest, match: Match, refusal: ActionError | None = None
) -> HttpResponse:
    """After a host control: the match page shows the change live, so an htmx request gets only
    the refusal (shown beside the host's buttons); a plain form post goes back where it came
    from (the dashboard sends ``next``). A non-host is answered 403."""
    status = 403 if refusal is not None and refusal.code == "forbidden" else 200
    if request.htmx:
        return HttpResponse(escape(refusal.message if refusal else ""), status=status)
    if status == 403:
        return HttpResponseForbidden(escape(refusal.message if refusal else ""))
    if refusal is not None:
        messages.error(request, refusal.message)
    else:
        messages.success(request, "Done; the players see it in the match log.")
    back = request.POST.get("next", "")
    if back and url_has_allowed_host_and_scheme(back, {request.get_host()}):
        return redirect(back)
    return redirect(match)


@require_POST
@login_required
def host_operation(request: HttpRequest, public_id: str, operation: str) -> HttpResponse:
    """Every host operation of every game (games.core.host.hosting), from the match page's console
    and the dashboard's."""
    match = _match(public_id)
    if operation not in hosting.RUNS:
        raise Http404(f"unknown operation {operation!r}")
    try:
        hosting.run(match, request.user, operation, request.POST)
    except ActionError as refusal:
        return _host_reply(request, match, refusal)
    return _host_reply(request, match)


@login_required
def match_audit(request: HttpRequest, public_id: str) -> HttpResponse:
    """The host's log of one match: every host operation with who, when, why and what it did."""
    match = _match(public_id)
    if not _is_host(request, match):
        return HttpResponseForbidden("only the host can read the host log")
    context = {"title": f"Host log: {match.title}", "match": match, "rows": audit.match_log(match)}
    return render(request, "core/audit.html", context)


@require_POST
@login_required
def rematch(request: HttpRequest, public_id: str) -> HttpResponse:
    """A new match like this one with the same players; the host goes to it, and every viewer
    of this one gets its link live in the result panel."""
    match = _match(public_id)
    try:
        fresh = host_operations.rematch(match, request.user)
    except ActionError as refusal:
        return _host_reply(request, match, refusal)
    if request.htmx:
        return HttpResponseClientRedirect(fresh.get_absolute_url())
    return redirect(fresh)


@require_POST
@login_required
def seat_bot(request: HttpRequest, public_id: str, index: int) -> HttpResponse:
    match = _match(public_id)
    if not authority.may_seat(match, request.user):
        return HttpResponseForbidden("only the host can seat a bot")
    level = request.POST.get("level", "")
    if level not in match.game.bot_levels:
        messages.error(request, f"unknown bot level {level!r}")
        return redirect(match)
    try:
        seating.seat_bot(match, index, level)
    except ActionError as refusal:
        messages.error(request, refusal.message)
    return redirect(match)


def replay(request: HttpRequest, public_id: str) -> HttpResponse:
    """A finished match step by step as the viewer saw it; opens at the start of the last round."""
    match = _match(public_id)
    if not match.is_over:
        messages.info(request, "The replay opens when the match is over.")
        return redirect(match)
    from games.core.match.replaying import replay_step

    viewer = match.viewer_for(request.user)
    step = replay_step(match, viewer, request.GET.get("v"))
    view = view_of(match, viewer, step.state, drafts=False)
    context = {
        "match": match,
        "viewer": viewer,
        "step": step,
        "event": step.event,
        "version": step.version,
        "panels": (
            render_panels(match, view, version=step.version, oob=False, live=False)
            if step.event
            else ""
        ),
        "view": view,
    }
    template = "core/_replay_body.html" if request.htmx else "core/replay.html"
    return render(request, template, context)


def export(request: HttpRequest, public_id: str) -> JsonResponse:
    """The event log as the viewer may see it, each event with its sentence; once the match is
    over, what anyone needs to check it (``verify``: ``python -m games.verify``, the same for
    every viewer). Its fairness facts (``fairness``) are everyone's from the start."""
    from games.core.match.replaying import described_events, verification_record

    match = _match(public_id)
    viewer = match.viewer_for(request.user)
    data = {
        "match": view_of(match, viewer)["match"],
        "game": match.game_key,
        "viewer": viewer.audience,
        "version": match.version,
        "events": described_events(match, viewer),
        "view": view_of(match, viewer, drafts=False)["game"],
    }
    data["fairness"] = fairness_facts(match, viewer)
    record = verification_record(match, viewer)
    if record is not None:
        data["verify"] = record
    return JsonResponse(data)
