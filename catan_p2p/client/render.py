"""The board renderer: draws a board, and a game's pieces and robber, onto a pygame Surface.

``BoardView(board, size, origin)`` fixes where the island sits in a window area;
``draw(surface, state, highlights)`` paints it, and ``vertex_at`` / ``edge_at`` /
``tile_at`` turn a click back into the place ids the actions take. The unchanging
part (sea, terrain, tokens, harbours) is drawn once into a cached Surface, so a frame
costs one blit plus the pieces. Works headless (``SDL_VIDEODRIVER=dummy``): only
``pygame.font`` is initialised, never a display.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # keep stdout clean for --json

import pygame  # noqa: E402
import pygame.gfxdraw  # noqa: E402

from catan_p2p.client.theme import PLAYER_COLOURS, font, player_colour
from catan_p2p.errors import UsageError
from catan_p2p.rules.actions import Action, BuildCity, BuildRoad, BuildSettlement, MoveRobber
from catan_p2p.rules.board import PIPS, Board, Port
from catan_p2p.rules.cards import Resource, Terrain
from catan_p2p.rules.hexgrid import EdgeId, Tile, VertexId, edge_ends, neighbours
from catan_p2p.rules.state import NOBODY, GameState

Colour = tuple[int, int, int]
Point = tuple[float, float]

SQRT3 = math.sqrt(3.0)

SEA: Colour = (38, 94, 150)
SEA_DEEP: Colour = (24, 58, 94)
SAND: Colour = (226, 206, 150)
OUTLINE: Colour = (60, 48, 32)
TOKEN: Colour = (246, 236, 206)
TOKEN_TEXT: Colour = (34, 30, 26)
TOKEN_RED: Colour = (200, 30, 30)
PIER: Colour = (120, 84, 50)
ROBBER: Colour = (40, 40, 44)
HIGHLIGHT: Colour = (255, 230, 90)
HIGHLIGHT_EDGE: Colour = (40, 34, 10)

TERRAIN_COLOURS: dict[Terrain, Colour] = {
    Terrain.FOREST: (34, 110, 52),
    Terrain.HILLS: (184, 86, 46),
    Terrain.PASTURE: (138, 196, 82),
    Terrain.FIELDS: (232, 190, 62),
    Terrain.MOUNTAINS: (128, 132, 144),
    Terrain.DESERT: (214, 196, 140),
}
PORT_COLOURS: dict[Resource | None, Colour] = {
    None: (250, 250, 250),
    Resource.LUMBER: TERRAIN_COLOURS[Terrain.FOREST],
    Resource.BRICK: TERRAIN_COLOURS[Terrain.HILLS],
    Resource.WOOL: TERRAIN_COLOURS[Terrain.PASTURE],
    Resource.GRAIN: TERRAIN_COLOURS[Terrain.FIELDS],
    Resource.ORE: TERRAIN_COLOURS[Terrain.MOUNTAINS],
}


def player_rgb(name: str) -> Colour:
    """A seat's colour: the usual seat colours, else any colour name pygame knows."""
    if name in PLAYER_COLOURS:
        return PLAYER_COLOURS[name]
    try:
        c = pygame.Color(name)
        return (c.r, c.g, c.b)
    except (ValueError, TypeError):
        return player_colour(name)


def _darker(colour: Colour, by: float = 0.55) -> Colour:
    return (int(colour[0] * by), int(colour[1] * by), int(colour[2] * by))


def _ink(colour: Colour) -> Colour:
    r, g, b = colour
    return (20, 20, 20) if 0.299 * r + 0.587 * g + 0.114 * b > 140 else (250, 250, 250)


@dataclass(frozen=True)
class Highlights:
    """Places to mark as clickable: vertices, edges and tiles (e.g. the legal targets)."""

    vertices: frozenset[VertexId] = field(default_factory=frozenset)
    edges: frozenset[EdgeId] = field(default_factory=frozenset)
    tiles: frozenset[Tile] = field(default_factory=frozenset)

    @classmethod
    def from_actions(cls, actions: Iterable[Action]) -> Highlights:
        """The targets of the settlement, city, road and robber actions among ``actions``."""
        vertices, edges, tiles = set(), set(), set()
        for a in actions:
            if isinstance(a, BuildSettlement | BuildCity):
                vertices.add(a.vertex)
            elif isinstance(a, BuildRoad):
                edges.add(a.edge)
            elif isinstance(a, MoveRobber):
                tiles.add(a.tile)
        return cls(frozenset(vertices), frozenset(edges), frozenset(tiles))

    def __bool__(self) -> bool:
        return bool(self.vertices or self.edges or self.tiles)


NO_HIGHLIGHTS = Highlights()


class BoardView:
    """Where each tile, vertex and edge of ``board`` is drawn in a ``size`` area at ``origin``.

    All positions are in the coordinates of the surface ``draw`` paints on (origin
    included), so a window can hand mouse positions straight to the hit tests.
    """

    def __init__(
        self, board: Board, size: tuple[int, int], origin: tuple[int, int] = (0, 0)
    ) -> None:
        self.board = board
        self.size = (int(size[0]), int(size[1]))
        self.origin = (int(origin[0]), int(origin[1]))
        ring = board.radius + 1  # the sea ring holds the harbours
        w, h = self.size
        #: Hex size: centre to corner, in pixels.
        self.hex_size: float = 0.97 * min(w / (SQRT3 * (2 * ring + 1)), h / (3 * ring + 2))
        self.centre: Point = (self.origin[0] + w / 2.0, self.origin[1] + h / 2.0)
        graph = board.graph
        self._land = set(graph.tiles)
        self._vertex_pos = {v: self.vertex_pos(v) for v in graph.vertices}
        self._edge_pos = {e: self.edge_pos(e) for e in graph.edges}
        self._static: pygame.Surface | None = None

    # --- geometry -------------------------------------------------------------------

    def tile_center(self, tile: Tile) -> Point:
        """Pixel centre of a tile (land or sea)."""
        q, r = tile
        s = self.hex_size
        return (self.centre[0] + s * SQRT3 * (q + r / 2.0), self.centre[1] + s * 1.5 * r)

    def vertex_pos(self, vertex: VertexId) -> Point:
        """Pixel position of a vertex: the middle of its three tiles' centres."""
        xs, ys = zip(*(self.tile_center(t) for t in vertex), strict=True)
        return (sum(xs) / 3.0, sum(ys) / 3.0)

    def edge_pos(self, edge: EdgeId) -> Point:
        """Pixel position of the middle of an edge."""
        (ax, ay), (bx, by) = self.tile_center(edge[0]), self.tile_center(edge[1])
        return ((ax + bx) / 2.0, (ay + by) / 2.0)

    def hex_corners(self, tile: Tile, scale: float = 1.0) -> list[Point]:
        """The six corners of a tile's hexagon, clockwise from the east-south-east one."""
        cx, cy = self.tile_center(tile)
        s = self.hex_size * scale
        return [
            (
                cx + s * math.cos(math.radians(30 + 60 * i)),
                cy + s * math.sin(math.radians(30 + 60 * i)),
            )
            for i in range(6)
        ]

    # --- hit tests ------------------------------------------------------------------

    def tile_at(self, pos: tuple[float, float]) -> Tile | None:
        """The land tile under ``pos``, or None (sea, or outside the board)."""
        s = self.hex_size
        x = (pos[0] - self.centre[0]) / s
        y = (pos[1] - self.centre[1]) / s
        fq = SQRT3 / 3.0 * x - y / 3.0
        fr = 2.0 / 3.0 * y
        fs = -fq - fr
        q, r, s_ = round(fq), round(fr), round(fs)
        dq, dr, ds = abs(q - fq), abs(r - fr), abs(s_ - fs)
        if dq > dr and dq > ds:
            q = -r - s_
        elif dr > ds:
            r = -q - s_
        tile = (int(q), int(r))
        return tile if tile in self._land else None

    def vertex_at(
        self,
        pos: tuple[float, float],
        among: Iterable[VertexId] | None = None,
        reach: float = 0.3,
    ) -> VertexId | None:
        """The vertex nearest ``pos`` within ``reach`` hex sizes, or None.

        Args:
            among: only consider these vertices (e.g. the legal ones); default all.
        """
        candidates = (
            self._vertex_pos
            if among is None
            else {v: self._vertex_pos[v] for v in among if v in self._vertex_pos}
        )
        return _nearest(candidates, pos, reach * self.hex_size)

    def edge_at(
        self,
        pos: tuple[float, float],
        among: Iterable[EdgeId] | None = None,
        reach: float = 0.3,
    ) -> EdgeId | None:
        """The edge whose middle is nearest ``pos`` within ``reach`` hex sizes, or None."""
        candidates = (
            self._edge_pos
            if among is None
            else {e: self._edge_pos[e] for e in among if e in self._edge_pos}
        )
        return _nearest(candidates, pos, reach * self.hex_size)

    # --- drawing --------------------------------------------------------------------

    def draw(
        self,
        surface: pygame.Surface,
        state: GameState | None = None,
        highlights: Highlights = NO_HIGHLIGHTS,
    ) -> None:
        """Paint the board (and ``state``'s robber, roads and buildings) on ``surface``."""
        if self._static is None:
            self._static = self._draw_static()
        surface.blit(self._static, self.origin)
        for tile in highlights.tiles:
            if tile in self._land:
                pts = self.hex_corners(tile, 0.9)
                pygame.draw.polygon(surface, HIGHLIGHT, pts, max(2, int(self.hex_size * 0.07)))
        robber = self.board.graph.desert
        if state is not None:
            self._draw_pieces(surface, state)
            robber = state.robber
        self._draw_robber(surface, self.board.graph.tiles[robber])
        s = self.hex_size
        for edge in highlights.edges:
            if edge in self._edge_pos:
                x, y = self._edge_pos[edge]
                _disc(surface, (x, y), 0.13 * s, HIGHLIGHT, HIGHLIGHT_EDGE)
        for vertex in highlights.vertices:
            if vertex in self._vertex_pos:
                x, y = self._vertex_pos[vertex]
                _disc(surface, (x, y), 0.16 * s, HIGHLIGHT, HIGHLIGHT_EDGE)

    def _draw_static(self) -> pygame.Surface:
        """Sea, terrain, number tokens and harbours, in the view's own coordinates."""
        w, h = self.size
        surface = pygame.Surface((w, h))
        surface.fill(SEA_DEEP)
        ox, oy = self.origin
        shift = lambda pts: [(x - ox, y - oy) for x, y in pts]  # noqa: E731
        graph = self.board.graph
        sea_ring = {n for t in graph.tiles for n in neighbours(t) if n not in self._land}
        for tile in sorted(sea_ring):
            _polygon(surface, shift(self.hex_corners(tile, 1.0)), SEA, SEA)
        for tile in graph.tiles:  # a beach under the island
            _polygon(surface, shift(self.hex_corners(tile, 1.06)), SAND, SAND)
        for port in self.board.ports:
            self._draw_port(surface, port)
        by_tile = {t.tile: t for t in self.board.tiles}
        for tile in graph.tiles:
            hex_tile = by_tile[tile]
            colour = TERRAIN_COLOURS[hex_tile.terrain]
            _polygon(surface, shift(self.hex_corners(tile, 0.96)), colour, _darker(colour, 0.7))
            cx, cy = self.tile_center(tile)
            self._draw_terrain(surface, (cx - ox, cy - oy), hex_tile.terrain)
            if hex_tile.number is not None:
                self._draw_token(surface, (cx - ox, cy - oy), hex_tile.number)
        return surface

    def _draw_terrain(self, surface: pygame.Surface, at: Point, terrain: Terrain) -> None:
        """What a tile produces, in words under its token and as a small picture beside
        it, so lumber and wool (two greens), or grain and brick, are never told by colour.
        (Above the token the tile shows its plain colour.)"""
        s = self.hex_size
        ink = _ink(TERRAIN_COLOURS[terrain])
        label = tile_label(terrain)
        name = _fit(label, int(0.22 * s), 1.1 * s, ink)
        surface.blit(name, name.get_rect(center=(at[0], at[1] + 0.56 * s)))
        draw_picture(surface, terrain, (at[0] - 0.6 * s, at[1] - 0.05 * s), 0.17 * s)

    def _draw_token(self, surface: pygame.Surface, at: Point, number: int) -> None:
        s = self.hex_size
        radius = 0.36 * s
        _disc(surface, at, radius, TOKEN, _darker(TOKEN, 0.5))
        red = number in (6, 8)
        ink = TOKEN_RED if red else TOKEN_TEXT
        text = font(max(8, int(radius * 1.05)), bold=True).render(str(number), True, ink)
        surface.blit(text, text.get_rect(center=(at[0], at[1] - radius * 0.18)))
        dots = PIPS[number]
        dot_r = max(1.0, radius * 0.075)
        gap = max(dot_r * 2.6, 2 * round(dot_r) + 2.0)  # distinct dots on small tokens
        y = at[1] + radius * 0.55
        x0 = at[0] - gap * (dots - 1) / 2.0
        for i in range(dots):
            _disc(surface, (x0 + i * gap, y), dot_r, ink, None)

    def _draw_port(self, surface: pygame.Surface, port: Port) -> None:
        s = self.hex_size
        ox, oy = self.origin
        sea = port.edge[0] if port.edge[0] not in self._land else port.edge[1]
        ex, ey = self.edge_pos(port.edge)
        sx, sy = self.tile_center(sea)
        at = (ex + (sx - ex) * 0.62 - ox, ey + (sy - ey) * 0.62 - oy)
        width = max(2, int(s * 0.09))
        for v in edge_ends(port.edge):
            vx, vy = self.vertex_pos(v)
            pygame.draw.line(surface, PIER, at, (vx - ox, vy - oy), width)
        colour = PORT_COLOURS[port.resource]
        radius = 0.34 * s
        _disc(surface, at, radius, colour, _darker(colour, 0.45))
        ink = _ink(colour)
        if port.resource is None:
            text = font(max(8, int(radius * 0.95)), bold=True).render("3:1", True, ink)
            surface.blit(text, text.get_rect(center=at))
        else:
            top = font(max(8, int(radius * 0.85)), bold=True).render("2:1", True, ink)
            low = _fit(port.resource.label, int(radius * 0.62), 1.7 * radius, ink)
            surface.blit(top, top.get_rect(center=(at[0], at[1] - radius * 0.28)))
            surface.blit(low, low.get_rect(center=(at[0], at[1] + radius * 0.4)))

    def _draw_pieces(self, surface: pygame.Surface, state: GameState) -> None:
        graph = self.board.graph
        s = self.hex_size
        colours = [player_rgb(p) for p in state.players]
        width = max(3, int(s * 0.14))
        for e, owner in enumerate(state.edge_owner):
            if owner == NOBODY:
                continue
            a, b = (self._vertex_pos[graph.vertices[v]] for v in graph.edge_vertices[e])
            # Shorten the road a little so the buildings at its ends stay visible.
            a2 = (a[0] + (b[0] - a[0]) * 0.14, a[1] + (b[1] - a[1]) * 0.14)
            b2 = (b[0] + (a[0] - b[0]) * 0.14, b[1] + (a[1] - b[1]) * 0.14)
            pygame.draw.line(surface, (20, 20, 20), a2, b2, width + 4)
            pygame.draw.line(surface, colours[owner], a2, b2, width)
        for seat, hand in enumerate(state.hands):
            for v in hand.settlements:
                self._draw_building(
                    surface, self._vertex_pos[graph.vertices[v]], colours[seat], False
                )
            for v in hand.cities:
                self._draw_building(
                    surface, self._vertex_pos[graph.vertices[v]], colours[seat], True
                )

    def _draw_building(
        self, surface: pygame.Surface, at: Point, colour: Colour, city: bool
    ) -> None:
        u = self.hex_size * (0.17 if not city else 0.19)
        x, y = at
        if city:  # a tall house with a wing
            pts = [
                (x - 1.6 * u, y + 1.1 * u),
                (x + 1.6 * u, y + 1.1 * u),
                (x + 1.6 * u, y - 0.2 * u),
                (x + 0.1 * u, y - 0.2 * u),
                (x + 0.1 * u, y - 1.0 * u),
                (x - 0.75 * u, y - 1.8 * u),
                (x - 1.6 * u, y - 1.0 * u),
            ]
        else:  # a house with a pointed roof
            pts = [
                (x - u, y + u),
                (x + u, y + u),
                (x + u, y - 0.3 * u),
                (x, y - 1.3 * u),
                (x - u, y - 0.3 * u),
            ]
        pygame.draw.polygon(surface, colour, pts)
        pygame.draw.polygon(surface, (20, 20, 20), pts, max(1, int(self.hex_size * 0.03)))

    def robber_pos(self, tile: Tile) -> Point:
        """Where the robber stands on a tile: left of the number token."""
        cx, cy = self.tile_center(tile)
        return (cx - 0.55 * self.hex_size, cy)

    def _draw_robber(self, surface: pygame.Surface, tile: Tile) -> None:
        s = self.hex_size
        x, y = self.robber_pos(tile)
        body = pygame.Rect(0, 0, round(0.3 * s), round(0.46 * s))
        body.midtop = (round(x), round(y - 0.1 * s))
        pygame.draw.ellipse(surface, (230, 230, 230), body.inflate(4, 4))
        pygame.draw.ellipse(surface, ROBBER, body)
        _disc(surface, (x, y - 0.2 * s), 0.13 * s, ROBBER, (230, 230, 230))


def tile_label(terrain: Terrain) -> str:
    """The word a tile is named by: what it produces (``lumber``), or ``desert``."""
    resource = terrain.resource
    return "desert" if resource is None else Resource(resource).label


def draw_picture(surface: pygame.Surface, terrain: Terrain, at: Point, r: float) -> None:
    """A small picture of ``terrain`` centred at ``at``, ``r`` pixels in radius: trees,
    bricks, a sheep, ears of grain, a peak, a cactus."""
    x, y = at
    dark = _darker(TERRAIN_COLOURS[terrain], 0.55)
    light = (240, 236, 224)
    if terrain is Terrain.FOREST:
        for dx in (-r, 0.0, r):
            pts = [
                (x + dx, y - r),
                (x + dx - 0.6 * r, y + 0.6 * r),
                (x + dx + 0.6 * r, y + 0.6 * r),
            ]
            pygame.draw.polygon(surface, (18, 66, 30), pts)
            pygame.draw.line(surface, (90, 60, 30), (x + dx, y + 0.6 * r), (x + dx, y + r), 2)
    elif terrain is Terrain.HILLS:
        w, h = 0.9 * r, 0.45 * r
        for row, shift in ((0, 0.0), (1, 0.5)):
            for col in (-1, 0, 1):
                bx = x + (col - shift) * w - w / 2 + (0.5 * w if row else 0)
                brick = pygame.Rect(round(bx), round(y - h + row * h), round(w) - 1, round(h) - 1)
                pygame.draw.rect(surface, (140, 52, 26), brick)
    elif terrain is Terrain.PASTURE:
        pygame.draw.ellipse(surface, light, pygame.Rect(x - r, y - 0.55 * r, 1.7 * r, 1.1 * r))
        pygame.draw.circle(surface, (50, 50, 50), (x + 0.85 * r, y - 0.2 * r), max(2.0, 0.32 * r))
    elif terrain is Terrain.FIELDS:
        for dx in (-0.7 * r, 0.0, 0.7 * r):
            pygame.draw.line(surface, (150, 110, 20), (x + dx, y + r), (x + dx, y - 0.2 * r), 2)
            pygame.draw.ellipse(
                surface, (176, 130, 24), pygame.Rect(x + dx - 0.2 * r, y - r, 0.4 * r, 0.8 * r)
            )
    elif terrain is Terrain.MOUNTAINS:
        pygame.draw.polygon(
            surface, (84, 86, 96), [(x, y - r), (x - 1.2 * r, y + r), (x + 1.2 * r, y + r)]
        )
        pygame.draw.polygon(
            surface, light, [(x, y - r), (x - 0.4 * r, y - 0.33 * r), (x + 0.4 * r, y - 0.33 * r)]
        )
    else:  # the desert: a cactus
        pygame.draw.line(surface, dark, (x, y - r), (x, y + r), max(2, round(0.3 * r)))
        pygame.draw.line(surface, dark, (x - 0.6 * r, y - 0.3 * r), (x - 0.6 * r, y + 0.2 * r), 2)
        pygame.draw.line(surface, dark, (x + 0.6 * r, y - 0.5 * r), (x + 0.6 * r, y), 2)


def _fit(text: str, size: int, width: float, ink: Colour) -> pygame.Surface:
    """``text`` rendered at ``size`` or smaller, so that it is at most ``width`` wide."""
    size = max(7, size)
    image = font(size).render(text, True, ink)
    while image.get_width() > width and size > 7:
        size -= 1
        image = font(size).render(text, True, ink)
    return image


def _nearest(points: dict, pos: tuple[float, float], reach: float) -> object | None:
    best, best_d = None, reach * reach
    px, py = pos
    for key, (x, y) in points.items():
        d = (x - px) ** 2 + (y - py) ** 2
        if d <= best_d:
            best, best_d = key, d
    return best


def _polygon(surface: pygame.Surface, pts: list[Point], fill: Colour, edge: Colour) -> None:
    ipts = [(round(x), round(y)) for x, y in pts]
    pygame.gfxdraw.filled_polygon(surface, ipts, fill)
    pygame.gfxdraw.aapolygon(surface, ipts, edge)


def _disc(
    surface: pygame.Surface, at: Point, radius: float, fill: Colour, edge: Colour | None
) -> None:
    x, y, r = round(at[0]), round(at[1]), max(1, round(radius))
    pygame.gfxdraw.filled_circle(surface, x, y, r, fill)
    pygame.gfxdraw.aacircle(surface, x, y, r, edge if edge is not None else fill)


def render_board(
    board: Board,
    size: tuple[int, int] = (900, 800),
    state: GameState | None = None,
    highlights: Highlights = NO_HIGHLIGHTS,
) -> pygame.Surface:
    """A new Surface of ``size`` with the board drawn on it."""
    if not pygame.font.get_init():
        pygame.font.init()
    surface = pygame.Surface(size)
    BoardView(board, size).draw(surface, state, highlights)
    return surface


def save_png(
    board: Board,
    path: str | os.PathLike,
    state: GameState | None = None,
    size: tuple[int, int] = (900, 800),
    highlights: Highlights = NO_HIGHLIGHTS,
) -> Path:
    """Draw the board (with ``state``'s pieces, when given) and write it as a PNG.

    Raises:
        UsageError: the folder does not exist or the file cannot be written.
    """
    out = Path(path)
    if not out.parent.is_dir():
        raise UsageError(f"cannot write {out}: the folder {out.parent} does not exist")
    try:
        pygame.image.save(render_board(board, size, state, highlights), str(out))
    except pygame.error as exc:
        raise UsageError(f"cannot write {out}: {exc}") from None
    return out
