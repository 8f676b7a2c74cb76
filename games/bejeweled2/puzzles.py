"""The Puzzle mode's boards, in the order they are played: data only.

80 puzzles in 16 worlds of 5 (``WORLD_SIZE``): worlds 1-6 plain gems, 7-11 with rocks, 12-16 with
bombs (and a rock now and then), each tier from its shortest solutions to its longest (2 to 7
moves), the puzzles with fewer good first moves later among equals. Each puzzle is a board in
the engine's text format (``.`` empty, ``#`` a rock, a digit a bomb with that many moves left,
lower case a power gem, ``H`` a hypercube), its par (the fewest swaps that clear it, found by the
exact solver) and one shortest solution. No new gems fall in Puzzle mode; a puzzle is solved
when the board is empty.

Sixteen were made by hand (the first set); the other 64 by ``puzzle_maker`` (seeded random
boards kept when the solver rates them interesting). tests/bejeweled2/test_puzzles.py replays
every stored solution, checks every par with the solver and that no first move clears a board.
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
    # World 1
    Puzzle(
        "Two by two",
        """
        ........
        ........
        ........
        ........
        .WY.....
        .YG.....
        .WY.....
        .WGG....
        """,
        2,
        "B6-C6 B5-B6",
    ),
    Puzzle(
        "Three steps down",
        """
        ........
        ........
        ........
        ........
        ....YW..
        ....YW..
        ....WG..
        ...GYG..
        """,
        2,
        "E7-F7 E7-E8",
    ),
    Puzzle(
        "Little ladder",
        """
        ........
        ........
        ........
        ..O.....
        ..B.....
        ..RB....
        ..ROO...
        ..ORb...
        """,
        2,
        "C8-D8 D7-D8",
    ),
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
    # World 2
    Puzzle(
        "Slow fall",
        """
        ........
        ........
        ........
        .....R..
        .....B..
        ...rRW..
        ..YBYW..
        ..BYWB..
        """,
        3,
        "E8-F8 D7-D8 D7-D8",
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
        "Side by side",
        """
        ........
        ........
        ........
        ....P...
        ....B...
        ....WPW.
        ....PWb.
        ....PBW.
        """,
        3,
        "F6-F7 E5-E6 G7-G8",
    ),
    Puzzle(
        "Corner stone",
        """
        ........
        ........
        ........
        .......R
        .......O
        .....O.R
        ....GgOR
        ....ROGG
        """,
        3,
        "H4-H5 F6-F7 F7-F8",
    ),
    Puzzle(
        "Garden wall",
        """
        ........
        ........
        ........
        ........
        .....Y..
        ...Y.Y..
        .GYRGR..
        .GRyRY..
        """,
        3,
        "F7-F8 D7-D8 C8-D8",
    ),
    # World 3
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
        "Pebble beach",
        """
        ........
        ........
        ...Y....
        ...G....
        ..YG....
        ..OOYO..
        ..OYyG..
        ..YGOG..
        """,
        4,
        "E6-F6 C7-D7 D7-D8 F6-F7",
    ),
    Puzzle(
        "Hopscotch",
        """
        ........
        ........
        .....W..
        .....Y..
        ....RYW.
        ....RWW.
        ....wYR.
        ....WRR.
        """,
        4,
        "F6-F7 F7-G7 E7-F7 E8-F8",
    ),
    Puzzle(
        "Windowsill",
        """
        ........
        ........
        ........
        ....P.P.
        ....PGP.
        ....GPY.
        ....GYGP
        ....YGpY
        """,
        4,
        "E6-F6 F7-F8 G8-H8 G8-H8",
    ),
    Puzzle(
        "Twin towers",
        """
        ........
        ........
        .O......
        .O......
        .GGO....
        .YGY....
        .OYG....
        .oYG....
        """,
        4,
        "C6-C7 C6-D6 B6-C6 B8-C8",
    ),
    # World 4
    Puzzle(
        "Market square",
        """
        ........
        ........
        .....O..
        ...W.P..
        ...P.P..
        ...POW..
        ...WOPW.
        ...OWOO.
        """,
        4,
        "E7-E8 F7-F8 E7-E8 E8-F8",
    ),
    Puzzle(
        "Lantern row",
        """
        ........
        ........
        ..GO....
        ..PP....
        ..OGP...
        ..GPP...
        ..OPG...
        ..OGO...
        """,
        4,
        "D5-E5 C6-D6 E5-E6 E6-E7",
    ),
    Puzzle(
        "Patchwork",
        """
        ........
        ........
        ...W.p..
        ...P.P..
        ...WPG..
        ...WWG..
        ...GWW..
        ...GGP..
        """,
        4,
        "D7-E7 F6-F7 E8-F8 E7-F7",
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
    # World 5
    Puzzle(
        "Checkerboard",
        """
        .W......
        .O......
        .W.O....
        .BBO....
        .OWB....
        .BOB....
        .BWW....
        .WOO....
        """,
        5,
        "C4-D4 B7-B8 B6-C6 B5-B6 B5-B6",
    ),
    Puzzle(
        "Crossing",
        """
        ........
        ...Y....
        ..GO....
        .OYO....
        .GGY....
        .GYO....
        .YGG....
        .OOY....
        """,
        5,
        "D5-D6 B7-C7 C5-D5 C6-D6 C8-D8",
    ),
    Puzzle(
        "Rain gutter",
        """
        ........
        ....Y.Y.
        ....P.P.
        ....PPY.
        ....BYB.
        ....PBP.
        ....YBB.
        ....BPY.
        """,
        5,
        "G3-G4 F5-F6 E7-E8 F7-G7 E8-F8",
    ),
    Puzzle(
        "Cobblestones",
        """
        ........
        .....Y..
        ....PO..
        ....OO..
        ...PPY..
        ...YOY..
        ...OOPY.
        ...OPPY.
        """,
        5,
        "F7-G7 D7-D8 F7-F8 D8-E8 E7-E8",
    ),
    Puzzle(
        "Tall order",
        """
        ..r.....
        ..O.....
        .RG.....
        .GO.....
        .GO.....
        .RGR....
        .ORO....
        .RGO....
        """,
        5,
        "C6-C7 B6-C6 C6-C7 B7-B8 B7-C7",
    ),
    # World 6
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
        "Long way round",
        """
        ........
        ......Y.
        ...BB.Y.
        ...WY.W.
        ...BB.Y.
        ...yWYW.
        ...BYWW.
        ...WBYY.
        """,
        6,
        "G4-G5 E7-E8 D4-E4 D7-E7 E7-E8 D7-D8",
    ),
    Puzzle(
        "Stacked deck",
        """
        ........
        ........
        ........
        ..R.....
        .BWR....
        .RWRRW..
        .BBWWB..
        BRWBRW..
        """,
        6,
        "B6-C6 D6-D7 E7-F7 D7-D8 C7-C8 C8-D8",
    ),
    Puzzle(
        "Clockwork",
        """
        .......R
        .......W
        .....G.W
        ....RG.G
        ....GW.W
        ....GWRW
        ....RRGR
        ....RWGW
        """,
        6,
        "H3-H4 F7-F8 G6-H6 H4-H5 E5-E6 F7-F8",
    ),
    Puzzle(
        "Skyline",
        """
        .BY.....
        .YY.....
        YBO.....
        BBY.....
        YOO.....
        BYB.....
        OBO.....
        YOO.....
        """,
        6,
        "C5-C6 B5-B6 A6-B6 A8-B8 B6-B7 A8-B8",
    ),
    # World 7
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
        "Gravel path",
        """
        ........
        ........
        ..P.....
        ..Pw....
        ..##....
        ..WBB...
        ..BPW...
        ..BPW...
        """,
        3,
        "C6-D6 C6-D6 C6-C7",
    ),
    Puzzle(
        "Flint",
        """
        ........
        ........
        ........
        ........
        ......R.
        ....WORW
        ....#rOW
        ....ROWO
        """,
        3,
        "G8-H8 F6-G6 E8-F8",
    ),
    Puzzle(
        "Cairn",
        """
        ........
        ........
        ..O.....
        ..R.....
        ..Oo#...
        ..GRO...
        ..GGR...
        ..RGO...
        """,
        3,
        "C8-D8 D6-D7 D6-D7",
    ),
    Puzzle(
        "Boulder",
        """
        ........
        ........
        ........
        .......O
        .....OGG
        .....PoG
        .....PGP
        .....#PO
        """,
        3,
        "G7-G8 G8-H8 F6-G6",
    ),
    # World 8
    Puzzle(
        "Slate roof",
        """
        ........
        ........
        ..pP....
        ..#R....
        ..OR....
        .RP#....
        .OPR....
        .POP....
        """,
        4,
        "D6-D7 C8-D8 B7-B8 B7-B8",
    ),
    Puzzle(
        "Landslide",
        """
        ........
        ........
        ........
        ........
        YO#.....
        bYOB....
        BBYO....
        YOBB....
        """,
        4,
        "C7-C8 A7-B7 B7-C7 C7-D7",
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
    # World 9
    Puzzle(
        "Scree",
        """
        ........
        ....B...
        ....B...
        ....Rb..
        ...#BR..
        ...BYR..
        ...BYY..
        ...RRY..
        """,
        4,
        "D5-E5 E8-F8 E7-F7 E7-F7",
    ),
    Puzzle(
        "Old mill",
        """
        ...B....
        ...B....
        ...GB...
        ...#G...
        ..BGY...
        ..GYY...
        ..Bb#...
        ..GBY...
        """,
        4,
        "D4-E4 E7-E8 D6-E6 C8-D8",
    ),
    Puzzle(
        "Quarry floor",
        """
        ........
        ....P...
        ....O...
        ...BO...
        ...BB...
        ..BOP...
        ..pBP...
        ..#PO...
        """,
        4,
        "D8-E8 D8-E8 C6-D6 D8-E8",
    ),
    Puzzle(
        "Granite",
        """
        ........
        ........
        .#......
        .r......
        RWY.....
        WRY.....
        YYRY....
        RWWR....
        """,
        4,
        "C6-C7 A7-A8 C7-C8 B7-B8",
    ),
    Puzzle(
        "Dry stone wall",
        """
        ........
        ........
        ........
        ....W...
        ....wR..
        ....RPW.
        ...RWW#W
        ...PPRPR
        """,
        4,
        "G6-G7 F8-G8 F7-F8 E8-F8",
    ),
    # World 10
    Puzzle(
        "Cave mouth",
        """
        ........
        ..O.....
        .OOP....
        .PYP....
        .YPO....
        .#YY....
        .YPP....
        .YOO....
        """,
        5,
        "B5-B6 B6-B7 C7-D7 B6-C6 B8-C8",
    ),
    Puzzle(
        "Foundation",
        """
        ........
        ...OP...
        ...OPW..
        ...WOP..
        ...PWW..
        ...O#O..
        ...POW..
        ...WP#..
        """,
        5,
        "D4-E4 E6-E7 E5-F5 D8-E8 E7-F7",
    ),
    Puzzle(
        "Mountain pass",
        """
        ........
        ....YO..
        ...WOW..
        ...wWO..
        ...YYW..
        ...GWY..
        ...OGG..
        ...#OG..
        """,
        5,
        "E4-F4 F5-F6 D6-D7 E7-E8 D8-E8",
    ),
    Puzzle(
        "Stone circle",
        """
        ........
        ..GW....
        ..GG....
        .OoW....
        .GWW....
        .OWO....
        .OG#....
        .GOW....
        """,
        5,
        "C6-D6 B7-C7 D5-D6 B6-C6 B8-C8",
    ),
    Puzzle(
        "Bedrock",
        """
        ........
        .P......
        .Y......
        .Y#.P...
        .GY.#...
        .GGyY...
        .PYPG...
        .GPGP...
        """,
        5,
        "B7-B8 B5-C5 D7-D8 E7-E8 D7-D8",
    ),
    # World 11
    Puzzle(
        "Rubble heap",
        """
        ........
        ....PY..
        ....YP..
        ...PRY..
        ...RYR..
        ...PY#..
        ...pPY..
        ...RPR..
        """,
        5,
        "E3-F3 E7-F7 F6-F7 E7-F7 D6-E6",
    ),
    Puzzle(
        "Keystone",
        """
        ...B....
        ...P....
        ...Y....
        ...B....
        ..PP....
        .BPYy...
        .YBP#Y..
        .BYPBY..
        """,
        6,
        "D5-D6 B7-C7 C7-D7 E7-E8 C8-D8 E7-E8",
    ),
    Puzzle(
        "Heavy lifting",
        """
        ........
        ........
        ...Y....
        ...YW...
        .RR#W...
        .RWYY...
        .WYWRY..
        .WRRWR..
        """,
        6,
        "E7-E8 E6-E7 D7-D8 E7-E8 B8-C8 D8-E8",
    ),
    Puzzle(
        "Deep mine",
        """
        ...W....
        ...BWW..
        ...WOO..
        ...WBB..
        ...OWB..
        ...WB#..
        ...BOw..
        ...OBO..
        """,
        6,
        "E6-F6 D5-D6 D7-E7 E5-E6 E7-F7 D7-E7",
    ),
    Puzzle(
        "Cliff edge",
        """
        ........
        .....O..
        .....O..
        .....W.G
        ...WOOWG
        ...OO#WO
        ...GG#GG
        ...OWGgW
        """,
        6,
        "F7-F8 F6-F7 G8-H8 F7-F8 D7-D8 H7-H8",
    ),
    # World 12
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
        "Countdown",
        """
        ........
        .....#..
        .....O..
        ....PO..
        ....W3..
        ...OOW..
        ...WWP..
        ...PWP..
        """,
        3,
        "E6-F6 F5-F6 D7-D8",
    ),
    Puzzle(
        "Match head",
        """
        ........
        ....B...
        ....B...
        ...PG...
        ...GP...
        ...P#P..
        ...BG3..
        ...GBB..
        """,
        3,
        "D5-E5 E6-E7 D7-E7",
    ),
    Puzzle(
        "Spark",
        """
        ........
        ........
        ........
        .....R..
        .....R..
        ....O#OO
        ....rOW4
        ....WWRW
        """,
        3,
        "E6-F6 G7-G8 E8-F8",
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
    # World 13
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
        "Firecracker",
        """
        .....4..
        .....#P.
        .....RB.
        .....RB.
        .....PR.
        .....BPP
        .....BPr
        .....RRB
        """,
        4,
        "F5-F6 F5-G5 F7-G7 H7-H8",
    ),
    Puzzle(
        "Blasting cap",
        """
        ........
        .....W..
        .....R..
        .....R..
        ....RWW.
        ....#RP.
        ...P4PP.
        ...rPRW.
        """,
        4,
        "D7-E7 E6-F6 F7-G7 F7-F8",
    ),
    # World 14
    Puzzle(
        "Powder trail",
        """
        ........
        ...Y....
        ...OY...
        ...YO...
        ...WWO..
        ...Y#W..
        ...WWO..
        ...oO4..
        """,
        4,
        "F5-F6 D3-D4 E5-E6 F7-F8",
    ),
    Puzzle(
        "Tick tock",
        """
        ........
        ........
        ........
        ..OG....
        PP#O....
        OOPP....
        PGG5....
        GOGG....
        """,
        4,
        "B5-B6 C5-C6 B7-B8 D7-D8",
    ),
    Puzzle(
        "Slow burn",
        """
        ........
        .....5..
        ...Y.P..
        ...Y.B..
        ...PBY..
        ...BPB..
        ...BbP..
        ...Y#P..
        """,
        4,
        "E5-E6 E6-F6 D6-E6 F7-F8",
    ),
    Puzzle(
        "Detonator",
        """
        ....W...
        ....W...
        ..5RR...
        ..BWB...
        ..BBR...
        ..#BW...
        ..RRW...
        ..RWB...
        """,
        5,
        "D4-E4 E3-E4 D8-E8 D7-D8 C8-D8",
    ),
    Puzzle(
        "Fuse box",
        """
        ........
        ..WB....
        ..OO....
        ..BO....
        ..OB....
        ..OB....
        ..BWW#o.
        ..OBB5WW
        """,
        5,
        "C3-C4 D7-D8 C5-D5 C8-D8 E7-E8",
    ),
    # World 15
    Puzzle(
        "Flashpoint",
        """
        .....W..
        .....YY.
        .....WPY
        .....WWP
        .....PYW
        .....5YY
        .....P#w
        .....PWP
        """,
        5,
        "H4-H5 F5-F6 G5-H5 H7-H8 F7-F8",
    ),
    Puzzle(
        "Demolition day",
        """
        ........
        ........
        ....RR..
        ....RRP.
        ....4WP.
        ....RP#.
        ...PPWW.
        ...WWPW.
        """,
        5,
        "E5-E6 F8-G8 F7-F8 F8-G8 G7-G8",
    ),
    Puzzle(
        "Chain reaction",
        """
        ..G.....
        W.B.....
        G5g.....
        GGB.....
        BBW.....
        G#B.....
        GWB.....
        WGW.....
        """,
        5,
        "A5-A6 C4-C5 A5-A6 A6-A7 B6-B7",
    ),
    Puzzle(
        "Short notice",
        """
        ...2....
        ...W....
        ...BY...
        ...BW...
        ...R#.Y.
        ...BWRR.
        ...YRYR.
        ...BYrB.
        """,
        5,
        "D5-D6 D5-E5 D6-E6 D8-E8 F7-F8",
    ),
    Puzzle(
        "Kaboom",
        """
        ........
        B.......
        5.......
        GP..P...
        PG.PP...
        GBGGB...
        BGBPG...
        P#pBB...
        """,
        6,
        "A5-B5 A6-B6 E6-E7 C7-C8 D8-E8 B7-B8",
    ),
    # World 16
    Puzzle(
        "Sapper",
        """
        ........
        ......Y.
        .....RG.
        .....RR.
        .....#GY
        ...G.YRY
        ...YRGYG
        ...5GyYG
        """,
        6,
        "G6-H6 G6-G7 E7-F7 F7-F8 E8-F8 F7-F8",
    ),
    Puzzle(
        "Last second",
        """
        G.Y.....
        2GY.....
        YRR.....
        RRY.....
        RG#.....
        GYG.....
        GRG.....
        RYY.....
        """,
        6,
        "B5-B6 A6-B6 C4-C5 B6-B7 A7-A8 C7-C8",
    ),
    Puzzle(
        "Timed charge",
        """
        ........
        ....R...
        ..O4P...
        ..RPP...
        .O#RR...
        .OPRO...
        .PROO...
        .PROP...
        """,
        6,
        "B6-C6 C6-C7 C5-C6 E7-E8 B8-C8 B8-C8",
    ),
    Puzzle(
        "Minefield",
        """
        ........
        ......#.
        .....RO.
        ....GOR.
        ...OOGR.
        ...GORO.
        ...GGRR.
        ...5RGO.
        """,
        6,
        "F3-G3 F7-F8 F5-F6 E7-E8 F6-F7 F8-G8",
    ),
    Puzzle(
        "Grand finale",
        """
        ........
        ...RPR..
        ...pBP..
        ...PBRR.
        ...BRBP.
        ...PBRB.
        ...#B5B.
        ...RPPR.
        """,
        7,
        "D5-E5 D5-D6 F5-G5 E7-F7 E7-F7 E7-E8 F7-F8",
    ),
)
