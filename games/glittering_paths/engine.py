"""The Glittering Paths engine (../shared/spec/engine-api.md): the rules of a board, as a pure
library (no Django, no IO).

A move is a path: distinct cells holding gems, each side by side with the one before, turning a
right angle at every cell (the steps go across, then up or down, then across...), with an odd
number of cells, at least 3. It starts on a gem of the mover's colour; every other cell (1st, 3rd,
5th...) holds that same gem type and the cells between never do. The move scores the number of
cells of the start's type divided by the largest count of any single other gem type on the path;
then every cell of the path is emptied.

The rules live in modules beside this one, each with one job: ``boards`` (a board's text, cells,
gems and symmetry), ``paths`` (path drawing: the rules a path obeys, written once in
``path_problem``), ``scoring`` (what a path scores, the move that plays it, the totals),
``pathfinding`` (the best path, any path, a random one) and ``round_boards`` (the boards a round
starts on). This module only gathers them under the names of the contract, so that the match, the
bots, the tools and the tests import one module; the parts import each other, never this module.
"""

from __future__ import annotations

from games.glittering_paths.boards import (
    BLUE,
    BLUE_GEMS,
    COLUMN_LETTERS,
    EMPTY,
    GEM_NAMES,
    GEMS,
    GEMS_OF,
    MAX_COLUMNS,
    MAX_ROWS,
    PLAYERS,
    RED,
    RED_GEMS,
    SWAP,
    Board,
    BoardError,
    PathError,
    all_cells,
    cell_name,
    colour_of,
    format_board,
    is_symmetric,
    parse_board,
    parse_cell,
    symmetry_problem,
)
from games.glittering_paths.pathfinding import (
    best_path,
    best_path_fraction,
    has_legal_path,
    random_path,
)
from games.glittering_paths.paths import check_path, path_problem
from games.glittering_paths.round_boards import board_shapes, check_round_board, generate_board
from games.glittering_paths.scoring import (
    FOUR_PLACES,
    TWO_PLACES,
    Move,
    Step,
    add_to_total,
    as_decimal,
    path_score,
    play_path,
    round_total,
    score_fraction,
)

__all__ = [
    "BLUE",
    "BLUE_GEMS",
    "COLUMN_LETTERS",
    "EMPTY",
    "FOUR_PLACES",
    "GEMS",
    "GEMS_OF",
    "GEM_NAMES",
    "MAX_COLUMNS",
    "MAX_ROWS",
    "PLAYERS",
    "RED",
    "RED_GEMS",
    "SWAP",
    "TWO_PLACES",
    "Board",
    "BoardError",
    "Move",
    "PathError",
    "Step",
    "add_to_total",
    "all_cells",
    "as_decimal",
    "best_path",
    "best_path_fraction",
    "board_shapes",
    "cell_name",
    "check_path",
    "check_round_board",
    "colour_of",
    "format_board",
    "generate_board",
    "has_legal_path",
    "is_symmetric",
    "parse_board",
    "parse_cell",
    "path_problem",
    "path_score",
    "play_path",
    "random_path",
    "round_total",
    "score_fraction",
    "symmetry_problem",
]
