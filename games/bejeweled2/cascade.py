"""How one swap of Bejeweled 2 plays out, pure: the lines it makes, the special gems they leave
(power gems and hypercubes), power-gem blasts and a hypercube's strike, the falls and the new
pieces, the cascades that follow, and the bombs' countdown, with the score and, when asked, the
steps a page animates. The rules run once, in ``_play``: the engine's ``swap`` asks it to record
the steps (each with the board after it), the hint and the puzzle solver (``quick_swap``) do not.
"""

from __future__ import annotations

import random
from typing import Any

from games.bejeweled2.grid import (
    _AROUND,
    _COLOUR_OF,
    _NAMES,
    BOMBS,
    COLOURS,
    COLUMNS,
    EMPTY,
    HYPERCUBE,
    POWER_GEMS,
    ROCK,
    ROWS,
    SIZE,
    _lines,
)

POINTS_PER_GEM = 10
POWER_GEM_BONUS = 50
HYPERCUBE_BONUS = 100
NEW_BOMB = "9"
"""A bomb that drops in as a new piece (when rocks and bombs fall in) has 9 moves left."""
GRAVITIES = ("down", "up")

Step = dict[str, Any]
"""One JSON-serialisable step of a move, for a page to animate (see ``swap``)."""


class _Play:
    """The state of one move being played: the grid, the score so far, the recorded steps.

    ``shown`` holds what a page sees ahead of the grid while a step is recorded: the cells a
    removal has taken (emptied in the grid only once every blast is known), a special piece made
    in place and a hypercube's swap (played without moving the two pieces, which both go)."""

    def __init__(
        self,
        g: list[str],
        rng: random.Random | None,
        record: bool,
        gravity: str = "down",
        rocks_and_bombs: bool = False,
        specials: bool = True,
    ) -> None:
        self.g = g
        self.rng = rng
        self.record = record
        self.up = gravity == "up"
        self.rocks_and_bombs = rocks_and_bombs
        self.specials = specials
        self.steps: list[Step] = []
        self.shown: dict[int, str] = {}
        self.score = 0
        self.removed = 0
        self.depth = 1

    def step(self, kind: str, **data: Any) -> None:
        """Record a step with the board after it and the move's score so far."""
        if self.record:
            self.steps.append(
                {"kind": kind, **data, "board": self._board_text(), "score": self.score}
            )

    def _board_text(self) -> str:
        """The board as a page shows it now, as ``format_board`` writes it."""
        g = self.g
        if self.shown:
            g = g.copy()
            for cell, piece in self.shown.items():
                g[cell] = piece
        cells = "".join(g)
        return "\n".join([cells[r : r + COLUMNS] for r in range(0, SIZE, COLUMNS)])

    # Removal: collect, blast, clear.

    def remove(self, first: dict[int, tuple[str, int | None]], protected: set[int]) -> None:
        """Remove ``first`` (cell -> (cause, source cell)) and everything the power gems among
        them blast, chain after chain; then empty the cells. ``protected`` cells (specials made in
        this same step) are never removed."""
        gone: set[int] = set()
        groups: dict[tuple[str, int | None], list[int]] = {}
        for cell, key in first.items():
            if cell in gone or cell in protected or self.g[cell] == EMPTY:
                continue
            gone.add(cell)
            groups.setdefault(key, []).append(cell)
        for (cause, source), cells in groups.items():
            self._scored(cause, source, cells)
        pending = sorted(c for c in gone if self.g[c] in POWER_GEMS)
        while pending:
            source = pending.pop(0)
            hit = [
                n
                for n in _AROUND[source]
                if n not in gone and n not in protected and self.g[n] != EMPTY
            ]
            gone.update(hit)
            self._scored("blast", source, hit)
            pending.extend(n for n in hit if self.g[n] in POWER_GEMS)
        for cell in gone:
            self.g[cell] = EMPTY
            self.shown.pop(cell, None)

    def _scored(self, cause: str, source: int | None, cells: list[int]) -> None:
        points = POINTS_PER_GEM * self.depth * len(cells)
        self.score += points
        self.removed += len(cells)
        if self.record:
            self.shown.update(dict.fromkeys(cells, EMPTY))
            where = {} if source is None else {"source": _NAMES[source]}
            self.step(
                "remove",
                cause=cause,
                depth=self.depth,
                cells=[_NAMES[c] for c in sorted(cells)],
                points=points,
                **where,
            )

    # Lines and the specials they leave.

    def match(self, lines: list[tuple[int, ...]], swapped: tuple[int, ...], fell: set[int]) -> None:
        """Remove every line at the current depth, leaving the specials its groups make."""
        groups = _groups(lines)
        sites: dict[int, str] = {}
        first: dict[int, tuple[str, int | None]] = {}
        for group in groups:
            cells = sorted({c for line in group for c in line})
            made = _special_made(group) if self.specials else None
            if made is not None:
                site = self._site(group, cells, swapped, fell)
                colour = _COLOUR_OF[self.g[site]]
                sites[site] = HYPERCUBE if made == "hypercube" else colour.lower()
            for c in cells:
                if c not in sites:
                    first[c] = ("line", None)
            if self.record:
                self.step(
                    "line",
                    depth=self.depth,
                    colour=_COLOUR_OF[self.g[cells[0]]],
                    lines=[[_NAMES[c] for c in line] for line in group],
                )
        for site, piece in sorted(sites.items()):
            bonus = HYPERCUBE_BONUS if piece == HYPERCUBE else POWER_GEM_BONUS
            self.score += bonus
            if self.record:
                self.shown[site] = piece
            self.step(
                "special",
                cell=_NAMES[site],
                made="hypercube" if piece == HYPERCUBE else "power_gem",
                piece=piece,
                depth=self.depth,
                points=bonus,
            )
        self.remove(first, set(sites))
        for site, piece in sites.items():
            self.g[site] = piece
            self.shown.pop(site, None)

    def _site(
        self,
        group: list[tuple[int, ...]],
        cells: list[int],
        swapped: tuple[int, ...],
        fell: set[int],
    ) -> int:
        """Where a group's special appears. From the swap: the swapped-in gem (the one in the
        group). From a cascade: the group's gem that fell last, lowest then leftmost (highest
        then leftmost when gravity pulls up)."""
        if self.depth == 1 and swapped:
            for c in swapped:
                if c in cells:
                    return c
            shared = _shared(group)
            candidates = shared or cells
        else:
            candidates = [c for c in cells if c in fell] or cells
        if self.up:
            return max(candidates, key=lambda c: (-(c // COLUMNS), -(c % COLUMNS)))
        return max(candidates, key=lambda c: (c // COLUMNS, -(c % COLUMNS)))

    # Falls and new gems.

    def fall(self) -> set[int]:
        """Let every piece fall as far as it can (toward row 8, or toward row 1 when gravity
        pulls up), then fill the emptied end of each column with new pieces (when refilling), as
        if they fell in from beyond the edge they fall from. Returns the cells whose piece just
        arrived."""
        g = self.g
        moves: list[list[str]] = []
        arrived: set[int] = set()
        # The rows from the edge pieces fall toward to the edge new pieces come from.
        order = range(ROWS) if self.up else range(ROWS - 1, -1, -1)
        ahead = COLUMNS if self.up else -COLUMNS
        for col in range(COLUMNS):
            target = order[0] * COLUMNS + col
            for row in order:
                cell = row * COLUMNS + col
                piece = g[cell]
                if piece == EMPTY:
                    continue
                if cell != target:
                    g[target] = piece
                    g[cell] = EMPTY
                    arrived.add(target)
                    moves.append([_NAMES[cell], _NAMES[target]])
                target += ahead
        if moves:
            self.step("fall", moves=moves)
        if self.rng is not None:
            new: dict[str, str] = {}
            for col in range(COLUMNS):
                for row in reversed(order):
                    cell = row * COLUMNS + col
                    if g[cell] != EMPTY:
                        break
                    g[cell] = self._new_piece()
                    arrived.add(cell)
                    new[_NAMES[cell]] = g[cell]
            if new:
                self.step("new", cells=new)
        return arrived

    def _new_piece(self) -> str:
        """A new piece: a uniform random gem; with rocks and bombs, one in 25 is a rock and one
        in 25 a bomb of 9 moves."""
        assert self.rng is not None
        if self.rocks_and_bombs:
            roll = self.rng.randrange(25)
            if roll == 0:
                return ROCK
            if roll == 1:
                return NEW_BOMB
        return self.rng.choice(COLOURS)

    def cascade(self, swapped: tuple[int, ...], fell: set[int]) -> None:
        """Match, fall and match again until the board is settled."""
        while True:
            lines = _lines(self.g)
            if not lines:
                return
            self.match(lines, swapped, fell)
            fell = self.fall()
            swapped = ()
            self.depth += 1

    def countdown(self) -> None:
        """Every bomb has one move fewer left; a bomb at 0 explodes like a power gem."""
        g = self.g
        bombs = [c for c in range(SIZE) if g[c] in BOMBS]
        if not bombs:
            return
        exploding = []
        counts = {}
        for c in bombs:
            left = max(0, int(g[c]) - 1)
            g[c] = str(left)
            counts[_NAMES[c]] = left
            if left == 0:
                exploding.append(c)
        self.step("countdown", bombs=counts)
        if not exploding:
            return
        gone: set[int] = set(exploding)
        first: dict[int, tuple[str, int | None]] = {}
        for bomb in exploding:
            first.setdefault(bomb, ("bomb", bomb))
        for bomb in exploding:
            for n in _AROUND[bomb]:
                if n not in gone and g[n] != EMPTY:
                    gone.add(n)
                    first[n] = ("bomb", bomb)
        self.remove(first, set())
        fell = self.fall()
        self.depth += 1
        self.cascade((), fell)


def _groups(lines: list[tuple[int, ...]]) -> list[list[tuple[int, ...]]]:
    """Lines that share a gem belong to one group (an L, a T, a cross...)."""
    groups: list[list[tuple[int, ...]]] = []
    cells_of: list[set[int]] = []
    for line in lines:
        cells = set(line)
        joined = [k for k, seen in enumerate(cells_of) if seen & cells]
        merged = [line]
        for k in joined:
            merged.extend(groups[k])
            cells |= cells_of[k]
        for k in reversed(joined):
            del groups[k]
            del cells_of[k]
        groups.append(merged)
        cells_of.append(cells)
    return groups


def _special_made(group: list[tuple[int, ...]]) -> str | None:
    """A line of 5+ makes a hypercube; a line of exactly 4, or an L or T, makes one power gem."""
    longest = max(len(line) for line in group)
    if longest >= 5:
        return "hypercube"
    if longest == 4 or len(group) > 1:
        return "power_gem"
    return None


def _shared(group: list[tuple[int, ...]]) -> list[int]:
    seen: set[int] = set()
    shared = set()
    for line in group:
        for c in line:
            if c in seen:
                shared.add(c)
            seen.add(c)
    return sorted(shared)


def _play(
    g: list[str],
    i: int,
    j: int,
    rng: random.Random | None,
    record: bool,
    gravity: str = "down",
    rocks_and_bombs: bool = False,
    specials: bool = True,
) -> _Play:
    """Play the legal swap of cells ``i`` and ``j`` on grid ``g`` (changed in place)."""
    play = _Play(g, rng, record, gravity, rocks_and_bombs, specials)
    x, y = g[i], g[j]
    if HYPERCUBE in (x, y):
        # The swap is made first, like any swap; only then does the hypercube fire, from the cell
        # it moved into, at the piece now in the cell it left (a power gem explodes there).
        g[i], g[j] = y, x
        play.step("swap", cells=[_NAMES[i], _NAMES[j]])
        cube, other = (j, i) if x == HYPERCUBE else (i, j)
        target = g[other]
        if target == HYPERCUBE:
            hit = [i, j]
            what = "hypercube"
        elif target == ROCK:
            hit = [c for c in range(SIZE) if g[c] == ROCK] + [cube]
            what = "rock"
        elif target in BOMBS:
            hit = [c for c in range(SIZE) if g[c] in BOMBS] + [cube]
            what = "bomb"
        else:
            colour = _COLOUR_OF[target]
            hit = [c for c in range(SIZE) if _COLOUR_OF.get(g[c]) == colour] + [cube]
            what = colour
        play.step("hypercube", cell=_NAMES[cube], target=what)
        play.remove(dict.fromkeys(hit, ("hypercube", cube)), set())
        fell = play.fall()
        play.depth += 1
        play.cascade((), fell)
    else:
        g[i], g[j] = y, x
        play.step("swap", cells=[_NAMES[i], _NAMES[j]])
        play.cascade((j, i), set())
    play.countdown()
    return play


def quick_swap(cells: str, i: int, j: int, *, specials: bool = True) -> tuple[str, int]:
    """The settled cells and score of the legal swap of cells ``i`` and ``j``, no refill, no
    steps: the solver's and the hint's fast path. The caller has checked legality."""
    g = list(cells)
    play = _play(g, i, j, None, record=False, specials=specials)
    return "".join(g), play.score
