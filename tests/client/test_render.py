"""The board renderer on real pygame Surfaces (headless): pixels and hit tests."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402
from builders import fresh, place_roads, place_settlement  # noqa: E402

from catan_p2p.boards import make_board  # noqa: E402
from catan_p2p.client.render import (  # noqa: E402
    HIGHLIGHT,
    ROBBER,
    TERRAIN_COLOURS,
    BoardView,
    Highlights,
    player_rgb,
    render_board,
    save_png,
)
from catan_p2p.rules.board import STANDARD_BOARD  # noqa: E402
from catan_p2p.rules.hexgrid import distance, edge_ends  # noqa: E402
from catan_p2p.rules.menu import legal_actions  # noqa: E402

SIZE = (900, 800)


@pytest.fixture(autouse=True)
def _fonts():
    pygame.font.init()
    yield


def _pixel(surface: pygame.Surface, at: tuple[float, float]) -> tuple[int, int, int]:
    c = surface.get_at((round(at[0]), round(at[1])))
    return (c.r, c.g, c.b)


def _draw(board, state=None, highlights=None, origin=(0, 0)):
    view = BoardView(board, SIZE, origin)
    surface = pygame.Surface((SIZE[0] + origin[0], SIZE[1] + origin[1]))
    view.draw(surface, state, highlights or Highlights())
    return view, surface


def test_robber_is_drawn_on_its_tile() -> None:
    state = fresh(2)
    tile = (1, -1)
    state = state._replace(robber=state.board.graph.tile_index[tile])
    view, surface = _draw(state.board, state)
    x, y = view.robber_pos(tile)
    assert _pixel(surface, (x, y + 0.1 * view.hex_size)) == ROBBER
    desert = view.robber_pos((0, 0))  # the robber left the desert
    assert _pixel(surface, (desert[0], desert[1] + 0.1 * view.hex_size)) != ROBBER


def test_settlement_city_and_road_show_their_players_colours() -> None:
    state = fresh(4)
    v = STANDARD_BOARD.graph.vertices[10]
    w = STANDARD_BOARD.graph.vertices[40]
    edge = STANDARD_BOARD.graph.edges[20]
    state = place_settlement(state, "red", v)
    state = place_settlement(state, "orange", w, city=True)
    state = place_roads(state, "blue", [edge])
    view, surface = _draw(STANDARD_BOARD, state)
    assert _pixel(surface, view.vertex_pos(v)) == player_rgb("red")
    assert _pixel(surface, view.vertex_pos(w)) == player_rgb("orange")
    assert _pixel(surface, view.edge_pos(edge)) == player_rgb("blue")


def test_any_colour_name_in_the_state_is_drawn_in_that_colour() -> None:
    state = fresh(2)._replace(players=("purple", "teal"))
    v = STANDARD_BOARD.graph.vertices[5]
    state = place_settlement(state, "purple", v)
    view, surface = _draw(STANDARD_BOARD, state)
    c = pygame.Color("purple")
    assert _pixel(surface, view.vertex_pos(v)) == (c.r, c.g, c.b)


def test_legal_vertices_are_highlighted() -> None:
    state = fresh(2)
    highlights = Highlights.from_actions(legal_actions(state))
    assert len(highlights.vertices) == len(STANDARD_BOARD.graph.vertices)
    view, surface = _draw(STANDARD_BOARD, state, highlights)
    for v in list(highlights.vertices)[:10]:
        assert _pixel(surface, view.vertex_pos(v)) == HIGHLIGHT


@pytest.mark.parametrize("radius", [2, 4, 5])
def test_every_tile_is_painted_in_its_terrain_colour(radius: int) -> None:
    board = STANDARD_BOARD if radius == 2 else make_board("random", 4, radius)
    view, surface = _draw(board)
    for t in board.tiles:
        cx, cy = view.tile_center(t.tile)
        # Between the number token and the top corner of the hexagon.
        assert _pixel(surface, (cx, cy - 0.62 * view.hex_size)) == TERRAIN_COLOURS[t.terrain]


@pytest.mark.parametrize("origin", [(0, 0), (37, 15)])
def test_clicks_find_the_vertex_edge_and_tile_under_them(origin) -> None:
    board = make_board("random", 2, 3)
    view, _ = _draw(board, origin=origin)
    graph = board.graph
    nudge = 0.18 * view.hex_size
    for v in graph.vertices:
        x, y = view.vertex_pos(v)
        assert view.vertex_at((x, y)) == v
        assert view.vertex_at((x + nudge, y)) == v
    for e in graph.edges:
        x, y = view.edge_pos(e)
        assert view.edge_at((x, y - nudge * 0.5)) == e
    for t in graph.tiles:
        cx, cy = view.tile_center(t)
        assert view.tile_at((cx, cy)) == t
        assert view.tile_at((cx + 0.7 * view.hex_size, cy)) == t


def test_clicks_between_places_or_at_sea_find_nothing() -> None:
    view, _ = _draw(STANDARD_BOARD)
    centre = view.tile_center((1, 0))
    assert view.vertex_at(centre) is None
    assert view.edge_at(centre) is None
    sea = view.tile_center((3, 0))
    assert distance((3, 0), (0, 0)) == 3
    assert view.tile_at(sea) is None
    assert view.tile_at((1, 1)) is None


def test_edge_ends_and_vertex_positions_agree() -> None:
    view = BoardView(STANDARD_BOARD, SIZE)
    for e in STANDARD_BOARD.graph.edges[:20]:
        a, b = (view.vertex_pos(v) for v in edge_ends(e))
        mid = view.edge_pos(e)
        assert mid == pytest.approx(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2))
        length = ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5
        assert length == pytest.approx(view.hex_size)


def test_vertex_at_can_be_limited_to_legal_targets() -> None:
    view = BoardView(STANDARD_BOARD, SIZE)
    v, w = STANDARD_BOARD.graph.vertices[:2]
    assert view.vertex_at(view.vertex_pos(v), among=[w]) is None
    assert view.vertex_at(view.vertex_pos(v), among=[v, w]) == v


def test_save_png_writes_a_png_of_the_requested_size(tmp_path) -> None:
    out = save_png(make_board("balanced", 1, balance=0.5), tmp_path / "b.png", size=(640, 480))
    image = pygame.image.load(str(out))
    assert image.get_size() == (640, 480)
    assert render_board(STANDARD_BOARD).get_size() == SIZE
