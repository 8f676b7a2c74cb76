"""The Bejeweled death match engine (../shared/spec/engine-api.md): the rules and the best claim.

The rules live in ``board`` (cells, boards, the boards a match deals), ``proof`` (the powerups and
a proof's text) and ``rules`` (the turn), and the exact best claim in ``solver``, which plays
those rules on bitboards; this module only gathers them under the names of the contract, so that
the match, the bots, the tools and the tests import one module. The solver imports those
modules, never this one.
"""

from __future__ import annotations

from .board import (
    COLOUR_NAMES,
    COLOURS,
    COLUMN_LETTERS,
    COLUMNS,
    HOLE,
    ROCK,
    ROWS,
    SIZE,
    Board,
    BoardError,
    Cell,
    ProofError,
    cell_name,
    format_board,
    generate_board,
    has_match,
    parse_board,
    parse_cell,
    refill_rocks,
)
from .proof import ACTIVES, PASSIVES, STARTERS, Proof, format_proof, parse_proof
from .rules import (
    Resolution,
    Step,
    resolve,
    resolve_count,
    resolve_first_use,
    resolve_second_use,
)
from .solver import best_claim

__all__ = [
    "ACTIVES",
    "COLOUR_NAMES",
    "COLOURS",
    "COLUMN_LETTERS",
    "COLUMNS",
    "HOLE",
    "PASSIVES",
    "ROCK",
    "ROWS",
    "SIZE",
    "STARTERS",
    "Board",
    "BoardError",
    "Cell",
    "Proof",
    "ProofError",
    "Resolution",
    "Step",
    "best_claim",
    "cell_name",
    "format_board",
    "format_proof",
    "generate_board",
    "has_match",
    "parse_board",
    "parse_cell",
    "parse_proof",
    "refill_rocks",
    "resolve",
    "resolve_count",
    "resolve_first_use",
    "resolve_second_use",
]
