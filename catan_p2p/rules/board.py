"""The board: terrain, number tokens and ports, plus the lookup tables built from it once.

``Board`` is the plain description stored in a game's genesis commit. ``board.graph``
turns it into int-indexed tables (vertex -> tiles, edge -> vertices, ...) so the
rules only look things up, the way python-chess precomputes its attack tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from catan_p2p.errors import BoardError
from catan_p2p.rules.cards import Resource, Terrain
from catan_p2p.rules.hexgrid import (
    EdgeId,
    Tile,
    VertexId,
    corners,
    distance,
    edge_ends,
    format_place,
    sides,
)

#: Probability dots of each number token (ways to roll it with two dice).
PIPS: dict[int, int] = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}

NO_PORT = -1
NO_RESOURCE = -1  # the desert's entry in ``BoardGraph.tile_resource``
GENERIC_PORT = 5  # a 3:1 port; codes 0..4 are the 2:1 port of that Resource


#: The 5-6 player extension's island: rows of 3, 4, 5, 6, 5, 4 and 3 tiles from north to
#: south, i.e. the hexagon of radius 3 without the east end of each row. It is not
#: centred on ``(0,0)`` (a row of six has no middle tile); a board of it has radius 3.
EXTENSION_RADIUS = 3
EXTENSION_ISLAND: frozenset[Tile] = frozenset(
    (q, r)
    for r in range(-EXTENSION_RADIUS, EXTENSION_RADIUS + 1)
    for q in range(max(-3, -3 - r), min(3, 3 - r))  # the hexagon's row minus its east end
)


@dataclass(frozen=True, order=True)
class Port:
    """A harbour on a coastal edge: 3:1 for any resource, or 2:1 for ``resource``."""

    edge: EdgeId
    resource: Resource | None = None

    @property
    def rate(self) -> int:
        return 3 if self.resource is None else 2

    @property
    def code(self) -> int:
        return GENERIC_PORT if self.resource is None else int(self.resource)

    @property
    def label(self) -> str:
        return "3:1" if self.resource is None else f"2:1 {self.resource.label}"


@dataclass(frozen=True)
class HexTile:
    """One land tile: where it is, what it produces and its number token (None: desert)."""

    tile: Tile
    terrain: Terrain
    number: int | None


#: Board graphs by their board's description (``Board.graph``).
_GRAPHS: dict[str, BoardGraph] = {}


@dataclass(frozen=True)
class Board:
    """A land hexagon of ``radius`` with its number tokens and ports, ringed by sea."""

    radius: int
    tiles: tuple[HexTile, ...]
    ports: tuple[Port, ...]
    name: str = field(default="custom", compare=False)

    def __post_init__(self) -> None:
        # Canonical order, so two descriptions of one board are equal and serialise alike.
        object.__setattr__(self, "tiles", tuple(sorted(self.tiles, key=lambda t: t.tile)))
        # By edge then code: two ports on one edge must reach validate(), not fail to sort.
        ports = tuple(sorted(self.ports, key=lambda p: (p.edge, p.code)))
        object.__setattr__(self, "ports", ports)
        self.validate()

    def validate(self) -> None:
        """Raise ``BoardError`` naming the first thing wrong with this description."""
        seen: set[Tile] = set()
        for t in self.tiles:
            if distance(t.tile, (0, 0)) > self.radius:
                raise BoardError(f"tile {t.tile} lies outside a board of radius {self.radius}")
            if t.tile in seen:
                raise BoardError(f"tile {t.tile} appears twice on the board")
            seen.add(t.tile)
            if (t.terrain is Terrain.DESERT) != (t.number is None):
                raise BoardError(f"tile {t.tile}: only the desert has no number token")
            if t.number is not None and t.number not in PIPS:
                raise BoardError(f"tile {t.tile}: number token {t.number} is not 2..6 or 8..12")
        expected = 3 * self.radius * (self.radius + 1) + 1
        if len(seen) != expected and not (
            self.radius == EXTENSION_RADIUS and seen == EXTENSION_ISLAND
        ):
            also = (
                f" (or the {len(EXTENSION_ISLAND)} tiles of the 5-6 player island)"
                if self.radius == EXTENSION_RADIUS
                else ""
            )
            raise BoardError(
                f"a board of radius {self.radius} needs {expected} land tiles{also}, "
                f"got {len(seen)}"
            )
        if not any(t.terrain is Terrain.DESERT for t in self.tiles):
            raise BoardError("the board needs a desert for the robber to start on")
        harboured: set[VertexId] = set()  # a vertex serves one port, or one would be lost
        for port in self.ports:
            a, b = port.edge
            if distance(a, b) != 1 or ((a in seen) == (b in seen)):
                raise BoardError(f"port at {format_place(port.edge)} is not on a coastal edge")
            ends = set(edge_ends(port.edge))
            if ends & harboured:
                raise BoardError(
                    f"port at {format_place(port.edge)} shares a vertex with another port"
                )
            harboured |= ends

    @cached_property
    def graph(self) -> BoardGraph:
        """The lookup tables of this board, built on first use and then shared, also by
        every board of the same description in this process (a session reads its board
        from the genesis and again from a checkpoint; a build takes about 10 ms)."""
        key = repr((self.radius, self.tiles, self.ports))  # exact: tells 6 from 6.0 or True
        graph = _GRAPHS.get(key)
        if graph is None:
            if len(_GRAPHS) >= 64:
                _GRAPHS.clear()
            graph = _GRAPHS[key] = BoardGraph(self)
        return graph

    def to_data(self) -> dict:
        """Plain JSON-ready data; ``Board.from_data`` is its inverse."""
        return {
            "name": self.name,
            "radius": self.radius,
            "tiles": [
                {"tile": list(t.tile), "terrain": t.terrain.label, "number": t.number}
                for t in sorted(self.tiles, key=lambda t: t.tile)
            ],
            "ports": [
                {
                    "edge": [list(x) for x in p.edge],
                    "resource": None if p.resource is None else p.resource.label,
                }
                for p in sorted(self.ports)
            ],
        }

    @classmethod
    def from_data(cls, data: dict) -> Board:
        try:
            tiles = tuple(
                HexTile(
                    (int(t["tile"][0]), int(t["tile"][1])), Terrain.parse(t["terrain"]), t["number"]
                )
                for t in data["tiles"]
            )
            ports = tuple(
                Port(
                    tuple(sorted((int(e[0]), int(e[1])) for e in p["edge"])),  # type: ignore[arg-type]
                    None if p["resource"] is None else Resource.parse(p["resource"]),
                )
                for p in data["ports"]
            )
            return cls(int(data["radius"]), tiles, ports, name=str(data.get("name", "custom")))
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            if isinstance(exc, BoardError):
                raise
            raise BoardError(f"board data is malformed: {exc}") from exc


class BoardGraph:
    """Int-indexed adjacency tables of one board (tiles, vertices and edges on land).

    A function of the board's radius, tiles and ports alone (``board`` is the first
    board of that description it was built for)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        by_tile = {t.tile: t for t in board.tiles}
        self.tiles: tuple[Tile, ...] = tuple(sorted(by_tile))
        self.tile_index: dict[Tile, int] = {t: i for i, t in enumerate(self.tiles)}
        self.tile_terrain: tuple[Terrain, ...] = tuple(by_tile[t].terrain for t in self.tiles)
        self.tile_resource: tuple[int, ...] = tuple(
            NO_RESOURCE if tr is Terrain.DESERT else int(tr) for tr in self.tile_terrain
        )
        self.tile_number: tuple[int, ...] = tuple(by_tile[t].number or 0 for t in self.tiles)
        self.desert: int = self.tile_terrain.index(Terrain.DESERT)

        vertex_set: set[VertexId] = set()
        edge_set: set[EdgeId] = set()
        for t in self.tiles:
            vertex_set.update(corners(t))
            edge_set.update(sides(t))
        self.vertices: tuple[VertexId, ...] = tuple(sorted(vertex_set))
        self.edges: tuple[EdgeId, ...] = tuple(sorted(edge_set))
        self.vertex_index: dict[VertexId, int] = {v: i for i, v in enumerate(self.vertices)}
        self.edge_index: dict[EdgeId, int] = {e: i for i, e in enumerate(self.edges)}

        self.edge_vertices: tuple[tuple[int, int], ...] = tuple(
            tuple(self.vertex_index[v] for v in edge_ends(e))  # type: ignore[misc]
            for e in self.edges
        )
        vertex_edges: list[list[int]] = [[] for _ in self.vertices]
        vertex_neighbours: list[list[int]] = [[] for _ in self.vertices]
        for e, (a, b) in enumerate(self.edge_vertices):
            vertex_edges[a].append(e)
            vertex_edges[b].append(e)
            vertex_neighbours[a].append(b)
            vertex_neighbours[b].append(a)
        self.vertex_edges: tuple[tuple[int, ...], ...] = tuple(map(tuple, vertex_edges))
        self.vertex_neighbours: tuple[tuple[int, ...], ...] = tuple(map(tuple, vertex_neighbours))
        self.vertex_tiles: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.tile_index[t] for t in v if t in self.tile_index) for v in self.vertices
        )
        self.tile_vertices: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.vertex_index[v] for v in corners(t)) for t in self.tiles
        )
        number_tiles: dict[int, list[int]] = {n: [] for n in range(2, 13)}
        for i, n in enumerate(self.tile_number):
            if n:
                number_tiles[n].append(i)
        self.number_tiles: dict[int, tuple[int, ...]] = {
            n: tuple(v) for n, v in number_tiles.items()
        }

        vertex_port = [NO_PORT] * len(self.vertices)
        for port in board.ports:
            for v in edge_ends(port.edge):
                vertex_port[self.vertex_index[v]] = port.code
        self.vertex_port: tuple[int, ...] = tuple(vertex_port)
        self.vertex_pips: tuple[int, ...] = tuple(
            sum(PIPS.get(self.tile_number[t], 0) for t in ts) for ts in self.vertex_tiles
        )

    def vertex(self, vid: VertexId) -> int:
        """Index of a vertex id; ``KeyError`` when it is not on this board's land."""
        return self.vertex_index[vid]

    def edge(self, eid: EdgeId) -> int:
        return self.edge_index[eid]


def _beginner() -> Board:
    f, h, p, g, m, d = (
        Terrain.FOREST,
        Terrain.HILLS,
        Terrain.PASTURE,
        Terrain.FIELDS,
        Terrain.MOUNTAINS,
        Terrain.DESERT,
    )
    # Row by row from the top, west to east: the rulebook's beginner set-up
    # (the thesis's Figure 2.1 and TLA+ map, converted from HECS to axial coordinates).
    rows: list[tuple[int, list[tuple[Terrain, int | None]]]] = [
        (-2, [(m, 10), (p, 2), (f, 9)]),
        (-1, [(g, 12), (h, 6), (p, 4), (h, 10)]),
        (0, [(g, 9), (f, 11), (d, None), (f, 3), (m, 8)]),
        (1, [(f, 8), (m, 3), (g, 4), (p, 5)]),
        (2, [(h, 5), (g, 6), (p, 11)]),
    ]
    tiles = []
    for r, row in rows:
        q0 = max(-2, -2 - r)
        for i, (terrain, number) in enumerate(row):
            tiles.append(HexTile((q0 + i, r), terrain, number))
    ports = (
        Port(((0, -3), (0, -2))),
        Port(((1, -2), (2, -3)), Resource.GRAIN),
        Port(((2, -1), (3, -2)), Resource.ORE),
        Port(((-2, -1), (-1, -1)), Resource.LUMBER),
        Port(((2, 0), (3, 0))),
        Port(((-3, 1), (-2, 1)), Resource.BRICK),
        Port(((1, 1), (1, 2)), Resource.WOOL),
        Port(((-3, 3), (-2, 2))),
        Port(((-1, 2), (-1, 3))),
    )
    return Board(2, tuple(tiles), tuple(sorted(ports)), name="standard")


#: The rulebook's beginner board, the default of every new game.
STANDARD_BOARD: Board = _beginner()


def _extension() -> Board:
    f, h, p, g, m, d = (
        Terrain.FOREST,
        Terrain.HILLS,
        Terrain.PASTURE,
        Terrain.FIELDS,
        Terrain.MOUNTAINS,
        Terrain.DESERT,
    )
    # The 5-6 player extension's box (6 forest, 5 hills, 6 pasture, 6 fields, 5 mountains,
    # 2 deserts) in a fixed arrangement, row by row from the top, west to east. The
    # number tokens are the extension's letters A..Zc (2 5 4 6 3 9 8 11 11 10 6 3 8 4 8
    # 10 11 12 10 5 4 9 5 9 12 3 2 6) laid as the rulebook lays them: round the island
    # counter-clockwise from the north-west corner, spiralling in, skipping the deserts;
    # no 6 or 8 touches another, nor any two equal numbers.
    rows: list[tuple[int, list[tuple[Terrain, int | None]]]] = [
        (-3, [(f, 2), (p, 4), (m, 8)]),
        (-2, [(h, 5), (f, 8), (g, 9), (p, 3)]),
        (-1, [(p, 4), (m, 10), (p, 12), (h, 5), (g, 6)]),
        (0, [(m, 6), (h, 11), (p, 3), (g, 6), (m, 9), (f, 10)]),
        (1, [(d, None), (g, 12), (h, 2), (f, 4), (g, 11)]),
        (2, [(f, 3), (f, 10), (m, 5), (d, None)]),
        (3, [(h, 9), (p, 8), (g, 11)]),
    ]
    tiles = []
    for r, row in rows:
        q0 = max(-3, -3 - r)
        for i, (terrain, number) in enumerate(row):
            tiles.append(HexTile((q0 + i, r), terrain, number))
    # Eleven harbours, evenly round the 38 coastal edges: 5 of 3:1, 2 of 2:1 wool and
    # one 2:1 harbour of each other resource.
    ports = (
        Port(((-1, -3), (-1, -2))),
        Port(((0, -3), (1, -4)), Resource.WOOL),
        Port(((2, -4), (2, -3))),
        Port(((2, -2), (3, -2)), Resource.ORE),
        Port(((2, 0), (3, -1)), Resource.GRAIN),
        Port(((1, 1), (1, 2))),
        Port(((-1, 3), (0, 3)), Resource.WOOL),
        Port(((-3, 4), (-2, 3))),
        Port(((-4, 3), (-3, 3)), Resource.BRICK),
        Port(((-4, 1), (-3, 1))),
        Port(((-3, -1), (-3, 0)), Resource.LUMBER),
    )
    return Board(EXTENSION_RADIUS, tuple(tiles), tuple(sorted(ports)), name="standard")


#: The 5-6 player extension's 30-tile island, the default board of a game of 5 or 6.
EXTENSION_BOARD: Board = _extension()


def standard_board(n_players: int) -> Board:
    """The default board: the beginner board, or the extension's island for 5-6 players."""
    return EXTENSION_BOARD if n_players >= 5 else STANDARD_BOARD


def land_tiles(radius: int) -> Iterable[Tile]:
    """Tiles of a land hexagon of ``radius`` (not counting the sea ring)."""
    for q in range(-radius, radius + 1):
        for r in range(max(-radius, -q - radius), min(radius, -q + radius) + 1):
            yield (q, r)
