"""Finding paths: the best path a player has on a board (an exact search), whether they have any,
and a random one for practice bots (pure: no Django, no IO; ``engine`` offers these under
engine-api.md). ``best_path`` is tested against an exhaustive search.
"""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

from games.glittering_paths.boards import (
    EMPTY,
    GEMS,
    GEMS_OF,
    Board,
    as_board,
    as_player,
    cell_name,
    colour_of,
)
from games.glittering_paths.scoring import as_decimal


class _Search:
    """An exact depth-first search for the best path of one player on one board.

    The cells are numbered row by row. Because a path turns at every cell, its steps go in one
    orientation (across, or up/down) from each cell of the start's type and in the other into the
    next one, so the start-type cells of a path sit on one diagonal lattice: the same colour of
    the chequerboard as the start, and the cells between on the other colour.

    Bound: with ``k`` cells between so far and the largest count of one other type ``m`` (at
    least 1), a path that ends with largest count ``m'`` scores at most ``(k' + 1) / m'`` where
    ``k' <= cap(m') = sum over other types t of min(m', cells of t on the other chequerboard
    colour)`` and ``k' <= k + (unused start-type cells on the start's colour)``. The best of these
    is at ``m' = m`` (a larger ``m'`` always scores strictly less), so the bound is reached only by
    a path of exactly ``2 * k'' + 1`` cells; a branch is cut when its bound is below the best so
    far, or equal to it but no longer.
    """

    def __init__(self, board: Board, player: str) -> None:
        self.board = board
        self.player = player
        w, h = board.width, board.height
        self.w = w
        flat = "".join(board.rows)
        self.codes = [GEMS.find(ch) for ch in flat]  # -1 for an empty cell
        n = w * h
        across: list[list[int]] = [[] for _ in range(n)]
        updown: list[list[int]] = [[] for _ in range(n)]
        for i in range(n):
            if self.codes[i] < 0:
                continue
            r, c = divmod(i, w)
            if c > 0 and self.codes[i - 1] >= 0:
                across[i].append(i - 1)
            if c < w - 1 and self.codes[i + 1] >= 0:
                across[i].append(i + 1)
            if r > 0 and self.codes[i - w] >= 0:
                updown[i].append(i - w)
            if r < h - 1 and self.codes[i + w] >= 0:
                updown[i].append(i + w)
        self.neighbours = (across, updown)
        self.best_num = 0
        self.best_den = 1
        self.best_len = 0
        self.best_path: list[int] = []
        self.nodes = 0

    def run(self) -> tuple[Fraction, list[str]]:
        codes = self.codes
        w = self.w
        for gem in GEMS_OF[self.player]:
            t = GEMS.index(gem)
            starts = [i for i, code in enumerate(codes) if code == t]
            if not starts:
                continue
            for parity in (0, 1):
                mine = [i for i in starts if (i // w + i % w) % 2 == parity]
                if not mine:
                    continue
                others = [0] * len(GEMS)
                for i, code in enumerate(codes):
                    if code >= 0 and code != t and (i // w + i % w) % 2 != parity:
                        others[code] += 1
                present = [x for x in others if x]
                if not present:
                    continue
                top = max(present)
                cap = [0] + [sum(min(m, x) for x in present) for m in range(1, top + 1)]
                for start in mine:
                    self._from(start, t, len(mine), cap, top)
        if not self.best_path:
            return Fraction(0), []
        names = [cell_name(*divmod(i, w)) for i in self.best_path]
        return Fraction(self.best_num, self.best_den), names

    def _from(self, start: int, t: int, lattice: int, cap: list[int], top: int) -> None:
        codes = self.codes
        counts = [0] * len(GEMS)
        path = [start]
        used = {start}

        def visit(cell: int, out: list[list[int]], into: list[list[int]], k: int, m: int) -> None:
            self.nodes += 1
            if k:
                better = (k + 1) * self.best_den - self.best_num * m
                if better > 0 or (better == 0 and 2 * k + 1 > self.best_len):
                    self.best_num, self.best_den = k + 1, m
                    self.best_len = 2 * k + 1
                    self.best_path = list(path)
            m1 = m or 1
            reach = min(cap[min(m1, top)], lattice - 1)  # k' can be at most this
            gain = (reach + 1) * self.best_den - self.best_num * m1
            if gain < 0 or (gain == 0 and 2 * reach + 1 <= self.best_len) or reach <= k:
                return
            options = []
            for j in out[cell]:
                code = codes[j]
                if code == t or j in used:
                    continue
                for nxt in into[j]:
                    if codes[nxt] == t and nxt not in used:
                        options.append((counts[code], j, nxt))
            if len(options) > 1:
                options.sort()
            for _, j, nxt in options:
                code = codes[j]
                counts[code] += 1
                path.append(j)
                path.append(nxt)
                used.add(j)
                used.add(nxt)
                visit(nxt, out, into, k + 1, max(m, counts[code]))
                used.discard(nxt)
                used.discard(j)
                path.pop()
                path.pop()
                counts[code] -= 1

        across, updown = self.neighbours
        visit(start, across, updown, 0, 0)
        visit(start, updown, across, 0, 0)


def best_path(board: Board | str, player: str) -> tuple[Decimal, list[str]]:
    """The highest-scoring legal path for ``player`` and its score; among paths of the best
    score, a longest one. ``(Decimal(0), [])`` when the player has no legal path. Exact: an
    exhaustive search that skips only branches that provably cannot do better."""
    fraction, cells = best_path_fraction(board, player)
    return as_decimal(fraction), cells


def best_path_fraction(board: Board | str, player: str) -> tuple[Fraction, list[str]]:
    """``best_path`` with the exact score as a fraction."""
    return _Search(as_board(board), as_player(player)).run()


def has_legal_path(board: Board | str, player: str) -> bool:
    """Whether ``player`` has any legal path (a 3-cell one exists whenever any path does)."""
    b = as_board(board)
    who = as_player(player)
    h, w = b.height, b.width
    rows = b.rows
    for r in range(h):
        for c in range(w):
            gem = rows[r][c]
            if colour_of(gem) != who:
                continue
            for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                r1, c1 = r + dr, c + dc
                if not (0 <= r1 < h and 0 <= c1 < w):
                    continue
                mid = rows[r1][c1]
                if mid in (EMPTY, gem):
                    continue
                for er, ec in ((dc, dr), (-dc, -dr)):
                    r2, c2 = r1 + er, c1 + ec
                    if 0 <= r2 < h and 0 <= c2 < w and rows[r2][c2] == gem:
                        return True
    return False


def random_path(board: Board | str, player: str, rng: random.Random) -> list[str]:
    """A random legal path for ``player`` (a random walk that stops at a random legal length), or
    [] when there is none. For practice bots."""
    b = as_board(board)
    who = as_player(player)
    if not has_legal_path(b, who):
        return []
    h, w = b.height, b.width
    starts = [(r, c) for r in range(h) for c in range(w) if colour_of(b.rows[r][c]) == who]
    for _ in range(200):
        r, c = rng.choice(starts)
        gem = b.rows[r][c]
        path = [(r, c)]
        across_first = rng.random() < 0.5
        best: list[tuple[int, int]] = []
        while True:
            step_out = [(0, 1), (0, -1)] if across_first else [(1, 0), (-1, 0)]
            step_in = [(1, 0), (-1, 0)] if across_first else [(0, 1), (0, -1)]
            options = []
            pr, pc = path[-1]
            for dr, dc in step_out:
                r1, c1 = pr + dr, pc + dc
                if not (0 <= r1 < h and 0 <= c1 < w) or (r1, c1) in path:
                    continue
                if b.rows[r1][c1] in (EMPTY, gem):
                    continue
                for er, ec in step_in:
                    r2, c2 = r1 + er, c1 + ec
                    inside = 0 <= r2 < h and 0 <= c2 < w
                    if inside and (r2, c2) not in path and b.rows[r2][c2] == gem:
                        options.append(((r1, c1), (r2, c2)))
            if not options:
                break
            path.extend(rng.choice(options))
            best = list(path)
            if rng.random() < 0.4:
                break
        if best:
            return [cell_name(r, c) for r, c in best]
    return []
