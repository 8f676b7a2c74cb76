"""What a player could expect from each claim, given only what they knew: the after-board analysis
and the bot's judgement. Pure (standard library and numpy), no Django.

What a player knows at a moment of a board: every claimed square (tiles and mines are public),
the squares left hidden on the path of a claim that hit a mine (those are tiles: every mine on a
path is claimed), the board's number of mines, and their own scouts (the sum and the mines among
the squares that were unclaimed when they scouted). The opponent's scouts tell them nothing.

The posterior is computed over *regions*: hidden squares grouped by which of the player's scouts
cover them (and whether they are known to be tiles). Squares of one region are exchangeable, so
the posterior is a distribution over the number of mines ``k`` and the tile sum ``T`` of each
region.

- Mines are exact: every vector of mine counts per region that fits every scout's mine count and
  the board's number of mines is enumerated, weighted by the number of placements (a product of
  binomials) times the likelihood of the scouted sums.
- Tile values are the stated approximation: given the mine counts, each region's tile sum is
  treated as a normal variable with the mean and variance of that many independent tiles uniform
  on -2..5 (mean 1.5, variance 5.25 a tile), conditioned exactly on the scouted sums (a linear
  Gaussian update), with sums outside what the tiles could make given weight 0. The likelihood of
  the sums weights the mine vectors; the conditional mean of each region's sum gives the
  expected tiles.
- Given a mine vector, a claim over ``h_r`` hidden squares of each region misses every mine with
  probability ``prod C(n_r - h_r, k_r) / C(n_r, k_r)``, and its tiles are then worth
  ``sum h_r * E[T_r] / (n_r - k_r)``; the mines it would claim follow independent hypergeometric
  laws, so the expected extra penalty ``E[T(before + X) - T(before)]`` is exact too.

The value of a claim is its expected points minus the expected increase of the claimant's
triangular mine penalty (given the mines they had claimed before it, over the whole match).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from games.pointsweeper import engine

TILE_MEAN = 1.5
TILE_VARIANCE = 5.25
MAX_MINE_VECTORS = 50_000
TOP = 5
METHOD = "exact over mine placements; tile sums as normal variables conditioned on the scouted sums"

_LOG_C = np.full((65, 65), -np.inf)
for _a in range(65):
    for _b in range(_a + 1):
        _LOG_C[_a, _b] = math.lgamma(_a + 1) - math.lgamma(_b + 1) - math.lgamma(_a - _b + 1)


@dataclass
class Knowledge:
    """What one player knows of a board at one moment."""

    revealed: dict[str, int | str] = field(default_factory=dict)
    safe: set[str] = field(default_factory=set)
    scouts: list[tuple[tuple[str, ...], int, int]] = field(default_factory=list)
    total_mines: int = engine.MINES_PER_BOARD


def knowledge(
    log: Iterable[dict[str, Any]], notebook: Iterable[dict[str, Any]], before: int | None = None
) -> Knowledge:
    """What a player knows from the board's public log and their own notebook, counting only the
    entries numbered below ``before`` (all of them when None)."""
    known = Knowledge()
    for entry in log:
        if before is not None and entry["n"] >= before:
            continue
        if entry["type"] == "claim":
            known.revealed.update(entry["values"])
            if entry["mines"]:
                known.safe.update(s for s in entry["path"])
    known.safe -= set(known.revealed)
    for note in notebook:
        if before is not None and note["n"] >= before:
            continue
        known.scouts.append((tuple(note["counted"]), note["sum"], note["mines"]))
    return known


@dataclass
class Posterior:
    """The weighted mine vectors of a player's knowledge, ready to value claims."""

    hidden: list[str]
    region_of: dict[str, int]
    sizes: np.ndarray  # (R,) squares per region
    mines: np.ndarray  # (J, R) mine counts per region, one row per mine vector
    tile_sums: np.ndarray  # (J, R) expected tile sum per region given the row
    weights: np.ndarray  # (J,) normalised
    exact: bool = True

    @property
    def vectors(self) -> int:
        return int(self.weights.shape[0])

    def mine_chance(self) -> dict[str, float]:
        """Each hidden square's chance of being a mine."""
        frac = (self.weights @ (self.mines / np.maximum(self.sizes, 1))) if self.vectors else None
        return {s: float(frac[self.region_of[s]]) if frac is not None else 0.0 for s in self.hidden}

    def values(
        self, paths: Sequence[Sequence[str]], mines_before: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(expected value, chance of hitting a mine) of claims over each of ``paths``."""
        count = len(paths)
        regions = len(self.sizes)
        hits = np.zeros((count, regions), dtype=np.int64)
        for p, path in enumerate(paths):
            for square in path:
                r = self.region_of.get(square)
                if r is not None:
                    hits[p, r] += 1
        if self.vectors == 0:
            return np.zeros(count), np.zeros(count)
        sizes = self.sizes
        k = self.mines
        log_clear = np.zeros((count, self.vectors))
        for r in range(regions):
            rows = np.nonzero(hits[:, r])[0]
            if rows.size == 0:
                continue
            table = (
                _LOG_C[np.maximum(sizes[r] - np.arange(9), 0)[:, None], k[None, :, r]]
                - _LOG_C[sizes[r], k[:, r]]
            )
            log_clear[rows] += table[hits[rows, r]]
        clear = np.exp(log_clear)
        tiles = sizes[None, :] - k
        per_tile = np.where(tiles > 0, self.tile_sums / np.maximum(tiles, 1), 0.0)
        tile_value = hits @ per_tile.T
        q = k / np.maximum(sizes, 1)
        expected_mines = hits @ q.T
        shrink = hits * (sizes[None, :] - hits) / np.maximum(sizes[None, :] - 1, 1)
        variance = shrink @ (q * (1 - q)).T
        penalty = (
            mines_before * expected_mines + (variance + expected_mines**2 + expected_mines) / 2
        )
        value = clear * tile_value - penalty
        return value @ self.weights, (1 - clear) @ self.weights


def posterior(known: Knowledge) -> Posterior:
    """The posterior of ``known`` (see the module's docstring)."""
    hidden = [s for s in engine.SQUARES if s not in known.revealed]
    hidden_set = set(hidden)
    mines_left = known.total_mines - sum(1 for v in known.revealed.values() if v == engine.MINE)
    constraints: list[tuple[set[str], int, int]] = []
    for counted, total, mines in known.scouts:
        live = {s for s in counted if s in hidden_set}
        gone = [known.revealed[s] for s in counted if s not in hidden_set]
        total -= sum(v for v in gone if v != engine.MINE)
        mines -= sum(1 for v in gone if v == engine.MINE)
        constraints.append((live, total, mines))
    signature: dict[str, tuple] = {}
    for s in hidden:
        signature[s] = (
            s in known.safe,
            tuple(i for i, (live, _, _) in enumerate(constraints) if s in live),
        )
    keys = _search_order(sorted(set(signature.values())), len(constraints))
    index = {key: r for r, key in enumerate(keys)}
    region_of = {s: index[signature[s]] for s in hidden}
    sizes = np.zeros(len(keys), dtype=np.int64)
    for s in hidden:
        sizes[region_of[s]] += 1
    safe = [key[0] for key in keys]
    members = [[r for r, key in enumerate(keys) if c in key[1]] for c in range(len(constraints))]
    vectors, exact = _mine_vectors(sizes, safe, members, [c[2] for c in constraints], mines_left)
    area = np.zeros((len(constraints), len(keys)))
    for c, regions in enumerate(members):
        area[c, regions] = 1.0
    target = np.array([c[1] for c in constraints], dtype=float)
    if not vectors:
        empty = np.zeros((0, len(keys)))
        return Posterior(hidden, region_of, sizes, empty.astype(np.int64), empty, np.zeros(0))
    k = np.array(vectors, dtype=np.int64)
    log_w, expected = _tile_update(sizes[None, :] - k, area, target)
    log_w = log_w + _LOG_C[sizes[None, :], k].sum(axis=1)
    live = np.isfinite(log_w)
    if not live.any():
        empty = np.zeros((0, len(keys)))
        return Posterior(hidden, region_of, sizes, empty.astype(np.int64), empty, np.zeros(0))
    log_w, k, expected = log_w[live], k[live], expected[live]
    w = np.exp(log_w - log_w.max())
    return Posterior(hidden, region_of, sizes, k, expected, w / w.sum(), exact=exact)


def _search_order(keys: list[tuple], constraints: int) -> list[tuple]:
    """The regions in the order the search fills them: the regions of the constraint with the
    fewest regions left first, so that each constraint is closed (and checked) as early as
    possible; regions under no scout last."""
    left = list(keys)
    order: list[tuple] = []
    while True:
        open_counts = [
            (sum(1 for key in left if c in key[1]), c)
            for c in range(constraints)
            if any(c in key[1] for key in left)
        ]
        if not open_counts:
            break
        _, c = min(open_counts)
        chosen = [key for key in left if c in key[1]]
        order.extend(chosen)
        left = [key for key in left if c not in key[1]]
    return order + left


def _mine_vectors(
    sizes: np.ndarray,
    safe: list[bool],
    members: list[list[int]],
    counts: list[int],
    total: int,
) -> tuple[list[tuple[int, ...]], bool]:
    """Every vector of mine counts per region that fits each constraint's mine count and the
    total, by depth-first search (regions are ordered most-constrained first)."""
    regions = len(sizes)
    of_region: list[list[int]] = [[] for _ in range(regions)]
    for c, regs in enumerate(members):
        for r in regs:
            of_region[r].append(c)
    last = [max(regs) if regs else -1 for regs in members]
    closing: list[list[int]] = [[] for _ in range(regions)]
    for c, r in enumerate(last):
        if r >= 0:
            closing[r].append(c)
        elif counts[c] != 0:
            return [], True
    # capacity[c][r]: squares of constraint c in regions from r on
    capacity = np.zeros((len(members), regions + 1), dtype=np.int64)
    for c, regs in enumerate(members):
        for r in regs:
            if not safe[r]:
                capacity[c, : r + 1] += sizes[r]
    room = np.zeros(regions + 1, dtype=np.int64)
    for r in range(regions - 1, -1, -1):
        room[r] = room[r + 1] + (0 if safe[r] else sizes[r])
    capacity_of = capacity.tolist()
    room_of = room.tolist()
    # from ``free`` on no region is under a constraint: at most one of them may hold mines (the
    # squares no scout covered), and it takes whatever mines are left
    free = regions
    while free > 0 and not of_region[free - 1]:
        free -= 1
    sink = next((r for r in range(free, regions) if not safe[r]), None)
    left = list(counts)
    found: list[tuple[int, ...]] = []
    vector = [0] * regions
    exact = True

    def visit(r: int, remaining: int) -> None:
        nonlocal exact
        if len(found) >= MAX_MINE_VECTORS:
            exact = False
            return
        if remaining > room_of[r]:
            return
        if r == free:
            if sink is not None:
                vector[sink] = remaining
                found.append(tuple(vector))
                vector[sink] = 0
            elif remaining == 0:
                found.append(tuple(vector))
            return
        top = 0 if safe[r] else min(int(sizes[r]), remaining)
        for c in of_region[r]:
            top = min(top, left[c])
        for k in range(top + 1):
            vector[r] = k
            for c in of_region[r]:
                left[c] -= k
            fits = all(left[c] == 0 for c in closing[r]) and all(
                left[c] <= capacity_of[c][r + 1] for c in of_region[r]
            )
            if fits:
                visit(r + 1, remaining - k)
            for c in of_region[r]:
                left[c] += k
        vector[r] = 0

    visit(0, total)
    return found, exact


def _tile_update(tiles: np.ndarray, area: np.ndarray, target: np.ndarray) -> tuple[Any, Any]:
    """For each row of ``tiles`` (tiles per region, one row per mine vector): the log
    likelihood of the scouted sums and the expected tile sum of each region, with region sums
    taken as independent normal variables (all rows at once)."""
    mean = TILE_MEAN * tiles
    rows = tiles.shape[0]
    if area.shape[0] == 0:
        return np.zeros(rows), mean
    var = TILE_VARIANCE * tiles
    low = tiles @ area.T * engine.LOWEST
    high = tiles @ area.T * engine.HIGHEST
    possible = np.all((target >= low - 1e-9) & (target <= high + 1e-9), axis=1)
    cov = np.einsum("cr,jr,dr->jcd", area, var, area)
    resid = target[None, :] - mean @ area.T
    values, vecs = np.linalg.eigh(cov)
    scale = np.maximum(1.0, values.max(axis=1, initial=0.0))
    keep = values > 1e-9 * scale[:, None]
    proj = np.einsum("jcd,jc->jd", vecs, resid)
    consistent = ~np.any((np.abs(proj) > 1e-6) & ~keep, axis=1)
    inverse = np.where(keep, 1.0 / np.where(keep, values, 1.0), 0.0)
    weight = np.einsum("jcd,jd->jc", vecs, inverse * proj)
    log_det = np.where(keep, np.log(2 * np.pi * np.where(keep, values, 1.0)), 0.0).sum(axis=1)
    log_like = -0.5 * np.einsum("jc,jc->j", resid, weight) - 0.5 * log_det
    log_like = np.where(possible & consistent, log_like, -np.inf)
    expected = mean + var * (weight @ area)
    expected = np.clip(expected, engine.LOWEST * tiles, engine.HIGHEST * tiles)
    return log_like, expected


# --- valuing claims ------------------------------------------------------------------------------


THRIFT = "PNKBRQ"
"""The order in which pieces are offered for the same claim: the least useful piece first."""


def claim_values(
    post: Posterior,
    revealed: Iterable[str],
    pieces: Iterable[str],
    first_player: bool,
    mines_before: int,
) -> list[dict[str, Any]]:
    """Every distinct claim the given pieces could make (distinct by the hidden squares it would
    take; claims over claimed squares only are left out), with its expected value and its chance
    of hitting a mine, best first. Each names one way to make it with the least useful piece
    that can (``piece``, ``start``, ``end``) and every piece letter that can (``pieces``)."""
    taken = set(revealed)
    letters = {engine.piece_letter(p) for p in pieces}
    paths: dict[frozenset[str], list[tuple[str, str, str]]] = {}
    for letter in THRIFT:
        if letter not in letters:
            continue
        for start, end, path in engine.move_paths(letter, first_player):
            fresh = frozenset(engine.SQUARES[i] for i in path) - taken
            if fresh:
                paths.setdefault(fresh, []).append((letter, start, end))
    keys = list(paths)
    if not keys:
        return []
    ev, risk = post.values([sorted(key) for key in keys], mines_before)
    found = []
    for p, key in enumerate(keys):
        letter, start, end = paths[key][0]
        found.append(
            {
                "piece": letter,
                "start": start,
                "end": end,
                "pieces": "".join(dict.fromkeys(way[0] for way in paths[key])),
                "squares": sorted(key, key=engine.square_index),
                "ev": round(float(ev[p]), 3),
                "mine_chance": round(float(risk[p]), 3),
            }
        )
    found.sort(key=lambda c: (-c["ev"], THRIFT.index(c["piece"]), c["start"], c["end"]))
    return found


def claim_value(
    post: Posterior,
    revealed: Iterable[str],
    piece: str,
    start: str,
    end: str,
    first_player: bool,
    mines_before: int,
) -> dict[str, float]:
    path = engine.move_path(piece, start, end, first_player)
    fresh = tuple(s for s in path if s not in set(revealed))
    if not fresh:
        return {"ev": 0.0, "mine_chance": 0.0}
    ev, risk = post.values([fresh], mines_before)
    return {"ev": round(float(ev[0]), 3), "mine_chance": round(float(risk[0]), 3)}


def board_analysis(
    board: str,
    first: int,
    log: Sequence[dict[str, Any]],
    notebooks: dict[str, list[dict[str, Any]]],
    mines_before: Sequence[int],
) -> dict[str, Any]:
    """For both players, every decision to claim or pass on a finished board: the expected value
    of the claim made (a pass is worth 0) beside the best claims their unused pieces could have
    made, all judged only from what that player knew at that moment (see the module docstring).
    ``mines_before`` is each seat's mines claimed on earlier boards."""
    total_mines = engine.parse_board(board).count_mines()
    seats: dict[str, list[dict[str, Any]]] = {"0": [], "1": []}
    claimed_pieces: dict[int, list[str]] = {0: [], 1: []}
    mines_so_far = [int(m) for m in mines_before]
    for entry in log:
        seat = entry["seat"]
        if entry["type"] == "scout":
            continue
        known = knowledge(log, notebooks[str(seat)], before=entry["n"])
        known.total_mines = total_mines
        post = posterior(known)
        unused = [p for p in _all_pieces() if p not in claimed_pieces[seat]]
        is_first = seat == first
        options = claim_values(post, known.revealed, unused, is_first, mines_so_far[seat])
        decision: dict[str, Any] = {
            "n": entry["n"],
            "type": entry["type"],
            "scouts_known": len(known.scouts),
            "mine_vectors": post.vectors,
            "exact_mines": post.exact,
            "best": options[:TOP],
        }
        if entry["type"] == "claim":
            made = claim_value(
                post,
                known.revealed,
                entry["piece"],
                entry["start"],
                entry["end"],
                is_first,
                mines_so_far[seat],
            )
            decision.update(
                piece=entry["piece"],
                start=entry["start"],
                end=entry["end"],
                ev=made["ev"],
                mine_chance=made["mine_chance"],
                points=entry["points"],
                mines=entry["mines"],
                rank=1 + sum(1 for o in options if o["ev"] > made["ev"]),
            )
            claimed_pieces[seat].append(entry["piece"])
            mines_so_far[seat] += entry["mines"]
        else:
            decision.update(ev=0.0, reason=entry.get("reason"))
        seats[str(seat)].append(decision)
    return {"method": METHOD, "seats": seats}


def _all_pieces() -> list[str]:
    return list(engine.PIECE_IDS)
