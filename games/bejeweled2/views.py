"""The Bejeweled 2 page outside a match: start a game of any mode by yourself (no host, no
invite), the high scores of each mode and your own finished games. Scores come only from the
results the server recorded when a match finished, read by the queries of ``standings``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django_htmx.http import HttpResponseClientRedirect

from games.bejeweled2 import flow, modes, standings
from games.bejeweled2.game import GAME
from games.bejeweled2.puzzles import PUZZLES, WORLD_SIZE
from games.core.match import clock, seating


def _puzzle_choice(request: HttpRequest, progress: dict[str, Any] | None) -> int:
    """The puzzle the page offers: the one asked for (``?puzzle=N``, 1-based, as the game-over
    panel links to the next) when its world is open, else the player's first unsolved one."""
    asked = request.GET.get("puzzle", "")
    playable = progress["playable"] if progress else WORLD_SIZE
    if asked.isdigit() and 1 <= int(asked) <= playable:
        return int(asked) - 1
    if progress and progress["next"] is not None:
        return progress["next"]
    return 0


def unlock_text(mode: str) -> str:
    """How a hidden mode is opened, in the player's words."""
    source, reach = modes.UNLOCKS[mode]
    if source == "puzzle":
        return f"solve all {reach} puzzles to open it"
    return f"reach level {reach} in {modes.MODE_TITLES[source]} to open it"


def play(request: HttpRequest) -> HttpResponse:
    """The page (GET); its forms start a game (POST)."""
    if request.method == "POST":
        return start(request)
    history = []
    progress = None
    if request.user.is_authenticated:
        history = standings.history(request.user)
        progress = standings.puzzle_progress(standings.puzzle_bests(request.user), len(PUZZLES))
    chosen = _puzzle_choice(request, progress)
    best = progress["best"] if progress else {}
    playable = progress["playable"] if progress else WORLD_SIZE
    opened = standings.open_modes(request.user)
    period = request.GET.get("scores", "all")
    if period not in standings.PERIODS:
        period = "all"
    context = {
        "modes": [
            (mode, modes.MODE_TITLES[mode], modes.MODE_HELP[mode])
            for mode in opened
            if not modes.MODES[mode].secret
        ],
        # Open to everyone, shown once found as the original hid it (static/js/bejeweled2_menu.js).
        "secret_modes": [
            (mode, modes.MODE_TITLES[mode], modes.MODE_HELP[mode])
            for mode in opened
            if modes.MODES[mode].secret
        ],
        "locked": [
            (mode, modes.MODE_TITLES[mode], unlock_text(mode))
            for mode in modes.UNLOCKS
            if mode not in opened
        ],
        "puzzles": [
            {
                "index": index,
                "world": index // WORLD_SIZE + 1,
                "title": p.title,
                "par": p.par,
                "best": best.get(index),
                "chosen": index == chosen,
            }
            for index, p in enumerate(PUZZLES[:playable])
        ],
        "progress": progress,
        "puzzle_count": len(PUZZLES),
        "world_count": -(-len(PUZZLES) // WORLD_SIZE),
        "next_puzzle": PUZZLES[progress["next"]]
        if progress and progress["next"] is not None
        else None,
        "live": standings.live_games(),
        "leaderboards": standings.leaderboards(standings.period_start(period, clock.now())),
        "periods": standings.PERIODS,
        "period": period,
        "period_title": standings.PERIODS[period],
        "history": history,
        "idle_minutes": flow.IDLE_DEFAULT_MINUTES,
    }
    return render(request, "bejeweled2/play.html", context)


@login_required
def start(request: HttpRequest) -> HttpResponse:
    """Create a one-seat game for the signed-in player and seat them: it starts at once."""
    try:
        settings = GAME.clean_settings(
            {"mode": request.POST.get("mode", ""), "puzzle": request.POST.get("puzzle", "0")}
        )
    except ValueError as error:
        return HttpResponse(f"Cannot start that game: {error}", status=400)
    if settings["mode"] not in standings.open_modes(request.user):
        return HttpResponse(
            f"Cannot start that game: {modes.MODE_TITLES[settings['mode']]} is not open to you "
            f"yet ({unlock_text(settings['mode'])})",
            status=403,
        )
    if modes.MODES[settings["mode"]].puzzles:
        progress = standings.puzzle_progress(standings.puzzle_bests(request.user), len(PUZZLES))
        if settings["puzzle"] >= progress["playable"]:
            return HttpResponse(
                f"Cannot start that game: puzzle {settings['puzzle'] + 1} is in world "
                f"{settings['puzzle'] // WORLD_SIZE + 1}, which is not open to you yet (solve "
                f"{standings.OPENS_NEXT_WORLD} of a world's {WORLD_SIZE} puzzles to open the next)",
                status=403,
            )
    # The page names the game under the title: the title names the mode (or the puzzle) only.
    title = f"{modes.MODE_TITLES[settings['mode']]} game"
    if modes.MODES[settings["mode"]].puzzles:
        title += f": puzzle {settings['puzzle'] + 1}, {PUZZLES[settings['puzzle']].title}"
    match = seating.create_match(
        host=request.user, game_key=GAME.key, title=title, settings=settings, roles=[""]
    )
    seating.take_seat(match, request.user, match.seats.get().invite_token)
    if request.htmx:  # "Next puzzle" on a finished game's page
        return HttpResponseClientRedirect(match.get_absolute_url())
    return redirect(match.get_absolute_url())
