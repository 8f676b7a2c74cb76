"""The exact best-claim solver: it agrees with the plain exhaustive search, its proofs resolve to
the count it claims, and its fast rules agree with the engine, both ways its kernels run: compiled
by numba and interpreted as plain Python (in this process, and in a process without numba).

The exhaustive search resolves every proof with the engine, so it is only run on boards with few
gems (the rest rocks); the fast rules are compared with the engine on whole random boards.
"""

from __future__ import annotations

import inspect
import json
import os
import random
import subprocess
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bejeweled_dm import engine, solver, solver_bits
from games.bejeweled_dm.engine import (
    ACTIVES,
    COLOURS,
    PASSIVES,
    STARTERS,
    Board,
    Proof,
    format_proof,
    generate_board,
    parse_board,
    parse_proof,
    resolve,
    resolve_count,
    resolve_first_use,
    resolve_second_use,
)
from games.bejeweled_dm.solver import (
    best_claim,
    best_placement,
    best_second_use,
    enumerate_proofs,
    exhaustive_best_claim,
    passive_choices,
    plain_turn,
    search_best_claim,
    starter_moves,
)

MODES = [False] + ([True] if solver_bits.COMPILED else [])
"""The interpreted kernels, and the compiled ones when numba is installed."""

ROCKS = "########"


def board(*rows: str) -> Board:
    """A board from its bottom rows; the rows above them are rocks."""
    return parse_board("\n".join([ROCKS] * (7 - len(rows)) + list(rows)))


@st.composite
def small_boards(draw: st.DrawFn, max_gems: int = 6) -> Board:
    """Boards with a few gems at the bottom of a few columns, in 3 to 5 colours."""
    palette = COLOURS[: draw(st.integers(3, 5))]
    heights = draw(st.lists(st.integers(0, 3), min_size=8, max_size=8))
    cells = [ROCKS[0]] * 56
    left = draw(st.integers(2, max_gems))
    for column, height in enumerate(heights):
        for row in range(6, 6 - height, -1):
            if left == 0:
                break
            cells[row * 8 + column] = draw(st.sampled_from(palette))
            left -= 1
    return Board("".join(cells))


def offers(kinds: tuple[str, ...]) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(kinds), min_size=1, max_size=len(kinds), unique=True)


def random_proof(rng: random.Random, start: Board) -> Proof:
    """A random legal first-use proof on a board (no second starter clause)."""
    starter = rng.choice(STARTERS)
    passive, colours = rng.choice(passive_choices(PASSIVES))
    move = rng.choice(starter_moves(start, starter))
    gems = [divmod(i, 8) for i in range(56) if start.cells[i] != "#"]
    return Proof(rng.choice(ACTIVES), rng.choice(gems), passive, colours, starter, move)


# --- exact: the same count as the exhaustive search ----------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_boards(), offers(STARTERS), offers(PASSIVES), offers(ACTIVES))
def test_it_finds_the_count_of_the_exhaustive_search(
    start: Board, starters: list[str], passives: list[str], actives: list[str]
) -> None:
    try:
        expected = exhaustive_best_claim(start, starters, passives, actives)
    except ValueError:
        with pytest.raises(ValueError, match="no legal proof"):
            best_claim(start, starters, passives, actives)
        return
    for compiled in MODES:
        count, proof, _ = search_best_claim(start, starters, passives, actives, compiled)
        assert count == expected[0]
        assert resolve(start, proof).removed == count


def test_it_finds_the_exhaustive_count_with_everything_offered() -> None:
    start = board("G#######", "RBB#####", "BYRY####")
    expected, _ = exhaustive_best_claim(start, STARTERS, PASSIVES, ACTIVES)
    for compiled in MODES:
        count, proof, _ = search_best_claim(start, STARTERS, PASSIVES, ACTIVES, compiled)
        assert count == expected
        assert resolve(start, proof).removed == count


@pytest.mark.parametrize(
    ("seed", "offer"),
    [
        (9, ({"Rotate"}, {"Bend"}, {"Plus"})),
        (46, ({"Rotate"}, {"Chain"}, {"Column"})),
    ],
)
def test_it_finds_the_exhaustive_count_on_a_whole_board(seed: int, offer) -> None:
    # The offers whose proofs are few enough (2,352 and 11,760) to resolve them all quickly.
    start = generate_board(seed)
    expected, _ = exhaustive_best_claim(start, *offer)
    for compiled in MODES:
        assert search_best_claim(start, *offer, compiled)[0] == expected


@pytest.mark.skipif(not solver_bits.COMPILED, reason="numba is not installed (pip install numba)")
def test_the_compiled_search_finds_what_the_interpreted_search_finds() -> None:
    # Whole boards with Swap or Rotate (Pick takes the Python search seconds to minutes there),
    # and every powerup on the bottom two rows of a board.
    rng = random.Random(99)
    cases = []
    for seed in range(300, 310):
        offer = ([rng.choice(["Swap", "Rotate"])], [rng.choice(PASSIVES)], ACTIVES)
        cases.append((generate_board(seed), offer))
    cases.append((board(*generate_board(310).rows[5:]), (STARTERS, PASSIVES, ACTIVES)))
    for start, offer in cases:
        compiled = search_best_claim(start, *offer, compiled=True)
        assert compiled[:2] == search_best_claim(start, *offer, compiled=False)[:2]


# --- the proof it gives -----------------------------------------------------------------------


def test_its_proof_resolves_to_its_count_on_a_whole_board() -> None:
    start = generate_board(7)
    count, proof = best_claim(start, {"Swap"}, {"Bend"}, {"Plus", "Column"})
    result = resolve(start, proof)
    assert result.removed == count
    assert proof == format_proof(parse_proof(proof))
    assert proof.startswith(("Plus ", "Column ")) and "; Bend; Swap " in proof


def test_it_accepts_board_text_and_any_collection() -> None:
    start = generate_board(3)
    from_board = best_claim(start, ["Rotate"], ("Chain",), frozenset({"Column"}))
    from_text = best_claim(engine.format_board(start), "rotate", ["chain"], {"COLUMN"})
    assert from_board == from_text


def test_it_is_deterministic() -> None:
    start = generate_board(11)
    first = best_claim(start, {"Swap", "Rotate"}, {"Chain", "Bend"}, {"Plus", "Refresh"})
    again = best_claim(start, ["Rotate", "Swap"], ["Bend", "Chain"], ["Refresh", "Plus"])
    assert first == again


def test_the_engine_forwards_best_claim() -> None:
    start = generate_board(5)
    offer = ({"Swap"}, {"Chain"}, {"Column"})
    assert engine.best_claim(start, *offer) == best_claim(start, *offer)


# --- Refresh ------------------------------------------------------------------------------------


def test_refresh_takes_the_best_second_use() -> None:
    # Swap B7 C7 stands three yellows in column B, which carry the Refresh away; on the settled
    # board a second Swap lines up three yellows on row 7.
    start = board("#Y#Y####", "GY#Y####", "RBYBY###")
    count, proof = best_claim(start, {"Swap"}, {"Chain"}, {"Refresh"})
    assert count == exhaustive_best_claim(start, {"Swap"}, {"Chain"}, {"Refresh"})[0] == 6
    clauses = proof.split("; ")
    assert len(clauses) == 4
    assert resolve(start, "; ".join(clauses[:3])).removed == 3
    assert resolve(start, proof).removed == 6


def test_refresh_that_never_goes_off_has_no_second_clause() -> None:
    # Four gems of four colours: nothing can ever line up, so Refresh never goes off.
    start = board("RGBY####")
    count, proof = best_claim(start, {"Swap"}, {"Chain"}, {"Refresh"})
    assert count == 0
    assert len(proof.split("; ")) == 3


def test_refresh_with_pick_counts_both_picks() -> None:
    start = board("RG######", "BY######")
    count, proof = best_claim(start, {"Pick"}, {"Bend"}, {"Refresh"})
    assert count == 4
    assert resolve(start, proof).removed == 4


# --- the fast rules agree with the engine -------------------------------------------------------


@pytest.mark.parametrize("compiled", MODES)
def test_the_plain_turn_is_the_engines_turn_with_an_idle_refresh(compiled: bool) -> None:
    rng = random.Random(2024)
    for seed in range(40):
        start = generate_board(seed)
        proof = random_proof(rng, start)
        idle = replace(proof, active="Refresh")
        count, settled, _ = resolve_first_use(start, idle)
        assert plain_turn(start, proof, compiled) == (count, settled), format_proof(proof)


@pytest.mark.parametrize("compiled", MODES)
def test_every_placement_of_column_and_plus_is_covered(compiled: bool) -> None:
    rng = random.Random(7)
    for seed in range(12):
        start = generate_board(100 + seed)
        proof = random_proof(rng, start)
        for active in ("Column", "Plus"):
            probe = replace(proof, active=active)
            placements = [
                resolve_count(start, replace(probe, active_cell=divmod(i, 8)))[0] for i in range(56)
            ]
            assert best_placement(start, probe, compiled) == max(placements), format_proof(probe)


@pytest.mark.parametrize("compiled", MODES)
def test_the_best_second_use_is_the_engines_best(compiled: bool) -> None:
    rng = random.Random(11)
    checked = 0
    for seed in range(200, 300):
        start = generate_board(seed)
        proof = random_proof(rng, start)
        refresh = replace(proof, active="Refresh")
        _, settled, refreshed = resolve_first_use(start, refresh)
        if not refreshed:
            continue
        if proof.starter == "Pick":
            # Every pair through the engine is slow: keep the board's bottom rows only.
            settled = board(*settled.rows[4:])
        moves = starter_moves(settled, proof.starter)
        expected = max([0] + [resolve_second_use(settled, refresh, move)[0] for move in moves])
        assert best_second_use(settled, refresh, compiled) == expected, format_proof(refresh)
        checked += 1
        if checked == 8:
            break
    assert checked == 8


# --- the plain reference ---------------------------------------------------------------------


def test_enumerate_proofs_lists_every_legal_proof_once() -> None:
    start = board("RG######", "BRG#####")
    proofs = [format_proof(p) for p in enumerate_proofs(start, {"Swap"}, {"Bend"}, {"Refresh"})]
    assert len(proofs) == len(set(proofs))
    for proof in proofs:
        resolve(start, proof)  # legal: no ValueError
    swaps = len(starter_moves(start, "Swap"))
    assert sum(1 for p in proofs if p.count(";") == 2) == swaps * 5


# --- bad arguments ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("starters", "passives", "actives", "message"),
    [
        (set(), {"Bend"}, {"Plus"}, "no starter powerup offered"),
        ({"Swap"}, [], {"Plus"}, "no passive powerup offered"),
        ({"Swap"}, {"Bend"}, (), "no active powerup offered"),
        ({"Jump"}, {"Bend"}, {"Plus"}, "unknown starter powerup 'Jump'"),
        ({"Swap"}, {"Plus"}, {"Plus"}, "unknown passive powerup 'Plus'"),
        ({"Swap"}, {"Bend"}, {"Plus", 3}, "unknown active powerup 3"),
    ],
)
def test_it_refuses_bad_offers(starters, passives, actives, message) -> None:
    with pytest.raises(ValueError, match=message):
        best_claim(generate_board(0), starters, passives, actives)


def test_it_refuses_a_bad_board() -> None:
    with pytest.raises(ValueError, match="7 rows"):
        best_claim("RGB", {"Swap"}, {"Bend"}, {"Plus"})
    with pytest.raises(ValueError, match="Board or as its text"):
        best_claim(42, {"Swap"}, {"Bend"}, {"Plus"})  # type: ignore[arg-type]


def test_it_says_when_no_starter_can_be_used() -> None:
    with pytest.raises(ValueError, match="no legal proof"):
        best_claim(board("R#G#B#Y#"), {"Swap", "Rotate"}, {"Bend"}, {"Plus"})


def test_warm_up_says_whether_the_kernels_are_in_use() -> None:
    assert solver.warm_up() is solver_bits.COMPILED


# --- the kernels, compiled and interpreted ---------------------------------------------------


def test_the_interpreted_kernels_are_plain_python() -> None:
    kernels = solver_bits.interpreted()
    assert kernels.COMPILED is False
    for name in ("popcount", "settle", "play", "first_use", "best_second_pick"):
        assert inspect.isfunction(getattr(kernels, name))
    assert isinstance(kernels.Scratch().points, list)


@pytest.mark.parametrize("compiled", MODES)
def test_popcount_counts_the_bits_of_every_mask(compiled: bool) -> None:
    kernels = solver_bits if compiled else solver_bits.interpreted()
    rng = random.Random(5)
    masks = [0, 1, 1 << 62, (1 << 63) - 1, 0x7F7F7F7F7F7F7F7F, 0x5555555555555555]
    masks += [rng.getrandbits(63) for _ in range(200)]
    for mask in masks:
        assert kernels.popcount(mask) == mask.bit_count(), hex(mask)


WITHOUT_NUMBA = """
import json, sys
if sys.argv[1] == "missing":
    sys.modules["numba"] = None  # import numba raises ImportError
from games.bejeweled_dm import solver, solver_bits
from games.bejeweled_dm.board import parse_board
found = {
    "compiled": solver_bits.COMPILED,
    "warm_up": solver.warm_up(),
    "engine_imported": "games.bejeweled_dm.engine" in sys.modules,
    "claims": [
        solver.best_claim(parse_board(text), *offer) for text, offer in json.loads(sys.argv[2])
    ],
}
print(json.dumps(found))
"""

PROCESS_CASES = [
    (board("#Y#Y####", "GY#Y####", "RBYBY###"), (["Swap"], ["Chain"], ["Refresh"])),
    (board("RG######", "BYR#####"), (["Pick", "Rotate"], ["Recolor"], ["Refresh", "Plus"])),
    (generate_board(7), (["Swap"], ["Bend"], ["Plus", "Column"])),
    (generate_board(46), (["Rotate"], ["Chain"], ["Column"])),
]


@cache
def exhaustive_process_cases() -> list[int]:
    return [exhaustive_best_claim(start, *offer)[0] for start, offer in PROCESS_CASES]


@pytest.mark.parametrize(
    "how", ["NUMBA_DISABLE_JIT", "missing"], ids=["numba-disabled", "numba-missing"]
)
def test_without_numba_the_solver_finds_the_exhaustive_count(how: str) -> None:
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root), NUMBA_DISABLE_JIT="1")
    if how == "missing":
        del env["NUMBA_DISABLE_JIT"]
    cases = [(engine.format_board(start), list(map(list, offer))) for start, offer in PROCESS_CASES]
    run = subprocess.run(
        [sys.executable, "-c", WITHOUT_NUMBA, how, json.dumps(cases)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(run.stdout)
    assert found["compiled"] is False
    assert found["warm_up"] is False
    assert found["engine_imported"] is False  # the solver imports the rules, not the engine
    for (start, _), expected, (count, proof) in zip(
        PROCESS_CASES, exhaustive_process_cases(), found["claims"], strict=True
    ):
        assert count == expected
        assert resolve(start, proof).removed == count
