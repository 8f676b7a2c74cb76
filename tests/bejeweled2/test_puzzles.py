"""The 80 puzzles: 16 worlds of 5, each with its par and a stored shortest solution, checked by
replaying the solution and by the exact solver (which takes about a second for all 80)."""

from __future__ import annotations

import pytest

from games.bejeweled2.engine import has_legal_move, has_match, legal_moves, parse_board, swap
from games.bejeweled2.puzzles import PUZZLES, WORLD_SIZE
from games.bejeweled2.solver import solve

IDS = [f"{index + 1} {puzzle.title}" for index, puzzle in enumerate(PUZZLES)]


def has_rock(board: str) -> bool:
    return "#" in board


def has_bomb(board: str) -> bool:
    return any(ch.isdigit() for ch in board)


def test_there_are_eighty_puzzles_in_sixteen_worlds_of_five() -> None:
    assert len(PUZZLES) == 80 and WORLD_SIZE == 5
    assert len({p.title for p in PUZZLES}) == 80
    assert len({parse_board(p.board).cells for p in PUZZLES}) == 80


@pytest.mark.parametrize("index", range(len(PUZZLES)), ids=IDS)
def test_the_stored_solution_clears_the_board_in_par_moves(index) -> None:
    puzzle = PUZZLES[index]
    board = parse_board(puzzle.board)
    assert not has_match(board) and has_legal_move(board)
    assert len(puzzle.solution) == puzzle.par >= 2
    for a, b in puzzle.solution:
        assert not board.is_clear
        board = swap(board, a, b, None).board
    assert board.is_clear


@pytest.mark.parametrize("index", range(len(PUZZLES)), ids=IDS)
def test_the_solver_finds_no_shorter_solution_and_no_first_move_clears_the_board(index) -> None:
    puzzle = PUZZLES[index]
    board = parse_board(puzzle.board)
    assert len(solve(board).moves) == puzzle.par
    assert not any(swap(board, a, b, None).board.is_clear for a, b in legal_moves(board))


def test_the_worlds_bring_rocks_then_bombs() -> None:
    worlds = [PUZZLES[k : k + WORLD_SIZE] for k in range(0, len(PUZZLES), WORLD_SIZE)]
    plain = [not any(has_rock(p.board) or has_bomb(p.board) for p in w) for w in worlds]
    rocks = [all(has_rock(p.board) and not has_bomb(p.board) for p in w) for w in worlds]
    bombs = [all(has_bomb(p.board) for p in w) for w in worlds]
    assert plain == [True] * 6 + [False] * 10
    assert rocks == [False] * 6 + [True] * 5 + [False] * 5
    assert bombs == [False] * 11 + [True] * 5


def test_the_solutions_grow_longer_through_each_tier() -> None:
    for first, last in ((0, 30), (30, 55), (55, 80)):
        pars = [p.par for p in PUZZLES[first:last]]
        assert pars == sorted(pars) and pars[-1] - pars[0] >= 3
    assert PUZZLES[-1].par == max(p.par for p in PUZZLES) == 7
