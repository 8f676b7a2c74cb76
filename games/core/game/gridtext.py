"""Grid text, written once: how an engine reads a board's text, writes it back and names its
cells (the text formats of ../shared/spec/engine-api.md). Standard library only and no Django:
engines import it, and it imports nothing of the project.

A grid's text lists rows top to bottom, one line a row, one character a cell (Pointsweeper's a
space-separated token), with the blank lines around it ignored. A cell is named by its column's
letter and its row counted from 1, in reading order: ``cell_names(2, 3) == ("A1", "B1", "C1",
"A2", "B2", "C2")``; a name is read with case and surrounding spaces ignored.
"""

from __future__ import annotations

from collections.abc import Iterable

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def lines(text: str) -> list[str]:
    """The grid's lines, without the blank lines around the grid or the spaces around a line."""
    return [line.strip() for line in text.strip().splitlines()]


def squeezed(text: str) -> list[str]:
    """The grid's lines, without the blank lines around the grid or any space in a line."""
    return ["".join(line.split()) for line in text.strip().splitlines()]


def fixed_cells(
    text: str,
    rows: int,
    columns: int,
    error: type[ValueError],
    *,
    noun: str = "board",
    blank_lines: bool = False,
) -> str:
    """The cells of a grid of ``rows`` lines of ``columns`` characters, read row by row (spaces
    anywhere ignored, and with ``blank_lines`` blank lines inside the grid too), or ``error``
    saying which row is off."""
    found = squeezed(text)
    if blank_lines:
        found = [line for line in found if line]
    if len(found) != rows:
        raise error(f"the {noun} has {len(found)} rows; it needs {rows} rows of {columns} cells")
    for number, line in enumerate(found, start=1):
        if len(line) != columns:
            raise error(f"row {number} has {len(line)} cells; every row needs {columns}")
    return "".join(found)


def rows_of(cells: str, columns: int) -> tuple[str, ...]:
    """The rows of a grid held as its cells in reading order."""
    return tuple(cells[start : start + columns] for start in range(0, len(cells), columns))


def text_of(rows: Iterable[str]) -> str:
    """A grid's text from its rows: one line a row, top first, no trailing newline."""
    return "\n".join(rows)


def cell_name(row: int, column: int, letters: str = LETTERS) -> str:
    """``cell_name(1, 2) == "C2"`` (row and column counted from 0)."""
    return f"{letters[column]}{row + 1}"


def cell_names(rows: int, columns: int, letters: str = LETTERS) -> tuple[str, ...]:
    """Every cell's name in reading order (a cell's index is its place here)."""
    return tuple(
        cell_name(index // columns, index % columns, letters) for index in range(rows * columns)
    )


def shown_name(name: object) -> str:
    """A cell's name as given, for looking up and for an error: upper case without surrounding
    spaces, or the repr of something that is not text."""
    return name.strip().upper() if isinstance(name, str) else repr(name)
