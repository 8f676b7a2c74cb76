"""The Pointsweeper rules engine: one behaviour per test, boards built by hand.

Hand-built boards are all 0 except the squares a test names, so every sum can be checked on
paper. A small reference implementation written differently (geometry instead of move lists) is
compared with the engine on a few hundred seeded random cases at the end.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.pointsweeper.engine import (
    MINE,
    SQUARES,
    Board,
    BoardError,
    MoveError,
    check_match_board,
    claim,
    final_total,
    format_board,
    generate_board,
    legal_moves,
    parse_board,
    piece_letter,
    scout,
    scout_squares,
    triangular,
)


def board_with(cells: dict[str, int | str], default: int = 0) -> Board:
    """A board of ``default`` tiles with the named squares set."""
    grid: list[int | str] = [default] * 64
    for square, value in cells.items():
        grid[SQUARES.index(square)] = value
    return Board(tuple(grid))


# --- boards --------------------------------------------------------------------------------------


def test_it_reads_rank_8_first():
    text = "\n".join(["5 0 0 0 0 0 0 M"] + ["0 0 0 0 0 0 0 0"] * 6 + ["-2 0 0 0 0 0 0 1"])
    board = parse_board(text)
    assert board["a8"] == 5
    assert board["h8"] == MINE
    assert board["a1"] == -2
    assert board["h1"] == 1


def test_it_formats_what_it_parses():
    board = generate_board(3)
    assert parse_board(format_board(board)) == board


def test_it_ignores_blank_lines_and_accepts_lower_case_mines_and_plus_signs():
    text = "\n\n" + "\n".join(["  m +3 0 0 0 0 0 0  "] + ["0 0 0 0 0 0 0 0"] * 7) + "\n\n"
    board = parse_board(text)
    assert board["a8"] == MINE
    assert board["b8"] == 3


@pytest.mark.parametrize(
    "text, message",
    [
        ("\n".join(["0 0 0 0 0 0 0 0"] * 7), "8 lines"),
        ("\n".join(["0 0 0 0 0 0 0 0 0"] + ["0 0 0 0 0 0 0 0"] * 7), "rank 8 has 9 values"),
        ("\n".join(["6 0 0 0 0 0 0 0"] + ["0 0 0 0 0 0 0 0"] * 7), "a8 holds 6"),
        ("\n".join(["0 0 0 0 0 0 0 0"] * 7 + ["0 0 x 0 0 0 0 0"]), "c1 holds 'x'"),
        ("\n".join(["-3 0 0 0 0 0 0 0"] + ["0 0 0 0 0 0 0 0"] * 7), "-2 to 5"),
    ],
)
def test_it_refuses_a_malformed_board_with_a_reason(text, message):
    with pytest.raises(BoardError, match=message):
        parse_board(text)


def test_it_refuses_a_match_board_without_exactly_ten_mines():
    with pytest.raises(BoardError, match="exactly 10 mines"):
        check_match_board(board_with({"a1": MINE}))


def test_it_generates_ten_mines_and_54_tiles_from_minus_2_to_5():
    for seed in range(20):
        board = generate_board(seed)
        assert check_match_board(board) is board
        tiles = [c for c in board.cells if c != MINE]
        assert len(tiles) == 54
        assert all(-2 <= t <= 5 for t in tiles)


def test_it_generates_the_same_board_from_the_same_seed():
    assert generate_board(11) == generate_board(11)
    assert generate_board(11) != generate_board(12)


def test_it_generates_every_value_about_equally_often():
    counts = {v: 0 for v in range(-2, 6)}
    for seed in range(200):
        for cell in generate_board(seed).cells:
            if cell != MINE:
                counts[cell] += 1
    expected = 200 * 54 / 8
    assert all(abs(n - expected) < 0.1 * expected for n in counts.values())


# --- scouting ------------------------------------------------------------------------------------


def test_it_scouts_the_seeds_bishop_on_a3():
    expected = {"c1", "b2", "a3", "b4", "c5", "d6", "e7", "f8"}
    assert set(scout_squares("B", "a3", True)) == expected
    board = board_with({"c1": 1, "b2": 2, "a3": 3, "b4": 4, "c5": 5, "d6": -1, "e7": -2, "f8": 1})
    assert scout(board, "B", "a3", True) == (13, 0)


def test_it_counts_mines_apart_from_the_sum():
    board = board_with({"a3": 5, "b4": MINE, "f8": MINE, "c1": 2, "a4": 4})
    assert scout(board, "B", "a3", True) == (7, 2)


def test_it_scouts_a_rook_along_its_rank_and_file():
    squares = scout_squares("R", "d4", True)
    assert len(squares) == 15
    board = board_with({"d1": 1, "d8": 2, "a4": 3, "h4": 4, "d4": 5, "e5": 5})
    assert scout(board, "R", "d4", True) == (15, 0)


def test_it_scouts_a_queen_in_the_centre():
    assert len(scout_squares("Q", "d4", True)) == 28
    board = board_with({"a1": 1, "h8": 1, "a7": 1, "g1": 1, "d8": 1, "h4": 1, "b2": MINE})
    assert scout(board, "Q", "d4", True) == (6, 1)


def test_it_scouts_a_king_in_the_corner():
    assert set(scout_squares("K", "a1", True)) == {"a1", "a2", "b1", "b2"}
    assert scout(board_with({"a1": 2, "b2": 3, "c3": 5}), "K", "a1", True) == (5, 0)


def test_it_scouts_a_knight_on_its_jumps_only():
    assert set(scout_squares("N", "a1", True)) == {"a1", "b3", "c2"}
    assert len(scout_squares("N", "d4", True)) == 9
    board = board_with({"a1": 1, "b3": 2, "c2": 3, "b2": 5, "a2": MINE})
    assert scout(board, "N", "a1", True) == (6, 0)


def test_it_scouts_a_first_players_pawn_on_its_home_rank():
    assert set(scout_squares("P", "e2", True)) == {"e2", "e3", "e4", "d3", "f3"}


def test_it_scouts_a_first_players_pawn_off_its_home_rank_one_step_only():
    assert set(scout_squares("P", "e3", True)) == {"e3", "e4", "d4", "f4"}


def test_it_scouts_a_second_players_pawn_toward_rank_1():
    assert set(scout_squares("P", "e7", False)) == {"e7", "e6", "e5", "d6", "f6"}
    assert set(scout_squares("P", "e2", False)) == {"e2", "e1", "d1", "f1"}


def test_it_scouts_a_pawn_on_the_edge_file_with_one_diagonal():
    assert set(scout_squares("P", "a7", True)) == {"a7", "a8", "b8"}
    assert set(scout_squares("P", "h7", False)) == {"h7", "h6", "h5", "g6"}


@pytest.mark.parametrize("square", ["e1", "e8"])
def test_it_refuses_a_pawn_scout_on_rank_1_or_8(square):
    with pytest.raises(MoveError, match="rank 1 or 8"):
        scout(generate_board(1), "P", square, True)


def test_it_leaves_claimed_squares_out_of_a_scout():
    board = board_with({"a1": 2, "a2": MINE, "b1": 3, "b2": 4})
    assert scout(board, "K", "a1", True) == (9, 1)
    assert scout(board, "K", "a1", True, {"a2", "b1"}) == (6, 0)


def test_it_refuses_an_unknown_piece_or_square():
    with pytest.raises(MoveError, match="unknown piece"):
        scout(generate_board(1), "X", "e4", True)
    with pytest.raises(MoveError, match="no square i9"):
        scout(generate_board(1), "Q", "i9", True)


def test_it_reads_numbered_pieces_and_piece_names():
    assert piece_letter("R2") == "R"
    assert piece_letter("p8") == "P"
    assert piece_letter("knight") == "N"
    assert scout_squares("n1", "A1", True) == scout_squares("N", "a1", True)


# --- claiming ------------------------------------------------------------------------------------


def test_it_claims_the_seeds_rook_a1_a3():
    board = board_with({"a1": 1, "a2": 2, "a3": 3, "a4": 5})
    result = claim(board, "R", "a1", "a3", True)
    assert result.squares == ("a1", "a2", "a3")
    assert result.points == 6
    assert result.mines == 0


def test_it_claims_a_slider_to_the_edge():
    board = board_with({"a1": 1, "h8": 2, "d4": -2})
    result = claim(board, "Q", "a1", "h8", True)
    assert len(result.squares) == 8
    assert result.points == 1


def test_it_claims_only_the_mines_when_the_path_holds_one():
    board = board_with({"a1": 5, "a2": MINE, "a3": 5})
    result = claim(board, "R", "a1", "a3", True)
    assert result.squares == ("a2",)
    assert result.points == 0
    assert result.mines == 1


def test_it_claims_every_mine_on_the_path():
    board = board_with({"c1": MINE, "c4": 5, "c6": MINE})
    result = claim(board, "R", "c1", "c8", True)
    assert result.squares == ("c1", "c6")
    assert result.mines == 2


def test_it_lets_a_knight_jump_over_mines():
    board = board_with({"b1": 2, "b2": MINE, "c2": MINE, "c3": 4})
    result = claim(board, "N", "b1", "c3", True)
    assert result.squares == ("b1", "c3")
    assert result.points == 6


def test_it_claims_a_king_step_as_start_and_end():
    board = board_with({"e4": 1, "f5": 2})
    assert claim(board, "K", "e4", "f5", True).points == 3


def test_it_claims_a_pawns_two_step_through_the_middle_square():
    board = board_with({"d2": 1, "d3": MINE, "d4": 3})
    assert claim(board, "P", "d2", "d4", True).squares == ("d3",)
    assert claim(board_with({"d2": 1, "d3": 2, "d4": 3}), "P", "d2", "d4", True).points == 6


def test_it_claims_a_pawns_diagonal_as_start_and_end():
    board = board_with({"d5": 1, "e6": 2, "d6": MINE})
    result = claim(board, "P", "d5", "e6", True)
    assert result.squares == ("d5", "e6")
    assert result.points == 3


def test_it_moves_a_second_players_pawn_toward_rank_1():
    board = board_with({"g7": 1, "g6": 1, "g5": 1})
    assert claim(board, "P", "g7", "g5", False).points == 3
    with pytest.raises(MoveError, match="toward rank 1"):
        claim(board, "P", "g5", "g6", False)


def test_it_refuses_a_claim_that_does_not_move():
    with pytest.raises(MoveError, match="must move"):
        claim(generate_board(1), "Q", "d4", "d4", True)


@pytest.mark.parametrize(
    "piece, start, end, first",
    [
        ("R", "a1", "b2", True),
        ("B", "a1", "a2", True),
        ("N", "a1", "a3", True),
        ("K", "e4", "e6", True),
        ("Q", "a1", "b3", True),
        ("P", "e3", "e5", True),
        ("P", "e4", "e3", True),
        ("P", "e4", "f4", True),
        ("P", "e2", "e4", False),
        ("P", "e1", "e2", True),
        ("P", "e7", "e8", False),
    ],
)
def test_it_refuses_a_move_the_piece_cannot_make(piece, start, end, first):
    with pytest.raises(MoveError):
        claim(generate_board(1), piece, start, end, first)


def test_it_lets_a_pawn_step_onto_the_last_rank():
    assert claim(board_with({"b7": 1, "b8": 2}), "P", "b7", "b8", True).points == 3


def test_it_counts_nothing_for_claimed_squares():
    board = board_with({"a1": 1, "a2": 2, "a3": 3})
    result = claim(board, "R", "a1", "a3", True, {"a2"})
    assert result.squares == ("a1", "a3")
    assert result.points == 4


def test_it_does_not_hit_a_mine_already_claimed():
    board = board_with({"a1": 1, "a2": MINE, "a3": 3})
    result = claim(board, "R", "a1", "a3", True, {"a2"})
    assert result.mines == 0
    assert result.points == 4


def test_it_allows_a_claim_over_claimed_squares_only():
    result = claim(board_with({"a1": 1}), "N", "a1", "b3", True, {"a1", "b3"})
    assert result.squares == ()
    assert result.points == 0


def test_it_never_mutates_the_claimed_set():
    taken = {"a2"}
    claim(board_with({}), "R", "a1", "a3", True, taken)
    scout(board_with({}), "R", "a1", True, taken)
    assert taken == {"a2"}


def test_it_hides_tile_values_in_the_steps_of_a_claim_that_hit_a_mine():
    board = board_with({"a1": 5, "a2": MINE, "a3": 4})
    steps = claim(board, "R", "a1", "a3", True).steps
    assert steps == [
        {"kind": "hidden", "square": "a1"},
        {"kind": "mine", "square": "a2"},
        {"kind": "hidden", "square": "a3"},
    ]
    assert json.loads(json.dumps(steps)) == steps


def test_it_reports_the_path_and_steps_of_a_clean_claim():
    board = board_with({"a1": 5, "a3": 4})
    result = claim(board, "R", "a1", "a3", True, {"a2"})
    assert result.path == ("a1", "a2", "a3")
    assert [s["kind"] for s in result.steps] == ["tile", "taken", "tile"]


def test_it_counts_the_seeds_triangular_penalty():
    assert triangular(6) == 21
    assert triangular(0) == 0
    assert final_total(30, 3) == 24


# --- a reference implementation, written differently ---------------------------------------------


def _xy(square: str) -> tuple[int, int]:
    return "abcdefgh".index(square[0]), int(square[1]) - 1


def _name(x: int, y: int) -> str:
    return "abcdefgh"[x] + str(y + 1)


def ref_reach(piece: str, a: str, b: str, first: bool) -> list[str] | None:
    """The path from a to b by geometry, or None when the move is impossible."""
    (x0, y0), (x1, y1) = _xy(a), _xy(b)
    dx, dy = x1 - x0, y1 - y0
    if (dx, dy) == (0, 0):
        return None
    straight = dx == 0 or dy == 0
    diagonal = abs(dx) == abs(dy)
    line = None
    if (piece in "RQ" and straight) or (piece in "BQ" and diagonal):
        n = max(abs(dx), abs(dy))
        sx, sy = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)
        line = [_name(x0 + sx * i, y0 + sy * i) for i in range(n + 1)]
    if piece == "K" and max(abs(dx), abs(dy)) == 1:
        line = [a, b]
    if piece == "N" and sorted((abs(dx), abs(dy))) == [1, 2]:
        line = [a, b]
    if piece == "P":
        if y0 in (0, 7):
            return None
        f = 1 if first else -1
        home = 1 if first else 6
        if dx == 0 and dy == f:
            line = [a, b]
        elif dx == 0 and dy == 2 * f and y0 == home:
            line = [a, _name(x0, y0 + f), b]
        elif abs(dx) == 1 and dy == f:
            line = [a, b]
    return line


def ref_scout(board: Board, piece: str, sq: str, first: bool, claimed: set[str]):
    covered = {sq} | {s for s in SQUARES if ref_reach(piece, sq, s, first)}
    live = [board[s] for s in covered if s not in claimed]
    return sum(v for v in live if v != MINE), sum(1 for v in live if v == MINE)


def ref_claim(board: Board, piece: str, a: str, b: str, first: bool, claimed: set[str]):
    line = ref_reach(piece, a, b, first)
    if line is None:
        return None
    live = [s for s in line if s not in claimed]
    bombs = [s for s in live if board[s] == MINE]
    if bombs:
        return bombs, 0, len(bombs)
    return live, sum(board[s] for s in live), 0


def test_it_agrees_with_the_reference_on_random_scouts_and_claims():
    rng = random.Random(2026)
    for case in range(400):
        board = generate_board(case)
        claimed = set(rng.sample(SQUARES, rng.randrange(0, 30)))
        piece = rng.choice("KQRBNP")
        first = rng.random() < 0.5
        a = rng.choice(SQUARES)
        b = rng.choice(SQUARES)
        if piece == "P" and a[1] in "18":
            with pytest.raises(MoveError):
                scout(board, piece, a, first, claimed)
        else:
            assert scout(board, piece, a, first, claimed) == ref_scout(
                board, piece, a, first, claimed
            )
        expected = ref_claim(board, piece, a, b, first, claimed)
        if expected is None:
            with pytest.raises(MoveError):
                claim(board, piece, a, b, first, claimed)
        else:
            got = claim(board, piece, a, b, first, claimed)
            assert (list(got.squares), got.points, got.mines) == expected


def test_it_lists_the_same_legal_moves_as_the_reference():
    for piece in "KQRBNP":
        for first in (True, False):
            expected = {(a, b) for a in SQUARES for b in SQUARES if ref_reach(piece, a, b, first)}
            assert set(legal_moves(piece, first)) == expected


# --- properties ----------------------------------------------------------------------------------

boards = st.integers(0, 10_000).map(generate_board)
squares = st.sampled_from(SQUARES)
claimed_sets = st.sets(squares, max_size=40)


@settings(max_examples=150, deadline=None)
@given(boards, st.sampled_from("KQRBN"), squares, st.booleans(), claimed_sets)
def test_a_scouts_sum_is_the_sum_of_its_unclaimed_squares(board, piece, square, first, claimed):
    covered = [s for s in scout_squares(piece, square, first) if s not in claimed]
    total, mines = scout(board, piece, square, first, claimed)
    assert total == sum(board[s] for s in covered if board[s] != MINE)
    assert mines == sum(1 for s in covered if board[s] == MINE)


@settings(max_examples=150, deadline=None)
@given(boards, st.sampled_from("QRB"), squares, squares, claimed_sets)
def test_a_claim_never_claims_a_hidden_tile_past_a_mine(board, piece, a, b, claimed):
    try:
        result = claim(board, piece, a, b, True, claimed)
    except MoveError:
        return
    if result.mines:
        assert all(board[s] == MINE for s in result.squares)
        assert result.points == 0
        hidden = [s for s in result.path if s not in claimed and board[s] != MINE]
        assert not set(hidden) & set(result.squares)
        assert all("value" not in step for step in result.steps)
    else:
        assert set(result.squares) == set(result.path) - claimed


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_totals_equal_the_claimed_tiles_minus_the_triangular_penalty(board_seed, move_seed):
    board = generate_board(board_seed)
    rng = random.Random(move_seed)
    claimed: set[str] = set()
    points = mines = 0
    for _ in range(20):
        piece = rng.choice("KQRBNP")
        start, end = rng.choice(legal_moves(piece, True))
        result = claim(board, piece, start, end, True, claimed)
        claimed |= set(result.squares)
        points += result.points
        mines += result.mines
    tiles = sum(board[s] for s in claimed if board[s] != MINE)
    bombs = sum(1 for s in claimed if board[s] == MINE)
    assert final_total(points, mines) == tiles - bombs * (bombs + 1) // 2
