"""Hex geometry: axial tile coordinates and board-independent vertex and edge ids.

Tiles use axial coordinates ``(q, r)`` of pointy-top hexes (``s = -q - r``).
A vertex is named by the three tiles that touch it and an edge by its two tiles,
each as a sorted tuple, so an id means the same place on any board that has those
tiles (the thesis's idea). Land is surrounded by a ring of sea tiles, so every land
vertex touches exactly three tiles and every land edge two.
"""

from __future__ import annotations

from typing import TypeAlias

Tile: TypeAlias = tuple[int, int]
VertexId: TypeAlias = tuple[Tile, Tile, Tile]
EdgeId: TypeAlias = tuple[Tile, Tile]

#: The six neighbour directions, counter-clockwise starting east.
DIRECTIONS: tuple[Tile, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def neighbour(tile: Tile, direction: int) -> Tile:
    """The tile next to ``tile`` in one of the six ``DIRECTIONS``."""
    dq, dr = DIRECTIONS[direction % 6]
    return (tile[0] + dq, tile[1] + dr)


def neighbours(tile: Tile) -> tuple[Tile, ...]:
    """The six tiles around ``tile``."""
    return tuple(neighbour(tile, d) for d in range(6))


def distance(a: Tile, b: Tile) -> int:
    """Number of steps between two tiles."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def ring(radius: int) -> list[Tile]:
    """Tiles exactly ``radius`` steps from the centre, in a fixed walking order."""
    if radius == 0:
        return [(0, 0)]
    tiles = []
    q, r = -radius, radius  # start south-west
    for d in range(6):
        for _ in range(radius):
            tiles.append((q, r))
            q, r = neighbour((q, r), d)
    return tiles


def spiral(radius: int) -> list[Tile]:
    """All tiles within ``radius`` of the centre, centre first, ring by ring."""
    tiles: list[Tile] = []
    for k in range(radius + 1):
        tiles.extend(ring(k))
    return tiles


def corners(tile: Tile) -> tuple[VertexId, ...]:
    """The six vertex ids around a tile, corner ``i`` between neighbours ``i`` and ``i+1``."""
    return tuple(vertex_id(tile, neighbour(tile, d), neighbour(tile, d + 1)) for d in range(6))


def sides(tile: Tile) -> tuple[EdgeId, ...]:
    """The six edge ids around a tile, side ``i`` shared with neighbour ``i``."""
    return tuple(edge_id(tile, neighbour(tile, d)) for d in range(6))


def vertex_id(a: Tile, b: Tile, c: Tile) -> VertexId:
    """Canonical id of the vertex where three mutually adjacent tiles meet."""
    return tuple(sorted((a, b, c)))  # type: ignore[return-value]


def edge_id(a: Tile, b: Tile) -> EdgeId:
    """Canonical id of the edge between two adjacent tiles."""
    return (a, b) if a <= b else (b, a)


def edge_ends(edge: EdgeId) -> tuple[VertexId, VertexId]:
    """The two vertices at the ends of an edge (each shares both of its tiles)."""
    a, b = edge
    common = [t for t in neighbours(a) if distance(t, b) == 1]
    return (vertex_id(a, b, common[0]), vertex_id(a, b, common[1]))


def format_tile(tile: Tile) -> str:
    """``(q,r)``, the tile's text form used in commit messages and files."""
    return f"({tile[0]},{tile[1]})"


def format_place(tiles: tuple[Tile, ...]) -> str:
    """``(q,r|q,r|q,r)``: the text form of a vertex or edge id."""
    return "(" + "|".join(f"{q},{r}" for q, r in tiles) + ")"


def parse_place(text: str) -> tuple[Tile, ...]:
    """Inverse of ``format_place`` and ``format_tile``; raises ``ValueError`` on bad text."""
    body = text.strip()
    if not (body.startswith("(") and body.endswith(")")):
        raise ValueError(f"place {text!r} must look like (q,r) or (q,r|q,r|...)")
    tiles = []
    for part in body[1:-1].split("|"):
        q, _, r = part.partition(",")
        tiles.append((int(q), int(r)))
    return tuple(sorted(tiles))
