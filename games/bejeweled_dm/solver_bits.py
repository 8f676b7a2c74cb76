"""The Bejeweled death match rules on bitboards: the solver's kernels, written once.

The rules are the engine's (``rules._Turn``); here they are played on five colour masks (the
layout is bitboard.py's), so that a turn costs a few dozen integer operations instead of loops
over the 56 cells. The kernels (the functions marked ``@kernel``) are compiled by numba when it
is installed and run as plain Python when it is not (jit.py); ``interpreted()`` gives the plain
Python kernels even where numba compiles them. They are all in this one file, since numba's cache
on disk does not see a change to a kernel called from another file. One text serves both ways
because the kernels keep to what both run alike:

- A mask is an int below 2**63 (bit 63 is never set): numba makes it an int64, Python an int.
  Nothing relies on an int64 wrapping around where a Python int would grow instead: a shift left
  never carries a bit past bit 62, and ``popcount`` masks the one product that passes 2**64.
- A kernel allocates no array: the caller passes every one (``zeros``, ``array``), numpy int64
  arrays to the compiled kernels and lists to the interpreted ones, so that plain Python works on
  Python ints throughout.

The tests run both ways against the engine and the exhaustive search (tests/bejeweled_dm/
test_solver.py); the engine stays the referee.
"""

from __future__ import annotations

import sys
from functools import cache
from types import ModuleType
from typing import Any

from . import jit
from .bitboard import (
    BYTE,
    COLOUR_COUNT,
    COLUMN_BITS,
    INDEX_OF_BIT,
    PICK,
    ROTATE,
    SWAP,
    compact_table,
    plus_mask,
)
from .board import COLUMNS, ROWS

_MODE = jit.mode(globals())
COMPILED: bool = _MODE.compiled
"""Whether the kernels of this module are compiled."""
kernel = _MODE.kernel
zeros = _MODE.zeros
array = _MODE.array


@cache
def interpreted() -> ModuleType:
    """The kernels as plain Python: this module itself when it is not compiled; else this module
    loaded a second time with numba left out, as it runs where numba is not installed."""
    if not COMPILED:
        return sys.modules[__name__]
    return jit.plain_copy(sys.modules[__name__])


# --- the tables the kernels read, and their scratch arrays ---------------------------------------

POINT_FIELDS = 12  # five masks, rocks, holes, count, seeds, recolor source and target, removed
MAX_POINTS = 64  # every activation point follows a removal, and there are 56 gems at most
SCRATCH_ROWS = 6  # rows of 64 for the kernels' own lists (see ``Scratch``)

_COMPACT = array(compact_table())
_PLUS = array([plus_mask(bit) if bit in INDEX_OF_BIT else 0 for bit in range(64)])
_COLUMN = array(
    [COLUMN_BITS << (bit & ~(BYTE - 1)) if bit in INDEX_OF_BIT else 0 for bit in range(64)]
)
_M1 = 0x5555555555555555
_M2 = 0x3333333333333333
_M4 = 0x0F0F0F0F0F0F0F0F
_H01 = 0x0101010101010101


class Scratch:
    """The arrays one search lends the kernels: the activation points of a turn (``points``), the
    board a turn is played into (``grid``) and working rows (``rows``)."""

    def __init__(self) -> None:
        self.points = zeros(MAX_POINTS, POINT_FIELDS)
        self.grid = zeros(COLOUR_COUNT)
        self.rows = zeros(SCRATCH_ROWS, 64)


# --- the kernels -----------------------------------------------------------------------------


@kernel
def popcount(x: int) -> int:
    """The number of set bits of a mask: the bits summed by pairs, nibbles and bytes, then the
    bytes added up by one product, whose top byte is the count. The product passes 2**64 (a Python
    int grows, an int64 wraps), so the top byte is read through a mask: bits 56-63 are the same
    both ways. (LLVM knows this form: compiled, it is one popcnt instruction.)"""
    x = x - ((x >> 1) & _M1)
    x = (x & _M2) + ((x >> 2) & _M2)
    x = (x + (x >> 4)) & _M4
    return ((x * _H01) >> 56) & 0xFF


@kernel
def lowest_bit(mask: int) -> int:
    """The index of the lowest set bit of a mask that is not 0."""
    return popcount((mask & -mask) - 1)


@kernel
def find_matches(grid: Any, bend: bool) -> int:
    """Every gem in a line of 3+ of one colour and, with Bend, every gem of a colour holding 3 or
    4 cells of a 2x2 square."""
    found = 0
    for colour in range(COLOUR_COUNT):
        m = grid[colour]
        if m == 0:
            continue
        t = m & (m >> 1) & (m >> 2)
        if t:
            found |= t | (t << 1) | (t << 2)
        t = m & (m >> BYTE) & (m >> (2 * BYTE))
        if t:
            found |= t | (t << BYTE) | (t << (2 * BYTE))
        if bend:
            below = m >> 1
            right = m >> BYTE
            below_right = m >> (BYTE + 1)
            w = (m & right & (below | below_right)) | (below & below_right & (m | right))
            if w:
                found |= (w | (w << 1) | (w << BYTE) | (w << (BYTE + 1))) & m
    return found


@kernel
def gravity(grid: Any, rocks: int, holes: int) -> int:
    """Let the gems fall into the holes, in place; returns the new rocks."""
    for column in range(COLUMNS):
        shift = column * BYTE
        column_holes = (holes >> shift) & COLUMN_BITS
        if column_holes == 0:
            continue
        empty = column_holes | ((rocks >> shift) & COLUMN_BITS)
        clear = ~(COLUMN_BITS << shift)
        base = empty << ROWS
        for colour in range(COLOUR_COUNT):
            m = grid[colour]
            part = (m >> shift) & COLUMN_BITS
            if part:
                grid[colour] = (m & clear) | (_COMPACT[base | part] << shift)
        rocks = (rocks & clear) | (((1 << popcount(empty)) - 1) << shift)
    return rocks


@kernel
def remove(grid: Any, cells: int) -> None:
    """Remove ``cells`` (gems) in place."""
    keep = ~cells
    for colour in range(COLOUR_COUNT):
        grid[colour] &= keep


@kernel
def colour_at(grid: Any, bit: int) -> int:
    """The colour index at a bit, or -1 for a rock or hole."""
    for colour in range(COLOUR_COUNT):
        if (grid[colour] >> bit) & 1:
            return colour
    return -1


@kernel
def rotate_cells(top_left: int) -> tuple[int, int, int, int]:
    """The bits of a 2x2 square in clockwise order from its top-left bit."""
    return (top_left, top_left + BYTE, top_left + BYTE + 1, top_left + 1)


@kernel
def settle(
    grid: Any,
    rocks: int,
    holes: int,
    count: int,
    seeds: int,
    source: int,
    target: int,
    bend: bool,
    chain: int,
    found: int,
    removed: int,
    points: Any,
    record: bool,
    resume: bool,
) -> tuple[int, int, int]:
    """The seed's loop until nothing more is removed, as ``rules._Turn.settle``: (count, rocks,
    activation points recorded); ``grid`` is changed in place. ``found`` is the first look for
    lines, ``removed`` the cells removed before it (picks); Recolor is ``source`` -> ``target``
    while pending (``source`` -1 when not), Chain the colour ``chain`` (or -1) with ``seeds``
    the removed gems of that colour not yet chained from. With ``record``, a row of ``points``
    is written at every activation point (right after a look for lines removed its gems, before
    Recolor and Chain): the board, holes, count, seeds, pending Recolor and the cells removed
    since the previous point, where a Column or Plus removed among them goes off. With
    ``resume``, the loop starts right after an activation point (the caller has just resolved an
    active powerup there)."""
    recorded = 0
    while True:
        while True:
            if resume:
                resume = False
            else:
                if found:
                    if chain >= 0:
                        seeds |= found & grid[chain]
                    remove(grid, found)
                    holes |= found
                    count += popcount(found)
                    removed |= found
                if removed:
                    if record:
                        row = points[recorded]
                        for colour in range(COLOUR_COUNT):
                            row[colour] = grid[colour]
                        row[5] = rocks
                        row[6] = holes
                        row[7] = count
                        row[8] = seeds
                        row[9] = source
                        row[10] = target
                        row[11] = removed
                        recorded += 1
                    removed = 0
            changed = False
            if source >= 0 and count:
                if grid[source]:
                    grid[target] |= grid[source]
                    grid[source] = 0
                    changed = True
                source = -1
                target = -1
            if seeds:
                gems = grid[0] | grid[1] | grid[2] | grid[3] | grid[4]
                while seeds:
                    above = (seeds >> 1) & gems
                    if above == 0:
                        seeds = 0
                        break
                    seeds = above & grid[chain]
                    remove(grid, above)
                    gems &= ~above
                    holes |= above
                    count += popcount(above)
                    removed |= above
                    changed = True
            if not changed:
                break
            found = find_matches(grid, bend)
        if holes == 0:
            return count, rocks, recorded
        rocks = gravity(grid, rocks, holes)
        holes = 0
        found = find_matches(grid, bend)
        if found == 0:
            return count, rocks, recorded


@kernel
def play(
    start: Any,
    rocks: int,
    kind: int,
    first: int,
    second: int,
    bend: bool,
    chain: int,
    source: int,
    target: int,
    settled: bool,
    points: Any,
    record: bool,
    grid: Any,
) -> tuple[int, int, int]:
    """One starter use with no active on the board, and the turn until it settles, into ``grid``:
    (count, rocks, activation points recorded). ``kind`` is SWAP, ROTATE or PICK, ``first`` and
    ``second`` its bits (``second`` -1 for a Pick of one gem, unused by Rotate). ``settled`` says
    the board has nothing to remove before the starter (then a Pick cannot make a line before
    gravity: holes only break lines)."""
    for colour in range(COLOUR_COUNT):
        grid[colour] = start[colour]
    if kind == PICK:
        picked = 1 << first
        if second >= 0:
            picked |= 1 << second
        seeds = 0
        if chain >= 0:
            seeds = picked & grid[chain]
        remove(grid, picked)
        if source >= 0:
            grid[target] |= grid[source]
            grid[source] = 0
            settled = False
        found = 0
        if not settled:
            found = find_matches(grid, bend)
        return settle(
            grid,
            rocks,
            picked,
            popcount(picked),
            seeds,
            -1,
            -1,
            bend,
            chain,
            found,
            picked,
            points,
            record,
            False,
        )
    if kind == SWAP:
        a = colour_at(grid, first)
        b = colour_at(grid, second)
        if a != b:
            both = (1 << first) | (1 << second)
            grid[a] ^= both
            grid[b] ^= both
    else:
        # Each gem of the square moves to the next cell clockwise.
        cells = rotate_cells(first)
        colours = (
            colour_at(grid, cells[0]),
            colour_at(grid, cells[1]),
            colour_at(grid, cells[2]),
            colour_at(grid, cells[3]),
        )
        square = (1 << cells[0]) | (1 << cells[1]) | (1 << cells[2]) | (1 << cells[3])
        remove(grid, square)
        for position in range(4):
            grid[colours[(position + 3) % 4]] |= 1 << cells[position]
    found = find_matches(grid, bend)
    if found == 0 and settled:
        return 0, rocks, 0
    return settle(
        grid, rocks, 0, 0, 0, source, target, bend, chain, found, 0, points, record, False
    )


@kernel
def best_activation(
    points: Any,
    recorded: int,
    column: bool,
    bend: bool,
    chain: int,
    plain: int,
    rows: Any,
) -> tuple[int, int, int, int]:
    """The best count of a Column (or a Plus) going off at any cell removed in the plain turn,
    which counts ``plain`` and recorded its activation points in ``points``: the turn resumed
    from each point, once for each distinct set of gems in reach. Returns (best count or -1,
    turns resumed, the cell (bit) and activation point where the best went off, or -1)."""
    reach_of = _COLUMN if column else _PLUS
    best = -1
    best_bit = -1
    best_point = -1
    resumed = 0
    tried = rows[0]
    grid = rows[1]
    for p in range(recorded):
        row = points[p]
        gems = row[0] | row[1] | row[2] | row[3] | row[4]
        tried_count = 0
        removed = row[11]
        while removed:
            bit = lowest_bit(removed)
            removed ^= 1 << bit
            targets = reach_of[bit] & gems
            seen = False
            for t in range(tried_count):
                if tried[t] == targets:
                    seen = True
                    break
            if seen:
                continue
            tried[tried_count] = targets
            tried_count += 1
            if targets == 0:
                # Nothing in reach: the turn goes on as the plain turn does.
                if plain > best:
                    best = plain
                    best_bit = bit
                    best_point = p
                continue
            resumed += 1
            for colour in range(COLOUR_COUNT):
                grid[colour] = row[colour]
            seeds = row[8]
            if chain >= 0:
                seeds |= targets & grid[chain]
            remove(grid, targets)
            count, _, _ = settle(
                grid,
                row[5],
                row[6] | targets,
                row[7] + popcount(targets),
                seeds,
                row[9],
                row[10],
                bend,
                chain,
                0,
                0,
                points,
                False,
                True,
            )
            if count > best:
                best = count
                best_bit = bit
                best_point = p
    return best, resumed, best_bit, best_point


@kernel
def first_use(
    start: Any,
    rocks: int,
    kind: int,
    first: int,
    second: int,
    bend: bool,
    chain: int,
    source: int,
    target: int,
    gem_count: int,
    column: bool,
    plus: bool,
    points: Any,
    grid: Any,
    rows: Any,
) -> tuple[int, int, int, int, int, int, int, int, int]:
    """The plain first use into ``grid`` and the best Column and Plus over every placement:
    (count, rocks, best Column, best Plus, turns resumed, then for Column and for Plus the cell
    and activation point where the best went off, or -1 when the plain count is the best); a
    best is -1 when not asked. An active the plain turn never removes counts the plain count,
    unless that turn removes every gem (then one of them held the active)."""
    record = column or plus
    count, settled_rocks, recorded = play(
        start, rocks, kind, first, second, bend, chain, source, target, False, points, record, grid
    )
    plain = count if count < gem_count else -1
    best_column = -1
    best_plus = -1
    column_bit = column_point = plus_bit = plus_point = -1
    resumed = 0
    if column:
        best, n, column_bit, column_point = best_activation(
            points, recorded, True, bend, chain, count, rows
        )
        if plain > best:
            best, column_bit, column_point = plain, -1, -1
        best_column = best
        resumed += n
    if plus:
        best, n, plus_bit, plus_point = best_activation(
            points, recorded, False, bend, chain, count, rows
        )
        if plain > best:
            best, plus_bit, plus_point = plain, -1, -1
        best_plus = best
        resumed += n
    return (
        count,
        settled_rocks,
        best_column,
        best_plus,
        resumed,
        column_bit,
        column_point,
        plus_bit,
        plus_point,
    )


@kernel
def near(columns: int) -> int:
    """The columns (bit c for column c) within two of the given ones: where a line through them
    can reach."""
    return (columns | (columns << 1) | (columns << 2) | (columns >> 1) | (columns >> 2)) & 0xFF


@kernel
def changed_columns(before: int, after: int) -> int:
    """The columns whose rocks differ: those where anything was removed."""
    changed = before ^ after
    columns = 0
    for column in range(COLUMNS):
        if (changed >> (column * BYTE)) & COLUMN_BITS:
            columns |= 1 << column
    return columns


@kernel
def best_second_pick(
    masks: Any, rocks: int, bend: bool, chain: int, points: Any, rows: Any
) -> tuple[int, int, int, int, int]:
    """Pick on a settled board: every gem, then every pair of gems of different colours. Two
    picks whose turns only touch columns more than two apart never meet (every line or square
    that forms runs through a gem that moved, and reaches two columns at most), so the pair
    counts what the two single picks count. Returns (best count, first bit, second bit or -1,
    turns played, pairs summed); the bits are -1 when nothing is better than 0."""
    gem_bits = rows[0]
    colours = rows[1]
    counts = rows[2]
    columns = rows[3]
    reach = rows[4]
    grid = rows[5]
    gems = masks[0] | masks[1] | masks[2] | masks[3] | masks[4]
    n = 0
    while gems:
        bit = lowest_bit(gems)
        gems ^= 1 << bit
        gem_bits[n] = bit
        colours[n] = colour_at(masks, bit)
        n += 1
    best = 0
    best_first = -1
    best_second = -1
    played = 0
    summed = 0
    for i in range(n):
        played += 1
        count, after, _ = play(
            masks, rocks, PICK, gem_bits[i], -1, bend, chain, -1, -1, True, points, False, grid
        )
        counts[i] = count
        columns[i] = changed_columns(rocks, after)
        reach[i] = near(columns[i])
        if count > best:
            best = count
            best_first = gem_bits[i]
    for i in range(n):
        for j in range(i + 1, n):
            if colours[i] == colours[j]:
                continue
            if reach[i] & columns[j] == 0:
                summed += 1
                count = counts[i] + counts[j]
            else:
                played += 1
                count, _, _ = play(
                    masks, rocks, PICK, gem_bits[i], gem_bits[j], bend, chain, -1, -1, True,
                    points, False, grid,
                )  # fmt: skip
            if count > best:
                best = count
                best_first = gem_bits[i]
                best_second = gem_bits[j]
    return best, best_first, best_second, played, summed


@kernel
def best_second_move(
    masks: Any, rocks: int, kind: int, bend: bool, chain: int, points: Any, grid: Any
) -> tuple[int, int, int, int]:
    """Swap or Rotate on a settled board (only a use that makes a line or Bend square removes
    anything): (best count, first bit, second bit, turns played); the bits are -1 when nothing is
    better than 0 (and the second is -1 for Rotate)."""
    gems = masks[0] | masks[1] | masks[2] | masks[3] | masks[4]
    best = 0
    best_first = -1
    best_second = -1
    played = 0
    if kind == SWAP:
        for step in (BYTE, 1):
            pairs = gems & (gems >> step)
            while pairs:
                bit = lowest_bit(pairs)
                pairs ^= 1 << bit
                played += 1
                count, _, _ = play(
                    masks, rocks, SWAP, bit, bit + step, bend, chain, -1, -1, True, points,
                    False, grid,
                )  # fmt: skip
                if count > best:
                    best = count
                    best_first = bit
                    best_second = bit + step
    else:
        squares = gems & (gems >> 1) & (gems >> BYTE) & (gems >> (BYTE + 1))
        while squares:
            bit = lowest_bit(squares)
            squares ^= 1 << bit
            played += 1
            count, _, _ = play(
                masks, rocks, ROTATE, bit, -1, bend, chain, -1, -1, True, points, False, grid
            )
            if count > best:
                best = count
                best_first = bit
    return best, best_first, best_second, played
