"""What goes on a board of a given radius, and the tile geometry every generator shares.

The beginner box holds 19 terrain hexes (4 forest, 3 hills, 4 pasture, 4 fields,
3 mountains, 1 desert), 18 number tokens and 9 harbours on a coast of 30 edges.
Larger islands (seed 000) keep those ratios: one desert per 19 tiles, the five
terrains and the ten numbers in the box's proportions (largest remainder, ties going
to the more common terrain and the more likely number), and one harbour per
30/9 coastal edges, five 2:1 harbours for every four 3:1.

``Geometry`` is the per-radius table the generators and the scorer look things up in:
tiles in a fixed order, adjacent tile pairs, junctions of three land tiles and the
side of each tile relative to the three dividing lines through the centre (seed 003).
"""

from __future__ import annotations

import math
from functools import cache

from catan_p2p.errors import UsageError
from catan_p2p.rules.board import (
    EXTENSION_BOARD,
    EXTENSION_ISLAND,
    EXTENSION_RADIUS,
    STANDARD_BOARD,
    Board,
)
from catan_p2p.rules.cards import Resource, Terrain
from catan_p2p.rules.hexgrid import EdgeId, Tile, corners, edge_ends, edge_id, neighbours

MIN_RADIUS = 2
MAX_RADIUS = 5

#: The key of the 5-6 player extension's 30-tile island wherever a radius names an
#: island (an ``Island`` is a radius or this).
EXTENSION = "5-6"
Island = int | str

#: The 5-6 player extension's box: 30 terrain hexes, 28 number tokens, 11 harbours
#: (two more than the base box: a 3:1 and a 2:1 wool harbour).
EXTENSION_TERRAIN: dict[Terrain, int] = {
    Terrain.FOREST: 6,
    Terrain.HILLS: 5,
    Terrain.PASTURE: 6,
    Terrain.FIELDS: 6,
    Terrain.MOUNTAINS: 5,
    Terrain.DESERT: 2,
}
EXTENSION_NUMBERS: dict[int, int] = {
    2: 2, 3: 3, 4: 3, 5: 3, 6: 3, 8: 3, 9: 3, 10: 3, 11: 3, 12: 2,
}  # fmt: skip
EXTENSION_PORTS: tuple[Resource | None, ...] = (
    *(None,) * 5,
    Resource.WOOL,
    Resource.WOOL,
    Resource.LUMBER,
    Resource.BRICK,
    Resource.GRAIN,
    Resource.ORE,
)

#: The beginner box: terrain hexes, number tokens and harbours of the 19-tile island.
BOX_TERRAIN: dict[Terrain, int] = {
    Terrain.FOREST: 4,
    Terrain.HILLS: 3,
    Terrain.PASTURE: 4,
    Terrain.FIELDS: 4,
    Terrain.MOUNTAINS: 3,
    Terrain.DESERT: 1,
}
BOX_NUMBERS: dict[int, int] = {2: 1, 3: 2, 4: 2, 5: 2, 6: 2, 8: 2, 9: 2, 10: 2, 11: 2, 12: 1}
BOX_PORTS_GENERIC = 4
BOX_PORTS_SPECIFIC = 5  # one 2:1 harbour per resource
BOX_TILES = 19
BOX_COAST = 30

#: Who gets a left-over hex when proportions do not divide evenly (seed 000's choice:
#: the resources the box already has more of).
TERRAIN_PREFERENCE = (
    Terrain.FOREST,
    Terrain.PASTURE,
    Terrain.FIELDS,
    Terrain.HILLS,
    Terrain.MOUNTAINS,
)
#: Who gets a left-over token: the likelier numbers first, as in seed 000.
NUMBER_PREFERENCE = (6, 8, 5, 9, 4, 10, 3, 11, 2, 12)

SQRT3 = math.sqrt(3.0)


def check_radius(radius: Island) -> None:
    """Raise ``UsageError`` unless boards of ``radius`` (or the extension's island) can be
    generated."""
    if radius == EXTENSION:
        return
    if not (isinstance(radius, int) and MIN_RADIUS <= radius <= MAX_RADIUS):
        raise UsageError(
            f"board radius must be between {MIN_RADIUS} (the 19-tile island) and "
            f"{MAX_RADIUS}, got {radius}"
        )


def land_count(radius: Island) -> int:
    """Number of land tiles of a hexagonal island of ``radius`` (30 on the extension's)."""
    if radius == EXTENSION:
        return len(EXTENSION_ISLAND)
    return 3 * radius * (radius + 1) + 1  # type: ignore[operator]


def island_tiles(radius: Island) -> tuple[Tile, ...]:
    """The land tiles of an island, sorted."""
    if radius == EXTENSION:
        return tuple(sorted(EXTENSION_ISLAND))
    r = int(radius)
    return tuple(
        sorted((q, s) for q in range(-r, r + 1) for s in range(max(-r, -q - r), min(r, -q + r) + 1))
    )


def island_radius(radius: Island) -> int:
    """The ``Board.radius`` of boards of this island."""
    return EXTENSION_RADIUS if radius == EXTENSION else int(radius)


def island_of(board: Board) -> Island:
    """The island a board is laid on: its radius, or ``EXTENSION``."""
    if board.radius == EXTENSION_RADIUS and len(board.tiles) == len(EXTENSION_ISLAND):
        return EXTENSION
    return board.radius


def _largest_remainder(total: int, weights: dict, preference: tuple) -> dict:
    """Split ``total`` in proportion to ``weights``; left-overs follow ``preference``."""
    weight_sum = sum(weights.values())
    exact = {k: total * w / weight_sum for k, w in weights.items()}
    counts = {k: int(math.floor(v)) for k, v in exact.items()}
    left = total - sum(counts.values())
    order = sorted(weights, key=lambda k: (-(exact[k] - counts[k]), preference.index(k)))
    for k in order[:left]:
        counts[k] += 1
    return counts


def desert_count(radius: Island) -> int:
    """One desert per 19 tiles, rounded, at least one."""
    return max(1, round(land_count(radius) / BOX_TILES))


@cache
def terrain_counts(radius: Island) -> dict[Terrain, int]:
    """How many hexes of each terrain an island of ``radius`` gets (the box at radius 2,
    the extension's box on its island)."""
    if radius == EXTENSION:
        return dict(EXTENSION_TERRAIN)
    producing = land_count(radius) - desert_count(radius)
    weights = {t: n for t, n in BOX_TERRAIN.items() if t is not Terrain.DESERT}
    counts = _largest_remainder(producing, weights, TERRAIN_PREFERENCE)
    counts[Terrain.DESERT] = desert_count(radius)
    return counts


@cache
def number_counts(radius: Island) -> dict[int, int]:
    """How many tokens of each number: one per producing hex, in the box's proportions."""
    if radius == EXTENSION:
        return dict(EXTENSION_NUMBERS)
    producing = land_count(radius) - desert_count(radius)
    return _largest_remainder(producing, BOX_NUMBERS, NUMBER_PREFERENCE)


def coast_length(radius: Island) -> int:
    """Number of land-to-sea edges around an island of ``radius``."""
    if radius == EXTENSION:
        return len(coast_edges(radius))
    return 6 * (2 * int(radius) + 1)


@cache
def port_kinds(radius: Island) -> tuple[Resource | None, ...]:
    """The harbours of an island: ``None`` for 3:1, a resource for its 2:1 harbour.

    Their number is proportional to the coast (9 per 30 edges); 2:1 and 3:1 keep the
    box's 5:4 split, and extra 2:1 harbours go to the resources with most hexes. The
    extension's island has the extension box's 11.
    """
    if radius == EXTENSION:
        return EXTENSION_PORTS
    total = round(coast_length(radius) * (BOX_PORTS_GENERIC + BOX_PORTS_SPECIFIC) / BOX_COAST)
    specific = round(total * BOX_PORTS_SPECIFIC / (BOX_PORTS_GENERIC + BOX_PORTS_SPECIFIC))
    counts = terrain_counts(radius)
    by_abundance = sorted(
        TERRAIN_PREFERENCE, key=lambda t: (-counts[t], TERRAIN_PREFERENCE.index(t))
    )
    kinds: list[Resource | None] = []
    for i in range(specific):
        terrain = by_abundance[i % 5]
        kinds.append(terrain.resource)
    kinds.extend([None] * (total - specific))
    return tuple(kinds)


def pixel(tile: Tile) -> tuple[float, float]:
    """Centre of a pointy-top hex of unit size (y grows southwards, like the screen)."""
    q, r = tile
    return (SQRT3 * (q + r / 2.0), 1.5 * r)


@cache
def coast_edges(radius: Island) -> tuple[EdgeId, ...]:
    """Land-to-sea edges, clockwise from the north-west, as seen on screen."""
    land = set(island_tiles(radius))
    edges = {edge_id(t, n) for t in land for n in neighbours(t) if n not in land}
    cx, cy = 0.0, 0.0  # a hexagon's centre; the extension's island is off (0,0)
    if radius == EXTENSION:
        xs = [pixel(t) for t in land]
        cx, cy = sum(x for x, _ in xs) / len(xs), sum(y for _, y in xs) / len(xs)

    def angle(edge: EdgeId) -> float:
        (ax, ay), (bx, by) = pixel(edge[0]), pixel(edge[1])
        # Start just past north-west and walk clockwise on screen (y down).
        mx, my = (ax + bx) / 2 - cx, (ay + by) / 2 - cy
        return (math.atan2(my, mx) + math.pi * 0.75) % (2 * math.pi)

    return tuple(sorted(edges, key=angle))


@cache
def port_edges(radius: Island) -> tuple[EdgeId, ...]:
    """Where the harbours are: the box's frame at radius 2, else evenly round the coast
    (moved on by an edge where two would share a corner)."""
    if radius == 2:
        return tuple(p.edge for p in STANDARD_BOARD.ports)
    if radius == EXTENSION:
        return tuple(p.edge for p in EXTENSION_BOARD.ports)
    coast = coast_edges(radius)
    n = len(port_kinds(radius))
    chosen: list[EdgeId] = []
    used: set = set()
    for i in range(n):
        at = (i * len(coast)) // n
        while used & set(edge_ends(coast[at % len(coast)])):
            at += 1
        chosen.append(coast[at % len(coast)])
        used |= set(edge_ends(chosen[-1]))
    return tuple(chosen)


class Geometry:
    """Tile tables of one radius, shared by the generators and the scorer.

    Tiles are indexed in sorted order, the same order as ``BoardGraph.tiles``.
    """

    def __init__(self, radius: Island) -> None:
        self.island = radius
        self.radius = island_radius(radius)
        tiles = list(island_tiles(radius))
        self.tiles: tuple[Tile, ...] = tuple(tiles)
        self.index: dict[Tile, int] = {t: i for i, t in enumerate(tiles)}
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.index[n] for n in neighbours(t) if n in self.index) for t in tiles
        )
        self.pairs: tuple[tuple[int, int], ...] = tuple(
            (i, j) for i, ns in enumerate(self.neighbours) for j in ns if i < j
        )
        junctions = set()
        for t in tiles:
            for v in corners(t):
                if all(x in self.index for x in v):
                    junctions.add(tuple(self.index[x] for x in v))
        self.junctions: tuple[tuple[int, int, int], ...] = tuple(sorted(junctions))  # type: ignore[arg-type]
        # Side of each tile for the three dividing lines (the axes through the centre):
        # +1 / -1 for the two halves, 0 for the tiles the line runs through. All six
        # corners of a tile lie on its side, so vertex sums reduce to tile sums.
        self.sides: tuple[tuple[int, ...], ...] = tuple(
            tuple((c > 0) - (c < 0) for c in coords)
            for coords in (
                [q for q, _ in tiles],
                [r for _, r in tiles],
                [-q - r for q, r in tiles],
            )
        )
        self.half: int = sum(1 for s in self.sides[0] if s > 0)  # tiles in one half


@cache
def geometry(radius: Island) -> Geometry:
    """The shared ``Geometry`` of ``radius`` (built once)."""
    return Geometry(radius)
