"""The boards a Glittering Paths round starts on: the shapes for a board size, a random full
board, and a host's board checked (pure: no Django, no IO; ``engine`` offers these under
engine-api.md). Every one is full, symmetric under the half turn with the gems swapped, and
gives both players a legal path.
"""

from __future__ import annotations

import random

from games.glittering_paths.boards import (
    BLUE,
    EMPTY,
    GEMS,
    MAX_COLUMNS,
    MAX_ROWS,
    PLAYERS,
    RED,
    SWAP,
    Board,
    BoardError,
    as_board,
    cell_name,
    gem_phrase,
    symmetry_problem,
)
from games.glittering_paths.pathfinding import has_legal_path


def board_shapes(area: int) -> list[tuple[int, int]]:
    """The board shapes (rows, columns) used for a target area: within 10% of it, each side 4 to
    26, sides differing by at most 4, at least one side even (so that no cell is its own
    opposite under the half turn)."""
    if not isinstance(area, int) or isinstance(area, bool) or not 16 <= area <= 400:
        raise BoardError("the board area is a whole number of cells from 16 to 400")
    shapes = [
        (rows, cols)
        for rows in range(4, 27)
        for cols in range(4, 27)
        if abs(rows * cols - area) <= area / 10
        and abs(rows - cols) <= 4
        and (rows % 2 == 0 or cols % 2 == 0)
    ]
    if not shapes:
        raise BoardError(f"no rectangular board has about {area} cells")
    return shapes


def generate_board(seed: int, round_no: int, rows: int, cols: int) -> Board:
    """A random full board for round ``round_no`` (1-3), symmetric under the half turn with the
    gems swapped; jasper and aquamarine only in round 3. Every board this returns gives both
    players a legal path (boards that do not are redrawn)."""
    if rows % 2 and cols % 2:
        raise BoardError("a symmetric full board needs an even number of rows or of columns")
    if not (1 <= rows <= MAX_ROWS and 1 <= cols <= MAX_COLUMNS) or rows * cols < 4:
        raise BoardError(f"a board has 1 to {MAX_ROWS} rows and columns and at least 4 cells")
    gems = GEMS if round_no >= 3 else "RGSL"
    rng = random.Random(seed)
    for _ in range(1000):
        grid = [[EMPTY] * cols for _ in range(rows)]
        for i in range(rows * cols // 2):
            r, c = divmod(i, cols)
            gem = rng.choice(gems)
            grid[r][c] = gem
            grid[rows - 1 - r][cols - 1 - c] = SWAP[gem]
        board = Board(tuple("".join(row) for row in grid))
        if has_legal_path(board, RED) and has_legal_path(board, BLUE):
            return board
    raise BoardError(f"could not draw a playable {rows}x{cols} board")  # pragma: no cover


def check_round_board(board: Board | str, round_no: int) -> Board:
    """A host's board for round ``round_no``: full, symmetric, no jasper or aquamarine before
    round 3, and a legal path for both players. BoardError says what is wrong."""
    b = as_board(board)
    where = f"round {round_no}'s board"
    if b.height % 2 and b.width % 2:
        raise BoardError(
            f"{where} is {b.shape}: a symmetric full board needs an even number of rows or "
            "of columns (the middle cell would be its own opposite)"
        )
    for r, row in enumerate(b.rows):
        c = row.find(EMPTY)
        if c != -1:
            raise BoardError(f"{where}: {cell_name(r, c)} is empty; a round starts on a full board")
    if round_no < 3:
        for r, row in enumerate(b.rows):
            for c, gem in enumerate(row):
                if gem in "JA":
                    raise BoardError(
                        f"{where}: {cell_name(r, c)} holds {gem_phrase(gem)}; jasper and "
                        "aquamarine appear only in round 3"
                    )
    problem = symmetry_problem(b)
    if problem:
        raise BoardError(f"{where} is not symmetric: {problem}")
    for who in PLAYERS:
        if not has_legal_path(b, who):
            raise BoardError(f"{where} gives {who} no legal path")
    return b
