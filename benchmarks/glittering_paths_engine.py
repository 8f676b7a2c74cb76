"""Glittering Paths: how fast ``best_path`` finds the exact best path.

Boards: ``engine.generate_board(seed, 3, 8, 8)`` for seeds 0-49 (random symmetric 8x8 round-3
boards, all six gem types), best path for red and for blue. Beside them, stress boards where far
more walks are legal paths: one gem type on every cell of one chequerboard colour and random gems
on the other (``random.Random(seed)``, seeds 0-9), where the best path is long. For a few boards
the plain enumeration of every legal path (no bound) is timed too, to show what the bound saves.
"""

from __future__ import annotations

import random
import statistics
import time

from games.glittering_paths import engine, pathfinding

SEEDS = 50
QUICK_SEEDS = 10
STRESS = 10
ENUMERATED = 5


def _timed(board: engine.Board, player: str) -> tuple[float, pathfinding._Search, tuple]:
    clock = time.perf_counter()
    search = pathfinding._Search(board, player)
    found = search.run()
    return time.perf_counter() - clock, search, found


def _stress_board(seed: int) -> engine.Board:
    rng = random.Random(seed)
    main = rng.choice(engine.RED_GEMS)
    rows = [
        "".join(main if (r + c) % 2 == 0 else rng.choice(engine.GEMS) for c in range(8))
        for r in range(8)
    ]
    return engine.Board(tuple(rows))


def _count_paths(board: engine.Board, player: str) -> int:
    """Every legal path, by plain enumeration (no bound)."""
    h, w = board.height, board.width
    count = 0

    def walk(path: list[tuple[int, int]], start: str, across: bool) -> None:
        nonlocal count
        r, c = path[-1]
        steps = ((0, 1), (0, -1)) if across else ((1, 0), (-1, 0))
        for dr, dc in steps:
            nr, nc = r + dr, c + dc
            if not (0 <= nr < h and 0 <= nc < w) or (nr, nc) in path:
                continue
            gem = board.rows[nr][nc]
            odd = len(path) % 2 == 1
            if gem == engine.EMPTY or (gem == start) == odd:
                continue
            path.append((nr, nc))
            if not odd:
                count += 1
            walk(path, start, not across)
            path.pop()

    for r in range(h):
        for c in range(w):
            gem = board.rows[r][c]
            if engine.colour_of(gem) == player:
                walk([(r, c)], gem, True)
                walk([(r, c)], gem, False)
    return count


def _row(label: str, times: list[float], nodes: list[int]) -> str:
    ms = sorted(t * 1000 for t in times)
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
    return (
        f"| {label} | {len(ms)} | {statistics.median(ms):.2f} | {statistics.mean(ms):.2f} | "
        f"{p90:.2f} | {ms[-1]:.2f} | {statistics.median(nodes):.0f} | {max(nodes)} |"
    )


def run(quick: bool = False) -> str:
    seeds = range(QUICK_SEEDS if quick else SEEDS)
    times: list[float] = []
    nodes: list[int] = []
    scores: list[str] = []
    for seed in seeds:
        board = engine.generate_board(seed, 3, 8, 8)
        for player in engine.PLAYERS:
            seconds, search, (fraction, cells) = _timed(board, player)
            if cells:
                assert engine.score_fraction(board, player, cells) == fraction
            times.append(seconds)
            nodes.append(search.nodes)
            scores.append(str(engine.as_decimal(fraction)))
    stress_times: list[float] = []
    stress_nodes: list[int] = []
    stress_lengths: list[int] = []
    for seed in range(3 if quick else STRESS):
        seconds, search, (_, cells) = _timed(_stress_board(seed), engine.RED)
        stress_times.append(seconds)
        stress_nodes.append(search.nodes)
        stress_lengths.append(len(cells))
    enumeration = []
    for seed in range(2 if quick else ENUMERATED):
        board = _stress_board(seed)
        clock = time.perf_counter()
        paths = _count_paths(board, engine.RED)
        plain = time.perf_counter() - clock
        bounded, search, _ = _timed(board, engine.RED)
        enumeration.append(
            f"| stress {seed} | {paths} | {plain * 1000:.1f} | {search.nodes} | "
            f"{bounded * 1000:.2f} |"
        )
    median_ms = statistics.median(times) * 1000
    worst_ms = max(times) * 1000
    verdict = "met" if median_ms < 50 and worst_ms < 1000 else "NOT met"
    common = statistics.mode(scores)
    lines = [
        "## Glittering Paths: best_path",
        "",
        f"Random symmetric 8x8 round-3 boards (`generate_board(seed, 3, 8, 8)`, seeds "
        f"0-{len(seeds) - 1}), red and blue each: the target (median under 50 ms, worst under "
        f"1 s) is **{verdict}**: median {median_ms:.2f} ms, worst {worst_ms:.2f} ms. The most "
        f"common best score is {common}.",
        "",
        "| boards | searches | median ms | mean ms | p90 ms | worst ms | median nodes | "
        "most nodes |",
        "|---|---|---|---|---|---|---|---|",
        _row("random 8x8 round 3", times, nodes),
        _row("stress 8x8 (one type on a chequerboard colour)", stress_times, stress_nodes),
        "",
        f"Stress boards' best paths have {min(stress_lengths)} to {max(stress_lengths)} cells.",
        "",
        "Every legal path enumerated without the bound, against the bounded search (red):",
        "",
        "| board | legal paths | enumeration ms | bounded nodes | bounded ms |",
        "|---|---|---|---|---|",
        *enumeration,
    ]
    return "\n".join(lines) + "\n"
