"""Places in the words players use: "ore 8 / grain 6 / sea", "the north-east coast of lumber 11".

Ids stay the contract (commit messages, files, ``--json``); these names are for people:
the window's log and refusals, ``catan-p2p log`` and ``replay``. A tile is named by what
it produces and its number token, a vertex by its tiles (most productive first), an
edge by its two land tiles or by the coast of its one. ``in_words`` rewrites every id
in a sentence, so the engine's refusals read the same way without the engine knowing.

Compass words follow the drawn board: pointy-top hexes, north up (``r`` grows south).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

from catan_p2p.rules.board import PIPS, Board
from catan_p2p.rules.hexgrid import (
    DIRECTIONS,
    EdgeId,
    Tile,
    VertexId,
    corners,
    format_place,
    parse_place,
    sides,
)

#: Side ``i`` of a tile faces neighbour ``DIRECTIONS[i]``.
SIDE_WORDS = ("east", "north-east", "north-west", "west", "south-west", "south-east")
#: Corner ``i`` lies between sides ``i`` and ``i + 1``.
CORNER_WORDS = ("north-east", "north", "north-west", "south-west", "south", "south-east")

SEA = "sea"

assert len(SIDE_WORDS) == len(CORNER_WORDS) == len(DIRECTIONS)


@lru_cache(maxsize=16)
def _tables(board: Board) -> tuple[dict[Tile, str], dict[Tile, int], dict[VertexId, str]]:
    """Tile names, tile pips and port words of the vertices, built once per board."""
    names: dict[Tile, str] = {}
    pips: dict[Tile, int] = {}
    for t in board.tiles:
        resource = t.terrain.resource
        if resource is None:
            names[t.tile] = "desert"
            pips[t.tile] = 0
        else:
            names[t.tile] = f"{resource.label} {t.number}"
            pips[t.tile] = PIPS.get(t.number or 0, 0)
    ports: dict[VertexId, str] = {}
    for port in board.ports:
        word = "3:1 port" if port.resource is None else f"2:1 {port.resource.label} port"
        a, b = port.edge
        for vertex in set(corners(a)) & set(corners(b)):
            ports[vertex] = word
    return names, pips, ports


def tile_name(board: Board, tile: Tile) -> str:
    """``ore 8``, ``the desert`` or ``sea``."""
    name = _tables(board)[0].get(tile, SEA)
    return "the desert" if name == "desert" else name


def _the(name: str) -> str:
    return "the desert" if name == "desert" else name


def _land_first(board: Board, tiles: tuple[Tile, ...]) -> list[Tile]:
    names, pips, _ = _tables(board)
    land = [t for t in tiles if t in names]
    return sorted(land, key=lambda t: (-pips[t], names[t], t))


def vertex_name(board: Board, vertex: VertexId) -> str:
    """``ore 8 / grain 6 / sea``, or ``the north corner of lumber 11`` on a lone coast.

    A port at the vertex is added: ``ore 8 / grain 6 / sea, 3:1 port``. Where two
    places of the board would read alike (two ``lumber 8`` tiles), the part of the
    island follows: ``lumber 8 / brick 4 / ore 3 (west)``.
    """
    return _unique_names(board)[0].get(vertex) or _vertex_name(board, vertex)


def edge_name(board: Board, edge: EdgeId) -> str:
    """``between lumber 11 and brick 5``, or ``on the north-east coast of lumber 11``."""
    return _unique_names(board)[1].get(edge) or _edge_name(board, edge)


COMPASS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")


def _compass(tiles: tuple[Tile, ...]) -> str:
    """The part of the island a place lies in, from the middle of its tiles' centres."""
    x = sum(math.sqrt(3) * (q + r / 2) for q, r in tiles) / len(tiles)
    y = sum(1.5 * r for _, r in tiles) / len(tiles)
    if abs(x) < 0.5 and abs(y) < 0.5:
        return "centre"
    angle = math.degrees(math.atan2(-y, x)) % 360
    return COMPASS[round(angle / 45) % 8]


@lru_cache(maxsize=16)
def _unique_names(board: Board) -> tuple[dict[VertexId, str], dict[EdgeId, str]]:
    """Every vertex and edge name of the board, told apart where they would collide."""
    graph = board.graph
    out: list[dict] = []  # type: ignore[type-arg]
    for places, namer in ((graph.vertices, _vertex_name), (graph.edges, _edge_name)):
        names = {p: namer(board, p) for p in places}
        seen = Counter(names.values())
        for p, n in names.items():
            if seen[n] > 1:
                names[p] = f"{n} ({_compass(p)})"
        seen = Counter(names.values())
        for p, n in names.items():
            if seen[n] > 1:
                names[p] = f"{n[:-1]}, {_relative(board, p)})"
        seen = Counter(names.values())
        for p, n in names.items():
            if seen[n] > 1:
                names[p] = f"{n} {format_place(p)}"  # never seen on a generated board
        out.append(names)
    return out[0], out[1]


def _relative(board: Board, place: tuple[Tile, ...]) -> str:
    """``north corner of lumber 8`` / ``west side of lumber 8``: where on its first tile."""
    tile = _land_first(board, place)[0]
    name = _the(_tables(board)[0][tile])
    if len(place) == 3:
        return f"{CORNER_WORDS[corners(tile).index(place)]} corner of {name}"  # type: ignore[arg-type]
    return f"{SIDE_WORDS[sides(tile).index(place)]} side of {name}"  # type: ignore[arg-type]


def _vertex_name(board: Board, vertex: VertexId) -> str:
    names, _, ports = _tables(board)
    land = _land_first(board, vertex)
    if len(land) == 1:
        tile = land[0]
        word = CORNER_WORDS[corners(tile).index(vertex)]
        text = f"the {word} corner of {_the(names[tile])}"
    else:
        parts = [names[t] for t in land] + [SEA] * (len(vertex) - len(land))
        text = " / ".join(parts)
    port = ports.get(vertex)
    return f"{text}, {port}" if port else text


def _edge_name(board: Board, edge: EdgeId) -> str:
    names = _tables(board)[0]
    land = _land_first(board, edge)
    if len(land) == 2:
        return f"between {_the(names[land[0]])} and {_the(names[land[1]])}"
    if len(land) == 1:
        tile = land[0]
        return f"on the {SIDE_WORDS[sides(tile).index(edge)]} coast of {_the(names[tile])}"
    return "out at sea"


#: An id in text: ``(q,r)``, ``(q,r|q,r)`` or ``(q,r|q,r|q,r)``, maybe after a noun.
_PLACE = re.compile(
    r"(?:\b(?P<noun>vertex|edge|settlement|city|road) )?"
    r"(?P<place>\(-?\d+,-?\d+(?:\|-?\d+,-?\d+){0,2}\))"
)


def in_words(board: Board, text: str) -> str:
    """``text`` with every place id replaced by its name.

    >>> in_words(STANDARD_BOARD, "build road (0,-1|0,0)")  # doctest: +SKIP
    'build road between grain 9 and the desert'
    """

    def name(match: re.Match[str]) -> str:
        noun = match.group("noun")
        try:
            tiles = parse_place(match.group("place"))
        except ValueError:
            return match.group(0)
        if len(tiles) == 3:
            where = vertex_name(board, tiles)  # type: ignore[arg-type]
            if noun in ("settlement", "city"):
                return f"{noun} at {where}"
            return f"the corner at {where}" if noun == "vertex" else where
        if len(tiles) == 2:
            where = edge_name(board, tiles)  # type: ignore[arg-type]
            if noun in ("road", "edge"):
                return f"{noun} {where}"
            return f"{noun} {where}" if noun else f"the edge {where}"
        where = tile_name(board, tiles[0])
        return f"{noun} {where}" if noun else where

    return _PLACE.sub(name, text)
