"""Opponent levels of the window's bot seats: easy, greedy, strong (or any strategy)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pytest  # noqa: E402

from catan_p2p.bots import GreedyBot, RandomBot  # noqa: E402
from catan_p2p.bots.strong import StrongBot  # noqa: E402
from catan_p2p.cli import build_parser  # noqa: E402
from catan_p2p.client.seats import DIFFICULTIES, strategy_for  # noqa: E402
from catan_p2p.commands import play  # noqa: E402


def test_levels_name_bot_strategies() -> None:
    assert list(DIFFICULTIES) == ["easy", "greedy", "strong"]
    assert strategy_for("easy") == "random"
    assert strategy_for("catanatron:alphabeta") == "catanatron:alphabeta"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("level", "kind"), [("easy", RandomBot), ("greedy", GreedyBot), ("strong", StrongBot)]
)
def test_a_new_game_seats_bots_of_the_chosen_level_and_resume_keeps_them(
    tmp_path, monkeypatch, level: str, kind: type
) -> None:
    monkeypatch.setenv("CATAN_P2P_HOME", str(tmp_path))
    args = build_parser().parse_args(
        ["play", "--humans", "1", "--bots", "2", "--seed", "lv", "--opponents", level]
    )
    game = play.new_game(args)
    assert all(isinstance(b, kind) for b in game.seats.bots.values())
    again = play.resume_game(build_parser().parse_args(["play", "--resume", str(game.repo)]))
    assert all(isinstance(b, kind) for b in again.seats.bots.values())
    game.session.close()
    again.session.close()
