"""Generators: the rulebook's variable set-up, the balance dial and determinism by seed."""

from __future__ import annotations

import random

import pytest

from catan_p2p.boards import Constraints, make_board, score_board
from catan_p2p.boards.balanced import TOLERANCE, balanced_board, balanced_layout
from catan_p2p.boards.score import layout_of
from catan_p2p.errors import UsageError
from catan_p2p.rules.board import STANDARD_BOARD
from catan_p2p.rules.hexgrid import neighbours


def _red_neighbours(board) -> list:
    red = {t.tile for t in board.tiles if t.number in (6, 8)}
    return [(a, b) for a in red for b in neighbours(a) if b in red]


@pytest.mark.parametrize("radius", [2, 3, 4, 5])
def test_random_boards_never_put_six_and_eight_side_by_side(radius: int) -> None:
    for seed in range(25):
        assert _red_neighbours(make_board("random", seed, radius)) == [], seed


def test_balanced_boards_keep_six_and_eight_apart() -> None:
    for balance in (0.0, 0.5, 1.0):
        assert _red_neighbours(make_board("balanced", 3, balance=balance)) == []


def test_same_seed_same_board() -> None:
    for kind, balance in (("random", None), ("balanced", 0.0), ("balanced", 0.6)):
        a = make_board(kind, "abc", 2, balance)
        b = make_board(kind, "abc", 2, balance)
        assert a.to_data() == b.to_data()
    assert make_board("random", 1, 4).to_data() == make_board("random", 1, 4).to_data()


def test_different_seeds_give_different_boards() -> None:
    boards = {str(make_board("random", s).to_data()) for s in range(10)}
    assert len(boards) == 10


def test_generation_does_not_touch_the_global_random() -> None:
    random.seed(1234)
    expected = random.random()
    random.seed(1234)
    make_board("random", 1)
    make_board("balanced", 1, balance=0.3)
    assert random.random() == expected


def test_standard_kind_is_the_beginner_board() -> None:
    assert make_board("standard", 99) is STANDARD_BOARD


def test_fair_board_scores_lower_than_standard_and_wild_higher() -> None:
    standard = score_board(STANDARD_BOARD).score
    fair = score_board(make_board("balanced", 1, balance=0.0)).score
    wild = score_board(make_board("balanced", 1, balance=1.0)).score
    assert fair < standard < wild
    assert fair < 0.15
    assert wild > 0.6


@pytest.mark.parametrize("target", [0.2, 0.3, 0.45])
def test_balanced_board_lands_near_the_requested_score(target: float) -> None:
    board = make_board("balanced", 7, balance=target)
    assert abs(score_board(board).score - target) <= TOLERANCE


def test_balanced_search_reports_the_score_of_the_board_it_returns() -> None:
    layout, score = balanced_layout(3, 0.25, random.Random(5))
    board = layout.to_board("balanced")
    assert score_board(board).score == pytest.approx(score)


def test_seed_004_constraints_hold_when_asked() -> None:
    rules = Constraints(red_apart=True, terrain_apart=True, red_spread=True)
    board = balanced_board(2, 0.2, 2, rules)
    geo, terrain, pips = layout_of(board)
    assert rules.violations(geo, terrain, pips) == 0
    same = [(a, b) for a, b in geo.pairs if terrain[a] == terrain[b]]
    assert same == []
    red_terrains = [t.terrain for t in board.tiles if t.number in (6, 8)]
    assert len(set(red_terrains)) == 4


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"kind": "hexagonal", "seed": 1}, "unknown board kind"),
        ({"kind": "random", "seed": 1, "radius": 6}, "radius must be between 2"),
        ({"kind": "random", "seed": 1, "radius": 1}, "radius must be between 2"),
        ({"kind": "balanced", "seed": 1, "balance": 1.5}, "balance must be between 0"),
        ({"kind": "balanced", "seed": 1, "balance": -0.1}, "balance must be between 0"),
        ({"kind": "random", "seed": 1, "balance": 0.5}, "only applies to balanced"),
        ({"kind": "standard", "seed": 1, "radius": 3}, "standard board has radius 2"),
    ],
)
def test_bad_board_requests_say_what_is_wrong(kwargs: dict, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        make_board(**kwargs)
