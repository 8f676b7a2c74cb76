"""Pointsweeper: the engine's scout and claim speed, the after-board analysis time per board, and
the bot's time per decision.

Inputs are seeded: boards ``engine.generate_board(seed)`` for seeds 0..; scouts and claims drawn
with ``random.Random(2026)`` (claims among the piece's legal moves, with a random fifth of the
board already claimed). The boards analysed are the boards of whole matches played by two club
bots through the flow (match seeds 1..), so they carry realistic numbers of scouts and claims.
"""

from __future__ import annotations

import random
import statistics
import time
from datetime import UTC, datetime, timedelta

from games.core.game.gamedef import SeatInfo, Viewer
from games.pointsweeper import analysis, bot, engine, flow
from games.pointsweeper import view as gate

SEED = 2026
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _engine_speed(count: int) -> list[str]:
    rng = random.Random(SEED)
    boards = [engine.generate_board(seed) for seed in range(50)]
    cases = []
    for _ in range(count):
        board = rng.choice(boards)
        piece = rng.choice(engine.PIECES)
        first = rng.random() < 0.5
        claimed = frozenset(rng.sample(engine.SQUARES, 13))
        square = rng.choice([s for s in engine.SQUARES if piece != "P" or s[1] not in "18"])
        start, end = rng.choice(engine.legal_moves(piece, first))
        cases.append((board, piece, first, claimed, square, start, end))
    clock = time.perf_counter()
    for board, piece, first, claimed, square, _, _ in cases:
        engine.scout(board, piece, square, first, claimed)
    scouting = (time.perf_counter() - clock) / count
    clock = time.perf_counter()
    for board, piece, first, claimed, _, start, end in cases:
        engine.claim(board, piece, start, end, first, claimed)
    claiming = (time.perf_counter() - clock) / count
    text = engine.format_board(boards[0])
    clock = time.perf_counter()
    for _ in range(count // 10):
        engine.scout(text, "Q", "d4", True)
    from_text = (time.perf_counter() - clock) / (count // 10)
    return [
        f"| scout (Board) | {count} | {scouting * 1e6:.1f} µs |",
        f"| claim (Board) | {count} | {claiming * 1e6:.1f} µs |",
        f"| scout from board text (parse included) | {count // 10} | {from_text * 1e6:.1f} µs |",
    ]


def _bot_match(seed: int) -> tuple[dict, list[float]]:
    seats = [SeatInfo(0, "EC", "A", True), SeatInfo(1, "DMO", "B", True)]
    now = T0
    state = flow.start({}, seats, seed, now).state
    decisions: list[float] = []
    while state["phase"] != "over":
        now += timedelta(seconds=2)
        for seat in (0, 1):
            view = gate.view(state, Viewer(seat=seat))
            clock = time.perf_counter()
            action = bot.decide(view, seat, bot.CLUB, now)
            if action is not None:
                decisions.append(time.perf_counter() - clock)
                state = flow.act(state, seat, action, now).state
                break
    return state, decisions


def run(quick: bool) -> str:
    count = 2_000 if quick else 50_000
    matches = 1 if quick else 6
    lines = [
        "## Pointsweeper engine, analysis and bot",
        "",
        f"Seeded inputs: boards `generate_board(0..49)`, scouts and claims from "
        f"`random.Random({SEED})` with 13 squares already claimed; analysis on the {3 * matches} "
        f"boards of {matches} club-bot match(es) (match seeds 1..{matches}). "
        f"Analysis method: {analysis.METHOD}.",
        "",
        "| what | cases | mean time |",
        "| --- | ---: | ---: |",
        *_engine_speed(count),
    ]
    board_times, decision_times, sizes, vectors, exact = [], [], [], [], True
    for seed in range(1, matches + 1):
        state, decisions = _bot_match(seed)
        decision_times.extend(decisions)
        for _ in state["history"]:
            job = flow.analysis_job(state)
            clock = time.perf_counter()
            result = flow.run_analysis(job)
            board_times.append(time.perf_counter() - clock)
            state = flow.record_analysis(state, job, result).state
            entries = [d for seat in result["seats"].values() for d in seat]
            sizes.append(len(entries))
            vectors.extend(d["mine_vectors"] for d in entries)
            exact = exact and all(d["exact_mines"] for d in entries)
    lines += [
        "",
        "| analysis / bot | figure |",
        "| --- | ---: |",
        f"| boards analysed | {len(board_times)} |",
        f"| decisions (claims and passes) per board, median | {statistics.median(sizes):.0f} |",
        f"| analysis time per board, median | {statistics.median(board_times):.2f} s |",
        f"| analysis time per board, worst | {max(board_times):.2f} s |",
        f"| mine vectors per posterior, median / worst | {statistics.median(vectors):.0f} / "
        f"{max(vectors)} |",
        f"| every posterior exact over mines (no cap hit) | {'yes' if exact else 'no'} |",
        f"| bot decisions timed | {len(decision_times)} |",
        f"| bot time per decision, median | {statistics.median(decision_times) * 1000:.0f} ms |",
        f"| bot time per decision, worst | {max(decision_times) * 1000:.0f} ms |",
    ]
    return "\n".join(lines) + "\n"
