"""The Glittering Paths rules engine: one behaviour per test, boards built by hand.

Rows are listed top (row 1) to bottom, columns from A. The last part compares the engine with a
small reference written differently (every walk on the board enumerated with coordinates, the
rules checked straight from the rulings' wording) on a few hundred seeded random boards.
"""

from __future__ import annotations

import itertools
import json
import random
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.glittering_paths.engine import (
    BLUE,
    RED,
    Board,
    BoardError,
    PathError,
    add_to_total,
    as_decimal,
    best_path,
    best_path_fraction,
    board_shapes,
    cell_name,
    check_round_board,
    format_board,
    generate_board,
    has_legal_path,
    is_symmetric,
    parse_board,
    parse_cell,
    path_problem,
    path_score,
    play_path,
    random_path,
    round_total,
    score_fraction,
)

# A small board used by many rule tests:
#     A B C D
#  1  R S R G
#  2  L R S R
#  3  R G R L
SMALL = parse_board("RSRG\nLRSR\nRGRL")


def problem(board: Board, player: str, cells: list[str]) -> str:
    with pytest.raises(PathError) as caught:
        path_score(board, player, cells)
    return str(caught.value)


# --- boards and cells ------------------------------------------------------------------------


def test_it_reads_a_board_back_as_the_same_text() -> None:
    text = "RSRG\nLRSR\nRGRL"
    assert format_board(parse_board("\n  RSRG  \n lrsr\nRGRL \n\n")) == text
    assert parse_board(text).shape == "3x4"


def test_it_names_cells_by_column_letter_and_row_from_the_top() -> None:
    assert cell_name(0, 0) == "A1"
    assert cell_name(2, 3) == "D3"
    assert parse_cell(" d3 ") == (2, 3)
    assert SMALL["D1"] == "G"
    assert SMALL["A2"] == "L"


def test_it_refuses_a_ragged_board() -> None:
    with pytest.raises(BoardError, match="rectangle"):
        parse_board("RSR\nLR")


def test_it_refuses_an_unknown_gem_letter() -> None:
    with pytest.raises(BoardError, match="unknown character 'X'"):
        parse_board("RSX\nLRS")


def test_it_refuses_an_empty_board_text() -> None:
    with pytest.raises(BoardError):
        parse_board("  \n ")


# --- the path rules ----------------------------------------------------------------------------


def test_a_three_cell_path_turning_once_is_legal() -> None:
    assert path_problem(SMALL, RED, ["A1", "B1", "B2"]) is None
    assert path_score(SMALL, RED, ["A1", "B1", "B2"]) == Decimal(2)


def test_it_refuses_a_path_that_repeats_a_cell() -> None:
    board = parse_board("RS\nSR")
    assert "used twice" in problem(board, RED, ["A1", "B1", "B2", "A2", "A1"])


def test_it_refuses_a_path_of_even_length() -> None:
    assert "odd number of cells" in problem(SMALL, RED, ["A1", "B1", "B2", "C2"])


def test_it_refuses_a_path_of_one_cell() -> None:
    assert "at least 3 cells" in problem(SMALL, RED, ["A1"])


def test_it_refuses_an_empty_path() -> None:
    assert "at least 3 cells" in problem(SMALL, RED, [])


def test_it_refuses_a_path_starting_on_the_other_players_gem() -> None:
    message = problem(SMALL, RED, ["B1", "C1", "C2"])
    assert "starts on a sapphire" in message and "ruby, garnet or jasper" in message


def test_blue_may_start_on_lapis() -> None:
    assert "must all be lapis" in problem(parse_board("LRL\nSSS"), BLUE, ["A1", "B1", "B2"])
    assert path_score(parse_board("LR\nSL"), BLUE, ["A1", "B1", "B2"]) == Decimal(2)


def test_red_may_start_on_garnet_and_then_rubies_are_other_gems() -> None:
    board = parse_board("GR\nSG")
    assert path_score(board, RED, ["A1", "B1", "B2"]) == Decimal(2)


def test_it_refuses_a_cell_of_another_type_at_an_odd_place() -> None:
    # A1 ruby, B1 sapphire, B2 ruby, C2 sapphire, then C3 a garnet where a ruby belongs.
    board = parse_board("RSR\nLRS\nRGG")
    assert "must all be ruby like the start" in problem(board, RED, ["A1", "B1", "B2", "C2", "C3"])


def test_it_refuses_the_start_type_between() -> None:
    board = parse_board("RRR\nLRS")
    assert "like the start" in problem(board, RED, ["A1", "B1", "B2"])


def test_it_refuses_an_empty_cell() -> None:
    board = parse_board("R.\nSR")
    assert "B1 is empty" in problem(board, RED, ["A1", "B1", "B2"])


def test_it_refuses_cells_that_are_not_side_by_side() -> None:
    assert "not side by side" in problem(SMALL, RED, ["A1", "B2", "C2"])
    assert "not side by side" in problem(SMALL, RED, ["A1", "C1", "C2"])


def test_it_refuses_a_straight_line() -> None:
    board = parse_board("RSR")
    assert "right angle" in problem(board, RED, ["A1", "B1", "C1"])


def test_it_refuses_a_path_that_goes_straight_on_midway() -> None:
    # A1 -> B1 across, B1 -> B2 down, B2 -> B3 down again: no turn at B2.
    board = parse_board("RS\nLR\nRS")
    message = problem(board, RED, ["A1", "B1", "B2", "B3", "A3"])
    assert "B1, B2, B3 do not make a right angle" in message


def test_it_refuses_a_cell_off_the_board() -> None:
    assert "no cell E1" in problem(SMALL, RED, ["D1", "E1", "E2"])


def test_it_refuses_something_that_is_not_a_cell_name() -> None:
    assert "not a cell name" in problem(SMALL, RED, ["A1", "1B", "B2"])


def test_it_refuses_an_unknown_player() -> None:
    with pytest.raises(ValueError, match="'red' or 'blue'"):
        path_score(SMALL, "green", ["A1", "B1", "B2"])


def test_it_refuses_cells_that_are_not_a_list_of_names() -> None:
    with pytest.raises(PathError, match="list of cell names"):
        path_score(SMALL, RED, [1, 2, 3])  # type: ignore[list-item]


def test_a_partial_path_reports_only_rules_a_longer_path_cannot_mend() -> None:
    assert path_problem(SMALL, RED, ["A1", "B1"], partial=True) is None
    assert path_problem(SMALL, RED, [], partial=True) is None
    assert "right angle" in path_problem(parse_board("RSR"), RED, ["A1", "B1", "C1"], partial=True)


def test_it_accepts_lower_case_cell_names() -> None:
    assert path_score(SMALL, RED, ["a1", "b1", "b2"]) == Decimal(2)


# --- scoring -----------------------------------------------------------------------------------


def test_two_different_gems_between_score_three() -> None:
    #  R S    A1 R, B1 S, B2 R, C2 L, C3 R: 3 rubies / 1 = 3
    board = parse_board("RS.\n.RL\n..R")
    assert path_score(board, RED, ["A1", "B1", "B2", "C2", "C3"]) == Decimal(3)


def test_the_same_gem_twice_between_halves_the_score() -> None:
    board = parse_board("RS.\n.RS\n..R")
    assert path_score(board, RED, ["A1", "B1", "B2", "C2", "C3"]) == Decimal("1.5")


def test_the_movers_own_other_gems_count_as_other_gems() -> None:
    board = parse_board("RG.\n.RG\n..R")
    assert path_score(board, RED, ["A1", "B1", "B2", "C2", "C3"]) == Decimal("1.5")


def test_an_inexact_score_is_rounded_to_four_places() -> None:
    # A 2-row zigzag: rubies on A1 B2 C1 D2 E1, between B1 C2 D1 E2 = S S S L -> 5 / 3.
    board = parse_board("RSRSR\nLRSRL")
    cells = ["A1", "B1", "B2", "C2", "C1", "D1", "D2", "E2", "E1"]
    assert path_score(board, RED, cells) == Decimal("1.6667")
    assert score_fraction(board, RED, cells) == Fraction(5, 3)


def test_an_exact_score_keeps_all_its_places() -> None:
    # 9 rubies and 8 sapphires on a 2-row zigzag: 9 / 8 = 1.125 exactly.
    row1 = "".join("RS"[c % 2] for c in range(9))
    row2 = "".join("SR"[c % 2] for c in range(9))
    board = parse_board(f"{row1}\n{row2}")
    cells = []
    for c in range(9):
        top, bottom = cell_name(0, c), cell_name(1, c)
        cells += [top, bottom] if c % 2 == 0 else [bottom, top]
    cells = cells[:17]
    assert path_score(board, RED, cells) == Decimal("1.125")
    assert str(path_score(board, RED, cells)) == "1.125"


def test_as_decimal_is_exact_for_fifths_and_rounds_thirds_half_up() -> None:
    assert as_decimal(Fraction(7, 5)) == Decimal("1.4")
    assert as_decimal(Fraction(2, 3)) == Decimal("0.6667")
    assert as_decimal(Fraction(4, 2)) == Decimal(2)


def test_totals_round_half_up_to_two_places() -> None:
    assert round_total(Fraction(1, 8)) == Decimal("0.13")
    assert round_total("2.675") == Decimal("2.68")
    assert add_to_total("1.67", Fraction(5, 3)) == Decimal("3.34")
    assert str(add_to_total("0", Fraction(2))) == "2.00"


def test_playing_a_path_empties_its_cells_and_leaves_the_board_untouched() -> None:
    text = format_board(SMALL)
    move = play_path(SMALL, RED, ["A1", "B1", "B2"])
    assert format_board(move.board) == "..RG\nL.SR\nRGRL"
    assert format_board(SMALL) == text
    assert move.score == Decimal(2)
    assert [step["kind"] for step in move.steps] == ["path", "remove"]
    json.dumps(move.steps)


def test_a_paths_steps_carry_the_board_after_each_step() -> None:
    drawn, removed = play_path(SMALL, RED, ["A1", "B1", "B2"]).steps
    assert drawn == {
        "kind": "path",
        "player": RED,
        "cells": ["A1", "B1", "B2"],
        "gems": ["R", "S", "R"],
        "board": format_board(SMALL),
    }
    assert removed == {"kind": "remove", "cells": ["A1", "B1", "B2"], "board": "..RG\nL.SR\nRGRL"}


def test_a_path_cannot_cross_a_removed_cell() -> None:
    after = play_path(SMALL, RED, ["A1", "B1", "B2"]).board
    assert "B2 is empty" in problem(after, RED, ["C1", "C2", "B2"])


# --- the best path -----------------------------------------------------------------------------


def test_best_path_finds_the_highest_score() -> None:
    board = parse_board("RS.\n.RL\n..R")
    assert best_path(board, RED) == (Decimal(3), ["A1", "B1", "B2", "C2", "C3"]) or best_path(
        board, RED
    ) == (Decimal(3), ["C3", "C2", "B2", "B1", "A1"])


def test_best_path_prefers_the_longest_among_equal_scores() -> None:
    # Rubies A1 B2 C1 D2 E1 F2; between B1 S, C2 S, D1 L, E2 L, F1 G: the whole zigzag scores
    # 6 / 2 = 3, as do the 5-cell pieces with two different gems between (B2..D2, D2..F2);
    # nothing scores 4 (no three different gems in a row between). The longest wins.
    board = parse_board("RSRLRG\n.RSRLR")
    score, cells = best_path(board, RED)
    assert score == Decimal(3)
    assert len(cells) == 11
    assert set(cells) == {"A1", "B1", "B2", "C2", "C1", "D1", "D2", "E2", "E1", "F1", "F2"}


def test_best_path_is_zero_and_empty_without_a_legal_path() -> None:
    assert best_path(parse_board("RSSR"), RED) == (Decimal(0), [])
    assert best_path(parse_board("...\n..."), BLUE) == (Decimal(0), [])


def test_best_path_does_not_change_the_board() -> None:
    board = parse_board("RSRG\nLRSR\nRGRL")
    best_path(board, RED)
    assert format_board(board) == "RSRG\nLRSR\nRGRL"


def test_has_legal_path_agrees_with_best_path_on_hand_boards() -> None:
    assert has_legal_path(SMALL, RED)
    assert not has_legal_path(parse_board("RSSR"), RED)
    assert not has_legal_path(parse_board("RSR"), RED)


def test_random_path_returns_a_legal_path() -> None:
    rng = random.Random(3)
    for seed in range(20):
        board = generate_board(seed, 3, 6, 6)
        cells = random_path(board, BLUE, rng)
        assert path_problem(board, BLUE, cells) is None


# --- boards for a match --------------------------------------------------------------------------


def test_generated_boards_are_symmetric_full_and_playable() -> None:
    for seed in range(30):
        for round_no in (1, 2, 3):
            board = generate_board(seed, round_no, 8, 8)
            assert is_symmetric(board)
            assert board.count(".") == 0
            assert has_legal_path(board, RED) and has_legal_path(board, BLUE)


def test_jasper_and_aquamarine_appear_only_in_round_three() -> None:
    early = [generate_board(seed, r, 8, 8) for seed in range(10) for r in (1, 2)]
    assert all(b.count("J") == b.count("A") == 0 for b in early)
    late = [generate_board(seed, 3, 8, 8) for seed in range(10)]
    assert sum(b.count("J") for b in late) > 0


def test_the_same_seed_draws_the_same_board() -> None:
    assert generate_board(5, 3, 6, 10) == generate_board(5, 3, 6, 10)
    assert generate_board(5, 3, 6, 10) != generate_board(6, 3, 6, 10)


def test_board_shapes_are_about_the_area_with_an_even_side() -> None:
    shapes = board_shapes(64)
    assert (8, 8) in shapes and (6, 10) in shapes
    assert all(abs(r * c - 64) <= 6.4 and (r % 2 == 0 or c % 2 == 0) for r, c in shapes)


def test_a_host_board_must_be_symmetric() -> None:
    with pytest.raises(BoardError, match="not symmetric: A1 holds a ruby"):
        check_round_board("RG\nSR", 1)


def test_a_host_board_needs_an_even_side() -> None:
    with pytest.raises(BoardError, match="even number"):
        check_round_board("RGS\nLRL\nRGS", 1)


def test_a_host_board_has_no_jasper_before_round_three() -> None:
    board = "RJ\nAS"
    with pytest.raises(BoardError, match="only in round 3"):
        check_round_board(board, 2)


def test_a_host_board_must_be_full() -> None:
    with pytest.raises(BoardError, match="is empty"):
        check_round_board("R.\n.S", 1)


def test_a_host_board_must_give_both_players_a_path() -> None:
    with pytest.raises(BoardError, match="no legal path"):
        check_round_board("RS\nRS", 1)


def test_a_symmetric_host_board_is_accepted() -> None:
    good = generate_board(11, 3, 4, 6)
    assert check_round_board(format_board(good), 3) == good


# --- property tests on random symmetric boards ---------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    shape=st.sampled_from([(3, 4), (4, 4), (4, 3), (2, 5), (4, 5), (6, 5), (4, 6)]),
    round_no=st.sampled_from([1, 3]),
    player=st.sampled_from([RED, BLUE]),
)
def test_best_path_is_legal_scores_as_claimed_and_nothing_beats_it(
    seed: int, shape: tuple[int, int], round_no: int, player: str
) -> None:
    board = generate_board(seed, round_no, *shape)
    score, cells = best_path(board, player)
    assert cells, "generated boards give both players a path"
    assert path_problem(board, player, cells) is None
    assert path_score(board, player, cells) == score
    best, length = reference_best(grid_of(board), player)
    assert (score_fraction(board, player, cells), len(cells)) == (best, length)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), area=st.sampled_from([20, 36, 64]), round_no=st.integers(1, 3))
def test_generated_boards_of_any_shape_are_symmetric_and_playable(
    seed: int, area: int, round_no: int
) -> None:
    shape = random.Random(seed).choice(board_shapes(area))
    board = generate_board(seed, round_no, *shape)
    assert is_symmetric(board)
    assert has_legal_path(board, RED) and has_legal_path(board, BLUE)
    assert round_no == 3 or board.count("J") + board.count("A") == 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_the_half_turn_gives_blue_the_score_red_had(seed: int) -> None:
    board = generate_board(seed, 3, 6, 6)
    red_score, _ = best_path(board, RED)
    blue_score, _ = best_path(board, BLUE)
    assert red_score == blue_score


# --- a reference written differently -------------------------------------------------------------

GEMS = "RGJSLA"
RED_SET = set("RGJ")
BLUE_SET = set("SLA")


def grid_of(board: Board) -> list[list[str]]:
    return [list(row) for row in format_board(board).splitlines()]


def reference_prefix(grid: list[list[str]], player: str, path: list[tuple[int, int]]) -> bool:
    """The rulings' sentence, clause by clause, except the length: a walk failing this can never
    be extended into a legal path."""
    if len(set(path)) != len(path):
        return False
    h, w = len(grid), len(grid[0])
    if any(not (0 <= r < h and 0 <= c < w) or grid[r][c] == "." for r, c in path):
        return False
    if any(abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1 for a, b in itertools.pairwise(path)):
        return False
    for a, b, c in zip(path, path[1:], path[2:], strict=False):
        first = (b[0] - a[0], b[1] - a[1])
        second = (c[0] - b[0], c[1] - b[1])
        if first[0] * second[0] + first[1] * second[1] != 0:  # dot product: perpendicular
            return False
    gems = [grid[r][c] for r, c in path]
    if gems[0] not in (RED_SET if player == RED else BLUE_SET):
        return False
    return all((gem == gems[0]) == (i % 2 == 0) for i, gem in enumerate(gems))


def reference_legal(grid: list[list[str]], player: str, path: list[tuple[int, int]]) -> bool:
    return len(path) >= 3 and len(path) % 2 == 1 and reference_prefix(grid, player, path)


def reference_score(grid: list[list[str]], path: list[tuple[int, int]]) -> Fraction:
    gems = [grid[r][c] for r, c in path]
    others = [g for g in gems if g != gems[0]]
    return Fraction(gems.count(gems[0]), max(others.count(g) for g in set(others)))


def reference_best(grid: list[list[str]], player: str) -> tuple[Fraction, int]:
    """Every simple walk of the board, checked and scored: (best score, its longest length)."""
    h, w = len(grid), len(grid[0])
    best = (Fraction(0), 0)

    def walk(path: list[tuple[int, int]]) -> None:
        nonlocal best
        if not reference_prefix(grid, player, path):
            return
        if reference_legal(grid, player, path):
            best = max(best, (reference_score(grid, path), len(path)))
        r, c = path[-1]
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < h and 0 <= nc < w and (nr, nc) not in path and grid[nr][nc] != ".":
                walk([*path, (nr, nc)])

    for r in range(h):
        for c in range(w):
            if grid[r][c] != ".":
                walk([(r, c)])
    return best


def random_grid(rng: random.Random) -> list[list[str]]:
    h, w = rng.randint(1, 5), rng.randint(1, 5)
    palette = rng.choice(["RS", "RGSL", "RGJSLA", "RRS.", "RGJSLA..", "RRRSLGA"])
    return [[rng.choice(palette) for _ in range(w)] for _ in range(h)]


def chequered_grid(rng: random.Random) -> list[list[str]]:
    """Mostly one type on one chequerboard colour: many turning walks are legal paths."""
    h, w = rng.randint(2, 4), rng.randint(2, 4)
    main = rng.choice(GEMS)
    return [
        [
            main if (r + c) % 2 == 0 and rng.random() < 0.9 else rng.choice("RGJSLA")
            for c in range(w)
        ]
        for r in range(h)
    ]


def test_best_path_matches_the_reference_on_random_boards() -> None:
    rng = random.Random(2026)
    for _ in range(250):
        grid = random_grid(rng)
        board = parse_board("\n".join("".join(row) for row in grid))
        for player in (RED, BLUE):
            fraction, cells = best_path_fraction(board, player)
            assert (fraction, len(cells)) == reference_best(grid, player), format_board(board)
            assert has_legal_path(board, player) == bool(cells)


def test_path_score_matches_the_reference_on_random_walks() -> None:
    rng = random.Random(7)
    legal = illegal = 0
    for _ in range(600):
        grid = random_grid(rng) if rng.random() < 0.5 else chequered_grid(rng)
        h, w = len(grid), len(grid[0])
        path = [(rng.randrange(h), rng.randrange(w))]
        while len(grid) > 1 and sum(path[0]) % 2 and rng.random() < 0.8:
            path = [(rng.randrange(h), rng.randrange(w))]
        across = rng.random() < 0.5
        for _ in range(rng.choice([0, 1, 2, 2, 4, 4, 6])):
            # mostly turning walks (so that many are legal), now and then a straight step
            across = not across if rng.random() < 0.9 else across
            r, c = path[-1]
            dr, dc = rng.choice([(0, 1), (0, -1)] if across else [(1, 0), (-1, 0)])
            path.append((r + dr, c + dc))
        names = [cell_name(r, c) if r >= 0 and c >= 0 else "Z0" for r, c in path]
        board = parse_board("\n".join("".join(row) for row in grid))
        start = grid[path[0][0]][path[0][1]]
        player = BLUE if start in BLUE_SET else RED
        if rng.random() < 0.2:
            player = rng.choice([RED, BLUE])
        if reference_legal(grid, player, path):
            legal += 1
            assert score_fraction(board, player, names) == reference_score(grid, path)
        else:
            illegal += 1
            with pytest.raises(PathError):
                path_score(board, player, names)
    assert legal > 20 and illegal > 20
