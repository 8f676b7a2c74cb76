"""A match made and its seats taken: by invite, by a bot, by a substitute; the start.

A player takes a seat by its invite link (with the seed their page gives the draws); a bot is
seated before the start; the last seat taken starts the match unless the host starts it.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

from django.db import transaction

from games.core.game import fairness
from games.core.game.gamedef import ActionError, Outcome
from games.core.match import clock, services
from games.core.match.replaying import Move, play
from games.core.models import Match, Season, Seat, display_name


def create_match(
    *, host: Any, game_key: str, title: str, settings: dict[str, Any], roles: list[str]
) -> Match:
    from games.core.game.registry import get_game

    game = get_game(game_key)
    cleaned = game.clean_settings(settings)
    if not game.min_seats <= len(roles) <= game.max_seats:
        raise ValueError(f"{game.title} takes {game.min_seats}-{game.max_seats} seats")
    with transaction.atomic():
        match = Match.objects.create(
            game_key=game_key,
            title=title or game.title,
            host=host,
            settings=cleaned,
            season=Season.current(),
        )
        for index, role in enumerate(roles):
            Seat.objects.create(match=match, index=index, role=role)
    return match


def take_seat(match: Match, user: Any, invite_token: str, player_seed: Any = "") -> Seat:
    """Seat ``user`` by the seat's invite. ``player_seed``: what the player's page contributes
    to the match's draws (games/core/game/fairness.py), kept only before the start."""
    with transaction.atomic():
        locked = services.lock(match.pk)
        seat = next((s for s in locked.seats.all() if s.invite_token == invite_token), None)
        if seat is None:
            raise ActionError("this invite link is not valid for this match", code="bad_invite")
        mine = locked.seat_of(user)
        if mine is not None:
            if mine.pk == seat.pk:
                return seat
            raise ActionError("you already hold another seat in this match", code="already_seated")
        if seat.is_taken:
            raise ActionError("this seat is already taken", code="seat_taken")
        if locked.status not in {Match.Status.OPEN, *services.RUNNING}:
            raise ActionError("this match is no longer taking players", code="not_open")
        seat.user = user
        seat.joined_at = clock.now()
        seat.save()
        if locked.status == Match.Status.OPEN and player_seed:
            _keep_player_seed(locked, seat.index, player_seed)
        _seat_taken(locked, seat, display_name(user))
        return seat


def _keep_player_seed(match: Match, seat: int, player_seed: Any) -> None:
    try:
        cleaned = fairness.clean_player_seed(player_seed)
    except ValueError as error:
        raise ActionError(str(error), code="bad_player_seed") from None
    # Written with the event that tells of it (the seat taken, the seed given).
    match.fairness = fairness.with_player_seed(match.fairness, seat, cleaned)


def give_player_seed(match: Match, user: Any, player_seed: Any) -> None:
    """Keep the seed the page of ``user``'s seat contributes to the draws (the page of a seat
    taken without its page, as a season's host seats its players): before the start only, and
    once (a seed already given stands)."""
    with transaction.atomic():
        locked = services.lock(match.pk)
        seat = locked.seat_of(user)
        if seat is None:
            raise ActionError("you do not hold a seat in this match", code="not_seated")
        if locked.status != Match.Status.OPEN:
            raise ActionError("the match has started: its seeds are set", code="not_open")
        if str(seat.index) in locked.fairness.get("players", {}):
            return
        _keep_player_seed(locked, seat.index, player_seed)
        now = clock.now()
        given = locked.fairness["players"][str(seat.index)]
        public = {"seat": seat.index, "name": seat.player_name, "player_seed": given}
        outcome = Outcome(state=locked.state, kind="player_seed", public=public)
        services.append(locked, outcome, Move("keep", now), now=now)


def seat_bot(match: Match, seat_index: int, level: str) -> Seat:
    with transaction.atomic():
        locked = services.lock(match.pk)
        if locked.status != Match.Status.OPEN:
            raise ActionError("this match is no longer taking players", code="not_open")
        seat = next((s for s in locked.seats.all() if s.index == seat_index), None)
        if seat is None:
            raise ActionError(f"there is no seat {seat_index + 1}", code="no_such_seat")
        if seat.is_taken:
            raise ActionError("this seat is already taken", code="seat_taken")
        seat.bot_level = level
        seat.save()
        _seat_taken(locked, seat, seat.player_name)
        return seat


def seating_move(match: Match, seat: Seat, name: str, now: datetime) -> Move:
    """The move of ``seat`` taken by ``name``: in a running match the game names its new
    occupant (a substitute, a bot the host seated), who plays on as themselves; before the
    start the game has no seats yet to name."""
    if match.status == Match.Status.OPEN or not match.state:
        return Move("keep", now)
    inputs = {"seat": seat.index, "name": name, "is_bot": bool(seat.bot_level)}
    return Move("seated", now, inputs=inputs)


def _seat_taken(match: Match, seat: Seat, name: str) -> None:
    """Log the seat as taken; with auto_start, the last seat taken starts the match."""
    public = {"seat": seat.index, "name": name}
    if match.status != Match.Status.OPEN:
        public["substitute"] = True  # the host freed this seat of a running match
    now = clock.now()
    move = seating_move(match, seat, name, now)
    outcome = play(match.game, match.state, move)
    outcome.kind, outcome.public = "seat_taken", public
    services.append(match, outcome, move, now=now)
    if match.status != Match.Status.OPEN:
        return
    if match.settings.get("auto_start", True) and all(s.is_taken for s in match.seats.all()):
        start(match, actor=None)


def match_seed(match: Match) -> int | str:
    """What the match's draws come from (games/core/game/fairness.py): its server seed, its id and
    every seat's seed (the empty seed for a seat whose page gave none), as the flow keeps it; a
    match made before server seeds, its number."""
    if not match.server_seed:
        return match.seed
    seats = [seat.index for seat in match.seats.all()]
    players = fairness.players_text(match.fairness.get("players", {}), seats)
    return fairness.match_seed(match.server_seed, match.public_id, players)


def start(match: Match, actor: Any) -> None:
    """Start the match: the game's start, given the settings, the seats and the seed."""
    now = clock.now()
    seats = [asdict(seat) for seat in match.seat_infos()]
    inputs = {"settings": match.settings, "seats": seats, "seed": match_seed(match)}
    move = Move("start", now, inputs=inputs)
    outcome = play(match.game, match.state, move)
    match.status = Match.Status.LIVE
    match.started_at = now
    services.append(match, outcome, move, actor=actor, now=now)
