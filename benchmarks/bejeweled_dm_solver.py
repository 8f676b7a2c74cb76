"""The Bejeweled death match best-claim solver against the plain exhaustive search.

Boards: ``engine.generate_board(seed)`` for seeds 0-49 (round-1 boards). Offers: one of each type
drawn per board with ``random.Random(2026)``, and the full offer of all nine powerups. For each, the
solver's time, the states it resolved (plain turns, turns resumed after an activation, second
uses played) and its proof, checked with ``engine.resolve``.

The plain exhaustive search (``solver.exhaustive_best_claim``: every proof resolved by the engine)
takes hours on a whole board once Pick or Recolor is offered, so its time is mostly extrapolated:
the number of legal proofs is counted exactly (with Refresh, every proof with a second clause too:
for each first use, the gems it removes times the second uses legal on its settled board), and
multiplied by the engine's mean time per proof, measured on a uniform sample of the first-use
proofs and a sample of the two-use proofs of that board and offer. It is also run in full where
the count of proofs is small enough, to check the extrapolation.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from games.bejeweled_dm import solver_bits
from games.bejeweled_dm.engine import (
    ACTIVES,
    PASSIVES,
    ROCK,
    STARTERS,
    Board,
    Proof,
    format_proof,
    generate_board,
    resolve,
    resolve_count,
    resolve_first_use,
)
from games.bejeweled_dm.solver import (
    exhaustive_best_claim,
    passive_choices,
    search_best_claim,
    starter_moves,
)

OFFER_SEED = 2026
SAMPLE_SEED = 7
Offer = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
FULL_OFFER: Offer = (STARTERS, PASSIVES, ACTIVES)


@dataclass
class Settings:
    boards: int  # seeds 0 .. boards-1
    full_offer_boards: int  # the first ones of those, with the full offer
    extrapolated_full_boards: int  # boards whose full-offer exhaustive time is extrapolated
    proof_samples: int  # proofs timed per board and offer for the extrapolation
    exhaustive_limit: int  # run the exhaustive search in full up to this many proofs
    resolve_samples: int  # proofs timed for the single-proof figures
    python_boards: int  # one-of-each boards also solved by the interpreted kernels
    python_full_boards: int  # full-offer boards also solved by the interpreted kernels


FULL = Settings(50, 50, 10, 300, 40_000, 500, 10, 1)
QUICK = Settings(4, 1, 1, 60, 10_000, 100, 2, 0)


@dataclass
class Solved:
    seed: int
    offer: Offer
    count: int
    proof: str
    seconds: float
    states: int
    exhaustive_seconds: float | None = None  # extrapolated
    exhaustive_measured: float | None = None  # run in full
    proofs: int | None = None


def one_of_each_offers(count: int) -> list[Offer]:
    rng = random.Random(OFFER_SEED)
    return [
        ((rng.choice(STARTERS),), (rng.choice(PASSIVES),), (rng.choice(ACTIVES),))
        for _ in range(count)
    ]


def offer_name(offer: Offer) -> str:
    if offer == FULL_OFFER:
        return "all nine"
    return " + ".join(names[0] for names in offer)


def solve(seed: int, offer: Offer, compiled: bool | None = None) -> Solved:
    board = generate_board(seed)
    clock = time.perf_counter()
    count, proof, stats = search_best_claim(board, *offer, compiled=compiled)
    seconds = time.perf_counter() - clock
    removed = resolve(board, proof).removed
    if removed != count:
        raise AssertionError(f"board {seed}: the proof {proof!r} removes {removed}, not {count}")
    return Solved(seed, offer, count, proof, seconds, stats.states)


# --- the plain exhaustive search, counted and sampled ------------------------------------------


def move_count(board: Board, starter: str) -> int:
    """The number of legal uses of a starter (as ``starter_moves``, without listing Pick pairs)."""
    if starter != "Pick":
        return len(starter_moves(board, starter))
    colours = [cell for cell in board.cells if cell != ROCK]
    same = sum(colours.count(colour) ** 2 for colour in set(colours))
    return len(colours) + (len(colours) ** 2 - same) // 2


def first_uses(board: Board, offer: Offer) -> list[tuple[str, str, str, tuple]]:
    starters, passives, _ = offer
    return [
        (passive, colours, starter, move)
        for passive, colours in passive_choices(passives)
        for starter in starters
        for move in starter_moves(board, starter)
    ]


def exhaustive_estimate(board: Board, offer: Offer, samples: int) -> tuple[float, int]:
    """(seconds, proofs): the extrapolated time of the exhaustive search, and its proof count."""
    rng = random.Random(SAMPLE_SEED)
    _, _, actives = offer
    gems = [divmod(i, 8) for i in range(56) if board.cells[i] != ROCK]
    uses = first_uses(board, offer)
    first_proofs = len(uses) * len(gems) * len(actives)
    second_proofs = 0
    refreshed_uses = []
    if "Refresh" in actives:
        for passive, colours, starter, move in uses:
            proof = Proof("Refresh", gems[0], passive, colours, starter, move)
            removed, settled, _ = resolve_first_use(board, proof)
            if removed:
                second_proofs += removed * move_count(settled, starter)
                refreshed_uses.append((proof, settled))
    clock = time.perf_counter()
    for _ in range(samples):
        passive, colours, starter, move = rng.choice(uses)
        proof = Proof(rng.choice(actives), rng.choice(gems), passive, colours, starter, move)
        resolve_count(board, proof)
    per_first = (time.perf_counter() - clock) / samples
    per_second = 0.0
    if second_proofs:
        timed = 0
        elapsed = 0.0
        while timed < samples:
            proof, settled = rng.choice(refreshed_uses)
            proof = replace(proof, active_cell=rng.choice(gems))
            if not resolve_first_use(board, proof)[2]:
                continue
            second = rng.choice(starter_moves(settled, proof.starter))
            full = replace(proof, second=second)
            clock = time.perf_counter()
            resolve_count(board, full)
            elapsed += time.perf_counter() - clock
            timed += 1
        per_second = elapsed / samples
    seconds = first_proofs * per_first + second_proofs * per_second
    return seconds, first_proofs + second_proofs


def run_exhaustive(result: Solved) -> None:
    board = generate_board(result.seed)
    clock = time.perf_counter()
    count, _ = exhaustive_best_claim(board, *result.offer)
    result.exhaustive_measured = time.perf_counter() - clock
    if count != result.count:
        raise AssertionError(f"board {result.seed}: exhaustive {count}, solver {result.count}")


# --- one proof ---------------------------------------------------------------------------------


def single_resolves(boards: Sequence[Board], samples: int) -> tuple[list[float], list[float]]:
    """Microseconds per ``resolve`` and per ``resolve_count`` of random one-use proofs."""
    rng = random.Random(SAMPLE_SEED)
    with_steps: list[float] = []
    count_only: list[float] = []
    for _ in range(samples):
        board = rng.choice(boards)
        gems = [divmod(i, 8) for i in range(56) if board.cells[i] != ROCK]
        starter = rng.choice(STARTERS)
        passive, colours = rng.choice(passive_choices(PASSIVES))
        move = rng.choice(starter_moves(board, starter))
        proof = Proof(rng.choice(ACTIVES), rng.choice(gems), passive, colours, starter, move)
        text = format_proof(proof)
        repeats = 5
        clock = time.perf_counter()
        for _ in range(repeats):
            resolve(board, text)
        with_steps.append((time.perf_counter() - clock) / repeats * 1e6)
        clock = time.perf_counter()
        for _ in range(repeats):
            resolve_count(board, proof)
        count_only.append((time.perf_counter() - clock) / repeats * 1e6)
    return with_steps, count_only


# --- the report --------------------------------------------------------------------------------


def summary(rows: list[Solved]) -> list[str]:
    times = [row.seconds for row in rows]
    worst = max(rows, key=lambda row: row.seconds)
    states = sum(row.states for row in rows)
    return [
        f"- boards: {len(rows)}",
        f"- median {statistics.median(times):.3f} s, mean {statistics.mean(times):.3f} s, worst "
        f"{worst.seconds:.3f} s (board {worst.seed}, {offer_name(worst.offer)})",
        f"- states resolved: {states:,} in {sum(times):.1f} s, "
        f"{states / sum(times):,.0f} per second",
    ]


def ratio_lines(rows: list[Solved], what: str) -> list[str]:
    estimated = [row for row in rows if row.exhaustive_seconds is not None]
    if not estimated:
        return []
    ratios = [row.exhaustive_seconds / row.seconds for row in estimated]  # type: ignore[operator]
    lines = [
        f"- exhaustive search ({what}), extrapolated on {len(estimated)} boards: median "
        f"{statistics.median([r.exhaustive_seconds for r in estimated]):,.0f} s per board "
        f"(median {statistics.median([r.proofs for r in estimated]):,.0f} proofs); the solver is "
        f"{statistics.median(ratios):,.0f}x faster (median of per-board ratios; least "
        f"{min(ratios):,.0f}x)"
    ]
    measured = [row for row in rows if row.exhaustive_measured is not None]
    if measured:
        real = [row.exhaustive_measured / row.seconds for row in measured]  # type: ignore[operator]
        check = [row.exhaustive_measured / row.exhaustive_seconds for row in measured]  # type: ignore[operator]
        lines.append(
            f"- run in full on {len(measured)} of them (at most {{limit}} proofs; same count as "
            f"the solver on each): median {statistics.median(real):,.0f}x slower than the solver; "
            f"measured / extrapolated time: median {statistics.median(check):.2f}"
        )
    return lines


def table(rows: list[Solved]) -> list[str]:
    lines = [
        "| board | offer | count | solver s | states | exhaustive s: extrapolated | measured "
        "| ratio | proof |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        exhaustive = measured = ratio = "-"
        if row.exhaustive_seconds is not None:
            exhaustive = f"{row.exhaustive_seconds:,.1f}"
            ratio = f"{row.exhaustive_seconds / row.seconds:,.0f}x"
        if row.exhaustive_measured is not None:
            measured = f"{row.exhaustive_measured:,.1f}"
        lines.append(
            f"| {row.seed} | {offer_name(row.offer)} | {row.count} | {row.seconds:.3f} | "
            f"{row.states:,} | {exhaustive} | {measured} | {ratio} | `{row.proof}` |"
        )
    return lines


def warm_up() -> float:
    """Seconds of the first search in this process: numba loads (or compiles) its kernels. The
    interpreted kernels are loaded too (not counted)."""
    clock = time.perf_counter()
    search_best_claim(generate_board(0), STARTERS, PASSIVES, ("Column", "Plus", "Refresh"))
    seconds = time.perf_counter() - clock
    solver_bits.interpreted()
    return seconds


def progress(message: str) -> None:
    print(f"  {time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


def run(quick: bool = False) -> str:
    settings = QUICK if quick else FULL
    seeds = list(range(settings.boards))
    boards = [generate_board(seed) for seed in seeds]
    offers = one_of_each_offers(len(seeds))
    compiled = solver_bits.COMPILED
    first_search = warm_up()

    progress("one of each: solver and exhaustive search")
    one_of_each = []
    for seed, offer in zip(seeds, offers, strict=True):
        result = solve(seed, offer)
        board = boards[seed]
        result.exhaustive_seconds, result.proofs = exhaustive_estimate(
            board, offer, settings.proof_samples
        )
        if result.proofs <= settings.exhaustive_limit:
            run_exhaustive(result)
        progress(f"board {seed}, {offer_name(offer)}: {result.proofs:,} proofs")
        one_of_each.append(result)

    progress("all nine: solver")
    full = []
    for seed in seeds[: settings.full_offer_boards]:
        result = solve(seed, FULL_OFFER)
        if seed < settings.extrapolated_full_boards:
            result.exhaustive_seconds, result.proofs = exhaustive_estimate(
                boards[seed], FULL_OFFER, settings.proof_samples
            )
            progress(f"board {seed}: {result.proofs:,} proofs")
        full.append(result)

    progress("the interpreted kernels")
    python_one = [
        solve(seed, offer, compiled=False)
        for seed, offer in zip(seeds[: settings.python_boards], offers, strict=False)
    ]
    python_full = [
        solve(seed, FULL_OFFER, compiled=False) for seed in seeds[: settings.python_full_boards]
    ]
    pairs = list(zip(one_of_each, python_one, strict=False))
    pairs += zip(full, python_full, strict=False)
    for fast, slow in pairs:
        if fast.count != slow.count:
            raise AssertionError(
                f"board {fast.seed}: compiled {fast.count}, interpreted {slow.count}"
            )

    progress("one proof")
    with_steps, count_only = single_resolves(boards, settings.resolve_samples)

    limit = f"{settings.exhaustive_limit:,}"
    lines = [
        "## Bejeweled death match: best-claim solver",
        "",
        f"Boards `generate_board(seed)`, seeds 0-{settings.boards - 1}; one-of-each offers drawn "
        f"with `random.Random({OFFER_SEED})`. Times are wall-clock seconds in one process. The "
        "exhaustive search's time is the exact number of legal proofs times the engine's mean "
        f"`resolve_count` time on {settings.proof_samples} sampled first-use proofs (and as many "
        "two-use proofs with Refresh) of the same board and offer.",
        "",
        f"Search: the kernels {'compiled by numba' if compiled else 'interpreted (no numba)'}; "
        f"the first search of the process took {first_search:.2f} s (numba loading its cached "
        "kernels, or compiling them on a first run; not counted below).",
        "",
        "### One of each type",
        *summary(one_of_each),
        *(line.replace("{limit}", limit) for line in ratio_lines(one_of_each, "one of each")),
        "",
        "### All nine powerups",
        *summary(full),
        *ratio_lines(full, f"all nine, the first {settings.extrapolated_full_boards} boards"),
        "",
        "### The kernels interpreted (as where numba is not installed)",
        f"One-of-each offers on boards 0-{settings.python_boards - 1}"
        + (
            f" and the full offer on board 0-{settings.python_full_boards - 1}"
            if python_full
            else ""
        )
        + ", same counts as above:",
        *(summary(python_one) if python_one else []),
        *(
            [f"- full offer: {', '.join(f'board {r.seed} {r.seconds:.1f} s' for r in python_full)}"]
            if python_full
            else []
        ),
        "",
        "### One proof",
        f"- `resolve` (with steps): median {statistics.median(with_steps):.0f} us, mean "
        f"{statistics.mean(with_steps):.0f} us, worst {max(with_steps):.0f} us",
        f"- `resolve_count`: median {statistics.median(count_only):.0f} us, mean "
        f"{statistics.mean(count_only):.0f} us, worst {max(count_only):.0f} us",
        f"  ({settings.resolve_samples} random one-use proofs on those boards, 5 runs each)",
        "",
        "### Every board",
        *table(one_of_each + full),
        "",
        "Interpreted kernels:",
        "",
        *table(python_one + python_full),
    ]
    return "\n".join(lines)
