"""How the Puzzle mode's boards were made: seeded random boards kept when the exact solver rates
them interesting. Run ``python -m games.bejeweled2.puzzle_maker`` to print candidates; the chosen
ones are written into ``puzzles.py`` with their par and a shortest solution (the tests check
both there, so this search never runs in a test).

A candidate is a settled board (everything fallen, no line standing) of a few colours in the
bottom rows, each colour present at least three times, with rocks, bombs or a power gem on the
later tiers. It is kept when the solver clears it in ``low``-``high`` moves (never one) and at
most half of its legal first moves still lead to a clear board (the rest are traps).
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass

from games.bejeweled2 import engine, solver

TIERS = {
    "gems": {"colours": (3, 4), "rocks": 0, "bombs": 0, "power": 0.2},
    "rocks": {"colours": (3, 4), "rocks": 2, "bombs": 0, "power": 0.7},
    "bombs": {"colours": (3, 4), "rocks": 1, "bombs": 1, "power": 0.5},
}
"""The recipes of the three tiers: plain gems, then rocks, then bombs (with a rock now and then).
A puzzle of par P starts with 2P + 3 to 3P + 4 gems."""


@dataclass(frozen=True)
class Candidate:
    board: str
    par: int
    moves: str
    winning_first_moves: int
    legal_first_moves: int


def random_board(rng: random.Random, tier: str, par: int) -> str:
    """A settled board with no line standing, from the tier's recipe."""
    recipe = TIERS[tier]
    while True:
        colours = rng.sample(engine.COLOURS, rng.randint(*recipe["colours"]))
        count = rng.randint(2 * par + 3, 3 * par + 4)
        pieces = [colours[k % len(colours)] for k in range(count)]
        for _ in range(rng.randint(min(1, recipe["rocks"]), recipe["rocks"])):
            pieces.append(engine.ROCK)
        for _ in range(recipe["bombs"]):
            pieces.append(str(rng.randint(2, 5)))
        if rng.random() < recipe["power"]:
            pieces[rng.randrange(count)] = pieces[rng.randrange(count)].lower()
        rng.shuffle(pieces)
        width = rng.randint(3, 6)
        left = rng.randint(0, engine.COLUMNS - width)
        columns: list[list[str]] = [[] for _ in range(width)]
        for piece in pieces:
            columns[rng.randrange(width)].append(piece)
        if any(len(column) > engine.ROWS for column in columns):
            continue
        g = [engine.EMPTY] * engine.SIZE
        for k, column in enumerate(columns):
            for depth, piece in enumerate(column):
                g[(engine.ROWS - 1 - depth) * engine.COLUMNS + left + k] = piece
        board = engine.Board("".join(g))
        colour_counts = [sum(p.upper() == c for p in pieces) for c in colours]
        if min(colour_counts) >= 3 and not engine.has_match(board) and engine.has_legal_move(board):
            return board.cells


def rate(cells: str, low: int, high: int) -> Candidate | None:
    """The candidate's rating, or None when it is not kept."""
    board = engine.Board(cells)
    try:
        found = solver.solve(board, max_boards=150_000)
    except RuntimeError:
        return None
    if found.moves is None or not low <= len(found.moves) <= high:
        return None
    first = engine.legal_moves(board)
    winning = 0
    for a, b in first:
        after = engine.swap(board, a, b, None).board
        try:
            if solver.solve(after, max_boards=150_000).solvable:
                winning += 1
        except RuntimeError:
            return None
    if winning * 2 > len(first):
        return None
    moves = " ".join(f"{a}-{b}" for a, b in found.moves)
    return Candidate(cells, len(found.moves), moves, winning, len(first))


def search(tier: str, par: int, seed: int, wanted: int) -> list[Candidate]:
    """``wanted`` kept candidates of the tier with exactly this par, from this seed."""
    rng = random.Random(seed)
    kept: list[Candidate] = []
    seen: set[str] = set()
    while len(kept) < wanted:
        cells = random_board(rng, tier, par)
        if cells in seen:
            continue
        seen.add(cells)
        candidate = rate(cells, par, par)
        if candidate is not None:
            kept.append(candidate)
    return kept


def main(argv: list[str]) -> None:
    """``tier par seed count``: print that many kept candidates."""
    tier, par, seed, wanted = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    for candidate in search(tier, par, seed, wanted):
        print(candidate.par, candidate.winning_first_moves, candidate.legal_first_moves)
        print(candidate.moves)
        print(engine.format_board(engine.Board(candidate.board)))
        print()


if __name__ == "__main__":
    main(sys.argv[1:])
