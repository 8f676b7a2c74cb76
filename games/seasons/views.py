"""Season pages: the list, a new season, the standings (cast, episodes, ledger, log), the cast
invite, an episode with its nomination, the exports and the host's forms. Thin: every change
goes through the season's actions (hosts, cast, tokens, episodes, nominations), every read of
the season through standings.py."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from games.core.forms import MatchSettingsForm, setting_fields
from games.core.game.gamedef import ActionError
from games.core.game.registry import UnknownGame, get_game
from games.core.host import audit
from games.core.match import clock
from games.core.models import LedgerEntry, Season
from games.seasons import cast, episodes, hosts, nominations, roles, rules, standings, tokens
from games.seasons.models import CastMember, Episode, SeasonEvent, SeasonFormat


def season_list(request: HttpRequest) -> HttpResponse:
    seasons = Season.objects.select_related("format")
    return render(request, "seasons/seasons.html", {"seasons": seasons})


class SeasonForm(forms.Form):
    """A season's name, then its settings (games/seasons/rules.py SETTINGS)."""

    name = forms.CharField(max_length=80)
    make_current = forms.BooleanField(
        required=False,
        label="Make it the current season",
        help_text="Matches made outside the season (the lobby's) then join its ledger.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields.update(setting_fields(rules.SETTINGS))

    def season_settings(self) -> dict[str, Any]:
        return {setting.name: self.cleaned_data[setting.name] for setting in rules.SETTINGS}


def _staff(request: HttpRequest) -> bool:
    return bool(request.user.is_authenticated and request.user.is_staff)


@login_required
def season_new(request: HttpRequest) -> HttpResponse:
    if not _staff(request):
        return HttpResponseForbidden("only staff users host seasons")
    form = SeasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            season = hosts.create_season(
                name=form.cleaned_data["name"],
                host=request.user,
                settings=form.season_settings(),
                make_current=form.cleaned_data["make_current"],
            )
        except ActionError as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(request, "Season opened. Send the cast its invite link.")
            return redirect(season)
    return render(request, "seasons/season_new.html", {"form": form})


def _season(pk: int) -> Season:
    return get_object_or_404(Season.objects.select_related("format"), pk=pk)


def _has_format(season: Season) -> bool:
    return SeasonFormat.objects.filter(season=season).exists()


def season_page(request: HttpRequest, pk: int) -> HttpResponse:
    season = _season(pk)
    is_host = roles.runs_season(request.user, season)
    context: dict[str, Any] = {
        "season": season,
        "is_host": is_host,
        "standings": season.standings(),
        "matches": season.matches.order_by("-created_at")[:50],
    }
    if _has_format(season):
        context["table"] = standings.season_table(season)
        context["settings_words"] = settings_words(season.format.settings)
        context["episode"] = episodes.current_episode(season)
        if request.user.is_authenticated:
            context["me"] = CastMember.objects.filter(season=season, user=request.user).first()
        context["asking"] = CastMember.objects.filter(
            season=season, status=CastMember.Status.ASKED
        ).count()
    if is_host and _has_format(season):
        context["invite_url"] = request.build_absolute_uri(season.format.get_invite_url())
        context["season_over"] = cast.is_over(season)
        context["asked"] = CastMember.objects.filter(
            season=season, status=CastMember.Status.ASKED
        ).order_by("asked_at")
        context["hosts"] = season.format.hosts.order_by("username")
        context["cohosts"] = roles.cohosts(season)
        adjustment = AdjustmentForm(auto_id="adjust_%s")
        adjustment.fields["member"].choices = _cast_choices(season)
        context["adjustment_form"] = adjustment
        context["main_games"] = episodes.main_match_games()
        context["death_games"] = episodes.death_match_games()
        context["players_in"] = len(cast.cast_in(season))
    if request.user.is_authenticated:
        entries = LedgerEntry.objects.filter(season=season, user=request.user)
        context["my_entries"] = [
            standings.with_why(entry) for entry in entries.select_related("match", "reverses")
        ]
        context["my_balance"] = LedgerEntry.balance(request.user, season)
    return render(request, "seasons/season.html", context)


def season_audit(request: HttpRequest, pk: int) -> HttpResponse:
    """The host log of a season (its hosts; staff for a season without a cast): every host
    operation of its matches, every ledger entry a host wrote and what the hosts did to the
    season itself (admitted, started, named), with who, when and why."""
    season = _season(pk)
    allowed = roles.runs_season(request.user, season) if _has_format(season) else _staff(request)
    if not allowed:
        return HttpResponseForbidden("only the season's hosts can read its host log")
    rows = audit.season_log(season)
    runners = Q(actor__in=roles.season_hosts(season)) | Q(actor__is_superuser=True)
    hosts_did = SeasonEvent.objects.filter(runners, season=season)
    rows += [
        {
            "at": event.created_at,
            "by": hosts.host_name(event.actor),
            "match": None,
            "version": None,
            "kind": event.kind,
            "words": event.text,
            "reason": "",
        }
        for event in hosts_did.select_related("actor")
    ]
    rows.sort(key=lambda row: row["at"], reverse=True)
    context = {"title": f"Host log: {season.name}", "season": season, "rows": rows}
    return render(request, "core/audit.html", context)


def _formatted(pk: int) -> Season:
    season = _season(pk)
    if not _has_format(season):
        raise Http404("this season has no cast or episodes")
    return season


def season_export_json(request: HttpRequest, pk: int) -> JsonResponse:
    table = standings.season_table(_formatted(pk))
    return JsonResponse(table, json_dumps_params={"indent": 1})


def season_export_csv(request: HttpRequest, pk: int) -> HttpResponse:
    season = _formatted(pk)
    response = HttpResponse(
        standings.season_csv(standings.season_table(season)), content_type="text/csv"
    )
    response["Content-Disposition"] = f'attachment; filename="season-{season.pk}.csv"'
    return response


def season_join(request: HttpRequest, pk: int, token: str) -> HttpResponse:
    season = _formatted(pk)
    if token != season.format.invite_token:
        raise Http404("this invite link is not valid for this season")
    if not request.user.is_authenticated:
        messages.info(request, "Log in or sign up to join the season.")
        return redirect(f"{reverse('login')}?next={request.path}")
    mine = CastMember.objects.filter(season=season, user=request.user).first()
    error = ""
    if request.method == "POST" and mine is None:
        try:
            cast.ask_to_join(season, request.user, token, request.POST.get("name", ""))
        except ActionError as refusal:
            error = refusal.message
        else:
            messages.success(request, "Asked. A host admits you to the cast.")
            return redirect(season)
    suggested = request.user.first_name or request.user.username
    context = {
        "season": season,
        "mine": mine,
        "error": error,
        "suggested": suggested,
        "over": cast.is_over(season),
        "closed": not season.format.invite_open,
    }
    return render(request, "seasons/season_join.html", context)


def _done(request: HttpRequest, where: Any, refusal: ActionError | None, ok: str) -> HttpResponse:
    if refusal is not None:
        if refusal.code == "forbidden":
            return HttpResponseForbidden(refusal.message)
        messages.error(request, refusal.message)
    else:
        messages.success(request, ok)
    return redirect(where)


@require_POST
@login_required
def season_admit(request: HttpRequest, pk: int, member: int) -> HttpResponse:
    season = _formatted(pk)
    admitted = request.POST.get("admitted") != "no"
    try:
        who = cast.admit(season, request.user, member, admitted)
    except ActionError as refusal:
        return _done(request, season, refusal, "")
    return _done(request, season, None, f"{who.name} {'is in' if admitted else 'turned away'}.")


@require_POST
@login_required
def season_add_host(request: HttpRequest, pk: int) -> HttpResponse:
    """A host or co-host makes a user co-host."""
    season = _formatted(pk)
    try:
        user = hosts.add_cohost(season, request.user, request.POST.get("username", ""))
    except ActionError as refusal:
        return _done(request, season, refusal, "")
    return _done(request, season, None, f"{hosts.host_name(user)} co-hosts the season.")


@require_POST
@login_required
def season_remove_host(request: HttpRequest, pk: int, user: int) -> HttpResponse:
    """A host or co-host takes the co-host role back."""
    season = _formatted(pk)
    try:
        removed = hosts.remove_cohost(season, request.user, user)
    except ActionError as refusal:
        return _done(request, season, refusal, "")
    return _done(request, season, None, f"{hosts.host_name(removed)} no longer co-hosts.")


class AdjustmentForm(forms.Form):
    """A bonus or a fine: garnets and Tokens of Life given (or taken, below 0), and why."""

    member = forms.TypedChoiceField(coerce=int, label="Player")
    garnets = forms.IntegerField(initial=0, required=False, min_value=-10_000, max_value=10_000)
    tokens = forms.IntegerField(
        initial=0, required=False, min_value=-10, max_value=10, label="Tokens of Life"
    )
    reason = forms.CharField(max_length=200, help_text="The player reads it in their ledger.")


@require_POST
@login_required
def season_adjust_ledger(request: HttpRequest, pk: int) -> HttpResponse:
    """A host or co-host gives or takes garnets and Tokens of Life; the player is told."""
    season = _formatted(pk)
    if not roles.runs_season(request.user, season):
        return HttpResponseForbidden("only the season's hosts and co-hosts adjust its ledger")
    form = AdjustmentForm(request.POST)
    form.fields["member"].choices = _cast_choices(season)
    if not form.is_valid():
        said = "; ".join(str(error) for errors in form.errors.values() for error in errors)
        return _done(request, season, ActionError(said, "bad_adjustment"), "")
    data = form.cleaned_data
    try:
        entry = tokens.adjust_ledger(
            season,
            request.user,
            data["member"],
            data["garnets"] or 0,
            data["tokens"] or 0,
            data["reason"],
        )
    except ActionError as refusal:
        return _done(request, season, refusal, "")
    return _done(request, season, None, f"Written in the ledger and told: {entry.reason}.")


def _cast_choices(season: Season) -> list[tuple[int, str]]:
    members = CastMember.objects.filter(season=season).exclude(
        status__in=[CastMember.Status.ASKED, CastMember.Status.DECLINED]
    )
    return [(member.pk, member.name) for member in members.order_by("name")]


@require_POST
@login_required
def season_invite(request: HttpRequest, pk: int) -> HttpResponse:
    """A host closes or reopens the cast invite link."""
    season = _formatted(pk)
    is_open = request.POST.get("open") == "yes"
    try:
        cast.set_invite_open(season, request.user, is_open)
    except ActionError as refusal:
        return _done(request, season, refusal, "")
    return _done(request, season, None, f"The invite link is {'open' if is_open else 'closed'}.")


class EpisodeMatchForm(MatchSettingsForm):
    """A season match's title and its game's settings; the seats are the cast's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        del self.fields["seat_count"]


def _listed_game(game_key: str, allowed: list[Any]) -> Any:
    try:
        game = get_game(game_key)
    except UnknownGame:
        raise Http404(f"unknown game {game_key!r}") from None
    if game not in allowed:
        raise Http404(f"{game.title} cannot be played here")
    return game


@login_required
def season_new_episode(request: HttpRequest, pk: int, game_key: str) -> HttpResponse:
    """The host sets up the next episode's main match: its game's settings."""
    season = _formatted(pk)
    if not roles.runs_season(request.user, season):
        return HttpResponseForbidden("only the season's hosts start episodes")
    game = _listed_game(game_key, episodes.main_match_games())
    form = EpisodeMatchForm.for_game(game)(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            episode = episodes.start_episode(
                season, request.user, game.key, form.match_settings(), form.cleaned_data["title"]
            )
        except ActionError as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(request, f"Episode {episode.number} started: every seat is taken.")
            return redirect(episode)
    context = {"season": season, "game": game, "form": form, "what": "main match"}
    return render(request, "seasons/season_match.html", context)


class FinalForm(EpisodeMatchForm):
    """The final's death match: which finalist plays as Elimination Candidate, and its game's
    settings."""

    candidate = forms.TypedChoiceField(
        coerce=int,
        label="Plays as Elimination Candidate",
        help_text="The other finalist plays as Death Match Opponent (ties go to the DMO).",
    )


@login_required
def season_final(request: HttpRequest, pk: int, game_key: str) -> HttpResponse:
    """The host sets up the final: a death match between the last two players."""
    season = _formatted(pk)
    if not roles.runs_season(request.user, season):
        return HttpResponseForbidden("only the season's hosts start episodes")
    game = _listed_game(game_key, episodes.death_match_games())
    form = FinalForm.for_game(game)(request.POST or None)
    form.fields["candidate"].choices = [(m.pk, m.name) for m in cast.cast_in(season)]
    if request.method == "POST" and form.is_valid():
        try:
            episode = episodes.start_final(
                season,
                request.user,
                game.key,
                form.match_settings(),
                form.cleaned_data["candidate"],
            )
        except ActionError as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(request, "The final is on: both finalists are seated.")
            return redirect(episode)
    context = {"season": season, "game": game, "form": form, "what": "final"}
    return render(request, "seasons/season_match.html", context)


def _episode(pk: int, number: int) -> Episode:
    return get_object_or_404(
        Episode.objects.select_related(
            "season__format", "elimination_candidate", "opponent", "main_match", "death_match"
        ),
        season_id=pk,
        number=number,
    )


def episode_page(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """An episode: its main match's places, the Elimination Candidate's nomination (the page
    made for it), the death match and what came of it."""
    episode = _episode(pk, number)
    season = episode.season
    is_host = roles.runs_season(request.user, season)
    table = standings.season_table(season)
    row = next(e for e in table["episodes"] if e["number"] == episode.number)
    candidate = episode.elimination_candidate
    is_candidate = bool(
        candidate is not None
        and request.user.is_authenticated
        and candidate.user_id == request.user.pk
    )
    nominating = (episode.phase == Episode.Phase.NOMINATION and is_candidate) or (
        episode.phase == Episode.Phase.HOST_NOMINATION and is_host
    )
    settings = season.format.settings
    context: dict[str, Any] = {
        "season": season,
        "episode": episode,
        "row": row,
        "is_host": is_host,
        "is_candidate": is_candidate,
        "nominating": nominating,
    }
    if nominating:
        state = nominations.nomination_state(episode)
        context["eligible"] = state["eligible"]
        context["shielded"] = [
            m
            for m in state["players"]
            if m not in state["eligible"] and m.pk != episode.elimination_candidate_id
        ]
        ec_picks = settings["death_match_picker"] == "ec" and not is_host
        titles = dict(rules.DEATH_MATCH_GAMES)
        context["game_choices"] = (
            [(key, titles.get(key, key)) for key in settings["death_match_games"]]
            if ec_picks
            else []
        )
        context["may_spend_token"] = (
            is_candidate
            and episode.phase == Episode.Phase.NOMINATION
            and settings["token_skips_death_match"]
            and LedgerEntry.balance(request.user, season)["tokens_of_life"] > 0
        )
    if is_host and episode.phase == Episode.Phase.DEATH_MATCH_SETUP:
        context["death_games"] = episodes.death_match_games()
    if episode.phase == Episode.Phase.NOMINATION and episode.nomination_due:
        context["time_left"] = rules.time_left(episode.nomination_due, clock.now())
    context["host_nominating"] = is_host and episode.phase in {
        Episode.Phase.NOMINATION,
        Episode.Phase.HOST_NOMINATION,
    }
    return render(request, "seasons/episode.html", context)


@require_POST
@login_required
def episode_nominate(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    episode = _episode(pk, number)
    try:
        nominee = int(request.POST.get("nominee", ""))
    except ValueError:
        return _done(request, episode, ActionError("choose a player to name", "bad_nominee"), "")
    try:
        nominations.nominate(episode, request.user, nominee, request.POST.get("game", ""))
    except ActionError as refusal:
        return _done(request, episode, refusal, "")
    return _done(request, episode, None, "Nominated: the Death Match Opponent is told.")


@require_POST
@login_required
def episode_nomination_clock(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """A host gives the nomination clock more time, or less."""
    episode = _episode(pk, number)
    try:
        minutes = int(request.POST.get("minutes", ""))
    except ValueError:
        minutes = 0
    if request.POST.get("change") == "less":
        minutes = -minutes
    try:
        nominations.change_nomination_clock(episode, request.user, minutes)
    except ActionError as refusal:
        return _done(request, episode, refusal, "")
    episode.refresh_from_db()
    when = f"{episode.nomination_due:%Y-%m-%d %H:%M} UTC"
    return _done(request, episode, None, f"The nomination clock now runs until {when}: told.")


@require_POST
@login_required
def episode_spend_token(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    episode = _episode(pk, number)
    if request.POST.get("sure") != "yes":
        unsure = ActionError(
            "tick that you are sure: a Token of Life spent cannot be taken back", "not_sure"
        )
        return _done(request, episode, unsure, "")
    try:
        nominations.spend_token(episode, request.user)
    except ActionError as refusal:
        return _done(request, episode, refusal, "")
    return _done(request, episode, None, "Token of Life spent: no death match this episode.")


@login_required
def episode_death_match(request: HttpRequest, pk: int, number: int, game_key: str) -> HttpResponse:
    """The host sets up the death match: its game's settings; the EC and DMO are seated."""
    episode = _episode(pk, number)
    season = episode.season
    if not roles.runs_season(request.user, season):
        return HttpResponseForbidden("only the season's hosts set up a death match")
    game = _listed_game(game_key, episodes.death_match_games())
    form = EpisodeMatchForm.for_game(game)(request.POST or None)
    if request.method == "POST" and form.is_valid():
        settings = form.match_settings()
        try:
            match = episodes.create_death_match(episode, request.user, game.key, settings)
        except ActionError as refusal:
            form.add_error(None, refusal.message)
        else:
            messages.success(request, "Death match created: both players are seated.")
            return redirect(match)
    context = {"season": season, "game": game, "form": form, "what": "death match"}
    return render(request, "seasons/season_match.html", context)


def settings_words(settings: dict[str, Any]) -> list[tuple[str, str]]:
    """The season's settings as the host chose them, in words (label, value)."""
    titles = dict(rules.DEATH_MATCH_GAMES)
    shown = []
    for setting in rules.SETTINGS:
        value = settings.get(setting.name, setting.default)
        if setting.kind == "bool":
            words = "yes" if value else "no"
        elif setting.kind == "choice":
            words = dict(setting.choices).get(value, str(value))
        elif setting.kind == "several":
            words = ", ".join(titles.get(v, v) for v in value) or "none"
        else:
            words = str(value)
        shown.append((setting.label, words))
    return shown
