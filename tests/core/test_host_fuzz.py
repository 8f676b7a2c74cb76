"""Every registered game (tests/registered.py) under a host who starts, pauses, changes clocks,
ends rounds, awards, settles, corrects, replaces seats (by a bot, and by a substitute who takes
the new invite) and aborts at random moments, through the console's own path
(games.core.host.console offers, games.core.host.hosting runs), between player moves (chosen by each
game's bot on the seat's own view) and clock firings, on a fake clock. After every step: no
traceback, versions without gaps, a live match that waits for someone (a running clock or a move a
player can make), no remaining time changed by a pause, no negative balance, and public standings
that are the sum of what ended matches and the host's adjustments wrote. Across a game's runs, every
operation the console offered for it succeeded at least once, and so did both ways to replace a seat
and the abort: a host refused every time is a failure, not a quiet pass."""

from __future__ import annotations

import contextlib
import json
import random
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db.models import Sum

from games.core.game.gamedef import ActionError, Viewer, state_deadlines
from games.core.game.registry import get_game
from games.core.host import console, hosting
from games.core.match import deadlines, ledger, seating, services
from games.core.models import Deadline, LedgerEntry, Match, Season
from tests.registered import real_games, seat_roles

pytestmark = pytest.mark.django_db

# Each game's match is played from its fewest seats (the cheapest), RUNS times: the first starts
# by the host's hand (no auto_start). While an award or an abort is still to be done for the
# game, a run is ended early by it; the last runs STEPS steps. A run still going at its end is
# ended by the host, so that the operations on a finished match (settle, correct) are offered.
RUNS = 3
STEPS = 40
AFTER_THE_END = 4  # the host's tries on a finished match, while it offers what is not yet done
ENDINGS = ("abort", "award")  # the order in which the host ends runs early
MAY_END = (*ENDINGS, "end_round")  # the end of a race's one round ends it: late in a run only
# The order in which the host does what is not yet done for the game: a resume before the next
# pause, a settle before a correction takes it off the console, a round's end last.
WANTED = (
    "start",
    "resume",
    "pause",
    "clock",
    "replace by bot",
    "replace by invite",
    "settle",
    "correct",
    "end_round",
)


def wanted_order(name: str) -> tuple[int, str]:
    return (WANTED.index(name) if name in WANTED else len(WANTED), name)


ALWAYS = {"abort", "replace by bot", "replace by invite"}  # must succeed for every game


def fresh(match: Match) -> Match:
    return Match.objects.with_seats().get(pk=match.pk)


def anchored_times(match: Match) -> dict[str, datetime]:
    """Every clock of the state and every time a clock is measured from, by name."""
    times = {f"clock:{key}": due for key, due in state_deadlines(match.state).items()}
    for paths in match.game.clock_anchors.values():
        for path in paths:
            holder = match.state
            for part in path.split("."):
                holder = holder.get(part) if isinstance(holder, dict) else None
            if isinstance(holder, str):
                times[path] = datetime.fromisoformat(holder)
    return times


def offsets(match: Match, at: datetime) -> dict[str, timedelta]:
    return {name: when - at for name, when in anchored_times(match).items()}


def waits_for_someone(match: Match, now: datetime) -> bool:
    """A live match has a running clock, or a seat that can move (its bot, looking an hour
    ahead so that no bot waits for pacing, finds a move)."""
    if Deadline.objects.filter(match=match, fired_at=None, cancelled=False).exists():
        return True
    game = match.game
    later = now + timedelta(hours=1)
    for seat in match.seats.all():
        view = game.view(match.state, Viewer(seat=seat.index))
        if game.bot_action(view, seat.index, game.bot_levels[0], later) is not None:
            return True
    return False


def check_ledger(season: Season) -> None:
    entries = LedgerEntry.objects.filter(season=season)
    for row in entries.values("user").annotate(g=Sum("garnets"), t=Sum("tokens_of_life")):
        assert row["g"] >= 0 and row["t"] >= 0, row
    ended = [Match.Status.FINISHED, Match.Status.ABORTED]
    public = entries.filter(match=None) | entries.filter(match__status__in=ended)
    expected = {
        row["user"]: (row["g"] or 0, row["t"] or 0)
        for row in public.values("user").annotate(g=Sum("garnets"), t=Sum("tokens_of_life"))
    }
    shown = {row["user_id"]: (row["garnets"], row["tokens_of_life"]) for row in season.standings()}
    assert shown == expected


class Host:
    """The host's random operations through the console's own path (games.core.host.hosting). An
    operation offered that has not yet succeeded for the game is chosen half the time."""

    def __init__(self, user: Any, rng: random.Random, make_user: Any) -> None:
        self.user, self.rng, self.make_user = user, rng, make_user
        self.offered: set[str] = set()  # every operation the console offered, by variant
        self.succeeded: set[str] = set()
        self.refused: dict[str, str] = {}  # the last refusal of each operation, for a failure
        self.substitutes = 0

    def variants(self, match: Match, name: str) -> list[str]:
        if name != "replace":
            return [name]
        return ["replace by bot", "replace by invite"] if match.game.bot_levels else [name]

    def act(self, match: Match, season: Season, clock, *, may_end: bool, mode: str = "any") -> str:
        """One operation the console offers now, its name (or why none was run): any one
        (one that may end the match only when ``may_end``), the first not yet done for the
        game in the order of WANTED (``mode="wanted"``: never an award or an abort), or one
        that ends the match, one not yet done first (``mode="ending"``)."""
        offer = console.for_match(match, clock.current)
        offered = {v for name in offer["offered"] for v in self.variants(match, name)}
        self.offered |= offered
        if mode == "ending":
            choices = sorted(offered & set(ENDINGS))
        else:
            choices = sorted(offered if may_end else offered - set(MAY_END))
        wanted = [name for name in choices if name not in self.succeeded]
        if mode == "wanted":
            wanted = sorted(set(wanted) - set(ENDINGS), key=wanted_order)
            choices = wanted[:1]
        if not choices:
            return "nothing"
        if mode == "ending":
            name = next((name for name in ENDINGS if name in wanted), choices[0])
        elif mode == "wanted":
            name = choices[0]
        else:
            name = self.rng.choice(wanted if wanted and self.rng.random() < 0.5 else choices)
        form: dict[str, str] = {"reason": f"fuzz {name}"}
        if name == "clock":
            form["clock"] = self.rng.choice(offer["clocks"])["key"]
            form["minutes"] = str(self.rng.choice([-3, -1, 1, 2, 10]))
        if name in {"award", "settle"}:
            form["award"] = self.rng.choice(offer["awards"])["value"]
        if name == "correct":
            form["award"] = self.rng.choice(offer["corrections"])["value"]
        if name.startswith("replace"):
            form["seat"] = str(self.rng.choice(offer["seats"])["index"])
            by_bot = name == "replace by bot"
            # The first (quickest) level: an expert death-match bot's search took minutes here.
            form["by"] = offer["bot_levels"][0] if by_bot else "invite"
        before = offsets(match, match.paused_at) if match.status == Match.Status.PAUSED else None
        try:
            hosting.run(match, self.user, name.split()[0], form)
        except ActionError as refusal:
            self.refused[name] = f"{refusal.code}: {refusal.message}"
            return f"{name} refused"
        self.succeeded.add(name)
        after = fresh(match)
        if name == "replace by invite":
            self.substitute(after, season, int(form["seat"]))
        if name == "resume":
            assert offsets(after, clock.current) == before, "a pause changed a remaining time"
        if name == "clock" and before is not None:
            moved = timedelta(minutes=int(form["minutes"]))
            expected = {
                key: (left + moved if key == f"clock:{form['clock']}" else left)
                for key, left in before.items()
            }
            changed = offsets(after, after.paused_at)
            assert {k: v for k, v in changed.items() if k.startswith("clock:")} == {
                k: v for k, v in expected.items() if k.startswith("clock:")
            }
        return name

    def substitute(self, match: Match, season: Season, index: int) -> None:
        """A new player takes the freed seat by its new invite, with garnets to play."""
        self.substitutes += 1
        player = self.make_user(f"substitute{self.substitutes}")
        ledger.adjust(player, season, 6, 0, "starting garnets", self.user)
        seat = next(seat for seat in match.seats.all() if seat.index == index)
        seating.take_seat(match, player, seat.invite_token)


def play_one_move(match: Match, rng: random.Random, now: datetime) -> bool:
    """The first seat, in a random order, whose player (the game's bot on the seat's view: a
    seated bot at its own level) has a move sends it, as its user or as the bot seat; a refusal
    is fine (the state moved on), a traceback is not."""
    game = match.game
    seats = list(match.seats.all())
    for seat in rng.sample(seats, len(seats)):
        if seat.user is None and not seat.bot_level:
            continue  # a freed seat no one has taken yet
        view = game.view(match.state, Viewer(seat=seat.index))
        level = seat.bot_level or game.bot_levels[0]
        # A bot paces itself like a person; looking a minute ahead it moves at once.
        action = game.bot_action(view, seat.index, level, now + timedelta(minutes=1))
        if action is None:
            continue
        action = json.loads(json.dumps(action))
        with contextlib.suppress(ActionError):
            if seat.bot_level:
                services.submit_bot_action(match, seat.index, action, match.version)
            else:
                services.submit_action(match, seat.user, action, expected_version=match.version)
            return True
        return False
    return False


def check_step(match: Match, season: Season, clock) -> Match:
    """The invariants after every step; the match as it is now."""
    match = fresh(match)
    versions = list(match.events.order_by("version").values_list("version", flat=True))
    assert versions == list(range(1, match.version + 1))
    if match.status == Match.Status.LIVE:
        assert waits_for_someone(match, clock.current), f"{match.game_key} is stuck"
    check_ledger(season)
    return match


def one_run(clock, make_user, host: Any, operator: Host, game_key: str, run: int) -> int:
    """One match of ``game_key`` under the fuzzing host; the moves its players made."""
    rng = operator.rng
    game = get_game(game_key)
    Season.objects.update(is_current=False)  # each run's ledger in a season of its own
    season = Season.objects.create(name=f"Fuzz {run}", is_current=True)
    players = [make_user(f"run{run}-player{i}") for i in range(game.min_seats)]
    for player in players:
        ledger.adjust(player, season, 6, 0, "starting garnets", host)
    settings = {"auto_start": False} if run == 0 else {}
    match = seating.create_match(
        host=host,
        game_key=game_key,
        title="Fuzz",
        settings=settings,
        roles=seat_roles(game, game.min_seats),
    )
    for player, seat in zip(players, match.seats.order_by("index"), strict=True):
        seating.take_seat(match, player, seat.invite_token)
    moves = 0
    # While an ending is still to be done for the game, the host ends this run early with it
    # (early: a race, say, soon ends by itself).
    end_at = STEPS
    if not set(ENDINGS) <= operator.succeeded:
        end_at = rng.randrange(1, 5)
    for step in range(end_at):
        match = fresh(match)
        if match.is_over:
            break
        roll = rng.random()
        if roll < 0.5 and match.status == Match.Status.LIVE:
            moves += play_one_move(match, rng, clock.current)
        elif roll < 0.8 and match.status != Match.Status.OPEN:
            clock.advance(rng.choice([1, 5, 20, 45, 90]))
            deadlines.fire_due_deadlines()
        else:
            operator.act(match, season, clock, may_end=step > STEPS * 2 // 3)
        match = check_step(match, season, clock)
    if not match.is_over:
        # What is offered and not yet done for the game (a resume, say), then the ending.
        for _ in console.OPERATIONS:
            if operator.act(match, season, clock, may_end=True, mode="wanted") == "nothing":
                break
            match = check_step(match, season, clock)
        for _ in range(3):
            if match.is_over:
                break
            operator.act(match, season, clock, may_end=True, mode="ending")
            match = check_step(match, season, clock)
        assert match.is_over, f"{game_key}: the host could not end the match"
    for _ in range(AFTER_THE_END):  # a finished match's settle and correct, until done
        if operator.act(match, season, clock, may_end=True, mode="wanted") == "nothing":
            break
        match = check_step(match, season, clock)
    return moves


@pytest.mark.parametrize("game_key", real_games())
def test_host_operations_never_break_a_match_and_each_succeeds(clock, make_user, game_key):
    host = make_user("hostess", is_staff=True)
    operator = Host(host, random.Random(game_key), make_user)
    moves = sum(one_run(clock, make_user, host, operator, game_key, run) for run in range(RUNS))
    assert moves, f"{game_key}: no player ever moved"
    missing = (operator.offered | ALWAYS) - operator.succeeded
    refused = {name: operator.refused.get(name) for name in sorted(missing)}
    assert not missing, f"{game_key}: offered but never done (last refusal): {refused}"
