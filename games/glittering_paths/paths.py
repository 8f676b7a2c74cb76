"""Path drawing: the rules a Glittering Paths path obeys, checked as it is drawn and when it is
sent (pure: no Django, no IO; ``engine`` offers these under engine-api.md).

A move is a path: distinct cells holding gems, each side by side with the one before, turning a
right angle at every cell (the steps go across, then up or down, then across...), with an odd
number of cells, at least 3. It starts on a gem of the mover's colour; every other cell (1st, 3rd,
5th...) holds that same gem type and the cells between never do.

The rules are written once, in ``path_problem`` (which reports the first rule a path or a path
being drawn breaks); scoring, the flow and the page's verdict under a path being drawn rely on it.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.glittering_paths.boards import (
    EMPTY,
    GEM_NAMES,
    GEMS_OF,
    Board,
    PathError,
    as_board,
    as_player,
    colour_of,
    gem_phrase,
    parse_cell,
)


def path_cells(cells: object) -> list[str]:
    """A path's cell names, upper case, from a list or a text such as ``"A1, A2 B2"``."""
    if isinstance(cells, str):
        cells = cells.replace(",", " ").split()
    if not isinstance(cells, list | tuple) or not all(isinstance(c, str) for c in cells):
        raise PathError("a path is a list of cell names, e.g. ['A1', 'A2', 'B2']")
    return [c.strip().upper() for c in cells]


def path_problem(
    board: Board | str, player: str, cells: Sequence[str], *, partial: bool = False
) -> str | None:
    """The first rule the path ``cells`` breaks for ``player``, as a sentence, or None when the
    path is legal. With ``partial=True`` the path is still being drawn: only the rules a longer
    path could not mend are checked (not its length)."""
    b = as_board(board)
    who = as_player(player)
    names = path_cells(cells)
    if not names:
        return None if partial else "a path has at least 3 cells; this one has none"
    seen: set[tuple[int, int]] = set()
    points: list[tuple[int, int]] = []
    start_gem = ""
    for i, name in enumerate(names):
        try:
            row, col = parse_cell(name, b)
        except PathError as error:
            return str(error)
        gem = b.rows[row][col]
        if gem == EMPTY:
            return f"{name} is empty; a path only uses cells that hold a gem"
        if (row, col) in seen:
            return f"{name} is used twice; a path never repeats a cell"
        if points:
            pr, pc = points[-1]
            if abs(pr - row) + abs(pc - col) != 1:
                return (
                    f"{names[i - 1]} and {name} are not side by side; each step goes to a cell "
                    "directly above, below, left or right"
                )
            if len(points) >= 2:
                qr, qc = points[-2]
                if (qr == pr) == (pr == row):
                    return (
                        f"{names[i - 2]}, {names[i - 1]}, {name} do not make a right angle; a "
                        "path turns at every cell"
                    )
        if i == 0:
            if colour_of(gem) != who:
                first, second, third = (GEM_NAMES[g] for g in GEMS_OF[who])
                return (
                    f"the path starts on {gem_phrase(gem)} ({name}), a {colour_of(gem)} gem; "
                    f"{who}'s paths start on a {first}, {second} or {third}"
                )
            start_gem = gem
        elif i % 2 == 0 and gem != start_gem:
            return (
                f"{name} holds {gem_phrase(gem)}; the 1st, 3rd, 5th... cells of this path "
                f"must all be {GEM_NAMES[start_gem]} like the start"
            )
        elif i % 2 == 1 and gem == start_gem:
            return (
                f"{name} holds {gem_phrase(gem)} like the start; the 2nd, 4th... cells of a "
                "path must hold other gems"
            )
        seen.add((row, col))
        points.append((row, col))
    if partial:
        return None
    if len(names) < 3:
        return f"a path has at least 3 cells; this one has {len(names)}"
    if len(names) % 2 == 0:
        return f"a path has an odd number of cells; this one has {len(names)}"
    return None


def check_path(board: Board | str, player: str, cells: Sequence[str]) -> list[str]:
    """The path's cell names (upper case), or PathError naming the rule it breaks."""
    problem = path_problem(board, player, cells)
    if problem is not None:
        raise PathError(problem)
    return path_cells(cells)
