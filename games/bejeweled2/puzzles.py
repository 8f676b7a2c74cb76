"""The Puzzle mode's boards, in the order they are played: data only.

Each puzzle is a board in the engine's text format (``.`` empty, ``#`` a rock, a digit a bomb with
that many moves left, lower case a power gem, ``H`` a hypercube). No new gems fall in Puzzle mode;
a puzzle is solved when the board is empty. Rocks appear from puzzle 8, a hypercube in puzzle 11,
bombs from puzzle 12. tests/bejeweled2/test_engine.py proves every one solvable with the exact
solver and checks the par (the fewest moves) written here.
"""

from __future__ import annotations

from dataclasses import dataclass

WORLD_SIZE = 5
"""Puzzles come in worlds of 5; solving 4 of a world's 5 opens the next."""


@dataclass(frozen=True)
class Puzzle:
    title: str
    board: str
    par: int
    """The fewest swaps that clear the board (what the solver finds)."""
    moves: str
    """A shortest solution, its swaps as ``A1-B1`` separated by spaces."""

    @property
    def solution(self) -> list[tuple[str, str]]:
        """The swaps of ``moves`` as pairs of cells."""
        return [(move[:2], move[3:]) for move in self.moves.split()]


PUZZLES: tuple[Puzzle, ...] = (
    Puzzle(
        "First steps",
        """
        ........
        ........
        ........
        ........
        ........
        ........
        ...WWGG.
        .WWGGWG.
        """,
        3,
        "E7-E8 D7-D8 D7-D8",
    ),
    Puzzle(
        "Orange peel",
        """
        ........
        ........
        ........
        ........
        ........
        ...P.O..
        ...OPPO.
        ...POPPO
        """,
        3,
        "E7-E8 F7-F8 D7-D8",
    ),
    Puzzle(
        "Traffic lights",
        """
        ........
        ........
        ........
        ...YYR..
        ...GGY..
        ...RYG..
        ..GRRY..
        ..RYRR..
        """,
        3,
        "C8-D8 E6-E7 F7-F8",
    ),
    Puzzle(
        "Snow on the roses",
        """
        ........
        ........
        ........
        ....RW..
        ...OWR..
        ...ORR..
        ...RRW..
        .WWRWO..
        """,
        4,
        "E5-F5 D8-E8 F6-F7 D7-D8",
    ),
    Puzzle(
        "Red leaves",
        """
        ........
        ........
        ........
        ....R...
        R..GR...
        G.RRW...
        G.GRR...
        WGRWW...
        """,
        5,
        "D6-E6 A8-B8 B8-C8 C7-C8 C7-C8",
    ),
    Puzzle(
        "Tidepool",
        """
        ........
        ........
        ........
        ........
        ....OB..
        ..GBGB..
        ..BOGOO.
        ..GGBGB.
        """,
        5,
        "D7-E7 C6-C7 E7-E8 E8-F8 F7-F8",
    ),
    Puzzle(
        "Stained glass",
        """
        ........
        ........
        ........
        ...BB...
        .BPPG...
        .OOGP...
        PBPOG...
        BPBOPP..
        """,
        6,
        "D6-E6 C7-D7 C7-C8 B7-C7 C8-D8 A8-B8",
    ),
    Puzzle(
        "The first rock",
        """
        ........
        ........
        ........
        ........
        ..P..#..
        ..Y.Pp..
        ..Y.PY..
        ..PYYP..
        """,
        3,
        "C8-D8 E7-E8 E7-F7",
    ),
    Puzzle(
        "Buried treasure",
        """
        ........
        ........
        .....OO.
        ...Y#OB.
        ...OoYY.
        ...BYOB.
        ...BYOO.
        ...OBYO.
        """,
        4,
        "F6-G6 D8-E8 F7-F8 E7-F7",
    ),
    Puzzle(
        "Quarry",
        """
        ........
        ........
        .W......
        .Y.W....
        .WWY....
        .W#WW...
        .#WYY...
        .YYWW...
        """,
        4,
        "B7-C7 C5-C6 B7-C7 D7-D8",
    ),
    Puzzle(
        "Rainbow and rubble",
        """
        ........
        ........
        ........
        ..O.RR..
        .RR.RR..
        .R#.O#..
        .ORORH..
        .ORO#R..
        """,
        4,
        "E6-E7 B6-C6 F6-F7 C7-C8",
    ),
    Puzzle(
        "Short fuse",
        """
        ........
        ........
        ........
        ........
        .W#3W...
        .OWOO...
        .WYWO...
        .YWYW...
        """,
        3,
        "B6-C6 D7-E7 C7-C8",
    ),
    Puzzle(
        "Timing",
        """
        ........
        ........
        ........
        ..G.....
        ..O4Y...
        ..YYGYG.
        ..GGYGY.
        ..YOOGO.
        """,
        4,
        "F8-G8 D8-E8 E7-E8 E7-E8",
    ),
    Puzzle(
        "Powder keg",
        """
        ........
        ........
        ....G...
        ..4.Rr..
        ..ROOR..
        ..OOGG..
        ..RROG..
        .R#ROO..
        """,
        4,
        "E5-E6 E5-F5 D6-D7 C7-C8",
    ),
    Puzzle(
        "Demolition",
        """
        ........
        ........
        ........
        ...RR...
        ...OGR..
        .oGORG..
        .#OG4R..
        .OGO#OO.
        """,
        4,
        "E6-F6 D7-E7 C7-D7 D8-E8",
    ),
    Puzzle(
        "Last light",
        """
        ........
        ........
        ........
        ........
        ..r.O..O
        ..ROO..R
        ..YORO.O
        ..#4RORO
        """,
        4,
        "H5-H6 E8-F8 D7-E7 C7-D7",
    ),
)
