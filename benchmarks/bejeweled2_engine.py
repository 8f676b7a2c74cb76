"""Bejeweled 2 engine: a swap with its cascades, legal moves, the hint, new boards, the solver.

Boards: ``engine.generate_board(seed)`` for seeds 0..n-1; on each, the legal move picked by
``random.Random(seed)`` is played with new gems from ``rng_seed=seed`` (so cascades, specials
and refills are all in the timings). Each call is timed with ``time.perf_counter_ns`` as the
median of three runs; the table gives the median and the 99th percentile over the boards. The
solver is timed once per shipped puzzle (it is deterministic), with the boards it met.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from games.bejeweled2 import engine
from games.bejeweled2.puzzles import PUZZLES
from games.bejeweled2.solver import solve


def _timed(call: Callable[[], object], repeats: int = 3) -> float:
    """Microseconds for one call: the median of ``repeats`` runs (a shared machine preempts now
    and then; the median of three keeps one preemption out of the figure)."""
    runs = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        call()
        runs.append((time.perf_counter_ns() - start) / 1000)
    return statistics.median(runs)


def _row(name: str, micros: list[float], note: str = "") -> str:
    ordered = sorted(micros)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    median = statistics.median(ordered)
    return f"| {name} | {len(micros)} | {median:,.0f} | {p99:,.0f} | {max(ordered):,.0f} | {note} |"


def run(quick: bool) -> str:
    boards = 200 if quick else 2000
    seeds = range(boards)
    positions = [engine.generate_board(seed) for seed in seeds]
    moves = [
        random.Random(seed).choice(engine.legal_moves(b))
        for seed, b in zip(seeds, positions, strict=True)
    ]
    for b, (x, y) in zip(positions[:20], moves[:20], strict=True):  # warm up
        engine.swap(b, x, y, 0)
    swap_times, cascades = [], []
    for seed, b, (x, y) in zip(seeds, positions, moves, strict=True):
        swap_times.append(_timed(lambda b=b, x=x, y=y, s=seed: engine.swap(b, x, y, s)))
        cascades.append(engine.swap(b, x, y, seed).cascades)
    puzzle_swaps = [
        _timed(lambda b=b, x=x, y=y: engine.swap(b, x, y, None))
        for b, (x, y) in zip(positions, moves, strict=True)
    ]
    legal = [_timed(lambda b=b: engine.legal_moves(b)) for b in positions]
    hints = [_timed(lambda b=b: engine.best_move(b)) for b in positions]
    new_boards = [_timed(lambda s=seed: engine.generate_board(s)) for seed in seeds]
    deep = sum(1 for c in cascades if c > 1)
    lines = [
        "## Bejeweled 2 engine",
        "",
        f"{boards} seeded boards (`generate_board(0..{boards - 1})`), one seeded legal move each; "
        f"{deep} of the moves cascaded (deepest: {max(cascades)} levels). Times in microseconds.",
        "",
        "| call | runs | median | p99 | max | notes |",
        "|---|---:|---:|---:|---:|---|",
        _row("`swap` with new gems (steps recorded)", swap_times, "target: median under 1 ms"),
        _row("`swap` without new gems (puzzle mode)", puzzle_swaps),
        _row("`legal_moves`", legal),
        _row("`best_move` (the hint: every legal swap played)", hints),
        _row("`generate_board`", new_boards),
        "",
        "### The Puzzle-mode solver on the shipped puzzles",
        "",
        "| # | puzzle | pieces | par | boards searched | time (ms) |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    total = 0.0
    for number, puzzle in enumerate(PUZZLES, start=1):
        board = engine.parse_board(puzzle.board)
        start = time.perf_counter()
        solution = solve(board)
        elapsed = (time.perf_counter() - start) * 1000
        total += elapsed
        pieces = 64 - board.count(".")
        par = len(solution.moves) if solution.moves is not None else "none"
        lines.append(
            f"| {number} | {puzzle.title} | {pieces} | {par} | {solution.explored} | "
            f"{elapsed:.1f} |"
        )
    lines += ["", f"All {len(PUZZLES)} puzzles solved in {total:.0f} ms together."]
    return "\n".join(lines) + "\n"
