"""Seven Gem Swap rules: hand-checked grids for every movement, conflict, bidding and scoring rule,
property tests, and a slow, obviously-correct reference resolver compared with the engine."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.seven_gem_swap import engine
from games.seven_gem_swap.engine import (
    Board,
    BoardError,
    allocate_colours,
    allocation_details,
    final_placing,
    format_board,
    garnets_for,
    generate_board,
    largest_group,
    largest_group_cells,
    parse_board,
    resolve_round,
    round_points,
)

LETTERS = "ABCDEFGHIJ"


def grid(cells: dict[str, str], fill: str = "#") -> Board:
    """A grid of ``fill`` with the named cells set, e.g. ``grid({"C4": "R"})``."""
    items = [fill] * 100
    for name, what in cells.items():
        items[engine.parse_cell(name)] = what
    return Board("".join(items))


def cells_of(board: Board, what: str) -> list[str]:
    return [engine.cell_name(i) for i, ch in enumerate(board.cells) if ch == what]


# --- grids ---------------------------------------------------------------------------------------

STANDARD = """
ROYGBIV###
ROYGBIV###
ROYGBIV###
ROYGBIV###
ROYGBIV###
ROYGBIV###
ROYGBIV###
ROYGBIV###
ROYGBIV###
ROYGBIV###
"""


def test_it_reads_and_writes_a_grid() -> None:
    board = parse_board(STANDARD)
    assert format_board(board) == STANDARD.strip()
    assert board["A1"] == "R" and board["G10"] == "V" and board["J5"] == "#"


def test_it_ignores_blank_lines_around_and_spaces_inside() -> None:
    spaced = "\n\n" + "\n".join(" ".join(row) for row in STANDARD.split()) + "\n\n"
    assert parse_board(spaced) == parse_board(STANDARD)


def test_it_refuses_a_grid_with_nine_rows() -> None:
    with pytest.raises(BoardError, match="9 rows"):
        parse_board("\n".join(STANDARD.split()[:9]))


def test_it_refuses_a_short_row() -> None:
    rows = STANDARD.split()
    rows[3] = rows[3][:9]
    with pytest.raises(BoardError, match="row 4 has 9 cells"):
        parse_board("\n".join(rows))


def test_it_refuses_an_unknown_character() -> None:
    with pytest.raises(BoardError, match="C1: unknown character 'X'"):
        parse_board(STANDARD.replace("ROYG", "ROXG", 1))


def test_it_refuses_text_that_is_not_a_string() -> None:
    with pytest.raises(BoardError):
        parse_board(None)  # type: ignore[arg-type]


def test_it_generates_ten_gems_of_each_colour_and_30_rocks() -> None:
    board = generate_board(42)
    assert engine.check_standard(board) == board
    assert all(board.count(c) == 10 for c in engine.COLOURS) and board.count("#") == 30


def test_it_generates_the_same_grid_from_the_same_seed() -> None:
    assert generate_board(7) == generate_board(7)
    assert generate_board(7) != generate_board(8)


def test_it_refuses_a_starting_grid_without_ten_of_each_colour() -> None:
    with pytest.raises(BoardError, match="11 red"):
        engine.check_standard(STANDARD.replace("#", "R", 1))


def test_it_lists_the_cells_that_changed() -> None:
    before = grid({"B2": "R", "C2": "G"})
    after = grid({"C2": "R", "B2": "G"})
    assert engine.changed_cells(before, after) == ["B2", "C2"]


# --- moves ---------------------------------------------------------------------------------------


def test_it_moves_up_toward_row_one() -> None:
    board = grid({"C4": "R", "C3": "G"})
    result = resolve_round(board, {"a": ("C4", "U", False)})
    assert result.board == grid({"C3": "R", "C4": "G"})
    assert result.failed == {"a": False}
    assert result.positions == {"a": "C3"}


def test_it_moves_down_left_and_right() -> None:
    board = grid({"E5": "R"})
    result = resolve_round(board, {"a": ("E5", "DLLR", False)})
    # E5 -> E6 -> D6 -> C6 -> D6 would re-enter the locked D6: the last move fails.
    assert result.positions == {"a": "C6"}
    assert result.failed == {"a": True}
    assert result.made == {"a": 3}


def test_it_swaps_with_a_rock() -> None:
    board = grid({"A1": "R"})
    result = resolve_round(board, {"a": ("A1", "R", False)})
    assert result.board == grid({"B1": "R"})


def test_it_locks_the_cell_it_left() -> None:
    board = grid({"B2": "R", "B3": "G"})
    result = resolve_round(board, {"a": ("B2", "DU", False)})
    assert result.board == grid({"B3": "R", "B2": "G"})
    assert result.failed == {"a": True}
    assert result.steps[1]["moves"][0]["reason"] == "locked"


def test_it_fails_a_move_off_the_grid() -> None:
    board = grid({"A1": "R"})
    result = resolve_round(board, {"a": ("A1", "L", False)})
    assert result.board == board
    assert result.failed == {"a": True}
    assert result.steps[0]["moves"][0] == {
        "player": "a",
        "from": "A1",
        "to": None,
        "direction": "L",
        "ok": False,
        "reason": "off_grid",
        "swapped": None,
    }


def test_it_ends_the_sequence_at_the_first_failure() -> None:
    board = grid({"J10": "R", "I10": "G"})
    result = resolve_round(board, {"a": ("J10", "DLL", False)})
    assert result.board == board
    assert result.made == {"a": 0}
    assert len(result.steps) == 1


def test_it_finishes_a_sequence_without_failure() -> None:
    board = grid({"E5": "R"})
    result = resolve_round(board, {"a": ("E5", "URDD", False)})
    # E5 -> E4 -> F4 -> F5 -> F6: never back into a locked cell.
    assert result.positions == {"a": "F6"}
    assert result.failed == {"a": False}
    assert result.steps[-1]["locked"] == ["E4", "F4", "E5", "F5"]


def test_it_fails_a_move_into_another_players_controlled_gem() -> None:
    board = grid({"C3": "R", "D3": "B"})
    result = resolve_round(board, {"a": ("C3", "R", False), "b": ("D3", "", False)})
    assert result.board == board
    assert result.failed == {"a": True, "b": False}
    assert result.steps[0]["moves"][0]["reason"] == "controlled"


def test_it_keeps_a_gem_controlled_after_its_sequence_ended() -> None:
    # b moves once (E2 -> E3) and stops; a's fourth move targets E3 and fails.
    board = grid({"A3": "R", "E2": "B"})
    result = resolve_round(board, {"a": ("A3", "RRRR", False), "b": ("E2", "D", False)})
    assert result.positions == {"a": "D3", "b": "E3"}
    assert result.failed == {"a": True, "b": False}
    assert result.steps[3]["moves"] == [
        {
            "player": "a",
            "from": "D3",
            "to": "E3",
            "direction": "R",
            "ok": False,
            "reason": "controlled",
            "swapped": None,
        }
    ]


def test_it_lets_a_gem_swap_with_an_uncontrolled_gem_of_another_players_colour() -> None:
    board = grid({"C3": "R", "D3": "B", "H8": "B"})
    result = resolve_round(board, {"a": ("C3", "R", False), "b": ("H8", "", False)})
    assert result.board == grid({"D3": "R", "C3": "B", "H8": "B"})
    assert result.failed == {"a": False, "b": False}


def test_it_fails_both_moves_that_target_the_same_cell() -> None:
    board = grid({"B2": "R", "D2": "B", "C2": "G"})
    result = resolve_round(board, {"a": ("B2", "R", False), "b": ("D2", "L", False)})
    assert result.board == board
    assert result.failed == {"a": True, "b": True}
    assert {m["reason"] for m in result.steps[0]["moves"]} == {"same_target"}


def test_it_judges_control_at_the_start_of_the_step() -> None:
    # b leaves D2 in the same step as a targets D2: D2 still holds b's gem at the step's start.
    board = grid({"C2": "R", "D2": "B"})
    result = resolve_round(board, {"a": ("C2", "R", False), "b": ("D2", "D", False)})
    assert result.failed == {"a": True, "b": False}
    assert result.board == grid({"C2": "R", "D3": "B"})


def test_it_keeps_a_cell_locked_for_other_players() -> None:
    # b leaves D2 in step 1 (locked); a reaches C2's neighbour D2 in step 2 and fails.
    board = grid({"B2": "R", "D2": "B"})
    result = resolve_round(board, {"a": ("B2", "RR", False), "b": ("D2", "D", False)})
    assert result.positions == {"a": "C2", "b": "D3"}
    assert result.failed == {"a": True, "b": False}
    assert result.steps[1]["moves"][0]["reason"] == "locked"


def test_it_moves_two_players_in_the_same_step_without_conflict() -> None:
    board = grid({"A1": "R", "J10": "B", "B1": "G", "I10": "O"})
    result = resolve_round(board, {"a": ("A1", "R", False), "b": ("J10", "L", False)})
    assert result.board == grid({"B1": "R", "A1": "G", "I10": "B", "J10": "O"})
    assert len(result.steps) == 1 and len(result.steps[0]["moves"]) == 2


def test_it_allows_an_empty_sequence() -> None:
    board = grid({"A1": "R"})
    result = resolve_round(board, {"a": ("A1", "", True)})
    assert result.board == board and result.failed == {"a": False} and result.steps == []


def test_it_makes_a_premovers_first_move_alone() -> None:
    # Without the premove both target C2 and fail; with it, a takes C2 first and b then bumps
    # into a's controlled gem.
    board = grid({"B2": "R", "D2": "B", "C2": "G"})
    plain = resolve_round(board, {"a": ("B2", "R", False), "b": ("D2", "L", False)})
    assert plain.failed == {"a": True, "b": True}
    result = resolve_round(board, {"a": ("B2", "R", True), "b": ("D2", "L", False)})
    assert result.failed == {"a": False, "b": True}
    assert result.board == grid({"C2": "R", "B2": "G", "D2": "B"})
    assert [len(step["moves"]) for step in result.steps] == [1, 1]
    assert result.steps[1]["moves"][0]["reason"] == "controlled"


def test_it_pairs_a_premovers_second_move_with_the_others_first() -> None:
    # a premoves "RR" from A2: A2->B2 alone, then B2->C2 together with b's D2->C2: same target.
    board = grid({"A2": "R", "D2": "B"})
    result = resolve_round(board, {"a": ("A2", "RR", True), "b": ("D2", "L", False)})
    assert result.failed == {"a": True, "b": True}
    assert result.positions == {"a": "B2", "b": "D2"}
    assert [[m["player"] for m in s["moves"]] for s in result.steps] == [["a"], ["a", "b"]]


def test_it_moves_all_premovers_together_in_the_first_step() -> None:
    board = grid({"B2": "R", "D2": "B"})
    result = resolve_round(board, {"a": ("B2", "R", True), "b": ("D2", "L", True)})
    assert result.failed == {"a": True, "b": True}
    assert [m["reason"] for m in result.steps[0]["moves"]] == ["same_target", "same_target"]


def test_it_numbers_steps_from_one_without_premovers() -> None:
    board = grid({"B2": "R"})
    result = resolve_round(board, {"a": ("B2", "DD", False)})
    assert [s["step"] for s in result.steps] == [1, 2]


def test_it_accepts_lower_case_moves_and_cells() -> None:
    board = grid({"B2": "R"})
    assert resolve_round(board, {"a": ("b2", "dd", False)}).positions == {"a": "B4"}


def test_it_takes_the_grid_as_text_too() -> None:
    board = grid({"B2": "R"})
    text = format_board(board)
    assert (
        resolve_round(text, {"a": ("B2", "D", False)}).board
        == resolve_round(board, {"a": ("B2", "D", False)}).board
    )


def test_it_records_json_ready_steps() -> None:
    board = generate_board(3)
    red = cells_of(board, "R")[0]
    result = resolve_round(board, {"a": (red, "UULDRR", True)})
    assert json.loads(json.dumps(result.steps)) == result.steps


def test_each_step_carries_the_grid_after_it() -> None:
    board = grid({"B2": "R", "C2": "G", "B3": "Y"})
    result = resolve_round(board, {"a": ("B2", "RD", False)})
    assert [step["board"] for step in result.steps] == [
        format_board(grid({"C2": "R", "B2": "G", "B3": "Y"})),
        format_board(grid({"C3": "R", "C2": "#", "B2": "G", "B3": "Y"})),
    ]
    assert result.steps[-1]["board"] == format_board(result.board)


def test_a_failed_step_leaves_the_grid_as_it_was() -> None:
    board = grid({"A1": "R"})
    result = resolve_round(board, {"a": ("A1", "U", False)})
    assert result.steps[0]["board"] == format_board(board)


def test_it_names_the_cells_one_move_away() -> None:
    assert engine.neighbours("a1") == {"D": "A2", "R": "B1"}
    assert engine.neighbours("E5") == {"U": "E4", "D": "E6", "L": "D5", "R": "F5"}
    assert engine.neighbours("J10") == {"U": "J9", "L": "I10"}
    with pytest.raises(ValueError):
        engine.neighbours("K1")


def test_it_does_not_change_its_arguments() -> None:
    board = grid({"B2": "R"})
    subs = {"a": ("B2", "DD", False)}
    resolve_round(board, subs)
    assert subs == {"a": ("B2", "DD", False)} and board == grid({"B2": "R"})


@pytest.mark.parametrize(
    ("subs", "message"),
    [
        ({"a": ("A1", "D", False)}, "holds a rock"),
        ({"a": ("K1", "D", False)}, "no cell"),
        ({"a": ("B2", "DX", False)}, "'X' is not a move"),
        ({"a": ("B2", "D" * 41, False)}, "at most 40 moves"),
        ({"a": ("B2", "D", "yes")}, "premove is true or false"),
        ({"a": ("B2", "D", False), "b": ("B2", "", False)}, "already controlled"),
        ({"a": ("B2", "D")}, "gem cell, moves, premove"),
        ({1: ("B2", "D", False)}, "named by a string"),
    ],
)
def test_it_refuses_a_malformed_submission(subs: dict, message: str) -> None:
    with pytest.raises(engine.SubmissionError, match=message):
        resolve_round(grid({"B2": "R"}), subs)


def test_it_accepts_forty_moves() -> None:
    board = grid({"A1": "R"})
    moves = "RRRRRRRRRDLLLLLLLLLD" * 2
    result = resolve_round(board, {"a": ("A1", moves, False)})
    assert result.failed == {"a": False} and result.positions == {"a": "A5"}


# --- groups --------------------------------------------------------------------------------------


def test_it_counts_orthogonal_neighbours_not_diagonal_ones() -> None:
    board = grid({"A1": "R", "B2": "R", "C3": "R", "C4": "R"})
    assert largest_group(board, "R") == 2


def test_the_cells_of_a_largest_group_are_the_ones_it_counts() -> None:
    board = grid({"A1": "R", "B2": "R", "C2": "B", "C3": "R", "H9": "R"})
    assert largest_group_cells(board, "RB") == ["B2", "C2", "C3"]
    assert len(largest_group_cells(board, "RB")) == largest_group(board, "RB")
    assert largest_group_cells(board, "R") == ["A1"]  # ties: the first met, row by row
    assert largest_group_cells(grid({}), "V") == []


def test_it_joins_the_own_colour_and_the_card() -> None:
    board = grid({"A1": "R", "B1": "B", "C1": "R", "D1": "G", "E1": "R"})
    assert largest_group(board, "R") == 1
    assert largest_group(board, "RB") == 3
    assert largest_group(board, "RBG") == 5


def test_it_counts_zero_when_no_gem_of_the_colours_is_there() -> None:
    assert largest_group(grid({"A1": "R"}), "B") == 0


def test_it_reads_a_repeated_colour_as_one() -> None:
    board = grid({"A1": "R", "A2": "R", "A3": "B"})
    assert largest_group(board, "RR") == largest_group(board, "R") == 2


def test_it_never_counts_rocks() -> None:
    with pytest.raises(ValueError, match="not a gem colour"):
        largest_group(grid({"A1": "R"}), "R#")


def test_it_refuses_no_colour() -> None:
    with pytest.raises(ValueError, match="at least one"):
        largest_group(grid({"A1": "R"}), "")


def test_it_finds_the_largest_of_several_groups() -> None:
    board = parse_board(STANDARD)
    assert largest_group(board, "R") == 10
    assert largest_group(board, "RO") == 20
    assert largest_group(board, "RY") == 10
    assert largest_group(board, "ROYGBIV") == 70


# --- the colour auction --------------------------------------------------------------------------


def test_it_gives_a_first_choice_to_the_most_negative_bid() -> None:
    result = allocate_colours({"a": (-5, "RGB"), "b": (-8, "RGB")}, seed=1)
    assert result["b"] == ("R", -8)
    # a's second choice G is free: half of -5 toward zero.
    assert result["a"] == ("G", -2)


def test_it_moves_tied_players_on_and_leaves_the_colour_free() -> None:
    bids = {"a": (-5, "RGB"), "b": (-5, "RYO"), "c": (-1, "BRG")}
    details = allocation_details(bids, seed=1)
    # Step 1: a and b tie on red, red stays free; c takes blue. Step 2: a's G and b's Y.
    assert details["c"] == {"colour": "B", "score": -1, "by": "first"}
    assert details["a"] == {"colour": "G", "score": -2, "by": "second"}
    assert details["b"] == {"colour": "Y", "score": -2, "by": "second"}


def test_it_lets_a_colour_left_by_a_tie_go_at_the_next_step() -> None:
    bids = {"a": (-5, "RGB"), "b": (-5, "RYO"), "c": (0, "ORG"), "d": (-2, "ORB")}
    details = allocation_details(bids, seed=1)
    # Step 1: red tied (a, b); orange to d. Step 2: c (second choice red) claims the free red.
    assert details["d"]["colour"] == "O"
    assert details["c"] == {"colour": "R", "score": 0, "by": "second"}


def test_it_halves_a_second_choice_toward_zero() -> None:
    result = allocate_colours({"a": (-20, "RGB"), "b": (-13, "RGB")}, seed=1)
    assert result["b"] == ("G", -6)


def test_it_quarters_a_third_choice_toward_zero() -> None:
    bids = {"a": (-20, "RGB"), "b": (-19, "GRO"), "c": (-13, "RGO")}
    # Step 1: a red, b green. Step 2: c's G is taken. Step 3: c's O: -13 / 4 -> -3.
    assert allocate_colours(bids, seed=1)["c"] == ("O", -3)


def test_it_compares_whole_bids_at_the_second_step() -> None:
    # -13 and -12 both halve to -6, but -13 is the more negative bid.
    bids = {"a": (-40, "RGB"), "b": (-13, "RYO"), "c": (-12, "RYO")}
    result = allocate_colours(bids, seed=1)
    assert result["b"] == ("Y", -6)
    assert result["c"] == ("O", -3)


def test_it_moves_a_tie_at_the_third_step_to_the_random_colours() -> None:
    bids = {"a": (-3, "RGB"), "b": (-3, "RGB")}
    details = allocation_details(bids, seed=4)
    assert {d["by"] for d in details.values()} == {"random"}
    assert {d["score"] for d in details.values()} == {0}
    assert details["a"]["colour"] != details["b"]["colour"]


def test_it_gives_random_free_colours_at_zero() -> None:
    bids = {"a": (-9, "RGB"), "b": (-9, "RGB"), "c": (-2, "ROY")}
    details = allocation_details(bids, seed=11)
    assert details["c"] == {"colour": "O", "score": -1, "by": "second"}
    for player in "ab":
        assert details[player]["by"] == "random" and details[player]["score"] == 0
        assert details[player]["colour"] not in "O"


def test_it_draws_the_same_random_colours_from_the_same_seed() -> None:
    bids = {p: (0, "RGB") for p in "abcdefg"}
    assert allocate_colours(bids, 5) == allocate_colours(bids, 5)
    draws = {tuple(allocate_colours(bids, seed)[p][0] for p in "abcdefg") for seed in range(20)}
    assert len(draws) > 1
    assert all(sorted(d) == sorted(engine.COLOURS) for d in draws)


def test_it_gives_players_without_a_bid_a_free_colour() -> None:
    details = allocation_details({"a": (-4, "RGB")}, seed=2, absent=["z"])
    assert details["a"]["colour"] == "R"
    assert details["z"]["by"] == "random" and details["z"]["colour"] != "R"


@pytest.mark.parametrize(
    ("bids", "message"),
    [
        ({"a": (1, "RGB")}, "0 or a negative"),
        ({"a": (True, "RGB")}, "whole number"),
        ({"a": (-1.5, "RGB")}, "whole number"),
        ({"a": (-1, "RRB")}, "different"),
        ({"a": (-1, "RG")}, "exactly three"),
        ({"a": (-1, "RGX")}, "exactly three"),
        ({p: (0, "RGB") for p in "abcdefgh"}, "only 7 colours"),
    ],
)
def test_it_refuses_a_malformed_bid(bids: dict, message: str) -> None:
    with pytest.raises(engine.BidError, match=message):
        allocate_colours(bids, seed=1)


def test_it_rounds_toward_zero() -> None:
    assert engine.toward_zero(-13, 2) == -6
    assert engine.toward_zero(-13, 4) == -3
    assert engine.toward_zero(-3, 4) == 0
    assert engine.toward_zero(0, 2) == 0


# --- scoring -------------------------------------------------------------------------------------


def test_it_scores_round_times_the_group_of_own_colour_and_card() -> None:
    board = grid({"A1": "R", "B1": "B", "C1": "R", "J10": "R"})
    assert round_points(board, 3, "R", "B", False) == {
        "group": 3,
        "multiplier": 3,
        "penalty": 0,
        "points": 9,
    }


def test_it_triples_the_own_card() -> None:
    board = grid({"A1": "R", "A2": "R", "B1": "B"})
    assert round_points(board, 4, "R", "R", False)["points"] == 4 * 2 * 3


def test_it_takes_a_point_for_a_failed_sequence() -> None:
    board = grid({"A1": "R", "A2": "R"})
    assert round_points(board, 2, "R", "G", True)["points"] == 2 * 2 - 1


def test_it_scores_nothing_in_round_one_but_the_penalty() -> None:
    board = grid({"A1": "R", "A2": "R"})
    assert round_points(board, 1, "R", None, False)["points"] == 0
    assert round_points(board, 1, "R", None, True)["points"] == -1


def test_it_scores_the_own_colour_alone_without_a_card() -> None:
    board = grid({"A1": "R", "A2": "R", "A3": "B"})
    assert round_points(board, 5, "R", None, False)["points"] == 10


def test_it_gives_a_garnet_per_75_points_reached() -> None:
    assert [garnets_for(t) for t in (-20, 0, 74, 75, 149, 150, 300)] == [0, 0, 0, 1, 1, 2, 4]


def test_it_gives_two_tokens_to_a_single_top() -> None:
    placing = final_placing({"a": 50, "b": 40, "c": 10})
    assert placing["tokens"] == {"a": 2, "b": 0, "c": 0}
    assert placing["elimination_candidate"] == "c" and placing["ec_tied"] == []


def test_it_gives_one_token_each_to_a_tie_of_two_or_three() -> None:
    assert final_placing({"a": 5, "b": 5, "c": 1})["tokens"] == {"a": 1, "b": 1, "c": 0}
    assert final_placing({"a": 5, "b": 5, "c": 5, "d": 1})["tokens"] == {
        "a": 1,
        "b": 1,
        "c": 1,
        "d": 0,
    }


def test_it_gives_no_token_to_a_tie_of_four() -> None:
    placing = final_placing({"a": 5, "b": 5, "c": 5, "d": 5, "e": 0})
    assert set(placing["tokens"].values()) == {0}


def test_it_leaves_a_tie_for_lowest_to_the_host() -> None:
    placing = final_placing({"a": 9, "b": 1, "c": 1})
    assert placing["elimination_candidate"] is None and placing["ec_tied"] == ["b", "c"]


def test_it_counts_garnets_in_the_placing() -> None:
    assert final_placing({"a": 160, "b": 75})["garnets"] == {"a": 2, "b": 1}


# --- a slow, obviously-correct reference ---------------------------------------------------------

DIRS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def reference_round(text: str, subs: dict[str, tuple[str, str, bool]]):
    """Every premover's k-th move at time k, everyone else's at time k + 1; one time at a time,
    each rule checked literally on a dict of (row, col) -> item."""
    rows = text.split()
    items = {(r, c): rows[r][c] for r in range(10) for c in range(10)}
    where = {p: (int(g[1:]) - 1, LETTERS.index(g[0])) for p, (g, _, _) in subs.items()}
    timetable: dict[int, list[tuple[str, str]]] = {}
    for p, (_, moves, premove) in subs.items():
        for k, m in enumerate(moves, start=1):
            timetable.setdefault(k if premove else k + 1, []).append((p, m))
    locked: set[tuple[int, int]] = set()
    stopped: set[str] = set()
    for time in sorted(timetable):
        movers = [(p, m) for p, m in timetable[time] if p not in stopped]
        start = dict(where)
        targets = {p: (start[p][0] + DIRS[m][0], start[p][1] + DIRS[m][1]) for p, m in movers}
        good = []
        for p, _ in movers:
            t = targets[p]
            on_grid = t in items
            other_gem = any(start[q] == t for q in start if q != p)
            shared = any(targets[q] == t for q, _ in movers if q != p)
            if on_grid and t not in locked and not other_gem and not shared:
                good.append(p)
            else:
                stopped.add(p)
        for p in good:
            a, b = start[p], targets[p]
            items[a], items[b] = items[b], items[a]
            locked.add(a)
            where[p] = b
    out = "\n".join("".join(items[(r, c)] for c in range(10)) for r in range(10))
    return out, {p: p in stopped for p in subs}


def random_case(rng: random.Random) -> tuple[str, dict[str, tuple[str, str, bool]]]:
    board = generate_board(rng.randrange(10**9))
    players = rng.randint(1, 7)
    colours = rng.sample(engine.COLOURS, players)
    # Half the cases crowd the gems into one corner of the grid so that players meet.
    crowd = rng.random() < 0.5
    subs = {}
    for n, colour in enumerate(colours):
        options = cells_of(board, colour)
        if crowd:
            options.sort(key=lambda name: abs(int(name[1:]) - 5) + abs(LETTERS.index(name[0]) - 5))
            options = options[:3]
        gem = rng.choice(options)
        length = rng.choice([0, 1, 2, 5, 10, 40])
        moves = []
        for _ in range(length):
            choices = "UDLR"
            if moves:  # rarely step straight back, so sequences run longer
                back = {"U": "D", "D": "U", "L": "R", "R": "L"}[moves[-1]]
                choices = choices.replace(back, "") if rng.random() < 0.9 else choices
            moves.append(rng.choice(choices))
        subs[f"p{n}"] = (gem, "".join(moves), rng.random() < 0.3)
    return format_board(board), subs


def test_it_agrees_with_the_reference_on_random_rounds() -> None:
    rng = random.Random(2026)
    failures = 0
    for _ in range(400):
        text, subs = random_case(rng)
        result = resolve_round(text, subs)
        expected_board, expected_failed = reference_round(text, subs)
        assert format_board(result.board) == expected_board, subs
        assert result.failed == expected_failed, subs
        failures += sum(expected_failed.values())
    assert failures > 100  # the cases do reach the conflict rules


def test_it_meets_every_conflict_rule_in_the_random_cases() -> None:
    rng = random.Random(2026)
    reasons: set[str] = set()
    for _ in range(400):
        text, subs = random_case(rng)
        for step in resolve_round(text, subs).steps:
            reasons |= {m["reason"] for m in step["moves"]}
    assert reasons == {None, "off_grid", "locked", "controlled", "same_target"}


# --- properties ----------------------------------------------------------------------------------

cases = st.integers(0, 2**32).map(lambda seed: random_case(random.Random(seed)))


@settings(max_examples=150, deadline=None)
@given(cases)
def test_it_keeps_every_gem_and_rock(case) -> None:
    text, subs = case
    result = resolve_round(text, subs)
    assert sorted(result.board.cells) == sorted(parse_board(text).cells)


@settings(max_examples=150, deadline=None)
@given(cases, st.randoms(use_true_random=False))
def test_it_ignores_every_move_after_a_failure(case, rng) -> None:
    text, subs = case
    result = resolve_round(text, subs)
    for player, failed in result.failed.items():
        if not failed:
            continue
        gem, moves, premove = subs[player]
        cut = result.made[player] + 1  # the moves up to and including the failed one
        tail = "".join(rng.choice("UDLR") for _ in range(rng.randint(0, 40 - cut)))
        changed = dict(subs)
        changed[player] = (gem, moves[:cut] + tail, premove)
        other = resolve_round(text, changed)
        assert other.board == result.board
        assert other.failed == result.failed
        assert other.positions == result.positions


@settings(max_examples=100, deadline=None)
@given(cases)
def test_it_locks_one_cell_per_successful_move(case) -> None:
    text, subs = case
    result = resolve_round(text, subs)
    locked = result.steps[-1]["locked"] if result.steps else []
    assert len(locked) == sum(result.made.values())
    changed = set(engine.changed_cells(text, result.board))
    assert changed <= set(locked) | set(result.positions.values())


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32), st.text("ROYGBIV", min_size=1, max_size=3))
def test_a_group_never_shrinks_when_a_colour_is_added(seed, colours) -> None:
    board = generate_board(seed)
    for extra in engine.COLOURS:
        assert largest_group(board, colours + extra) >= largest_group(board, colours)
