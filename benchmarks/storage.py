"""Storage per match and the time to rebuild a past state (issue 20).

Each game's match is played through ``games.core.match.services`` by its own bots on a fake clock
(analyses done as the scheduler does them), and the state each event made is recorded as it is
appended. Bytes are the compact JSON text of what the database keeps of the match:

- before: every event with the whole state it made (``Event.state``, as stored until migration
  0013), plus the match row's state;
- after: every event with its move instead (``Event.move``), a snapshot every
  ``replaying.SNAPSHOT_EVERY`` events (and of an outcome no move makes again), each kept as a
  patch of the snapshot before it or, when the patches since the last whole state would
  outweigh it, whole (games/core/render/jsondiff.py), plus the match row's state. The bytes kept
  after the first half of the events are shown beside the whole match's: about twice as many when
  storage grows linearly with the events, four times when with their square.

Rebuild time is the wall time of ``replaying.rebuild(match, version)`` for every version of the
match (the snapshots from the last whole state read from the database and patched, the events
after them read, their moves played again). A second
table plays the same matches' moves in memory with other snapshot intervals, to show what K
trades: bytes against the moves a rebuild plays. Runs on SQLite in a temporary file unless
DATABASE_URL is set.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

# (game, bot levels, settings, seconds between bot turns, most events: then the bot resigns)
GAMES = [
    ("pointsweeper", ["club", "beginner"], {"move_seconds": 20, "bank_seconds": 10}, 4, 0),
    ("bejeweled-dm", ["expert", "beginner"], {}, 2, 0),
    ("glittering-paths", ["best", "casual"], {"board_area": 36, "interval_seconds": 5}, 1, 0),
    ("seven-gem-swap", ["club"] * 7, {"bid_seconds": 120, "round_seconds": 120}, 11, 0),
    ("bejeweled-2", ["greedy"], {"mode": "action"}, 2, 400),
]
QUICK_BEJEWELED_2_EVENTS = 100
INTERVALS = (5, 10, 20, 40, 80)


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gemsite.test_settings")
    if not os.environ.get("DATABASE_URL"):
        os.environ["SQLITE_PATH"] = os.path.join(tempfile.mkdtemp(), "bench.sqlite3")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _size(data: Any) -> int:
    return len(json.dumps(data, separators=(",", ":")))


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


class _FakeClock:
    def __init__(self) -> None:
        from django.utils import timezone

        self.current = timezone.now()

    def __call__(self):  # type: ignore[no-untyped-def]
        return self.current


@dataclass
class Played:
    game_key: str
    match: Any
    made: dict[int, dict[str, Any]] = field(default_factory=dict)
    writes: list[float] = field(default_factory=list)  # CPU ms of each snapshot kept


def play(game_key: str, levels: list[str], settings: dict, step: int, most: int) -> Played:
    """A match of bots played to its end (or to ``most`` events, then resigned)."""
    from django.contrib.auth import get_user_model

    from games.core.match import clock, deadlines, seating, services
    from games.core.models import Match

    fake = _FakeClock()
    clock.now = fake
    played: Played
    append = services.append

    def recording(match, outcome, *args, **kwargs):  # type: ignore[no-untyped-def]
        event = append(match, outcome, *args, **kwargs)
        # Only this match's: in make bench's one process the database is the first benchmark's,
        # and the bots and clocks run here move on the matches other benchmarks left in it too.
        if match.pk == played.match.pk:
            played.made[event.version] = json.loads(json.dumps(outcome.state))
        return event

    keep = services.keep_snapshot

    def timed_keep(*args, **kwargs):  # type: ignore[no-untyped-def]
        started = time.process_time()
        kept = keep(*args, **kwargs)
        played.writes.append((time.process_time() - started) * 1000)
        return kept

    services.append = recording
    services.keep_snapshot = timed_keep
    try:
        host = get_user_model().objects.create_user(f"bench-storage-{time.time_ns()}")
        roles = [""] * len(levels)
        match = seating.create_match(
            host=host, game_key=game_key, title="bench", settings=settings, roles=roles
        )
        played = Played(game_key, match)
        for index, level in enumerate(levels):
            seating.seat_bot(match, index, level)
        for _ in range(5000):
            fake.current += timedelta(seconds=step)
            deadlines.fire_due_deadlines()
            while services.run_bots():
                pass
            match.refresh_from_db()
            if match.is_over:
                break
            if most and match.version >= most:
                services.submit_bot_action(match, 0, {"type": "resign"}, match.version)
        while services.run_analyses():
            pass
    finally:
        services.append = append
        services.keep_snapshot = keep
    match = Match.objects.get(pk=match.pk)
    played.match = match
    return played


@dataclass
class Bytes:
    events: int
    before: int
    after: int
    half: int  # bytes kept after the first half of the events (the match as it was then)
    before_first: float  # mean bytes per event over the first tenth of the events
    before_last: float
    after_first: float
    after_last: float
    snapshots: int
    whole: int  # snapshots kept as whole states (the others are patches)
    snapshot_bytes: int


def _event_bytes(played: Played) -> tuple[list[int], list[int]]:
    """Per event: the bytes kept before (with its state) and after (with its move)."""
    before, after = [], []
    for row in played.match.events.order_by("version"):
        common = _size(row.action) + _size(row.public) + _size(row.private)
        before.append(common + _size(played.made[row.version]))
        after.append(common + _size(row.move))
    return before, after


def measure_bytes(played: Played) -> Bytes:
    from games.core.models import Snapshot

    before, after = _event_bytes(played)
    rows = Snapshot.objects.filter(match=played.match).values_list("version", "state", "patch")
    snapshots = {v: _size(state if patch is None else patch) for v, state, patch in rows}
    current = _size(played.match.state)
    tenth = max(1, len(before) // 10)
    middle = len(after) // 2
    half = sum(after[:middle]) + sum(n for v, n in snapshots.items() if v <= middle)
    return Bytes(
        events=len(before),
        before=sum(before) + current,
        after=sum(after) + sum(snapshots.values()) + current,
        half=half + _size(played.made[middle]),
        before_first=statistics.mean(before[:tenth]),
        before_last=statistics.mean(before[-tenth:]),
        after_first=statistics.mean(after[:tenth]),
        after_last=statistics.mean(after[-tenth:]),
        snapshots=len(snapshots),
        whole=sum(1 for _, state, patch in rows if patch is None),
        snapshot_bytes=sum(snapshots.values()),
    )


BEFORE_EVERY = 20  # the snapshots before patches: whole states every 20 events


def rebuild_times(played: Played, before: bool = False) -> tuple[list[float], list[float]]:
    """Milliseconds to rebuild each version (database reads included): wall time, and this
    process's CPU time (the database's own work is in its process). ``before``: with the match's
    snapshots kept as they were before patches (whole states every 20 events, written in place
    of its own for the measure, then put back), with the same code reading them."""
    from games.core.match import replaying
    from games.core.models import Snapshot

    own = list(
        Snapshot.objects.filter(match=played.match).values("version", "state", "patch", "chain")
    )
    if before:
        rows = played.match.events.order_by("version").values_list("version", "move")
        versions = [
            v
            for v, move in rows
            if v % BEFORE_EVERY == 0 or (move or {}).get("rule") not in replaying.RULES
        ]
        Snapshot.objects.filter(match=played.match).delete()
        Snapshot.objects.bulk_create(
            Snapshot(match=played.match, version=v, state=played.made[v]) for v in versions
        )
    wall, cpu = [], []
    try:
        for version in range(1, played.match.version):
            started, started_cpu = time.perf_counter(), time.process_time()
            state = replaying.rebuild(played.match, version)
            cpu.append((time.process_time() - started_cpu) * 1000)
            wall.append((time.perf_counter() - started) * 1000)
            made = played.made[version]
            assert state == made, (
                f"{played.game_key} v{version} rebuilt unlike the state it made "
                f"({'before' if before else 'after'}): {_first_difference(state, made)}"
            )
    finally:
        if before:
            Snapshot.objects.filter(match=played.match).delete()
            Snapshot.objects.bulk_create(Snapshot(match=played.match, **row) for row in own)
    return wall, cpu


def _first_difference(rebuilt: Any, made: Any, path: str = "") -> str:
    """Where ``rebuilt`` first differs from ``made``: the path, and both values there."""
    if isinstance(rebuilt, dict) and isinstance(made, dict):
        for key in sorted(set(rebuilt) | set(made), key=str):
            if rebuilt.get(key, _ABSENT) != made.get(key, _ABSENT):
                return _first_difference(
                    rebuilt.get(key, _ABSENT), made.get(key, _ABSENT), f"{path}/{key}"
                )
    elif isinstance(rebuilt, list) and isinstance(made, list) and len(rebuilt) == len(made):
        for index, (one, other) in enumerate(zip(rebuilt, made, strict=True)):
            if one != other:
                return _first_difference(one, other, f"{path}[{index}]")
    return f"{path or '/'}: rebuilt {str(rebuilt)[:300]}, made {str(made)[:300]}"


_ABSENT = "(absent)"


def interval_trade(played: Played, every: int, whole: bool = False) -> tuple[int, float, float]:
    """With a snapshot every ``every`` events, kept as the services keep them (patches, and a
    whole state when the patches since the last outweigh it): the match's bytes, and the p50 /
    p99 ms to rebuild a version in memory, CPU time (the snapshot rows parsed from their JSON,
    the patches applied, the moves played again)."""
    from games.core.match import replaying
    from games.core.render import jsondiff

    game = played.match.game
    rows = list(played.match.events.order_by("version"))
    moves = {row.version: replaying.Move.of(row) for row in rows}
    kept = sorted(v for v, move in moves.items() if v % every == 0 or not move.replayable)
    texts: dict[int, tuple[str | None, str | None]] = {}
    previous, chain = None, 0
    for v in kept:
        k = jsondiff.keep(None if whole else previous, chain, played.made[v])
        texts[v] = (
            (None, json.dumps(k.patch)) if k.patch is not None else (json.dumps(k.state), None)
        )
        previous, chain = json.loads(json.dumps(played.made[v])), k.chain
    _, after = _event_bytes(played)
    size = sum(after) + sum(len(a or b or "") for a, b in texts.values())
    size += _size(played.match.state)
    times = []
    for version in range(1, played.match.version):
        started = time.process_time()
        base = max((v for v in kept if v <= version), default=0)
        state: Any = {}
        if base:
            first = max(v for v in kept if v <= base and texts[v][0] is not None)
            chain_rows = [
                (json.loads(w) if w else None, json.loads(p) if p else None)
                for v in kept
                if first <= v <= base
                for w, p in [texts[v]]
            ]
            state = jsondiff.rebuild(chain_rows)
        for v in range(base + 1, version + 1):
            state = replaying.play(game, state, moves[v]).state
        times.append((time.process_time() - started) * 1000)
    return size, _percentile(times, 0.5), _percentile(times, 0.99)


def run(quick: bool = False) -> str:
    _setup()
    from games.core.game.registry import get_game
    from games.core.match import replaying

    engine = "PostgreSQL" if os.environ.get("DATABASE_URL") else "SQLite"
    games = GAMES[:1] + GAMES[-1:] if quick else GAMES
    matches = []
    for game_key, levels, settings, step, most in games:
        get_game(game_key).warm_up()
        if quick and most:
            most = QUICK_BEJEWELED_2_EVENTS
        matches.append(play(game_key, levels, settings, step, most))

    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    rows = [
        "## Storage: moves and snapshots instead of whole states (issue 20)",
        "",
        f"Load average once the matches were played: {load} (wall times on a busy machine include "
        "waiting for a core; CPU times do not).",
        "",
        f"One match per game, played by its bots through the services on {engine}; compact JSON "
        f"bytes of everything kept for the match. Snapshot every {replaying.SNAPSHOT_EVERY} "
        "events. Bejeweled 2 is played to a fixed number of swaps, then resigned.",
        "",
        "| game | events | before, KB | after, KB | after / before | after: first half -> "
        "whole match, KB | bytes per event, first tenth -> last tenth, before | after (moves "
        "only) | snapshots (whole) | snapshot KB |",
        "|---|---:|---:|---:|---:|---|---|---|---|---:|",
    ]
    for played in matches:
        b = measure_bytes(played)
        rows.append(
            f"| {played.game_key} | {b.events} | {b.before / 1000:,.0f} | {b.after / 1000:,.0f} | "
            f"{b.after / b.before:.1%} | {b.half / 1000:,.0f} -> {b.after / 1000:,.0f} "
            f"(x{b.after / b.half:.1f}) | {b.before_first:,.0f} -> {b.before_last:,.0f} | "
            f"{b.after_first:,.0f} -> {b.after_last:,.0f} | {b.snapshots} ({b.whole}) | "
            f"{b.snapshot_bytes / 1000:,.0f} |"
        )
    rows += [
        "",
        "Rebuilding every version of each match (`replaying.rebuild`: the snapshots from the "
        "last whole state read and patched, the events after them read, their moves played "
        "again), wall time and this process's CPU time:",
        "",
        "| game | snapshots | versions | wall p50 ms | wall p99 ms | wall max ms | CPU p50 ms "
        "| CPU p99 ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for played in matches:
        for before in (True, False):
            wall, cpu = rebuild_times(played, before)
            layout = (
                f"before: whole every {BEFORE_EVERY}"
                if before
                else f"after: patches every {replaying.SNAPSHOT_EVERY}"
            )
            rows.append(
                f"| {played.game_key} | {layout} | {len(wall)} | {_percentile(wall, 0.5):.1f} | "
                f"{_percentile(wall, 0.99):.1f} | {max(wall):.1f} | "
                f"{_percentile(cpu, 0.5):.1f} | {_percentile(cpu, 0.99):.1f} |"
            )
    rows += [
        "",
        "Keeping a snapshot (`replaying.keep_snapshot`, in the action's transaction every "
        f"{replaying.SNAPSHOT_EVERY} events: the chain since the last whole state read and "
        "patched, the new state's patch made and checked), CPU ms:",
        "",
        "| game | snapshots kept | p50 ms | p99 ms | max ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for played in matches:
        w = played.writes or [0.0]
        rows.append(
            f"| {played.game_key} | {len(played.writes)} | {_percentile(w, 0.5):.1f} | "
            f"{_percentile(w, 0.99):.1f} | {max(w):.1f} |"
        )
    rows += [
        "",
        "The snapshot interval K traded (the same matches, rebuilt in memory: bytes kept, and "
        "p50 / p99 CPU ms to rebuild a version without the database), snapshots kept whole "
        "(before) and as patches (after):",
        "",
        f"| game | before: whole, K={BEFORE_EVERY} | "
        + " | ".join(f"K={k}" for k in INTERVALS)
        + " |",
        "|---|" + "---|" * (len(INTERVALS) + 1),
    ]
    for played in matches:
        size, p50, p99 = interval_trade(played, BEFORE_EVERY, whole=True)
        cells = [f"{size / 1000:,.0f} KB, {p50:.1f} / {p99:.1f} ms"]
        for every in INTERVALS:
            size, p50, p99 = interval_trade(played, every)
            cells.append(f"{size / 1000:,.0f} KB, {p50:.1f} / {p99:.1f} ms")
        rows.append(f"| {played.game_key} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(run(quick=True))
