"""How balanced a board is: seven factors, each scaled to 0..1, averaged into one score.

0 is the most balanced board and 1 the least. Five factors come from seed 003,
two from seed 001:

- ``resource_distribution``: for each of the three dividing lines through the centre
  and each resource, how many more of its hex corners lie on one side than the other
  (a settlement spot counts every hex it touches), relative to the most it could be.
- ``probability_distribution``: the same for the dots (pips) of the number tokens.
- ``resource_clustering``: adjacent hexes of the same terrain, relative to the most
  adjacencies hexes of those counts can have.
- ``number_clustering``: adjacent hexes whose numbers are equally likely (6 next to 8,
  5 next to 9, ...), relative to the most possible.
- ``resource_probability``: how far each resource's share of all pips strays from its
  share of the hexes (root of the summed squares), relative to the worst assignment.
- ``junction_spread``: best minus worst junction of three producing hexes (sum of
  pips), relative to the best minus the worst three tokens (seed 001).
- ``terrain_mean_spread``: (highest - lowest mean pips of a terrain) / lowest mean,
  relative to the worst assignment (seed 001).

The squared factors of 003 enter as root-mean-squares so every factor grows about
linearly with the imbalance it measures. Each factor's maximum is computed from the
board's own counts, so the score works for any radius.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import permutations

from catan_p2p.boards.layout import Geometry, geometry, island_of
from catan_p2p.errors import BoardError
from catan_p2p.rules.board import PIPS, Board
from catan_p2p.rules.cards import Terrain

DESERT = int(Terrain.DESERT)

FACTORS: tuple[str, ...] = (
    "resource_distribution",
    "probability_distribution",
    "resource_clustering",
    "number_clustering",
    "resource_probability",
    "junction_spread",
    "terrain_mean_spread",
)


@dataclass(frozen=True)
class BoardScore:
    """A board's balance: the overall ``score`` and each factor, all in 0..1.

    ``raw`` holds the unscaled measures (corner and pip differences per line,
    adjacency counts, the junction range in pips, ...) for people and tests to check.
    """

    score: float
    factors: dict[str, float]
    raw: dict[str, float]

    def to_data(self) -> dict:
        return {
            "score": round(self.score, 4),
            "factors": {k: round(v, 4) for k, v in self.factors.items()},
            "raw": {k: round(v, 4) for k, v in self.raw.items()},
        }


def max_adjacencies(n: int) -> int:
    """Most shared sides ``n`` hexes can have among themselves (a compact cluster)."""
    if n <= 1:
        return 0
    return 3 * n - math.ceil(math.sqrt(12 * n - 3))


@dataclass(frozen=True)
class _Scale:
    """The largest value each factor can take for one multiset of terrains and tokens."""

    terrain_counts: tuple[int, ...]  # hexes per terrain 0..4
    line_resource: tuple[int, ...]  # max corner difference per resource (tiles)
    line_pips: int  # max pip difference across one line (tiles)
    resource_pairs: int
    pip_pairs: int
    resource_probability: float
    junction_range: int
    terrain_mean_spread: float


def _share_error(counts: Sequence[int], pips: Sequence[int]) -> float:
    producing = sum(counts)
    total = sum(pips)
    return math.sqrt(
        sum((p / total - c / producing) ** 2 for c, p in zip(counts, pips, strict=True) if c)
    )


def _mean_spread(counts: Sequence[int], pips: Sequence[int]) -> float:
    means = [p / c for c, p in zip(counts, pips, strict=True) if c]
    return (max(means) - min(means)) / min(means)


@cache
def _scale(radius: int | str, counts: tuple[int, ...], tokens: tuple[int, ...]) -> _Scale:
    """Maxima for hexes ``counts`` (per terrain 0..4) and token pips ``tokens`` (sorted)."""
    geo = geometry(radius)
    k = geo.half
    land = sorted(tokens + (0,) * (len(geo.tiles) - len(tokens)), reverse=True)
    by_pips = Counter(tokens)
    # Worst assignments of tokens to terrains: fill terrains one after another with
    # the likeliest tokens left, in every order of the terrains.
    worst_share = 0.0
    worst_spread = 0.0
    present = [t for t in range(5) if counts[t]]
    for order in permutations(present):
        sums = [0] * 5
        i = 0
        for t in order:
            sums[t] = sum(tokens[i : i + counts[t]])
            i += counts[t]
        worst_share = max(worst_share, _share_error(counts, sums))
        worst_spread = max(worst_spread, _mean_spread(counts, sums))
    return _Scale(
        terrain_counts=counts,
        line_resource=tuple(min(c, k) for c in counts),
        line_pips=sum(land[:k]) - sum(land[-k:]),
        resource_pairs=sum(max_adjacencies(c) for c in counts),
        pip_pairs=sum(max_adjacencies(c) for c in by_pips.values()),
        resource_probability=worst_share,
        junction_range=sum(tokens[:3]) - sum(tokens[-3:]),
        terrain_mean_spread=worst_spread,
    )


def _rms(values: list[float]) -> float:
    return math.sqrt(sum(v * v for v in values) / len(values)) if values else 0.0


def measure(geo: Geometry, terrain: Sequence[int], pips: Sequence[int], scale: _Scale) -> tuple:
    """The seven factors of one layout (``terrain`` and ``pips`` per tile index), unscaled.

    Returns the raw measures in ``FACTORS`` order; ``scaled`` turns them into 0..1.
    This is the search's inner loop: plain loops over precomputed tables.
    """
    counts = scale.terrain_counts
    # Dividing lines: corner differences per resource and pip differences.
    res_diffs: list[list[int]] = []
    pip_diffs: list[int] = []
    for side in geo.sides:
        per = [0, 0, 0, 0, 0, 0]
        pd = 0
        for t, s in enumerate(side):
            if s:
                per[terrain[t]] += s
                pd += s * pips[t]
        res_diffs.append(per)
        pip_diffs.append(pd)
    same_terrain = 0
    same_pips = 0
    for a, b in geo.pairs:
        ta = terrain[a]
        if ta == terrain[b] and ta != DESERT:
            same_terrain += 1
        pa = pips[a]
        if pa and pa == pips[b]:
            same_pips += 1
    per_terrain = [0, 0, 0, 0, 0, 0]
    for t, p in enumerate(pips):
        per_terrain[terrain[t]] += p
    hi, lo = -1, 99
    for a, b, c in geo.junctions:
        pa, pb, pc = pips[a], pips[b], pips[c]
        if pa and pb and pc:
            s = pa + pb + pc
            if s > hi:
                hi = s
            if s < lo:
                lo = s
    junction_range = hi - lo if hi >= 0 else 0
    res_rel = [
        diff[r] / scale.line_resource[r] for diff in res_diffs for r in range(5) if counts[r]
    ]
    pip_rel = [d / scale.line_pips for d in pip_diffs] if scale.line_pips else [0.0]
    return (
        _rms(res_rel),
        _rms(pip_rel),
        same_terrain,
        same_pips,
        _share_error(counts, per_terrain[:5]),
        junction_range,
        _mean_spread(counts, per_terrain[:5]),
        # The human-readable raw line differences:
        sum(abs(x) for diff in res_diffs for x in diff[:5]),
        sum(abs(d) for d in pip_diffs),
    )


def scaled(raw: tuple, scale: _Scale) -> tuple[float, ...]:
    """The seven factors in 0..1 from ``measure``'s raw values."""

    def ratio(x: float, top: float) -> float:
        return min(1.0, x / top) if top > 0 else 0.0

    return (
        min(1.0, raw[0]),
        min(1.0, raw[1]),
        ratio(raw[2], scale.resource_pairs),
        ratio(raw[3], scale.pip_pairs),
        ratio(raw[4], scale.resource_probability),
        ratio(raw[5], scale.junction_range),
        ratio(raw[6], scale.terrain_mean_spread),
    )


def scale_for(radius: int | str, terrain: Sequence[int], pips: Sequence[int]) -> _Scale:
    """The factor maxima of a layout's multiset of terrains and tokens (cached)."""
    counts = [0] * 6
    for t in terrain:
        counts[t] += 1
    tokens = tuple(sorted((p for p in pips if p), reverse=True))
    return _scale(radius, tuple(counts[:5]), tokens)


def layout_of(board: Board) -> tuple[Geometry, list[int], list[int]]:
    """``board`` as per-tile terrain codes and pips in ``Geometry`` order."""
    geo = geometry(island_of(board))
    terrain = [DESERT] * len(geo.tiles)
    pips = [0] * len(geo.tiles)
    for t in board.tiles:
        i = geo.index[t.tile]
        terrain[i] = int(t.terrain)
        pips[i] = PIPS[t.number] if t.number else 0
    return geo, terrain, pips


def score_layout(radius: int | str, terrain: Sequence[int], pips: Sequence[int]) -> float:
    """The overall score (mean of the seven scaled factors) of a layout."""
    scale = scale_for(radius, terrain, pips)
    return sum(scaled(measure(geometry(radius), terrain, pips, scale), scale)) / len(FACTORS)


def score_board(board: Board) -> BoardScore:
    """The balance of ``board`` with its factor breakdown.

    Raises:
        BoardError: the board is not a full hexagon of radius 2 or more.
    """
    if board.radius < 2:
        raise BoardError(f"only boards of radius 2 or more can be scored, got {board.radius}")
    geo, terrain, pips = layout_of(board)
    scale = scale_for(island_of(board), terrain, pips)
    raw = measure(geo, terrain, pips, scale)
    factors = scaled(raw, scale)
    return BoardScore(
        score=sum(factors) / len(FACTORS),
        factors=dict(zip(FACTORS, factors, strict=True)),
        raw={
            "line_corner_difference": 6 * raw[7],
            "line_pip_difference": 6 * raw[8],
            "same_terrain_neighbours": raw[2],
            "equal_probability_neighbours": raw[3],
            "resource_share_error": raw[4],
            "junction_range_pips": raw[5],
            "terrain_mean_spread": raw[6],
        },
    )
