"""The end of a real game: greedy bots play a recorded Git game to its winner in the window.

The final screen is checked on what it draws (the winner's row first, in the winner's
colour), what it does (Esc closes it, the board then says the game is over, replay is
offered), and the game it ends is verified like any other.
"""

from __future__ import annotations

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from driving import Driver, screens_dir

from catan_p2p import clock
from catan_p2p.bots import make_bot
from catan_p2p.client import theme
from catan_p2p.client.app import App
from catan_p2p.client.dialogs import GameOverDialog
from catan_p2p.client.seats import Seats
from catan_p2p.protocol.audit import audit
from catan_p2p.rules.board import STANDARD_BOARD
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.repo import GameRepo

pytestmark = pytest.mark.slow  # starts processes (git, the CLI): see tests/conftest.py

PLAYERS = ["red", "blue", "white", "orange"]


def test_greedy_bots_play_a_git_game_to_the_final_score_screen(tmp_path):
    repo = tmp_path / "game"
    create_game(repo, PLAYERS, STANDARD_BOARD, seed="the-end", game_id="end")
    session = GitSession.open(repo, "end")
    bots = {p: make_bot("greedy", f"end/{p}") for p in PLAYERS}
    app = App(session, Seats((), bots), screen=pygame.display.set_mode((1280, 800)), bot_delay=0)
    d = Driver(app, screens_dir(tmp_path), "end_screen")
    try:
        for _ in range(20_000):
            if app.state.is_over:
                break
            app.tick()
        state = app.state
        assert state.is_over and not app.bot_errors
        winner = state.players[state.winner]
        assert state.points(state.winner) >= 10

        dialog = app.dialog
        assert isinstance(dialog, GameOverDialog)
        d.shot("final_score")
        first_row = (dialog.rect.left + 26, dialog.rect.top + 84 + 9)
        assert app.screen.get_at(first_row) == pygame.Color(*theme.player_colour(winner))
        assert app.button("Replay the game").enabled

        d.key(pygame.K_ESCAPE)
        assert app.dialog is None and app.state.is_over
        d.click(app.tile_point((0, 0)))
        assert "not your move" in (app.message or "")
        assert app.legal(winner) == []

        report = audit(GameRepo(repo), "end", clock.now)
        assert report.ok and report.state is not None and report.state.is_over
    finally:
        session.close()
        pygame.display.quit()
