"""A Bejeweled death match board as bits, for the solver's kernels (solver_bits.py): the layout,
the tables built from it once, and a board read into masks and written back. Pure Python.

Layout: bit ``column * 8 + row`` (row 0 on top), so a column is one byte, and bit 7 of every byte
is always 0. A vertical line is three set bits in a row of one byte (shifts by 1), a horizontal
line is three bytes in a row (shifts by 8), and the spare bit stops lines and 2x2 squares from
running from one column into the next. A board is five colour masks (in the order of
``COLOURS``) and the rocks; during a turn the cells in no mask and not rocks are holes. A mask is
an int below 2**63 (bit 63 is never set).
"""

from __future__ import annotations

from collections.abc import Sequence

from .board import COLOURS, COLUMNS, ROCK, ROWS, SIZE, Board

COLOUR_COUNT = len(COLOURS)
BYTE = 8
COLUMN_BITS = (1 << ROWS) - 1
SWAP, ROTATE, PICK = 0, 1, 2
KIND = {"Swap": SWAP, "Rotate": ROTATE, "Pick": PICK}


def bit_of(index: int) -> int:
    """The bit of an engine cell index (``row * 8 + column``)."""
    row, column = divmod(index, COLUMNS)
    return column * BYTE + row


BIT_OF_INDEX = tuple(bit_of(i) for i in range(SIZE))
INDEX_OF_BIT = {bit_of(i): i for i in range(SIZE)}


def plus_mask(bit: int) -> int:
    """The cells a Plus going off at ``bit`` reaches: up to two each way in its row and column."""
    column, row = divmod(bit, BYTE)
    reach = 0
    for d_row, d_column in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        for step in (1, 2):
            r, c = row + d_row * step, column + d_column * step
            if 0 <= r < ROWS and 0 <= c < COLUMNS:
                reach |= 1 << (c * BYTE + r)
    return reach


def compact_table() -> list[int]:
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


def board_masks(board: Board) -> tuple[list[int], int]:
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


def masks_board(masks: Sequence[int], rocks: int) -> Board:
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
