"""A season's rules, pure (standard library and the core's pure contract): its settings, who
may be named Death Match Opponent, what a Token of Life does, who leaves and who wins, and the
places of a main match. Time is always passed in (``now``).

The defaults are The Genius's: a Token of Life's holder cannot be named Death Match Opponent,
and an Elimination Candidate who holds one may spend it to skip the death match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from games.core.game.contract import Setting, clean, defaults
from games.core.game.gamedef import ActionError

# The two-player games a death match is played in (each seats the EC and the DMO).
DEATH_MATCH_GAMES: tuple[tuple[str, str], ...] = (
    ("bejeweled-dm", "Bejeweled death match"),
    ("glittering-paths", "Glittering Paths"),
    ("pointsweeper", "Pointsweeper"),
)
MAIN_MATCH_MIN_PLAYERS = 3

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "nomination_minutes",
        "Nomination clock (minutes)",
        24 * 60,
        low=1,
        high=7 * 24 * 60,
        help="How long the Elimination Candidate has to name a Death Match Opponent; then the "
        "host names one.",
    ),
    Setting(
        "death_match_picker",
        "Who picks the death match's game",
        "host",
        choices=(
            ("host", "the host, with its settings"),
            ("ec", "the Elimination Candidate, from the list below, with its usual settings"),
        ),
    ),
    Setting(
        "death_match_games",
        "Death matches the Elimination Candidate may pick",
        [key for key, _ in DEATH_MATCH_GAMES],
        choices=DEATH_MATCH_GAMES,
    ),
    Setting(
        "token_shields",
        "A Token of Life's holder cannot be named Death Match Opponent",
        True,
    ),
    Setting(
        "token_skips_death_match",
        "An Elimination Candidate may spend a Token of Life to skip the death match",
        True,
        help="No one is eliminated in that episode.",
    ),
    Setting(
        "token_saves_loser",
        "A death match's loser who holds a Token of Life spends it and stays",
        False,
    ),
)


def _check_games(settings: dict[str, Any]) -> dict[str, Any]:
    if settings["death_match_picker"] == "ec" and not settings["death_match_games"]:
        raise ValueError("give the Elimination Candidate at least one death match to pick from")
    return settings


def settled(given: Mapping[str, Any]) -> dict[str, Any]:
    """The season's settings as kept: the defaults with ``given`` over them, each checked;
    ValueError with a reason the host reads."""
    return clean(SETTINGS, given, _check_games)


def default_settings() -> dict[str, Any]:
    return defaults(SETTINGS)


# --- the episode ---------------------------------------------------------------------------------


def check_main_match_size(players_in: int, min_seats: int, max_seats: int, title: str) -> None:
    """A main match seats every player still in: at least three, as many as the game takes."""
    if players_in < MAIN_MATCH_MIN_PLAYERS:
        raise ActionError(
            f"a main match needs at least {MAIN_MATCH_MIN_PLAYERS} players still in; "
            f"{players_in} are",
            code="too_few_players",
        )
    if not min_seats <= players_in <= max_seats:
        raise ActionError(
            f"{title} seats {min_seats}-{max_seats} players and {players_in} are still in",
            code="wrong_size",
        )


def nomination_due(now: datetime, settings: Mapping[str, Any]) -> datetime:
    return now + timedelta(minutes=int(settings["nomination_minutes"]))


def nomination_missed(due: datetime | None, now: datetime) -> bool:
    return due is not None and now >= due


MIN_NOMINATION_LEFT = timedelta(minutes=1)
MAX_NOMINATION_CHANGE = 30 * 24 * 60  # minutes


def moved_nomination_due(due: datetime | None, now: datetime, minutes: Any) -> datetime:
    """The nomination deadline the host moves by ``minutes`` (below 0: sooner). A clock that
    ran out (``due`` None or past) is given ``minutes`` from ``now``. At least a minute stays."""
    if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes == 0:
        raise ActionError("move the clock by a whole number of minutes", code="bad_minutes")
    if abs(minutes) > MAX_NOMINATION_CHANGE:
        raise ActionError("move the clock by at most 30 days", code="bad_minutes")
    ran_out = due is None or nomination_missed(due, now)
    if ran_out and minutes < 0:
        raise ActionError("the clock has run out: give it more time, not less", code="bad_minutes")
    moved = (now if ran_out else due) + timedelta(minutes=minutes)
    if moved - now < MIN_NOMINATION_LEFT:
        raise ActionError(
            "at least a minute must stay on the nomination clock; to name the Death Match "
            "Opponent now, let it run out",
            code="bad_minutes",
        )
    return moved


def time_left(due: datetime, now: datetime) -> str:
    """What a clock has left, in words: "2 h 05 min", "4 min", "run out"."""
    seconds = int((due - now).total_seconds())
    if seconds <= 0:
        return "run out"
    minutes = (seconds + 59) // 60
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes:02d} min"
    return f"{minutes} min"


def eligible_opponents(
    players_in: Sequence[int],
    candidate: int,
    tokens: Mapping[int, int],
    settings: Mapping[str, Any],
) -> list[int]:
    """Who the Elimination Candidate may name: every other player still in, but (with
    ``token_shields``) not a Token of Life's holder, unless every one of them holds one."""
    others = [player for player in players_in if player != candidate]
    if not settings["token_shields"]:
        return others
    unshielded = [player for player in others if tokens.get(player, 0) <= 0]
    return unshielded or others


def check_nominee(
    nominee: int,
    players_in: Sequence[int],
    candidate: int,
    tokens: Mapping[int, int],
    settings: Mapping[str, Any],
) -> None:
    if nominee == candidate:
        raise ActionError("the Elimination Candidate cannot face themselves", code="bad_nominee")
    if nominee not in players_in:
        raise ActionError("name a player who is still in the season", code="bad_nominee")
    if nominee not in eligible_opponents(players_in, candidate, tokens, settings):
        raise ActionError(
            "that player holds a Token of Life and cannot be named Death Match Opponent",
            code="shielded",
        )


def check_death_match_pick(game_key: str, settings: Mapping[str, Any]) -> None:
    """The Elimination Candidate picks only from the season's list."""
    if game_key not in settings["death_match_games"]:
        titles = dict(DEATH_MATCH_GAMES)
        offered = ", ".join(titles.get(key, key) for key in settings["death_match_games"])
        raise ActionError(f"pick one of: {offered}", code="bad_game")


def check_token_skip(tokens_held: int, settings: Mapping[str, Any]) -> None:
    if not settings["token_skips_death_match"]:
        raise ActionError(
            "in this season a Token of Life does not skip the death match", code="not_allowed"
        )
    if tokens_held <= 0:
        raise ActionError("you hold no Token of Life to spend", code="no_token")


def loser_is_saved(tokens_held: int, settings: Mapping[str, Any]) -> bool:
    """Does a rule of the season keep the death match's loser in (spending a token)?"""
    return bool(settings["token_saves_loser"]) and tokens_held > 0


def season_winner(players_in: Sequence[int]) -> int | None:
    """The last player still in wins the season."""
    return players_in[0] if len(players_in) == 1 else None


class Placing(NamedTuple):
    """One seat's place in a main match. ``shared``: another seat has the same place;
    ``by_host``: the host decided this seat's standing (a winner named over an equal or higher
    total, or the Elimination Candidate named among equal lowest totals)."""

    seat: int
    place: int
    total: int
    shared: bool = False
    by_host: bool = False


def placings(
    totals: Mapping[str, int],
    winner: int | None = None,
    candidate: int | None = None,
    places: Mapping[str, int] | None = None,
) -> list[Placing]:
    """A main match's places, best first: the game's own ``places`` when its result gives them
    (a race ranks by more than points), else by total with the winner (whom the host may have
    named) first; seats that nothing tells apart share a place (1, 2, 2, 4), and an
    Elimination Candidate the host named among equal totals keeps the shared place (listed
    last in it), as the races show it."""
    scores = {int(seat): total for seat, total in totals.items()}

    def rank(seat: int) -> tuple[int, int]:
        return (0 if seat == winner else 1, -scores[seat])

    ordered = sorted(scores, key=lambda seat: (rank(seat), seat == candidate, seat))
    placed: dict[int, int] = {}
    for position, seat in enumerate(ordered, start=1):
        previous = ordered[position - 2] if position > 1 else None
        same = previous is not None and rank(previous) == rank(seat)
        placed[seat] = placed[previous] if same and previous is not None else position
    if places:
        placed = {seat: int(places.get(str(seat), placed[seat])) for seat in scores}
        ordered = sorted(scores, key=lambda seat: (placed[seat], seat == candidate, seat))
    rows = []
    for seat in ordered:
        shared = sum(1 for other in ordered if placed[other] == placed[seat]) > 1
        others = [total for other, total in scores.items() if other != seat]
        named_winner = seat == winner and any(total >= scores[seat] for total in others)
        rows.append(
            Placing(
                seat,
                placed[seat],
                scores[seat],
                shared,
                named_winner or (seat == candidate and shared),
            )
        )
    return rows


def ordinal(number: int) -> str:
    if 10 <= number % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"
