"""Who may run a match: the one rule every host page, host operation, export and dashboard view
asks (``may_run``), and who each user is in a match (``viewer_for``: a seat, the host's view or
a spectator), which every page, frame, replay and export is drawn for.

A match is run by its host, by the hosts and co-hosts of its season, and by superusers; by no
one else, staff or not. Whoever holds one of its seats sees it only as that seat, everywhere,
and runs nothing in it, not even a match they host or a season they co-host: their seat is the
only view they get of it. There is no exception for a game played alone (a solo Bejeweled 2
game, whose host holds its one seat): a pause would stop its Action bar at will and an award or
a correction would write its score, and its scores go to the public high-score tables. The
player ends their own game with the game's "End game". Before a match starts, its host may
still fill it from one of its seats (``may_seat``: the invite links, a bot in an open seat).

The seasons app says who hosts a season (``tell_seasons_hosted``): the core does not import the
apps built on it; the seasons app tells it once, when it loads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.db.models import Q, QuerySet

from games.core.game.gamedef import Viewer

# games.core.models.Match, which imports this module: named here only for the reader (the
# core's import graph has no cycle, type-checking blocks included: tests/core/test_imports.py).
Match = Any

SeasonsHosted = Callable[[Any], set[int]]


def _no_seasons(user: Any) -> set[int]:
    return set()


_seasons_hosted: list[SeasonsHosted] = [_no_seasons]


def tell_seasons_hosted(rule: SeasonsHosted) -> None:
    """How to find the seasons ``user`` hosts or co-hosts (their keys): set once by the seasons
    app when it loads."""
    _seasons_hosted[0] = rule


def seasons_hosted(user: Any) -> set[int]:
    """The keys of the seasons ``user`` hosts or co-hosts (none for a signed-out user)."""
    return _seasons_hosted[0](user) if _signed_in(user) else set()


def _signed_in(user: Any) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False))


def holds_a_seat(match: Match, user: Any) -> bool:
    return match.seat_of(user) is not None


def may_run(match: Match, user: Any) -> bool:
    """Whether ``user`` may run ``match`` (its host operations, host pages, the host's view of
    its board in the dashboard): its host, its season's hosts, a superuser; never a player
    holding one of its seats."""
    if not _signed_in(user) or holds_a_seat(match, user):
        return False
    if user.is_superuser or user.pk == match.host_id:
        return True
    return match.season_id is not None and match.season_id in seasons_hosted(user)


def may_seat(match: Match, user: Any) -> bool:
    """Whether ``user`` may fill ``match``'s open seats (read their invite links, seat a bot):
    whoever may run it, and its host even from one of its seats while it has not started
    (before the start there is nothing secret to see and nothing to decide, and a host who
    plays must still invite the others)."""
    if may_run(match, user):
        return True
    return match.status == match.Status.OPEN and _signed_in(user) and user.pk == match.host_id


def runnable(matches: QuerySet[Match], user: Any) -> QuerySet[Match]:
    """``matches`` narrowed to those ``user`` may run (``may_run`` as a query: the dashboard's
    lists)."""
    if not _signed_in(user):
        return matches.none()
    if not user.is_superuser:
        matches = matches.filter(Q(host=user) | Q(season__in=seasons_hosted(user)))
    return matches.exclude(seats__user=user)


def viewer_for(match: Match, user: Any) -> Viewer:
    """Who ``user`` is in ``match``: the seat they hold, else the host's view if they may run
    it, else a spectator. Decided from the match's seats as read with it."""
    seat = match.seat_of(user)
    if seat is not None:
        return Viewer(seat=seat.index)
    return Viewer(is_host=may_run(match, user))


def seat_holders(match: Match) -> tuple[int | None, ...]:
    """The user holding each seat, by seat index (None: a bot or an open seat): what a frame
    tells each connection, so that one whose user no longer holds the seat it was opened for
    (or has taken one since) is decided again before it sends the frame."""
    seats = sorted(match.seats.all(), key=lambda seat: seat.index)
    return tuple(seat.user_id for seat in seats)


def still_right(viewer: Viewer, user_pk: int | None, holders: Sequence[int | None]) -> bool:
    """Whether a connection of ``user_pk`` drawn for ``viewer`` is still right, given who holds
    each seat now: a seat's connection while its user holds that seat, any other while its user
    holds none."""
    if viewer.seat is None:
        return user_pk is None or user_pk not in holders
    return user_pk is not None and viewer.seat < len(holders) and holders[viewer.seat] == user_pk
