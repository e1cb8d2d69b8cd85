"""Whole games on larger islands run to a winner with every invariant holding."""

from __future__ import annotations

import pytest

from catan_p2p.boards import make_board
from catan_p2p.bots import make_bot
from catan_p2p.sim import play_game


@pytest.mark.parametrize(
    ("kind", "balance", "players"),
    [
        ("random", None, ("red", "blue", "white", "orange")),
        ("balanced", 0.1, ("red", "blue", "white")),
        ("balanced", 0.9, ("red", "blue")),
    ],
)
def test_radius_four_game_runs_to_a_winner(kind: str, balance, players: tuple) -> None:
    board = make_board(kind, 21, radius=4, balance=balance)
    bots = [make_bot("random", f"r4/{i}") for i in range(len(players))]
    result = play_game(players, bots, seed="radius-four", board=board, check_invariants=True)
    assert result.winner in players
    seat = players.index(result.winner)
    assert result.state.points(seat) >= result.state.victory_points


def test_radius_five_game_runs_to_a_winner() -> None:
    board = make_board("random", 3, radius=5)
    bots = [make_bot("greedy", i) for i in range(3)]
    result = play_game(("red", "blue", "white"), bots, seed="radius-five", board=board)
    assert result.winner is not None
