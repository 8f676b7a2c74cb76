"""Frames of the real games (issue 20): bytes per audience, worker CPU and queries per action.

Each game is played by its own bots through the services (tests/bot_matches.py), each action as
the websocket consumer runs it; for every event the update frame each audience's page-format
connection is sent (the panels that changed since its last frame), split into the head (event and
view patch) and the html. Worker CPU per action is the action's own path (lock, rules, append,
commit) plus rendering every audience's frame. Runs on SQLite in a temporary file unless
DATABASE_URL is set.

Each run ends with its headline per game (worker CPU, queries and the layer's bytes per action)
beside the previous full run's, kept in benchmarks/reports/frames.json (benchmarks/_baseline.py).
A full run (``run(quick=False)``, or this module with its defaults: 80 events, every game, the
fixed seed) writes its own figures there; any other run leaves them.

    python -m benchmarks.frames [--events N] [--games key,key] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import tempfile
from datetime import timedelta
from typing import Any

from benchmarks import _baseline

BASELINE = _baseline.REPORTS / "frames.json"


def set_up_as_a_worker() -> None:
    """Django on the benchmark's database (SQLite in a temporary file unless DATABASE_URL),
    migrated, warmed up and collecting garbage as a worker does."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gemsite.test_settings")
    # As production runs: DEBUG off (no query log, no template debugging), a real secret key.
    os.environ.setdefault("DEBUG", "0")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    if not os.environ.get("DATABASE_URL"):
        os.environ["SQLITE_PATH"] = os.path.join(tempfile.mkdtemp(), "bench.sqlite3")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    # As a worker runs (manage.py serve): warmed up, what it loaded frozen out of the collector's
    # sight, the young generation collected less often. Collections land in the CPU measured.
    from django.conf import settings

    from games.core.management.commands.serve import settle_garbage_collector, warm_up

    warm_up()
    settle_garbage_collector(settings.GC_GEN0_THRESHOLD)


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def _cell(values: list[float], scale: float = 1.0) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values) / scale:.1f} / {_p95(values) / scale:.1f}"


class _Clock:
    def __init__(self) -> None:
        from django.utils import timezone

        self.current = timezone.now()

    def __call__(self) -> Any:
        return self.current

    def advance(self, seconds: float) -> None:
        self.current += timedelta(seconds=seconds)


# The match every run plays (the same deal, the same bot moves: runs differ only in the machine's
# time); --seed 0 plays a new one each run.
SEED = 1129


# A whole cast racing: issue 39 measures the race with 13 seats, the most a race has had.
WHOLE_CAST = "bejeweled-2-race x13"


def _game_and_table(name: str) -> tuple[str, Any]:
    """The game of a row's name and its table (None: the game's own, tests/bot_matches.py)."""
    if name != WHOLE_CAST:
        return name, None
    from tests.bot_matches import Table
    from tests.registered import bot_seats

    game_key = name.split()[0]
    return game_key, Table(bot_seats(game_key, 13))


def measure(name: str, events: int, seed: int | None = SEED) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from games.core.match import clock as core_clock
    from tests.bot_matches import play

    game_key, table = _game_and_table(name)
    fake = _Clock()
    core_clock.now = fake  # type: ignore[assignment]
    host = get_user_model().objects.create_user(f"host-{game_key}-{os.getpid()}-{id(fake)}")
    played = play(game_key, host, fake.advance, events=events, seed=seed or None, table=table)
    by_audience: dict[str, list[Any]] = {}
    for sent in played.frames:
        by_audience.setdefault(sent.audience, []).append(sent)
    from games.core.match.replaying import state_at
    from games.core.render.rendering import view_of

    match = played.match
    states = {v: state_at(match, v) for v in {f.version for f in played.frames}}
    rows = {}
    for audience, frames in sorted(by_audience.items()):
        whole = []  # the same frame carrying the whole view in place of the patch (before)
        for f in frames:
            view = json.dumps(view_of(match, f.viewer, states[f.version]), separators=(",", ":"))
            patch = json.dumps(f.frame["patch"], separators=(",", ":"))
            whole.append(f.size - len(patch.encode()) + len(view.encode()))
        rows[audience] = {
            "frames": len(frames),
            "sent": [f.size for f in frames],
            "kinds": [f.kind for f in frames],
            "html": [len(f.frame.get("html", "").encode()) for f in frames],
            "whole": whole,
        }
    cpu = [
        a + r + s
        for a, r, s in zip(played.apply_ms, played.render_ms, played.send_ms, strict=False)
    ]
    return {
        "game": name,
        "events": played.match.version,
        "audiences": rows,
        "apply_ms": played.apply_ms,
        "queries": played.queries,
        "layer_bytes": played.layer_bytes,
        "send_ms": played.send_ms,
        "render_ms": played.render_ms,
        "cpu_ms": cpu,
    }


# The actions issue 20 sets its frame targets on (p95 under 8 KB, median under 4 KB), by the
# kind of event they make: a Bejeweled 2 swap, a death match claim and proof (its round's end),
# a Glittering Paths path, a Pointsweeper scout and claim, a Seven Gem Swap round.
TARGET_KINDS = {
    "bejeweled-2": ("swapped",),
    "bejeweled-dm": ("claimed", "counterclaimed", "round_over"),
    "glittering-paths": ("path_made",),
    "pointsweeper": ("scouted", "claimed"),
    "seven-gem-swap": ("round_resolved",),
}


def target_rows(result: dict[str, Any]) -> list[str]:
    """The target actions' frames per audience: sent KB median / p95 and whether both are met."""
    rows = []
    kinds = TARGET_KINDS.get(result["game"], ())
    for audience, row in result["audiences"].items():
        pairs = zip(row["sent"], row["kinds"], strict=True)
        sizes = [size for size, kind in pairs if kind in kinds]
        if not sizes:
            continue
        met = statistics.median(sizes) < 4096 and _p95(sizes) < 8192
        rows.append(
            f"| {result['game']} | {', '.join(kinds)} | {audience} | {len(sizes)} | "
            f"{_cell(sizes, 1024)} | {'met' if met else 'missed'} |"
        )
    return rows


def report(results: list[dict[str, Any]]) -> str:
    lines = [
        "| game | audience | update frames | sent, KB (median / p95) | of it html, KB | "
        "with the whole view instead of the patch (before), KB |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for result in results:
        for audience, row in result["audiences"].items():
            lines.append(
                f"| {result['game']} | {audience} | {row['frames']} | "
                f"{_cell(row['sent'], 1024)} | {_cell(row['html'], 1024)} | "
                f"{_cell(row['whole'], 1024)} |"
            )
    lines += [
        "",
        "The target actions (median under 4 KB, p95 under 8 KB):",
        "",
        "| game | event kinds | audience | frames | sent, KB (median / p95) | targets |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for result in results:
        lines += target_rows(result)
    lines += [
        "",
        "| game | events | worker CPU per action, ms (median / p95) | of it the action's path | "
        "of it rendering every audience | of it the send (packed for the layer, marked sent) | "
        "queries per action | through the channel layer per action, KB (every audience's "
        "message) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for result in results:
        lines.append(
            f"| {result['game']} | {result['events']} | {_cell(result['cpu_ms'])} | "
            f"{_cell(result['apply_ms'])} | {_cell(result['render_ms'])} | "
            f"{_cell(result['send_ms'])} | {_cell(result['queries'])} | "
            f"{_cell(result['layer_bytes'], 1024)} |"
        )
    return "\n".join(lines)


# The headline of each game, beside the previous full run's: (figure, heading, digits shown).
HEADLINE = (
    ("cpu_ms_median", "worker CPU per action, ms median", 1),
    ("cpu_ms_p95", "p95", 1),
    ("queries_median", "queries per action, median", 0),
    ("queries_p95", "p95", 0),
    ("layer_kb_median", "through the channel layer per action, KB median", 1),
    ("layer_kb_p95", "p95", 1),
)
EVENTS = 80


def headline(result: dict[str, Any]) -> dict[str, float]:
    """A game's figures kept for the next run: as the report's last table shows them."""
    figures = {}
    for name, values, scale in (
        ("cpu_ms", result["cpu_ms"], 1.0),
        ("queries", result["queries"], 1.0),
        ("layer_kb", result["layer_bytes"], 1024.0),
    ):
        if values:
            figures[f"{name}_median"] = statistics.median(values) / scale
            figures[f"{name}_p95"] = _p95(values) / scale
    return figures


def _engine() -> str:
    return "PostgreSQL" if os.environ.get("DATABASE_URL") else "SQLite"


def compared(
    results: list[dict[str, Any]],
    previous: _baseline.Previous,
    events: int,
    kept: bool,
    every_game: bool = True,
) -> str:
    """The headline of each game beside the previous full run's, and whether it was kept; a
    game the previous run had and this one lacks is listed if this run played every game."""
    figures = {result["game"]: headline(result) for result in results}
    if previous.figures:
        said = (
            "Each game's headline beside the previous full run's: now (previous, change). "
            f"The previous: {previous.said}."
        )
        if previous.facts.get("database", _engine()) != _engine():
            said += f" This run is on {_engine()}."
        if previous.facts.get("events", events) != events:
            said += f" This run plays up to {events} events, not {previous.facts['events']}."
    else:
        said = f"Each game's headline: {previous.said}."
    if kept:
        after = f"This run's figures are kept in {BASELINE.name} for the next run."
    else:
        after = f"A quick or partial run: {BASELINE.name} is left as it was."
    return "\n".join(
        [
            said,
            "",
            *_baseline.table("game", HEADLINE, figures, previous, gone=every_game),
            "",
            after,
        ]
    )


def beside_previous(
    results: list[dict[str, Any]], events: int, full: bool, every_game: bool, how: str
) -> str:
    """Each game's headline beside the previous full run's; a ``full`` run's figures are then
    kept in BASELINE (``how``: the command that made them), any other run's are not."""
    previous = _baseline.read(BASELINE)
    if full:
        _baseline.write(
            BASELINE,
            "frames",
            {result["game"]: headline(result) for result in results},
            how=how,
            database=_engine(),
            events=EVENTS,
            seed=SEED,
        )
    return compared(results, previous, events, kept=full, every_game=every_game)


def run(quick: bool = False) -> str:
    set_up_as_a_worker()
    from tests.bot_matches import TABLES

    events = 20 if quick else EVENTS
    engine = _engine()
    results = [measure(game, events) for game in [*sorted(TABLES), WHOLE_CAST]]
    return "\n".join(
        [
            "## Frames of the real games (issue 20): bytes per audience, CPU and queries",
            "",
            f"Each game played by its own bots for up to {events} events on {engine}, every "
            "action as the consumer runs it; frames in the page format, each audience's "
            "connection sending only the panels that changed. CPU: process time in this "
            "process (the action's path, every audience's frame rendered, then the send: each "
            "audience's message packed for the layer and the event marked sent). The layer's "
            "bytes: the messages as channels-redis packs them.",
            "",
            report(results),
            "",
            beside_previous(
                results, events, full=not quick, every_game=True, how="make bench (benchmarks.run)"
            ),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=EVENTS)
    parser.add_argument("--games", default="")
    parser.add_argument("--seed", type=int, default=SEED, help="the matches' seed; 0: random")
    args = parser.parse_args()
    set_up_as_a_worker()
    from tests.bot_matches import TABLES

    every = [*sorted(TABLES), WHOLE_CAST]
    games = args.games.split(",") if args.games else every
    results = [measure(game, args.events, args.seed) for game in games]
    full = games == every and args.events == EVENTS and args.seed == SEED
    how = f"python -m benchmarks.frames --events {EVENTS}"
    print(report(results))
    print()
    print(beside_previous(results, args.events, full, every_game=games == every, how=how))


if __name__ == "__main__":
    main()
