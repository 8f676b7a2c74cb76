"""Bejeweled 2's standings as database queries: each mode's high scores, the puzzle ranking, a
player's puzzle progress and the games being played now.

Finished games are read from the results the server recorded when they ended (``Match.result``,
which every page may show); the high scores use the index of finished matches by result mode and
score (games/core/models.py). A live game is shown only through ``view_of``, as a spectator sees
it.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import BigIntegerField, F, IntegerField, Max, Min, Q, QuerySet, Window
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, RowNumber

from games.bejeweled2 import modes
from games.bejeweled2.puzzles import PUZZLES, WORLD_SIZE
from games.core.game.gamedef import Viewer
from games.core.models import Match, display_name
from games.core.render.rendering import view_of

GAME_KEY = "bejeweled-2"
TOP = 10
SCORE = Cast(KT("result__score"), BigIntegerField())
MOVES = Cast(KT("result__moves"), IntegerField())
PUZZLE = Cast(KT("result__puzzle"), IntegerField())
LEVEL = Cast(KT("result__level"), IntegerField())
HINTS = Cast(KT("result__hints"), IntegerField())


def finished() -> QuerySet[Match]:
    """Every finished Bejeweled 2 game with a recorded result, newest first."""
    return (
        Match.objects.filter(game_key=GAME_KEY, status=Match.Status.FINISHED)
        .exclude(result=None)
        .order_by("-finished_at")
    )


def of_mode(matches: QuerySet[Match], mode: str) -> QuerySet[Match]:
    return matches.filter(result__mode=mode)


def solved_puzzles(matches: QuerySet[Match]) -> QuerySet[Match]:
    """The puzzles solved by the player alone: a solve after "Show the solution" is assisted and
    counts nowhere (not in progress, worlds, Cognito's opening or the ranking)."""
    unassisted = Q(result__assisted=False) | Q(result__assisted__isnull=True)
    return of_mode(matches, "puzzle").filter(unassisted, result__solved=True)


PERIODS = {"today": "Today", "week": "This week", "all": "All time"}
"""The high-score tables' periods: since midnight (UTC), since Monday, and ever."""


def period_start(period: str, now: datetime) -> datetime | None:
    """When ``period`` began at ``now`` (None for all time)."""
    if period not in PERIODS:
        raise ValueError(f"the period is one of {', '.join(PERIODS)}")
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "today":
        return midnight
    if period == "week":
        return midnight - timedelta(days=midnight.weekday())
    return None


def in_period(matches: QuerySet[Match], since: datetime | None) -> QuerySet[Match]:
    return matches if since is None else matches.filter(finished_at__gte=since)


def player_of(match: Match) -> str:
    """Who played a game: the seated player's name, or the bot's level."""
    seat = next(iter(match.seats.all()), None)
    if seat is None:
        return ""
    return display_name(seat.user) if seat.user else seat.bot_level


def result_row(match: Match) -> dict[str, Any]:
    return {"match": match, "player": player_of(match), **match.result}


def high_scores(mode: str, since: datetime | None = None) -> list[dict[str, Any]]:
    """A mode's best recorded scores since ``since`` (ever when None), best first (the newest
    first among equals). Each row carries the result's hints and how the game ended."""
    best = (
        of_mode(in_period(finished(), since), mode)
        .alias(score=SCORE)
        .order_by("-score", "-finished_at")
        .with_seats()[:TOP]
    )
    return [result_row(match) for match in best]


def _ranked_solvers(since: datetime | None) -> list[tuple[int | None, str, int, int, int]]:
    """(user id, bot level, puzzles solved, moves, hints) of the best puzzle solvers: most
    puzzles first, then fewest moves (each puzzle counted once, at its fewest), then the latest
    solve. Hints: each counted puzzle's fewest hints asked in a solve, summed.
    Two groupings (per player and puzzle, then per player), so the outer one is SQL around the
    ORM's inner query."""
    per_puzzle = (
        solved_puzzles(in_period(finished(), since))
        .order_by()
        .values(solver=F("seats__user"), bot=F("seats__bot_level"), puzzle=PUZZLE)
        .annotate(fewest=Min(MOVES), hints=Min(HINTS), latest=Max("finished_at"))
    )
    inner, params = per_puzzle.query.sql_with_params()
    solver, bot, fewest, hints, latest = map(
        connection.ops.quote_name, ("solver", "bot", "fewest", "hints", "latest")
    )
    sql = (
        f"SELECT {solver}, {bot}, COUNT(*) AS puzzles, SUM({fewest}) AS moves, "
        f"COALESCE(SUM({hints}), 0) AS hints "
        f"FROM ({inner}) per_puzzle GROUP BY {solver}, {bot} "
        f"ORDER BY puzzles DESC, moves ASC, MAX({latest}) DESC LIMIT %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, TOP])
        return [
            (row[0], row[1], int(row[2]), int(row[3]), int(row[4])) for row in cursor.fetchall()
        ]


def _latest_solves(
    solvers: list[tuple[int | None, str]], since: datetime | None
) -> dict[tuple[int | None, str], Match]:
    """Each of these solvers' latest solved puzzle, by (user id, bot level), in one query."""
    users = [user for user, _ in solvers if user is not None]
    bots = [bot for user, bot in solvers if user is None]
    theirs = solved_puzzles(in_period(finished(), since)).filter(
        Q(seats__user__in=users) | Q(seats__user=None, seats__bot_level__in=bots)
    )
    newest = theirs.annotate(
        newest=Window(
            RowNumber(),
            partition_by=[F("seats__user"), F("seats__bot_level")],
            order_by=[F("finished_at").desc(), F("pk").desc()],
        )
    ).filter(newest=1)
    found = {}
    for match in newest.with_seats():
        seat = match.seats.all()[0]
        found[(seat.user_id, seat.bot_level)] = match
    return found


def puzzle_ranking(since: datetime | None = None) -> list[dict[str, Any]]:
    """One row per player: how many puzzles they solved (each once, unassisted), in how many
    moves and with how many hints at best, most puzzles first, then fewest moves; each row
    links to their latest solve."""
    ranked = _ranked_solvers(since)
    latest = _latest_solves([(user, bot) for user, bot, *_ in ranked], since)
    rows = []
    for user, bot, puzzles, moves, hints in ranked:
        match = latest.get((user, bot))
        if match is None:  # finished or changed since the ranking was read
            continue
        rows.append(
            {
                "match": match,
                "player": player_of(match),
                "puzzles": puzzles,
                "moves": moves,
                "hints": hints,
            }
        )
    return rows


def leaderboards(since: datetime | None = None) -> list[dict[str, Any]]:
    """The best scores of each mode since ``since`` (ever when None); Puzzle ranks players by
    the puzzles they solved."""
    return [
        {
            "mode": mode,
            "title": modes.MODE_TITLES[mode],
            "rows": puzzle_ranking(since) if mode == "puzzle" else high_scores(mode, since),
        }
        for mode in modes.MODES
    ]


def puzzle_bests(user: Any) -> dict[int, int]:
    """The fewest moves in which ``user`` solved each puzzle they solved."""
    solved = solved_puzzles(finished()).filter(seats__user=user).order_by()
    rows = solved.values(puzzle=PUZZLE).annotate(fewest=Min(MOVES))
    return {row["puzzle"]: row["fewest"] for row in rows}


OPENS_NEXT_WORLD = 4
"""Solving 4 of a world's 5 puzzles opens the next world."""


def open_worlds(best: dict[int, int], count: int = len(PUZZLES)) -> int:
    """How many worlds are open: the first always; each next one once ``OPENS_NEXT_WORLD`` of
    the world before it are solved."""
    worlds = -(-count // WORLD_SIZE)
    opened = 1
    while opened < worlds:
        first = (opened - 1) * WORLD_SIZE
        solved = sum(1 for index in range(first, first + WORLD_SIZE) if index in best)
        if solved < OPENS_NEXT_WORLD:
            break
        opened += 1
    return opened


def puzzle_progress(best: dict[int, int], count: int) -> dict[str, Any]:
    """A player's puzzles: the fewest moves each solved puzzle took, how many are solved, the
    worlds open, and the first puzzle of an open world not solved yet (None when there is none)."""
    worlds = open_worlds(best, count)
    playable = min(count, worlds * WORLD_SIZE)
    unsolved = [index for index in range(playable) if index not in best]
    return {
        "best": best,
        "solved": len(best),
        "worlds": worlds,
        "playable": playable,
        "next": unsolved[0] if unsolved else None,
    }


def open_modes(user: Any) -> list[str]:
    """The modes ``user`` may start alone: the four of the original's menu, and each hidden mode
    their recorded results have opened (``modes.UNLOCKS``: a level reached in a mode, or every
    puzzle solved). A host may still open any mode for a match of their own making."""
    opened = [key for key, mode in modes.MODES.items() if not mode.hidden]
    if not user.is_authenticated:
        return opened
    theirs = finished().filter(seats__user=user)
    for hidden, (mode, reach) in modes.UNLOCKS.items():
        if mode == "puzzle":
            reached = len(puzzle_bests(user)) >= reach
        else:
            reached = of_mode(theirs, mode).alias(level=LEVEL).filter(level__gte=reach).exists()
        if reached:
            opened.append(hidden)
    return opened


def history(user: Any) -> list[dict[str, Any]]:
    """The player's 20 latest finished games."""
    return [result_row(match) for match in finished().filter(seats__user=user).with_seats()[:20]]


def live_games() -> list[dict[str, Any]]:
    """The games being played now, best score first, as a spectator sees each. (A solo game
    hides nothing: the order is by the score every viewer's view shows.)"""
    live = (
        Match.objects.filter(game_key=GAME_KEY, status=Match.Status.LIVE)
        .alias(score=Cast(KT("state__score"), BigIntegerField()))
        .order_by(F("score").desc(nulls_last=True), "-started_at")
        .with_seats()[:TOP]
    )
    rows = []
    for match in live:
        shown = view_of(match, Viewer.spectator(), drafts=False)["game"]
        if not shown:
            continue  # not started yet
        rows.append(
            {
                "match": match,
                "player": player_of(match),
                "mode": shown["mode_title"],
                "score": shown["score"],
                "moves": shown["moves"],
            }
        )
    return rows
