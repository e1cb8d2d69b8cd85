"""What goes on each island: terrain, number tokens and harbours for radius 2 to 5."""

from __future__ import annotations

from collections import Counter

import pytest

from catan_p2p.boards import make_board
from catan_p2p.boards.layout import (
    BOX_NUMBERS,
    BOX_TERRAIN,
    coast_length,
    land_count,
    number_counts,
    port_kinds,
    terrain_counts,
)
from catan_p2p.rules.board import STANDARD_BOARD
from catan_p2p.rules.cards import Resource, Terrain
from catan_p2p.rules.hexgrid import distance, edge_ends

RADII = (2, 3, 4, 5)


def test_radius_two_uses_the_box_counts() -> None:
    assert terrain_counts(2) == BOX_TERRAIN
    assert number_counts(2) == BOX_NUMBERS
    kinds = Counter(port_kinds(2))
    assert kinds[None] == 4
    assert all(kinds[r] == 1 for r in Resource)
    assert sum(kinds.values()) == 9


def test_standard_board_has_the_box_counts() -> None:
    terrain = Counter(t.terrain for t in STANDARD_BOARD.tiles)
    numbers = Counter(t.number for t in STANDARD_BOARD.tiles if t.number)
    assert dict(terrain) == BOX_TERRAIN
    assert dict(numbers) == BOX_NUMBERS
    assert Counter(p.resource for p in STANDARD_BOARD.ports) == Counter(port_kinds(2))


@pytest.mark.parametrize(
    ("radius", "tiles", "deserts", "ports"),
    [(2, 19, 1, 9), (3, 37, 2, 13), (4, 61, 3, 16), (5, 91, 5, 20)],
)
def test_island_counts_per_radius(radius: int, tiles: int, deserts: int, ports: int) -> None:
    assert land_count(radius) == tiles
    terrain = terrain_counts(radius)
    assert sum(terrain.values()) == tiles
    assert terrain[Terrain.DESERT] == deserts
    assert sum(number_counts(radius).values()) == tiles - deserts
    assert len(port_kinds(radius)) == ports


@pytest.mark.parametrize("radius", RADII)
def test_larger_islands_keep_the_box_ratios(radius: int) -> None:
    terrain = terrain_counts(radius)
    producing = land_count(radius) - terrain[Terrain.DESERT]
    for t, n in BOX_TERRAIN.items():
        if t is not Terrain.DESERT:
            assert abs(terrain[t] - producing * n / 18) < 1, t
    numbers = number_counts(radius)
    for num, n in BOX_NUMBERS.items():
        assert abs(numbers[num] - producing * n / 18) < 1, num
    kinds = port_kinds(radius)
    assert abs(len(kinds) - coast_length(radius) * 9 / 30) <= 0.5
    specific = sum(1 for k in kinds if k is not None)
    assert abs(specific - len(kinds) * 5 / 9) <= 0.5
    assert {k for k in kinds if k is not None} == set(Resource)


@pytest.mark.parametrize("radius", RADII)
@pytest.mark.parametrize("kind", ["random", "balanced"])
def test_generated_board_matches_the_counts(radius: int, kind: str) -> None:
    board = make_board(kind, 11, radius)
    assert board.radius == radius
    assert Counter(t.terrain for t in board.tiles) == Counter(terrain_counts(radius))
    numbers = Counter(t.number for t in board.tiles if t.number)
    assert numbers == Counter(number_counts(radius))
    assert Counter(p.resource for p in board.ports) == Counter(port_kinds(radius))


@pytest.mark.parametrize("radius", RADII)
def test_harbours_sit_on_the_coast_and_never_share_a_vertex(radius: int) -> None:
    board = make_board("random", 5, radius)
    land = {t.tile for t in board.tiles}
    seen = set()
    for port in board.ports:
        a, b = port.edge
        assert (a in land) != (b in land)
        assert max(distance(a, (0, 0)), distance(b, (0, 0))) == radius + 1
        ends = set(edge_ends(port.edge))
        assert not ends & seen, port
        seen |= ends
