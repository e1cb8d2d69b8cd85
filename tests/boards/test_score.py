"""The balance score, checked against values worked out by hand on two known layouts."""

from __future__ import annotations

import math

import pytest

from catan_p2p.boards import FACTORS, score_board
from catan_p2p.boards.score import max_adjacencies
from catan_p2p.rules.board import STANDARD_BOARD, Board, HexTile
from catan_p2p.rules.cards import Terrain

F, H, P, G, M, D = (
    Terrain.FOREST,
    Terrain.HILLS,
    Terrain.PASTURE,
    Terrain.FIELDS,
    Terrain.MOUNTAINS,
    Terrain.DESERT,
)


def _bands() -> Board:
    """One terrain per row: mountains, forest, fields + desert (east), pasture, hills.

    Tokens by row: 2 12 3 | 3 11 11 4 | 5 9 4 10 - | 6 8 6 8 | 5 9 10.
    """
    rows = {
        -2: [(M, 2), (M, 12), (M, 3)],
        -1: [(F, 3), (F, 11), (F, 11), (F, 4)],
        0: [(G, 5), (G, 9), (G, 4), (G, 10), (D, None)],
        1: [(P, 6), (P, 8), (P, 6), (P, 8)],
        2: [(H, 5), (H, 9), (H, 10)],
    }
    tiles = []
    for r, row in rows.items():
        q0 = max(-2, -2 - r)
        tiles.extend(HexTile((q0 + i, r), t, n) for i, (t, n) in enumerate(row))
    return Board(2, tuple(tiles), STANDARD_BOARD.ports, name="bands")


def test_most_shared_sides_of_a_compact_cluster() -> None:
    assert [max_adjacencies(n) for n in (1, 2, 3, 4, 7)] == [0, 1, 3, 5, 12]


def test_standard_board_measures_by_hand() -> None:
    result = score_board(STANDARD_BOARD)
    # Forest (-1,0)-(-2,1); pasture (1,-2)-(1,-1) and (1,1)-(0,2);
    # fields (-1,-1)-(-2,0) and (0,1)-(-1,2): five pairs of 4+3+4+4+3 hexes' 21 at most.
    assert result.raw["same_terrain_neighbours"] == 5
    assert result.factors["resource_clustering"] == pytest.approx(5 / 21)
    # 4 next to 10 at (1,-1)-(2,-1), 11 next to 3 at (-1,0)-(-1,1).
    assert result.raw["equal_probability_neighbours"] == 2
    assert result.factors["number_clustering"] == pytest.approx(2 / 21)
    # Best inner junction 11 pips, worst 7 (9+12+11 at (-2,0),(-1,-1),(-1,0)); the
    # tokens allow 5+5+5 - (1+1+2) = 11.
    assert result.raw["junction_range_pips"] == 4
    assert result.factors["junction_spread"] == pytest.approx(4 / 11)


def test_banded_board_measures_by_hand() -> None:
    result = score_board(_bands())
    f = result.factors
    # Each row is one terrain: 2 + 3 + 3 + 3 + 2 shared sides of at most 21.
    assert result.raw["same_terrain_neighbours"] == 13
    assert f["resource_clustering"] == pytest.approx(13 / 21)
    # Equal pips side by side: 2-12, 3-11-11, 3-4(east end), 9-5, 4-10, 6-8-6-8, 5-9.
    assert result.raw["equal_probability_neighbours"] == 11
    assert f["number_clustering"] == pytest.approx(11 / 21)
    # Line r: every terrain sits wholly on one side or on the line: (-1,-1,0,1,1).
    # Lines q and s: mountains and hills +-2/3, the others +-1/4.
    squares = 4 + 2 * (2 * (2 / 3) ** 2 + 3 * (1 / 4) ** 2)
    assert f["resource_distribution"] == pytest.approx(math.sqrt(squares / 15))
    # Pip differences across the lines r, q, s: 18, -12, -4; at most 32 - 10 = 22.
    assert f["probability_distribution"] == pytest.approx(
        math.sqrt((18**2 + 12**2 + 4**2) / 3) / 22
    )
    # Junctions: 6+8 with a 5 on either side = 14 pips; 2+12+11 = 4 pips.
    assert result.raw["junction_range_pips"] == 10
    assert f["junction_spread"] == pytest.approx(10 / 11)
    # Pips per terrain: forest 9/4, hills 11/3, pasture 20/4, fields 14/4, mountains 4/3.
    assert result.raw["terrain_mean_spread"] == pytest.approx((5 - 4 / 3) / (4 / 3))
    shares = [(9, 4), (11, 3), (20, 4), (14, 4), (4, 3)]
    error = math.sqrt(sum((p / 58 - c / 18) ** 2 for p, c in shares))
    assert result.raw["resource_share_error"] == pytest.approx(error)
    assert result.score == pytest.approx(sum(f.values()) / 7)


def test_banded_board_is_less_balanced_than_the_standard_one() -> None:
    assert score_board(_bands()).score > score_board(STANDARD_BOARD).score


def test_every_factor_is_between_zero_and_one() -> None:
    for board in (STANDARD_BOARD, _bands()):
        result = score_board(board)
        assert set(result.factors) == set(FACTORS)
        assert all(0.0 <= v <= 1.0 for v in result.factors.values())
        assert 0.0 <= result.score <= 1.0
