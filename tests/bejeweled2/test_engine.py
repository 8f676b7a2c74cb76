"""The Bejeweled 2 rules engine: one behaviour per test, boards built by hand.

Hand-built boards keep their pieces in the bottom rows under empty cells and are played without
new gems (``rng_seed=None``), so that every count can be checked on paper. Rows are listed top
(row 1) to bottom (row 8), columns A to H. At the end, a slow reference implementation written
independently is compared with the engine on seeded random boards.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.bejeweled2.engine import (
    COLOURS,
    Board,
    BoardError,
    MoveError,
    best_move,
    cell_name,
    format_board,
    generate_board,
    has_legal_move,
    has_match,
    legal_moves,
    parse_board,
    parse_cell,
    reshuffle,
    swap,
)
from games.bejeweled2.solver import solve

EMPTY_ROW = "........"
STUCK = "\n".join(("PRYGBOWP", "YGBOWPRY", "BOWPRYGB") * 2 + ("PRYGBOWP", "YGBOWPRY"))


def board(*rows: str) -> Board:
    """A board from its bottom rows; the rows above them are empty."""
    return parse_board("\n".join([EMPTY_ROW] * (8 - len(rows)) + list(rows)))


def bottom(b: Board, n: int) -> tuple[str, ...]:
    return b.rows[8 - n :]


def removals(turn) -> list[tuple[str, list[str]]]:
    return [(s["cause"], s["cells"]) for s in turn.steps if s["kind"] == "remove"]


def specials(turn) -> list[tuple[str, str]]:
    return [(s["cell"], s["piece"]) for s in turn.steps if s["kind"] == "special"]


# --- boards and cells --------------------------------------------------------------------------


def test_it_names_cells_by_column_then_row_from_the_top() -> None:
    assert cell_name(0) == "A1"
    assert cell_name(7) == "H1"
    assert cell_name(63) == "H8"
    assert parse_cell(" c4 ") == 3 * 8 + 2


def test_it_reads_a_board_back_as_the_same_text() -> None:
    text = "\n".join(["PRYGBOWP", "prygbowH", "#0123456", "789.....", *[EMPTY_ROW] * 4])
    b = parse_board(f"\n\n  {text.replace(chr(10), ' ' + chr(10) + ' ')}  \n")
    assert format_board(b) == text
    assert b["A2"] == "p"
    assert b["H2"] == "H"
    assert b["B3"] == "0"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("\n".join(["PRYGBOWP"] * 7), "7 rows"),
        ("\n".join(["PRYGBOWP"] * 7 + ["PRYGBOW"]), "row 8 has 7 cells"),
        ("\n".join(["PRYGBOWX"] + ["PRYGBOWP"] * 7), "H1: unknown piece 'X'"),
        (42, "given as text"),
    ],
)
def test_it_refuses_a_malformed_board_with_a_readable_reason(text, message) -> None:
    with pytest.raises(BoardError, match=message):
        parse_board(text)


# --- legal and illegal swaps ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ("A8", "C8", "not side by side"),
        ("C7", "D8", "not side by side"),
        ("C8", "C8", "two different cells"),
        ("Z9", "C8", "no cell Z9"),
        ("C7", "D7", "D7 is empty"),
        ("A8", "B8", "makes no line of three"),
    ],
)
def test_it_refuses_an_illegal_swap_with_a_readable_reason(a, b, message) -> None:
    b0 = board("..R.....", "RRGR....")
    with pytest.raises(MoveError, match=message):
        swap(b0, a, b, None)


@pytest.mark.parametrize("seed", ["7", 1.5, True])
def test_it_refuses_a_seed_for_new_gems_that_is_not_a_whole_number(seed) -> None:
    with pytest.raises(MoveError, match="whole number"):
        swap(board("RRGR...."), "C8", "D8", seed)


def test_it_lists_every_legal_swap_in_reading_order() -> None:
    assert legal_moves(board("..R.....", "RRGR....")) == [("C7", "C8"), ("C8", "D8")]


def test_it_accepts_the_board_as_text_and_leaves_its_input_alone() -> None:
    text = format_board(board("..R.....", "RRGY...."))
    turn = swap(text, "C7", "C8", None)
    assert bottom(turn.board, 2) == (EMPTY_ROW, "..GY....")
    assert text == format_board(board("..R.....", "RRGY...."))


# --- lines and the specials they make ------------------------------------------------------------


def test_it_removes_a_line_of_three_for_ten_points_a_gem() -> None:
    turn = swap(board("RRGR...."), "C8", "D8", None)
    assert bottom(turn.board, 1) == ("...G....",)
    assert (turn.score, turn.removed, turn.cascades) == (30, 3, 1)


def test_it_turns_the_swapped_in_gem_of_a_line_of_four_into_a_power_gem() -> None:
    turn = swap(board("..R.....", "RRGR...."), "C7", "C8", None)
    assert bottom(turn.board, 2) == ("..G.....", "..r.....")
    assert specials(turn) == [("C8", "r")]
    assert (turn.score, turn.removed) == (30 + 50, 3)


def test_it_turns_the_swapped_in_gem_of_a_line_of_five_into_a_hypercube() -> None:
    turn = swap(board("..R.....", "RRGRR..."), "C7", "C8", None)
    assert bottom(turn.board, 2) == ("..G.....", "..H.....")
    assert (turn.score, turn.removed) == (40 + 100, 4)


def test_it_turns_the_corner_of_an_l_into_a_power_gem() -> None:
    turn = swap(board("..R.....", "..R.....", "RRGR...."), "C8", "D8", None)
    assert bottom(turn.board, 3) == (EMPTY_ROW, EMPTY_ROW, "..rG....")
    assert sorted(cells for _, cells in removals(turn)) == [["C6", "C7", "A8", "B8"]]
    assert (turn.score, turn.removed) == (40 + 50, 4)


def test_it_makes_one_power_gem_from_an_l_that_holds_a_line_of_four() -> None:
    b0 = board("...R....", "...R....", "..RGRR..", "..BRBB..")
    turn = swap(b0, "C7", "D7", None)
    assert specials(turn) == [("D7", "r")]
    assert bottom(turn.board, 2) == ("..G.....", "..BrBB..")
    assert (turn.score, turn.removed) == (50 + 50, 5)


def test_it_makes_one_hypercube_from_a_line_of_five_crossed_by_a_line_of_three() -> None:
    b0 = board("...R....", "...R....", "..RGRR..", "..BRBW..", "..WRWB..")
    turn = swap(b0, "C6", "D6", None)
    assert specials(turn) == [("D6", "H")]
    assert bottom(turn.board, 3) == ("..G.....", "..B.BW..", "..WHWB..")
    assert (turn.score, turn.removed) == (60 + 100, 6)


def test_without_specials_a_line_of_four_five_or_an_l_is_removed_whole() -> None:
    four = swap(board("..R.....", "RRGR...."), "C7", "C8", None, specials=False)
    assert bottom(four.board, 2) == (EMPTY_ROW, "..G.....") and specials(four) == []
    assert (four.score, four.removed) == (40, 4)
    five = swap(board("..R.....", "RRGRR..."), "C7", "C8", None, specials=False)
    assert (five.score, five.removed) == (50, 5) and "H" not in five.board.cells
    corner = swap(board("..R.....", "..R.....", "RRGR...."), "C8", "D8", None, specials=False)
    assert (corner.score, corner.removed) == (50, 5) and specials(corner) == []


def test_the_hint_without_specials_scores_moves_as_original_plays_them() -> None:
    # C7-C8 makes a line of four (30 + 50 with a power gem, 40 without); F8-G8 makes two lines
    # of three (60 either way).
    b0 = board(".....YW.", "..R..YW.", "RRGR.WY.")
    assert (swap(b0, "C7", "C8", None).score, swap(b0, "F8", "G8", None).score) == (80, 60)
    assert swap(b0, "C7", "C8", None, specials=False).score == 40
    assert best_move(b0) == ("C7", "C8")
    assert best_move(b0, specials=False) == ("F8", "G8")


def test_a_power_gem_matches_as_its_colour() -> None:
    turn = swap(board("..R.....", "rRG....."), "C7", "C8", None)
    assert removals(turn)[0] == ("line", ["A8", "B8", "C8"])


def test_a_special_made_survives_the_blasts_of_its_own_step() -> None:
    # R r R R: B8's power gem blasts C7 but not C8, where the new power gem appears.
    turn = swap(board("..R.....", "RrGR...."), "C7", "C8", None)
    assert bottom(turn.board, 2) == (EMPTY_ROW, "..r.....")
    assert removals(turn) == [("line", ["A8", "B8", "D8"]), ("blast", ["C7"])]
    assert (turn.score, turn.removed) == (40 + 50, 4)


# --- power gems ----------------------------------------------------------------------------------


def test_a_destroyed_power_gem_destroys_its_eight_neighbours() -> None:
    b0 = board("OYRP....", "rRGW....", "GBWO....")
    turn = swap(b0, "C6", "C7", None)
    assert removals(turn) == [("line", ["A7", "B7", "C7"]), ("blast", ["A6", "B6", "A8", "B8"])]
    assert bottom(turn.board, 3) == ("...P....", "..GW....", "..WO....")
    assert (turn.score, turn.removed) == (70, 7)


def test_a_power_gem_caught_in_a_blast_explodes_too() -> None:
    b0 = board("OYRP....", "rRGW....", "GoWO....")
    turn = swap(b0, "C6", "C7", None)
    assert removals(turn)[-1] == ("blast", ["C8"])
    assert bottom(turn.board, 3) == ("...P....", "...W....", "..GO....")
    assert (turn.score, turn.removed) == (80, 8)


# --- hypercubes ----------------------------------------------------------------------------------


def test_a_hypercube_destroys_every_gem_of_the_colour_it_is_swapped_with() -> None:
    b0 = board("..R.....", "..GR.R..", "HRBGrB..")
    turn = swap(b0, "A8", "B8", None)
    assert removals(turn) == [
        ("hypercube", ["C6", "D7", "F7", "A8", "B8", "E8"]),
        ("blast", ["D8", "F8"]),
    ]
    assert bottom(turn.board, 2) == ("..G.....", "..B.....")
    assert (turn.score, turn.removed) == (80, 8)


def test_a_power_gem_swapped_with_a_hypercube_explodes_where_it_stands_after_the_swap() -> None:
    # The red power gem moves from B8 to A8; its blast is around A8 (A7, B7), not around B8,
    # so C7 and C8 stay.
    turn = swap(board("YWB.....", "OPGB....", "HrWRB..."), "A8", "B8", None)
    assert removals(turn) == [("hypercube", ["A8", "B8", "D8"]), ("blast", ["A7", "B7"])]
    assert bottom(turn.board, 3) == ("..B.....", "..G.....", "YWWBB...")
    assert (turn.score, turn.removed) == (50, 5)


def test_a_power_gem_moved_up_by_a_hypercube_blasts_around_its_new_cell() -> None:
    # The power gem goes up from B7 to B6: its blast takes the row above and beside B6, and
    # leaves row 8 (which a blast around B7 would have reached) standing.
    b0 = board("WBOY....", "YHGB....", "OrWP....", "BWRY....")
    turn = swap(b0, "B6", "B7", None)
    assert removals(turn) == [
        ("hypercube", ["B6", "B7", "C8"]),
        ("blast", ["A5", "B5", "C5", "A6", "C6", "A7", "C7"]),
    ]
    assert bottom(turn.board, 1) == ("BW.Y....",)
    assert (turn.score, turn.removed) == (100, 10)


def test_the_hypercube_fires_from_the_cell_it_moved_into() -> None:
    turn = swap(board("RH......"), "A8", "B8", None)
    fired = next(s for s in turn.steps if s["kind"] == "hypercube")
    assert (fired["cell"], fired["target"]) == ("A8", "R")
    assert removals(turn) == [("hypercube", ["A8", "B8"])]


def test_two_hypercubes_swapped_destroy_each_other_only() -> None:
    turn = swap(board("GB......", "HHRGB..."), "B8", "A8", None)
    assert bottom(turn.board, 2) == (EMPTY_ROW, "GBRGB...")
    assert (turn.score, turn.removed) == (20, 2)


def test_hypercubes_in_a_row_do_not_react_but_any_swap_of_one_is_legal() -> None:
    b0 = board("HHHR....")
    assert not has_match(b0)
    assert legal_moves(b0) == [("A8", "B8"), ("B8", "C8"), ("C8", "D8")]


def test_a_hypercube_swapped_with_a_rock_destroys_every_rock() -> None:
    turn = swap(board(".....#..", "H#G#RR.."), "A8", "B8", None)
    assert bottom(turn.board, 2) == (EMPTY_ROW, "..G.RR..")
    assert (turn.score, turn.removed) == (40, 4)


def test_a_hypercube_swapped_with_a_bomb_destroys_every_bomb_without_explosions() -> None:
    turn = swap(board("H3G5RR.."), "B8", "A8", None)
    assert bottom(turn.board, 1) == ("..G.RR..",)
    assert (turn.score, turn.removed) == (30, 3)


# --- cascades ------------------------------------------------------------------------------------


def test_a_cascade_scores_its_gems_times_its_depth() -> None:
    turn = swap(board("GYRB....", "RRYY...."), "C7", "C8", None)
    assert removals(turn) == [("line", ["A8", "B8", "C8"]), ("line", ["B8", "C8", "D8"])]
    assert bottom(turn.board, 2) == (EMPTY_ROW, "G..B....")
    assert (turn.score, turn.removed, turn.cascades) == (30 + 60, 6, 2)


def test_a_cascade_special_appears_at_the_lowest_fallen_gem_with_a_flat_bonus() -> None:
    b0 = board("....Y...", "....Y...", "..RRGR..", "..BGYO..", "..GBYB..")
    turn = swap(b0, "E6", "F6", None)
    assert specials(turn) == [("E6", "y")]
    depth_two = [s for s in turn.steps if s["kind"] == "special"][0]
    assert (depth_two["depth"], depth_two["points"]) == (2, 50)
    assert bottom(turn.board, 3) == (".....G..", "..BG.O..", "..GByB..")
    assert (turn.score, turn.removed) == (30 + 60 + 50, 6)


def test_new_gems_fill_the_board_from_a_seed_and_the_same_seed_gives_the_same_gems() -> None:
    b0 = generate_board(3)
    a, b = legal_moves(b0)[0]
    first, again = swap(b0, a, b, 99), swap(b0, a, b, 99)
    assert first.board.is_full and not has_match(first.board)
    assert (first.board, first.score, first.steps) == (again.board, again.score, again.steps)
    new = sum(len(s["cells"]) for s in first.steps if s["kind"] == "new")
    assert new == first.removed


def test_without_a_seed_no_new_gems_fall() -> None:
    b0 = generate_board(3)
    a, b = legal_moves(b0)[0]
    turn = swap(b0, a, b, None)
    assert turn.board.count(".") == turn.removed
    assert not any(s["kind"] == "new" for s in turn.steps)


# --- rocks and bombs -----------------------------------------------------------------------------


def test_rocks_never_match() -> None:
    b0 = board("##G#....")
    assert legal_moves(b0) == []
    with pytest.raises(MoveError, match="no line"):
        swap(b0, "C8", "D8", None)


def test_a_rock_moves_like_a_gem_when_swapped() -> None:
    turn = swap(board("RR#R...."), "C8", "D8", None)
    assert bottom(turn.board, 1) == ("...#....",)
    assert turn.removed == 3


def test_a_blast_destroys_a_rock() -> None:
    turn = swap(board(".#R.....", "rRG....."), "C7", "C8", None)
    assert removals(turn) == [("line", ["A8", "B8", "C8"]), ("blast", ["B7"])]
    assert bottom(turn.board, 2) == (EMPTY_ROW, "..G.....")


def test_a_bomb_counts_down_after_each_move() -> None:
    turn = swap(board("..R.....", "RRGB3..."), "C7", "C8", None)
    assert [s["bombs"] for s in turn.steps if s["kind"] == "countdown"] == [{"E8": 2}]
    assert bottom(turn.board, 1) == ("..GB2...",)


def test_a_bomb_at_zero_explodes_like_a_power_gem_as_the_next_cascade() -> None:
    turn = swap(board("..R.WP..", "RRGB1O.."), "C7", "C8", None)
    assert removals(turn)[-1] == ("bomb", ["E7", "F7", "D8", "E8", "F8"])
    assert bottom(turn.board, 2) == (EMPTY_ROW, "..G.....")
    assert (turn.score, turn.removed) == (30 + 5 * 20, 8)


def test_a_bomb_caught_in_a_blast_is_removed_without_exploding() -> None:
    turn = swap(board("..W.....", ".5R.....", "rRG....."), "C7", "C8", None)
    assert removals(turn) == [("line", ["A8", "B8", "C8"]), ("blast", ["B7"])]
    assert bottom(turn.board, 3) == (EMPTY_ROW, "..W.....", "..G.....")
    assert (turn.score, turn.removed) == (40, 4)


def test_rocks_and_bombs_fall_like_gems() -> None:
    turn = swap(board("#.......", "4.......", "RRGR...."), "C8", "D8", None)
    fall = next(s for s in turn.steps if s["kind"] == "fall")
    assert fall["moves"] == [["A7", "A8"], ["A6", "A7"]]
    assert bottom(turn.board, 2) == ("#.......", "3..G....")


def test_a_hypercube_caught_in_a_blast_is_removed_and_fires_at_nothing() -> None:
    turn = swap(board(".HR.....", "rRGB...."), "C7", "C8", None)
    assert removals(turn) == [("line", ["A8", "B8", "C8"]), ("blast", ["B7"])]
    assert not any(s["kind"] == "hypercube" for s in turn.steps)
    assert bottom(turn.board, 2) == (EMPTY_ROW, "..GB....")


def test_a_hypercube_swapped_with_a_power_gem_sets_off_every_power_gem_of_its_colour() -> None:
    # Both red power gems go: B8's (moved to A8) blasts around A8, E8's around E8.
    turn = swap(board("GWGYOB..", "HrBGrB.."), "A8", "B8", None)
    assert removals(turn) == [
        ("hypercube", ["A8", "B8", "E8"]),
        ("blast", ["A7", "B7"]),
        ("blast", ["D7", "E7", "F7", "D8", "F8"]),
    ]
    assert bottom(turn.board, 2) == ("..G.....", "..B.....")
    assert (turn.score, turn.removed) == (100, 10)


# --- stuck boards, hints, new boards -------------------------------------------------------------


def test_it_sees_a_board_with_no_legal_move() -> None:
    stuck = parse_board(
        "\n".join(("PRYGBOWP", "YGBOWPRY", "BOWPRYGB") * 2 + ("PRYGBOWP", "YGBOWPRY"))
    )
    assert not has_match(stuck)
    assert legal_moves(stuck) == []
    assert not has_legal_move(stuck)
    assert best_move(stuck) is None


def test_the_hint_is_the_legal_swap_with_the_best_immediate_score() -> None:
    b0 = board("..R.....", "RRGRR...")
    assert best_move(b0) == ("C7", "C8")  # the hypercube: 140 points
    assert best_move(board("RRGR....")) == ("C8", "D8")


def test_a_new_board_has_no_line_and_a_legal_move_and_depends_only_on_its_seed() -> None:
    for seed in range(20):
        b = generate_board(seed)
        assert b.is_full and not has_match(b) and has_legal_move(b)
        assert b == generate_board(seed)
        assert set(b.cells) <= set(COLOURS)
    assert len({generate_board(seed) for seed in range(20)}) == 20


def test_a_reshuffle_keeps_the_pieces_and_unsticks_the_board() -> None:
    stuck = parse_board(
        "\n".join(("PRYGBOWP", "YGBOWPRY", "BOWPRYGB") * 2 + ("PRYGBOWP", "YGBOWPRY"))
    )
    shuffled = reshuffle(stuck, 5)
    assert sorted(shuffled.cells) == sorted(stuck.cells)
    assert not has_match(shuffled) and has_legal_move(shuffled)
    assert shuffled == reshuffle(stuck, 5)


def test_the_steps_are_json_and_the_score_is_the_sum_of_their_points() -> None:
    b0 = board("OYRP....", "rRGW....", "GoWO....")
    turn = swap(b0, "C6", "C7", None)
    assert json.loads(json.dumps(turn.steps)) == turn.steps
    assert turn.steps[0]["kind"] == "swap" and turn.steps[0]["cells"] == ["C6", "C7"]
    assert turn.score == sum(s.get("points", 0) for s in turn.steps)


# --- the steps a page animates -------------------------------------------------------------------


def replayed(before: Board, steps: list[dict]) -> list[str]:
    """Each step's board rebuilt from the step's own facts (the swap, the cells emptied, the
    special made, the falls, the new gems, the bombs' counts), as a page without boards would."""
    g = {name: before[name] for name in map(cell_name, range(64))}
    boards = []
    for step in steps:
        kind = step["kind"]
        if kind == "swap":
            a, b = step["cells"]
            g[a], g[b] = g[b], g[a]
        elif kind == "special":
            g[step["cell"]] = step["piece"]
        elif kind == "remove":
            g.update(dict.fromkeys(step["cells"], "."))
        elif kind == "fall":
            for source, target in step["moves"]:
                g[target], g[source] = g[source], "."
        elif kind == "new":
            g.update(step["cells"])
        elif kind == "countdown":
            g.update({name: str(left) for name, left in step["bombs"].items()})
        boards.append(format_board(Board("".join(g[cell_name(i)] for i in range(64)))))
    return boards


def test_each_step_carries_the_board_after_it_and_the_score_so_far() -> None:
    b0 = board("OYRP....", "rRGW....", "GoWO....")
    turn = swap(b0, "C6", "C7", None)
    assert [s["board"] for s in turn.steps] == replayed(b0, turn.steps)
    assert turn.steps[0]["board"] == format_board(board("OYGP....", "rRRW....", "GoWO...."))
    assert turn.steps[-1]["board"] == format_board(turn.board)
    running = 0
    for step in turn.steps:
        running += step.get("points", 0)
        assert step["score"] == running
    assert turn.steps[-1]["score"] == turn.score


def test_a_removal_shows_its_cells_empty_and_a_special_shows_in_its_cell() -> None:
    turn = swap(board("..R.....", "RRBR...."), "C7", "C8", None)
    made = next(s for s in turn.steps if s["kind"] == "special")
    assert parse_board(made["board"])[made["cell"]] == made["piece"] == "r"
    removal = next(s for s in turn.steps if s["kind"] == "remove")
    assert all(parse_board(removal["board"])[cell] == "." for cell in removal["cells"])
    assert parse_board(removal["board"])[made["cell"]] == "r"


def test_a_hypercube_swap_shows_the_pieces_swapped_until_both_are_gone() -> None:
    b0 = board("..R.....", "..GR.R..", "HRBGrB..")
    turn = swap(b0, "A8", "B8", None)
    swapped, goes_off, removal = turn.steps[:3]
    assert [s["kind"] for s in (swapped, goes_off, removal)] == ["swap", "hypercube", "remove"]
    assert bottom(parse_board(swapped["board"]), 1) == ("RHBGrB..",)
    assert goes_off["board"] == swapped["board"]
    assert bottom(parse_board(removal["board"]), 1) == ("..BG.B..",)
    assert turn.steps[-1]["board"] == format_board(turn.board)


def test_every_steps_board_follows_from_the_steps_on_random_boards() -> None:
    rng = random.Random(19)
    seen: set[str] = set()
    for _ in range(150):
        b0 = random_board(rng)
        for a, b in rng.sample(legal_moves(b0), min(2, len(legal_moves(b0)))):
            turn = swap(b0, a, b, rng.choice([None, rng.randrange(1000)]))
            assert [s["board"] for s in turn.steps] == replayed(b0, turn.steps), f"{b0}\n{a} {b}"
            assert turn.steps[-1]["board"] == format_board(turn.board)
            seen.update(step.get("cause", step["kind"]) for step in turn.steps)
    assert {"special", "blast", "hypercube", "countdown", "bomb", "new"} <= seen


# --- Twilight's gravity and Finity's new pieces -------------------------------------------------


def test_with_gravity_up_pieces_fall_toward_row_one_and_new_gems_come_in_from_below() -> None:
    b1 = parse_board("\n".join(["GYRB....", "RRYY....", "OWPB....", *[EMPTY_ROW] * 5]))
    up = swap(b1, "C1", "C2", None, gravity="up")
    # Row 2's red line goes; row 3's pieces rise into row 2.
    assert up.board.rows[:3] == ("GYYB....", "OWPY....", "...B....")
    fall = next(s for s in up.steps if s["kind"] == "fall")
    assert fall["moves"] == [["A3", "A2"], ["B3", "B2"], ["C3", "C2"]]
    refilled = swap(b1, "C1", "C2", 7, gravity="up")
    new = next(s for s in refilled.steps if s["kind"] == "new")
    assert set(new["cells"]) >= {"A3", "B3", "C3", "A8", "H8"}  # from the bottom edge up
    assert "." not in refilled.board.cells


def test_gravity_is_down_or_up() -> None:
    with pytest.raises(MoveError, match="gravity"):
        swap(board("RRYR...."), "C8", "D8", None, gravity="sideways")


def test_rocks_and_bombs_fall_in_only_when_asked() -> None:
    start = generate_board(11)
    new_pieces = {False: set(), True: set()}
    for flag in (False, True):
        b0 = start
        for move in range(60):
            a, b = legal_moves(b0)[0]
            turn = swap(b0, a, b, 1000 + move, rocks_and_bombs=flag)
            for step in turn.steps:
                if step["kind"] == "new":
                    new_pieces[flag].update(step["cells"].values())
            b0 = turn.board if has_legal_move(turn.board) else reshuffle(turn.board, move)
    assert new_pieces[False] <= set(COLOURS)
    assert {"#", "9"} <= new_pieces[True]


# --- the puzzles and the solver ------------------------------------------------------------------


def test_the_solver_proves_an_unsolvable_board_has_no_solution() -> None:
    solution = solve(board("RRGR....", "GGRG...."))
    assert solution.moves is None
    assert solution.explored >= 1


def test_the_solver_finds_the_shortest_solution() -> None:
    # C6-C7 clears row 7 and drops two reds; A8-B8 clears B8-D8 and the reds cascade.
    b0 = board(".RG.....", "GGR.....", "GRGG....")
    solution = solve(b0)
    assert solution.moves == [("C6", "C7"), ("A8", "B8")]
    b = b0
    for a, c in solution.moves:
        b = swap(b, a, c, None).board
    assert b.is_clear
    assert not any(swap(b0, a, c, None).board.is_clear for a, c in legal_moves(b0))


def test_a_single_move_can_clear_a_puzzle() -> None:
    assert solve(board("RRGRGG..")).moves == [("C8", "D8")]


# --- properties ----------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), pick=st.integers(0, 1000), refill=st.integers(0, 2**32))
def test_a_move_with_new_gems_leaves_a_full_settled_board_and_replays_the_same(
    seed, pick, refill
) -> None:
    b0 = generate_board(seed)
    moves = legal_moves(b0)
    a, b = moves[pick % len(moves)]
    turn = swap(b0, a, b, refill)
    assert len(turn.board.cells) == 64 and turn.board.is_full
    assert not has_match(turn.board)
    assert turn.score == sum(s.get("points", 0) for s in turn.steps)
    assert turn == swap(b0, a, b, refill)
    removed = sum(len(s["cells"]) for s in turn.steps if s["kind"] == "remove")
    assert removed == turn.removed


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_a_puzzle_move_leaves_a_settled_board_and_removes_what_it_says(seed) -> None:
    b0 = random_board(random.Random(seed))
    moves = legal_moves(b0)
    if not moves:
        return
    a, b = moves[seed % len(moves)]
    turn = swap(b0, a, b, None)
    assert not has_match(turn.board)
    assert turn.board.count(".") - b0.count(".") == turn.removed
    for col in range(8):
        column = turn.board.cells[col::8]
        assert "." not in column.lstrip(".")  # everything has fallen
    assert turn.score == sum(s.get("points", 0) for s in turn.steps)


# --- an independent reference implementation -----------------------------------------------------
#
# Slow and written from the rules, not from the engine: the grid is a dict keyed by (row, col),
# lines are found by trying every start, groups by flood fill over lines that share a cell,
# removals as a fixed point.


def ref_colour(p: str) -> str | None:
    return p.upper() if p.upper() in COLOURS else None


def ref_lines(grid: dict) -> list[frozenset]:
    found = []
    for r in range(8):
        for c in range(8):
            colour = ref_colour(grid[r, c])
            if colour is None:
                continue
            for dr, dc in ((0, 1), (1, 0)):
                pr, pc = r - dr, c - dc
                if pr >= 0 and pc >= 0 and ref_colour(grid[pr, pc]) == colour:
                    continue  # not the start of a run
                run = []
                rr, cc = r, c
                while rr < 8 and cc < 8 and ref_colour(grid[rr, cc]) == colour:
                    run.append((rr, cc))
                    rr, cc = rr + dr, cc + dc
                if len(run) >= 3:
                    found.append(frozenset(run))
    return found


def ref_groups(lines: list[frozenset]) -> list[list[frozenset]]:
    groups = []
    left = list(lines)
    while left:
        group = [left.pop()]
        grew = True
        while grew:
            grew = False
            for line in list(left):
                if any(line & other for other in group):
                    group.append(line)
                    left.remove(line)
                    grew = True
        groups.append(group)
    return groups


def ref_destroy(grid: dict, first: set, protected: set) -> set:
    gone = {cell for cell in first if grid[cell] != "." and cell not in protected}
    exploded: set = set()
    while True:
        power = {cell for cell in gone if grid[cell].islower() and cell not in exploded}
        if not power:
            return gone
        for r, c in power:
            exploded.add((r, c))
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    n = (r + dr, c + dc)
                    if n in grid and grid[n] != "." and n not in protected:
                        gone.add(n)


def ref_fall(grid: dict) -> set:
    arrived = set()
    for c in range(8):
        pieces = [(r, grid[r, c]) for r in range(8) if grid[r, c] != "."]
        for r in range(8):
            grid[r, c] = "."
        for k, (r_from, p) in enumerate(reversed(pieces)):
            r_to = 7 - k
            grid[r_to, c] = p
            if r_to != r_from:
                arrived.add((r_to, c))
    return arrived


def ref_swap(text: str, a: str, b: str) -> tuple[str, int, int]:
    """(final cells, score, removed) without refill, by the reference rules."""
    grid = {(i // 8, i % 8): ch for i, ch in enumerate(text)}
    pa = (int(a[1:]) - 1, "ABCDEFGH".index(a[0]))
    pb = (int(b[1:]) - 1, "ABCDEFGH".index(b[0]))
    score = removed = 0
    depth = 1
    arrived: set = set()
    if "H" in (grid[pa], grid[pb]):
        grid[pa], grid[pb] = grid[pb], grid[pa]  # the swap is made before the hypercube fires
        cube, other = (pa, pb) if grid[pa] == "H" else (pb, pa)
        t = grid[other]
        if t == "H":
            hit = {pa, pb}
        elif t == "#" or t.isdigit():
            hit = {cell for cell, p in grid.items() if p == t or (t.isdigit() and p.isdigit())}
            hit.add(cube)
        else:
            hit = {cell for cell, p in grid.items() if ref_colour(p) == t.upper()} | {cube}
        gone = ref_destroy(grid, hit, set())
        score += 10 * len(gone)
        removed += len(gone)
        for cell in gone:
            grid[cell] = "."
        arrived = ref_fall(grid)
        depth = 2
        swapped: tuple = ()
    else:
        grid[pa], grid[pb] = grid[pb], grid[pa]
        swapped = (pb, pa)

    def settle(depth: int, swapped: tuple, arrived: set) -> int:
        nonlocal score, removed
        while True:
            lines = ref_lines(grid)
            if not lines:
                return depth
            sites = {}
            for group in ref_groups(lines):
                cells = set().union(*group)
                longest = max(len(line) for line in group)
                if longest < 4 and len(group) == 1:
                    continue
                inside = [s for s in swapped if s in cells]
                if depth == 1 and inside:
                    site = inside[0]
                else:
                    pool = [cell for cell in cells if cell in arrived] or list(cells)
                    site = max(pool, key=lambda rc: (rc[0], -rc[1]))
                colour = ref_colour(grid[site])
                sites[site] = "H" if longest >= 5 else colour.lower()
                score += 100 if longest >= 5 else 50
            matched = set().union(*lines)
            gone = ref_destroy(grid, matched - set(sites), set(sites))
            score += 10 * depth * len(gone)
            removed += len(gone)
            for cell in gone:
                grid[cell] = "."
            grid.update(sites)
            arrived = ref_fall(grid)
            swapped = ()
            depth += 1

    depth = settle(depth, swapped, arrived)
    bombs = [cell for cell, p in grid.items() if p.isdigit()]
    if bombs:
        for cell in bombs:
            grid[cell] = str(max(0, int(grid[cell]) - 1))
        firing = {cell for cell in bombs if grid[cell] == "0"}
        if firing:
            first = set(firing)
            for r, c in firing:
                for dr in (-1, 0, 1):
                    for dc in (-1, 0, 1):
                        if (r + dr, c + dc) in grid:
                            first.add((r + dr, c + dc))
            gone = ref_destroy(grid, first, set())
            score += 10 * depth * len(gone)
            removed += len(gone)
            for cell in gone:
                grid[cell] = "."
            arrived = ref_fall(grid)
            settle(depth + 1, (), arrived)
    cells = "".join(grid[i // 8, i % 8] for i in range(64))
    return cells, score, removed


def ref_legal(text: str) -> list[tuple[str, str]]:
    names = [f"{'ABCDEFGH'[i % 8]}{i // 8 + 1}" for i in range(64)]
    legal = []
    for i in range(64):
        for j in (i + 1, i + 8):
            if j >= 64 or (j == i + 1 and j % 8 == 0):
                continue
            if "." in (text[i], text[j]):
                continue
            if "H" in (text[i], text[j]):
                legal.append((names[i], names[j]))
                continue
            g = list(text)
            g[i], g[j] = g[j], g[i]
            grid = {(k // 8, k % 8): ch for k, ch in enumerate(g)}
            if any((i // 8, i % 8) in line or (j // 8, j % 8) in line for line in ref_lines(grid)):
                legal.append((names[i], names[j]))
    return legal


def random_board(rng: random.Random) -> Board:
    """A settled board with no line: columns of random height holding gems of a few colours and,
    now and then, power gems, hypercubes, rocks and bombs."""
    while True:
        colours = rng.sample(COLOURS, rng.randint(2, 5))
        extras = rng.choice(["", "p", "H", "#", "3", "1", "pH#1"])
        g = ["."] * 64
        for c in range(8):
            height = rng.choice([0, 2, 4, 6, 8, 8])
            for r in range(8 - height, 8):
                roll = rng.random()
                if roll < 0.08 and extras:
                    piece = rng.choice(extras)
                    g[r * 8 + c] = rng.choice(colours).lower() if piece == "p" else piece
                else:
                    g[r * 8 + c] = rng.choice(colours)
        b = Board("".join(g))
        if not has_match(b):
            return b


def test_the_engine_agrees_with_the_reference_on_random_boards() -> None:
    rng = random.Random(2026)
    compared = 0
    seen: set[str] = set()
    while compared < 300:
        b0 = random_board(rng)
        moves = legal_moves(b0)
        assert moves == ref_legal(b0.cells)
        for a, b in rng.sample(moves, min(3, len(moves))):
            turn = swap(b0, a, b, None)
            assert (turn.board.cells, turn.score, turn.removed) == ref_swap(b0.cells, a, b), (
                f"{format_board(b0)}\n{a} {b}"
            )
            compared += 1
            seen.update(step.get("cause", step["kind"]) for step in turn.steps)
    # The random boards exercise every rule, not only plain lines.
    assert {"special", "blast", "hypercube", "countdown", "bomb", "fall"} <= seen
