"""The standard beginner board: counts of tiles, places, ports, number tokens and the desert."""

from collections import Counter

import pytest

from catan_p2p.errors import BoardError
from catan_p2p.rules.board import STANDARD_BOARD, Board
from catan_p2p.rules.cards import Resource, Terrain
from catan_p2p.rules.hexgrid import distance, edge_ends, format_place, format_tile, parse_place
from catan_p2p.rules.state import new_game

GRAPH = STANDARD_BOARD.graph


def test_standard_board_has_19_tiles_54_vertices_72_edges():
    assert len(GRAPH.tiles) == 19
    assert len(GRAPH.vertices) == 54
    assert len(GRAPH.edges) == 72


def test_standard_board_terrain_counts():
    counts = Counter(GRAPH.tile_terrain)
    assert counts == {
        Terrain.FOREST: 4,
        Terrain.PASTURE: 4,
        Terrain.FIELDS: 4,
        Terrain.HILLS: 3,
        Terrain.MOUNTAINS: 3,
        Terrain.DESERT: 1,
    }


def test_number_tokens_two_to_twelve_distribution():
    numbers = Counter(n for n in GRAPH.tile_number if n)
    assert numbers == {2: 1, 3: 2, 4: 2, 5: 2, 6: 2, 8: 2, 9: 2, 10: 2, 11: 2, 12: 1}


def test_desert_in_the_centre_holds_the_robber():
    assert GRAPH.tiles[GRAPH.desert] == (0, 0)
    assert GRAPH.tile_number[GRAPH.desert] == 0
    assert new_game(("red", "blue")).robber == GRAPH.desert


def test_nine_ports_four_generic_and_one_two_to_one_per_resource():
    ports = STANDARD_BOARD.ports
    assert len(ports) == 9
    assert sum(p.resource is None for p in ports) == 4
    assert sorted(p.resource for p in ports if p.resource is not None) == list(Resource)
    assert sorted(p.rate for p in ports) == [2] * 5 + [3] * 4


def test_ports_sit_on_coastal_edges_with_two_land_vertices_each():
    land = set(GRAPH.tiles)
    vertices = []
    for port in STANDARD_BOARD.ports:
        a, b = port.edge
        assert (a in land) != (b in land), port
        ends = edge_ends(port.edge)
        assert all(v in GRAPH.vertex_index for v in ends)
        vertices += ends
    assert len(set(vertices)) == 18  # no two ports share a vertex
    assert sum(p != -1 for p in GRAPH.vertex_port) == 18


def test_every_vertex_touches_one_to_three_land_tiles():
    sizes = Counter(len(ts) for ts in GRAPH.vertex_tiles)
    assert sizes == {3: 24, 2: 12, 1: 18}  # 12 outer tiles meet pairwise on the coast
    assert all(2 <= len(ns) <= 3 for ns in GRAPH.vertex_neighbours)


def test_every_tile_has_six_vertices_and_every_edge_two():
    assert all(len(vs) == 6 for vs in GRAPH.tile_vertices)
    assert all(len(set(vs)) == 2 for vs in GRAPH.edge_vertices)


def test_board_survives_its_data_round_trip():
    again = Board.from_data(STANDARD_BOARD.to_data())
    assert again == STANDARD_BOARD
    assert again.graph.vertices == GRAPH.vertices


def _data(**changes):
    data = STANDARD_BOARD.to_data()
    data.update(changes)
    return data


def _tiles_with(index, **fields):
    tiles = [dict(t) for t in STANDARD_BOARD.to_data()["tiles"]]
    tiles[index].update(fields)
    return tiles


def _port(edge, resource=None):
    return {"edge": [list(t) for t in edge], "resource": resource}


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (_data(tiles=_tiles_with(0, tile=[5, 0])), "outside a board of radius 2"),
        (_data(tiles=_tiles_with(0, tile=[0, 0])), "appears twice"),
        (_data(tiles=_tiles_with(0, number=None)), "only the desert has no number"),
        (_data(tiles=_tiles_with(0, number=7)), "number token 7"),
        (_data(tiles=STANDARD_BOARD.to_data()["tiles"][1:]), "needs 19 land tiles"),
        (_data(ports=[_port(((0, 0), (0, 1)))]), "not on a coastal edge"),
        (
            _data(ports=[_port(((0, -3), (0, -2))), _port(((0, -3), (0, -2)), "ore")]),
            "shares a vertex",
        ),
        (_data(ports=[_port(((0, -3), (0, -2))), _port(((-1, -2), (0, -2)))]), "shares a vertex"),
        (_data(tiles=[{"tile": [0, 0]}]), "malformed"),
        (_data(ports=[_port(((0, -3), (0, -2)), "gold")]), "malformed"),
    ],
)
def test_inconsistent_board_descriptions_are_refused(data, words):
    with pytest.raises(BoardError, match=words):
        Board.from_data(data)


def test_board_without_a_desert_is_refused():
    tiles = _tiles_with(9, terrain="fields", number=6)
    assert STANDARD_BOARD.to_data()["tiles"][9]["terrain"] == "desert"
    with pytest.raises(BoardError, match="needs a desert"):
        Board.from_data(_data(tiles=tiles))


def test_place_ids_round_trip_through_text():
    for place in GRAPH.vertices + GRAPH.edges:
        assert parse_place(format_place(place)) == place
    for tile in GRAPH.tiles:
        assert parse_place(format_tile(tile)) == (tile,)


@pytest.mark.parametrize("text", ["", "0,0", "(0,0", "(a,b)", "(1,2,3)", "()"])
def test_malformed_place_text_is_refused(text):
    with pytest.raises(ValueError, match="."):
        parse_place(text)


def test_vertex_ids_name_three_mutually_adjacent_tiles():
    for a, b, c in GRAPH.vertices:
        assert distance(a, b) == distance(b, c) == distance(a, c) == 1
    for vertex in GRAPH.vertices:
        assert vertex == tuple(sorted(vertex))


def test_boards_of_one_description_share_one_graph_and_no_other_board_does():
    """``Board.graph`` is shared by every board of the same description (a session reads
    its board twice); a board that differs in one number token, or whose token is a
    float equal to it, gets its own."""
    data = STANDARD_BOARD.to_data()
    again = Board.from_data(data)
    assert again is not STANDARD_BOARD and again.graph is GRAPH
    tile = next(t for t in data["tiles"] if t["number"] == 6)
    tile["number"] = 8
    other = Board.from_data(data)
    assert other.graph is not GRAPH and other.graph.tile_number != GRAPH.tile_number
    tile["number"] = 6.0  # equal to 6, so the boards compare equal, but not one description
    floated = Board.from_data(data)
    assert floated == STANDARD_BOARD and floated.graph is not GRAPH
