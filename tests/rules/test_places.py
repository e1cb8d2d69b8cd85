"""Places named in words: tiles by produce and number, vertices by tiles, edges by coast."""

from __future__ import annotations

import pytest

from catan_p2p.boards import make_board
from catan_p2p.rules.board import STANDARD_BOARD
from catan_p2p.rules.hexgrid import corners, sides
from catan_p2p.rules.places import edge_name, in_words, tile_name, vertex_name

B = STANDARD_BOARD


def test_a_tile_is_named_by_its_produce_and_number():
    assert tile_name(B, (0, 0)) == "the desert"
    named = {tile_name(B, t.tile) for t in B.tiles}
    assert "ore 10" in named or any(n.startswith("ore ") for n in named)
    assert tile_name(B, (9, 9)) == "sea"


def test_a_vertex_lists_its_tiles_most_productive_first_with_its_port():
    assert in_words(B, "build settlement (-3,1|-2,0|-2,1)") == (
        "build settlement at lumber 8 / grain 9 / sea, 2:1 brick port"
    )


def test_a_lone_coast_vertex_and_edge_are_named_by_compass():
    tile = (0, -2)  # the north edge of the island
    assert vertex_name(B, corners(tile)[1]).startswith("the north corner of ")
    assert edge_name(B, sides(tile)[2]).startswith("on the north-west coast of ")


def test_refusals_and_robber_moves_read_in_words():
    text = "distance rule: vertex (-1,1|0,0|0,1) is next to Blue's building at (-1,1|-1,2|0,1)"
    words = in_words(B, text)
    assert "|" not in words and words.startswith("distance rule: the corner at ")
    assert in_words(B, "move robber to (0,0)") == "move robber to the desert"
    assert in_words(B, "build road (0,-1|0,0)").startswith("build road between ")


@pytest.mark.parametrize(
    "kind,seed",
    [("standard", "0")] + [(k, str(s)) for k in ("random", "balanced") for s in range(12)],
)
def test_every_place_of_a_board_has_its_own_name(kind, seed):
    board = make_board(kind, seed)
    graph = board.graph
    vertex_names = {vertex_name(board, v) for v in graph.vertices}
    edge_names = {edge_name(board, e) for e in graph.edges}
    assert len(vertex_names) == len(graph.vertices)
    assert len(edge_names) == len(graph.edges)
    assert not any("|" in n for n in vertex_names | edge_names), "ids only as a last resort"
