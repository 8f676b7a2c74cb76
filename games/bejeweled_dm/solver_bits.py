"""The Bejeweled death match rules on bitboards: the solver's fast internal primitive.

The rules are the engine's (``engine._Turn``); this module plays them on five colour masks so that a
turn costs a few dozen integer operations instead of loops over the 56 cells. It is checked against
the engine in tests/bejeweled_dm/test_solver.py; the engine stays the referee.

Layout: bit ``column * 8 + row`` (row 0 on top), so a column is one byte, and bit 7 of every byte
is always 0. A vertical line is three set bits in a row of one byte (shifts by 1), a horizontal
line is three bytes in a row (shifts by 8), and the spare bit stops lines and 2x2 squares from
running from one column into the next. A board is ``(colour masks, rocks)``; during a turn the
cells in no mask and not rocks are holes.
"""

from __future__ import annotations

from typing import NamedTuple

from .engine import COLOURS, COLUMNS, ROCK, ROWS, SIZE, Board

COLOUR_COUNT = len(COLOURS)
BYTE = 8
COLUMN_BITS = (1 << ROWS) - 1
ALL_CELLS = sum(COLUMN_BITS << (BYTE * column) for column in range(COLUMNS))

Masks = list[int]
"""Five colour masks, in the order of ``COLOURS``."""


def bit_of(index: int) -> int:
    """The bit of an engine cell index (``row * 8 + column``)."""
    row, column = divmod(index, COLUMNS)
    return column * BYTE + row


def index_of(bit: int) -> int:
    """The engine cell index of a bit."""
    column, row = divmod(bit, BYTE)
    return row * COLUMNS + column


BIT_OF_INDEX = tuple(bit_of(i) for i in range(SIZE))
INDEX_OF_BIT = {bit_of(i): i for i in range(SIZE)}
COLUMN_MASK = tuple(COLUMN_BITS << (BYTE * column) for column in range(COLUMNS))


def _plus_mask(bit: int) -> int:
    column, row = divmod(bit, BYTE)
    reach = 0
    for d_row, d_column in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        for step in (1, 2):
            r, c = row + d_row * step, column + d_column * step
            if 0 <= r < ROWS and 0 <= c < COLUMNS:
                reach |= 1 << (c * BYTE + r)
    return reach


PLUS_MASK = {bit_of(i): _plus_mask(bit_of(i)) for i in range(SIZE)}
COLUMN_OF_BIT = {bit_of(i): COLUMN_MASK[i % COLUMNS] for i in range(SIZE)}


def _compact_table() -> list[int]:
    """``table[empty << 7 | colour]``: where a column's gems of one colour land after gravity,
    given the column's empty cells (holes and rocks) and that colour's cells."""
    table = [0] * (1 << (2 * ROWS))
    for empty in range(1 << ROWS):
        gem_rows = [r for r in range(ROWS) if not empty >> r & 1]
        landing = dict(zip(gem_rows, range(ROWS - len(gem_rows), ROWS), strict=True))
        for colour in range(1 << ROWS):
            if colour & empty:
                continue
            landed = sum(1 << landing[r] for r in gem_rows if colour >> r & 1)
            table[empty << ROWS | colour] = landed
    return table


_COMPACT = _compact_table()


def board_masks(board: Board) -> tuple[Masks, int]:
    """A board as (colour masks, rocks)."""
    masks = [0] * COLOUR_COUNT
    rocks = 0
    for index, cell in enumerate(board.cells):
        bit = 1 << BIT_OF_INDEX[index]
        if cell == ROCK:
            rocks |= bit
        else:
            masks[COLOURS.index(cell)] |= bit
    return masks, rocks


def masks_board(masks: Masks | tuple[int, ...], rocks: int) -> Board:
    """The settled board of (colour masks, rocks); every other cell must be a rock."""
    letters = []
    for index in range(SIZE):
        bit = 1 << BIT_OF_INDEX[index]
        for colour, mask in enumerate(masks):
            if mask & bit:
                letters.append(COLOURS[colour])
                break
        else:
            letters.append(ROCK)
    return Board("".join(letters))


def colour_at(masks: Masks | tuple[int, ...], bit: int) -> int:
    """The colour index at a bit, or -1 for a rock or hole."""
    cell = 1 << bit
    for colour, mask in enumerate(masks):
        if mask & cell:
            return colour
    return -1


def find_matches(masks: Masks, bend: bool) -> int:
    """Every gem in a line of 3+ of one colour and, with Bend, every gem of a colour holding 3 or
    4 cells of a 2x2 square."""
    found = 0
    for m in masks:
        if not m:
            continue
        t = m & (m >> 1) & (m >> 2)
        if t:
            found |= t | (t << 1) | (t << 2)
        t = m & (m >> 8) & (m >> 16)
        if t:
            found |= t | (t << 8) | (t << 16)
        if bend:
            below = m >> 1
            right = m >> 8
            below_right = m >> 9
            w = (m & right & (below | below_right)) | (below & below_right & (m | right))
            if w:
                found |= (w | (w << 1) | (w << 8) | (w << 9)) & m
    return found


class Snapshot(NamedTuple):
    """The turn at an activation point (right after a look for lines removed its gems, before
    Recolor and Chain): where a Column or Plus removed since the last such point goes off."""

    masks: tuple[int, ...]
    rocks: int
    holes: int
    count: int
    seeds: int
    recolor: tuple[int, int] | None
    removed: int  # the cells removed since the previous activation point


def settle(
    masks: Masks,
    rocks: int,
    holes: int,
    count: int,
    seeds: int,
    recolor: tuple[int, int] | None,
    bend: bool,
    chain: int,
    found: int,
    removed: int,
    points: list[Snapshot] | None,
    resume: bool,
) -> tuple[int, Masks, int]:
    """The seed's loop until nothing more is removed, as ``engine._Turn.settle``: returns (count,
    masks, rocks). ``masks`` is changed in place. ``found`` is the first look for lines,
    ``removed`` the cells removed before it (picks). With ``points`` a list, a snapshot is
    appended at every activation point. With ``resume``, the loop starts right after the
    activation point (the caller has just resolved an active powerup)."""
    while True:
        while True:
            if resume:
                resume = False
            else:
                if found:
                    if chain >= 0:
                        seeds |= found & masks[chain]
                    keep = ~found
                    for colour in range(COLOUR_COUNT):
                        masks[colour] &= keep
                    holes |= found
                    count += found.bit_count()
                    removed |= found
                if removed:
                    if points is not None:
                        points.append(
                            Snapshot(tuple(masks), rocks, holes, count, seeds, recolor, removed)
                        )
                    removed = 0
            changed = False
            if recolor is not None and count:
                source, target = recolor
                recolor = None
                if masks[source]:
                    masks[target] |= masks[source]
                    masks[source] = 0
                    changed = True
            if seeds:
                gems = masks[0] | masks[1] | masks[2] | masks[3] | masks[4]
                while seeds:
                    above = (seeds >> 1) & gems
                    if not above:
                        seeds = 0
                        break
                    seeds = above & masks[chain]
                    keep = ~above
                    for colour in range(COLOUR_COUNT):
                        masks[colour] &= keep
                    gems &= keep
                    holes |= above
                    count += above.bit_count()
                    removed |= above
                    changed = True
            if not changed:
                break
            found = find_matches(masks, bend)
        if not holes:
            return count, masks, rocks
        rocks = gravity(masks, rocks, holes)
        holes = 0
        found = find_matches(masks, bend)
        if not found:
            return count, masks, rocks


def gravity(masks: Masks, rocks: int, holes: int) -> int:
    """Let the gems fall into the holes, in place; returns the new rocks."""
    compact = _COMPACT
    while holes:
        shift = ((holes & -holes).bit_length() - 1) & ~(BYTE - 1)  # the first column with holes
        column_holes = (holes >> shift) & COLUMN_BITS
        holes ^= column_holes << shift
        empty = column_holes | ((rocks >> shift) & COLUMN_BITS)
        clear = ~(COLUMN_BITS << shift)
        base = empty << ROWS
        for colour in range(COLOUR_COUNT):
            m = masks[colour]
            part = (m >> shift) & COLUMN_BITS
            if part:
                masks[colour] = (m & clear) | (compact[base | part] << shift)
        rocks = (rocks & clear) | (((1 << empty.bit_count()) - 1) << shift)
    return rocks


def remove_cells(masks: Masks, cells: int, chain: int) -> int:
    """Remove ``cells`` (gems) in place; returns the Chain seeds they start."""
    seeds = cells & masks[chain] if chain >= 0 else 0
    keep = ~cells
    for colour in range(COLOUR_COUNT):
        masks[colour] &= keep
    return seeds


def swap(masks: Masks, first: int, second: int) -> None:
    """Swap the gems at two bits, in place."""
    a = colour_at(masks, first)
    b = colour_at(masks, second)
    if a != b:
        both = (1 << first) | (1 << second)
        masks[a] ^= both
        masks[b] ^= both


def rotate_cells(top_left: int) -> tuple[int, int, int, int]:
    """The bits of a 2x2 square in clockwise order from its top-left bit."""
    return (top_left, top_left + BYTE, top_left + BYTE + 1, top_left + 1)


def rotate(masks: Masks, top_left: int) -> None:
    """Turn the 2x2 square clockwise, in place: each gem moves to the next cell clockwise."""
    cells = rotate_cells(top_left)
    colours = [colour_at(masks, bit) for bit in cells]
    square = 0
    for bit in cells:
        square |= 1 << bit
    keep = ~square
    for colour in range(COLOUR_COUNT):
        masks[colour] &= keep
    for position, bit in enumerate(cells):
        masks[colours[position - 1]] |= 1 << bit
