"""The Bejeweled 2 page outside a match: start a game of any mode by yourself (no host, no
invite), the high scores of each mode and your own finished games. Scores come only from the
results the server recorded when a match finished."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from games.bejeweled2 import flow
from games.bejeweled2.game import GAME
from games.bejeweled2.puzzles import PUZZLES
from games.core import services
from games.core.models import Match, display_name

TOP = 10


def _finished() -> Any:
    return (
        Match.objects.filter(game_key=GAME.key, status=Match.Status.FINISHED)
        .exclude(result=None)
        .prefetch_related("seats__user")
        .order_by("-finished_at")
    )


def _row(match: Match) -> dict[str, Any]:
    seat = match.seats.all()[0] if match.seats.all() else None
    player = display_name(seat.user) if seat and seat.user else (seat.bot_level if seat else "")
    return {"match": match, "player": player, **match.result}


def _puzzle_ranking(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per player: how many puzzles they solved (each once) and in how many moves at
    best, most puzzles first, then fewest moves; each row links to their latest solve."""
    players: dict[str, dict[str, Any]] = {}
    for row in rows:  # newest first
        if not row.get("solved"):
            continue
        entry = players.setdefault(row["player"], {**row, "best": {}})
        best = entry["best"]
        best[row["puzzle"]] = min(row["moves"], best.get(row["puzzle"], row["moves"]))
    ranked = [
        {**entry, "puzzles": len(entry["best"]), "moves": sum(entry["best"].values())}
        for entry in players.values()
    ]
    ranked.sort(key=lambda entry: (-entry["puzzles"], entry["moves"]))
    return ranked


def leaderboards(matches: list[Match]) -> list[dict[str, Any]]:
    """The best scores of each mode; Puzzle ranks players by the puzzles they solved."""
    boards = []
    for mode in flow.MODES:
        rows = [_row(m) for m in matches if m.result.get("mode") == mode]
        if mode == "puzzle":
            rows = _puzzle_ranking(rows)
        else:
            rows.sort(key=lambda row: -row.get("score", 0))
        boards.append({"mode": mode, "title": flow.MODE_TITLES[mode], "rows": rows[:TOP]})
    return boards


def puzzle_progress(results: list[dict[str, Any]], count: int) -> dict[str, Any]:
    """A player's puzzles from the results the server recorded: the fewest moves each solved
    puzzle took, and the first puzzle not solved yet (None once every one is)."""
    best: dict[int, int] = {}
    for result in results:
        if result.get("mode") == "puzzle" and result.get("solved"):
            index, moves = result["puzzle"], result["moves"]
            best[index] = min(moves, best.get(index, moves))
    unsolved = [index for index in range(count) if index not in best]
    return {"best": best, "solved": len(best), "next": unsolved[0] if unsolved else None}


def _puzzle_choice(request: HttpRequest, progress: dict[str, Any] | None) -> int:
    """The puzzle the page offers: the one asked for (``?puzzle=N``, 1-based, as the game-over
    panel links to the next), else the player's first unsolved one."""
    asked = request.GET.get("puzzle", "")
    if asked.isdigit() and 1 <= int(asked) <= len(PUZZLES):
        return int(asked) - 1
    if progress and progress["next"] is not None:
        return progress["next"]
    return 0


def _live() -> list[dict[str, Any]]:
    """The games being played now, best score first, for anyone to watch."""
    live = (
        Match.objects.filter(game_key=GAME.key, status=Match.Status.LIVE)
        .prefetch_related("seats__user")
        .order_by("-started_at")[:200]
    )
    rows = []
    for match in live:
        state = match.state or {}
        if "phase" not in state:
            continue
        seat = match.seats.all()[0] if match.seats.all() else None
        player = display_name(seat.user) if seat and seat.user else (seat.bot_level if seat else "")
        rows.append(
            {
                "match": match,
                "player": player,
                "mode": flow.MODE_TITLES[state["mode"]],
                "score": state["score"],
                "moves": state["moves"],
            }
        )
    rows.sort(key=lambda row: -row["score"])
    return rows[:TOP]


def play(request: HttpRequest) -> HttpResponse:
    """The page (GET); its forms start a game (POST)."""
    if request.method == "POST":
        return start(request)
    matches = list(_finished()[:500])
    history = []
    progress = None
    if request.user.is_authenticated:
        mine = _finished().filter(seats__user=request.user)
        history = [_row(m) for m in mine[:20]]
        results = mine.filter(result__mode="puzzle").values_list("result", flat=True)
        progress = puzzle_progress(list(results), len(PUZZLES))
    chosen = _puzzle_choice(request, progress)
    best = progress["best"] if progress else {}
    context = {
        "modes": [(mode, flow.MODE_TITLES[mode], flow.MODE_HELP[mode]) for mode in flow.MODES],
        "puzzles": [
            {"index": index, "title": p.title, "best": best.get(index), "chosen": index == chosen}
            for index, p in enumerate(PUZZLES)
        ],
        "progress": progress,
        "next_puzzle": PUZZLES[progress["next"]]
        if progress and progress["next"] is not None
        else None,
        "live": _live(),
        "leaderboards": leaderboards(matches),
        "history": history,
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
    title = f"{GAME.title} · {flow.MODE_TITLES[settings['mode']]}"
    if settings["mode"] == "puzzle":
        title += f" · puzzle {settings['puzzle'] + 1}"
    match = services.create_match(
        host=request.user, game_key=GAME.key, title=title, settings=settings, roles=[""]
    )
    services.take_seat(match, request.user, match.seats.get().invite_token)
    return redirect(match.get_absolute_url())
