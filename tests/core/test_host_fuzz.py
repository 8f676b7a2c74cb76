"""Every game under a host who pauses, changes clocks, ends rounds, awards and corrects at random
moments, between player moves (chosen by each game's bot on the seat's own view) and clock
firings, on a fake clock. After every step: no traceback, versions without gaps, a live match
that waits for someone (a running clock or a move a player can make), no remaining time changed
by a pause, no negative balance, and public standings that are the sum of what ended matches
and the host's adjustments wrote."""

from __future__ import annotations

import contextlib
import json
import random
from datetime import datetime, timedelta

import pytest
from django.db.models import Sum

from games.core import console, hosting, ledger, services
from games.core.gamedef import ActionError, Viewer, state_deadlines
from games.core.models import Deadline, LedgerEntry, Match, Season

pytestmark = pytest.mark.django_db

GAMES = [
    ("bejeweled-dm", 2),
    ("bejeweled-2", 1),
    ("glittering-paths", 2),
    ("pointsweeper", 2),
    ("seven-gem-swap", 3),
]
STEPS = 60


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
    """The host's random operations through the console's own path (games.core.hosting)."""

    def __init__(self, match: Match, user, rng: random.Random) -> None:
        self.match, self.user, self.rng = match, user, rng
        self.done: list[str] = []

    def act(self, clock, may_end: bool) -> str:
        match = fresh(self.match)
        offer = console.for_match(match, clock.current)
        offered = sorted(offer["offered"] - {"start", "replace", "abort"})
        if not offered:
            return "nothing"
        name = self.rng.choice(offered)
        form: dict[str, str] = {"reason": f"fuzz {name}"}
        if name == "clock":
            form["clock"] = self.rng.choice(offer["clocks"])["key"]
            form["minutes"] = str(self.rng.choice([-3, -1, 1, 2, 10]))
        if name in {"award", "settle"}:
            if name == "award" and not may_end:
                return "held back"  # an award ends the match: late in the run only
            form["award"] = self.rng.choice(offer["awards"])["value"]
        if name == "correct":
            form["award"] = self.rng.choice(offer["corrections"])["value"]
        before = offsets(match, match.paused_at) if match.status == Match.Status.PAUSED else None
        try:
            hosting.run(match, self.user, name, form)
        except ActionError:
            self.done.append(f"{name} refused")
            return f"{name} refused"
        self.done.append(name)
        after = fresh(match)
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


def play_one_move(match: Match, players: list, rng: random.Random, now: datetime) -> bool:
    """The first seat, in a random order, whose player (the game's bot on the seat's view)
    has a move sends it; a refusal is fine (the state moved on), a traceback is not."""
    game = match.game
    for seat in rng.sample(range(len(players)), len(players)):
        view = game.view(match.state, Viewer(seat=seat))
        # A bot paces itself like a person; looking a minute ahead it moves at once.
        action = game.bot_action(view, seat, game.bot_levels[0], now + timedelta(minutes=1))
        if action is None:
            continue
        with contextlib.suppress(ActionError):
            action = json.loads(json.dumps(action))
            services.submit_action(match, players[seat], action, expected_version=match.version)
            return True
        return False
    return False


@pytest.mark.parametrize(("game_key", "seat_count"), GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_host_operations_never_break_a_match(clock, make_user, game_key, seat_count, seed):
    rng = random.Random(f"{game_key}-{seed}")
    season = Season.objects.create(name=f"Fuzz {seed}", is_current=True)
    host = make_user("hostess", is_staff=True)
    players = [make_user(f"player{i}") for i in range(seat_count)]
    for player in players:
        ledger.adjust(player, season, 6, 0, "starting garnets", host)
    from games.core.registry import get_game

    game = get_game(game_key)
    roles = [*game.roles, *[""] * seat_count][:seat_count]
    match = services.create_match(
        host=host, game_key=game_key, title="Fuzz", settings={}, roles=roles
    )
    for player, seat in zip(players, match.seats.order_by("index"), strict=True):
        services.take_seat(match, player, seat.invite_token)
    operator = Host(match, host, rng)
    moves = 0
    for step in range(STEPS):
        match = fresh(match)
        roll = rng.random()
        if roll < 0.5 and match.status == Match.Status.LIVE:
            moves += play_one_move(match, players, rng, clock.current)
        elif roll < 0.8:
            clock.advance(rng.choice([1, 5, 20, 45, 90]))
            services.fire_due_deadlines()
        else:
            operator.act(clock, may_end=step > STEPS * 2 // 3)
        match = fresh(match)
        versions = list(match.events.order_by("version").values_list("version", flat=True))
        assert versions == list(range(1, match.version + 1))
        if match.status == Match.Status.LIVE:
            assert waits_for_someone(match, clock.current), f"{game_key} is stuck"
        check_ledger(season)
    assert moves or operator.done, "the run did nothing"
