"""Compiled kernels for the solver's hot loops, when numba is installed.

The same bitboard rules as ``solver_bits`` (read that module first), written for numba: the masks
are int64 (bit 63 is never set, so every mask is non-negative), a board is an array of five colour
masks, and the snapshots taken at activation points are rows of an int64 array. Importing this
module raises ImportError when numba is missing; ``solver`` then runs ``solver_bits`` alone. The
tests check these kernels against the pure Python search and the engine.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import solver_bits as bits

SWAP, ROTATE, PICK = 0, 1, 2
POINT_FIELDS = 12  # five masks, rocks, holes, count, seeds, recolor source and target, removed
MAX_POINTS = 64  # every activation point follows a removal, and there are 56 gems at most

_COMPACT = np.array(bits._COMPACT, dtype=np.int64)
_PLUS = np.zeros(64, dtype=np.int64)
_COLUMN = np.zeros(64, dtype=np.int64)
for _bit, _reach in bits.PLUS_MASK.items():
    _PLUS[_bit] = _reach
for _bit, _reach in bits.COLUMN_OF_BIT.items():
    _COLUMN[_bit] = _reach

_M1 = 0x5555555555555555
_M2 = 0x3333333333333333
_M4 = 0x0F0F0F0F0F0F0F0F
_H01 = 0x0101010101010101
_COLUMN_BITS = 0x7F


@njit(cache=True)
def popcount(x: int) -> int:
    x = x - ((x >> 1) & _M1)
    x = (x & _M2) + ((x >> 2) & _M2)
    x = (x + (x >> 4)) & _M4
    return (x * _H01) >> 56


@njit(cache=True)
def find_matches(grid: np.ndarray, bend: bool) -> int:
    found = 0
    for colour in range(5):
        m = grid[colour]
        if m == 0:
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


@njit(cache=True)
def gravity(grid: np.ndarray, rocks: int, holes: int) -> int:
    for column in range(8):
        shift = column * 8
        column_holes = (holes >> shift) & _COLUMN_BITS
        if column_holes == 0:
            continue
        empty = column_holes | ((rocks >> shift) & _COLUMN_BITS)
        clear = ~(_COLUMN_BITS << shift)
        base = empty << 7
        for colour in range(5):
            m = grid[colour]
            part = (m >> shift) & _COLUMN_BITS
            if part:
                grid[colour] = (m & clear) | (_COMPACT[base | part] << shift)
        rocks = (rocks & clear) | (((1 << popcount(empty)) - 1) << shift)
    return rocks


@njit(cache=True)
def remove(grid: np.ndarray, cells: int) -> None:
    keep = ~cells
    for colour in range(5):
        grid[colour] &= keep


@njit(cache=True)
def settle(
    grid: np.ndarray,
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
    points: np.ndarray,
    record: bool,
    resume: bool,
) -> tuple[int, int, int]:
    """``solver_bits.settle``: (count, rocks, snapshots recorded). Recolor is ``source`` ->
    ``target`` while pending (``source`` -1 when not)."""
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
                        for colour in range(5):
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


@njit(cache=True)
def colour_at(grid: np.ndarray, bit: int) -> int:
    for colour in range(5):
        if (grid[colour] >> bit) & 1:
            return colour
    return -1


@njit(cache=True)
def play(
    start: np.ndarray,
    rocks: int,
    kind: int,
    first: int,
    second: int,
    bend: bool,
    chain: int,
    source: int,
    target: int,
    settled: bool,
    points: np.ndarray,
    record: bool,
    grid: np.ndarray,
) -> tuple[int, int, int]:
    """``solver._play`` into ``grid``: (count, rocks, snapshots). ``second`` is -1 for a Pick of
    one gem (and unused by Rotate)."""
    for colour in range(5):
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
        cells = (first, first + 8, first + 9, first + 1)
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


@njit(cache=True)
def best_activation(
    points: np.ndarray, recorded: int, column: bool, bend: bool, chain: int, plain: int
) -> tuple[int, int]:
    """``_Search.best_activation``: (best count or -1, turns resumed, the best's cell and
    activation point, or -1)."""
    reach_of = _COLUMN if column else _PLUS
    best = -1
    best_bit = -1
    best_point = -1
    resumed = 0
    tried = np.empty(64, dtype=np.int64)
    grid = np.empty(5, dtype=np.int64)
    for p in range(recorded):
        row = points[p]
        gems = row[0] | row[1] | row[2] | row[3] | row[4]
        tried_count = 0
        removed = row[11]
        while removed:
            low = removed & -removed
            removed ^= low
            targets = reach_of[popcount(low - 1)] & gems
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
                if plain > best:
                    best = plain
                    best_bit = popcount(low - 1)
                    best_point = p
                continue
            resumed += 1
            for colour in range(5):
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
                best_bit = popcount(low - 1)
                best_point = p
    return best, resumed, best_bit, best_point


@njit(cache=True)
def first_use(
    start: np.ndarray,
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
    points: np.ndarray,
    grid: np.ndarray,
) -> tuple[int, int, int, int, int, int, int, int, int]:
    """The plain first use into ``grid`` and the best Column and Plus over every placement:
    (count, rocks, best Column, best Plus, turns resumed, then for Column and for Plus the cell
    and activation point where the best went off, or -1); a best is -1 when not asked."""
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
            points, recorded, True, bend, chain, count
        )
        if plain > best:
            best, column_bit, column_point = plain, -1, -1
        best_column = best
        resumed += n
    if plus:
        best, n, plus_bit, plus_point = best_activation(points, recorded, False, bend, chain, count)
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


@njit(cache=True)
def _near(columns: int) -> int:
    return (columns | (columns << 1) | (columns << 2) | (columns >> 1) | (columns >> 2)) & 0xFF


@njit(cache=True)
def _changed_columns(before: int, after: int) -> int:
    changed = before ^ after
    columns = 0
    for column in range(8):
        if (changed >> (column * 8)) & _COLUMN_BITS:
            columns |= 1 << column
    return columns


@njit(cache=True)
def best_second_pick(
    masks: np.ndarray, rocks: int, bend: bool, chain: int, points: np.ndarray
) -> tuple[int, int, int, int, int]:
    """``_Search.best_second_pick``: (best count, first bit, second bit or -1, turns played,
    pairs summed); the bits are -1 when nothing is better than 0."""
    gems = masks[0] | masks[1] | masks[2] | masks[3] | masks[4]
    n = popcount(gems)
    gem_bits = np.empty(n, dtype=np.int64)
    colours = np.empty(n, dtype=np.int64)
    counts = np.empty(n, dtype=np.int64)
    columns = np.empty(n, dtype=np.int64)
    near = np.empty(n, dtype=np.int64)
    grid = np.empty(5, dtype=np.int64)
    i = 0
    for bit in range(64):
        if (gems >> bit) & 1:
            gem_bits[i] = bit
            colours[i] = colour_at(masks, bit)
            i += 1
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
        columns[i] = _changed_columns(rocks, after)
        near[i] = _near(columns[i])
        if count > best:
            best = count
            best_first = gem_bits[i]
    for i in range(n):
        for j in range(i + 1, n):
            if colours[i] == colours[j]:
                continue
            if near[i] & columns[j] == 0:
                summed += 1
                count = counts[i] + counts[j]
            else:
                played += 1
                count, _, _ = play(
                    masks,
                    rocks,
                    PICK,
                    gem_bits[i],
                    gem_bits[j],
                    bend,
                    chain,
                    -1,
                    -1,
                    True,
                    points,
                    False,
                    grid,
                )
            if count > best:
                best = count
                best_first = gem_bits[i]
                best_second = gem_bits[j]
    return best, best_first, best_second, played, summed


@njit(cache=True)
def best_second_move(
    masks: np.ndarray, rocks: int, kind: int, bend: bool, chain: int, points: np.ndarray
) -> tuple[int, int, int, int]:
    """``_Search.best_second_move`` for Swap or Rotate: (best count, first bit, second bit,
    turns played); the bits are -1 when nothing is better than 0."""
    gems = masks[0] | masks[1] | masks[2] | masks[3] | masks[4]
    grid = np.empty(5, dtype=np.int64)
    best = 0
    best_first = -1
    best_second = -1
    played = 0
    if kind == SWAP:
        for step in (8, 1):
            pairs = gems & (gems >> step)
            while pairs:
                low = pairs & -pairs
                pairs ^= low
                bit = popcount(low - 1)
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
        squares = gems & (gems >> 1) & (gems >> 8) & (gems >> 9)
        while squares:
            low = squares & -squares
            squares ^= low
            bit = popcount(low - 1)
            played += 1
            count, _, _ = play(
                masks, rocks, ROTATE, bit, -1, bend, chain, -1, -1, True, points, False, grid
            )
            if count > best:
                best = count
                best_first = bit
    return best, best_first, best_second, played
