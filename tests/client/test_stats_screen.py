"""The statistics screen in the window at a game's end and in the replay viewer.

Both show the figures ``catan-p2p stats`` counts from the verified game: the same
numbers, drawn on a real pygame surface.
"""

from __future__ import annotations

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from driving import Driver, screens_dir

from catan_p2p.bots import make_bot
from catan_p2p.client.app import App
from catan_p2p.client.dialogs import GameOverDialog
from catan_p2p.client.replay import ReplayViewer, replay_states
from catan_p2p.client.seats import Seats
from catan_p2p.client.stats_screen import StatsDialog
from catan_p2p.rules.board import STANDARD_BOARD
from catan_p2p.session.git import GitSession
from catan_p2p.session.review import verified_game
from catan_p2p.session.start import create_game
from catan_p2p.sim import play_session_game

pytestmark = pytest.mark.slow  # a whole game recorded in Git

PLAYERS = ["red", "blue", "white", "orange"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    repo = tmp_path_factory.mktemp("stats") / "game"
    create_game(repo, PLAYERS, STANDARD_BOARD, seed="stats-screen", game_id="s")
    session = GitSession(repo, "s")
    play_session_game(session, {p: make_bot("greedy", f"s/{p}") for p in PLAYERS})
    yield session
    session.close()


def _mostly_drawn(surface: pygame.Surface, rect: pygame.Rect) -> int:
    """How many distinct colours a rectangle holds (a blank box holds one or two)."""
    return len({tuple(surface.get_at((x, y))) for x in range(rect.left, rect.right, 9)
                for y in range(rect.top, rect.bottom, 9)})  # fmt: skip


def test_the_end_screen_opens_the_statistics_of_the_verified_game(finished, tmp_path):
    app = App(finished, Seats(("red",), {}), screen=pygame.display.set_mode((1280, 800)),
              bot_delay=0)  # fmt: skip
    d = Driver(app, screens_dir(tmp_path), "stats")
    try:
        assert isinstance(app.dialog, GameOverDialog)
        d.key(pygame.K_t)
        dialog = app.dialog
        assert isinstance(dialog, StatsDialog)
        review = verified_game(finished.repo, "s")
        assert dialog.stats == review.stats()
        d.shot("end")
        assert _mostly_drawn(app.screen, dialog.rect) > 20
        d.key(pygame.K_ESCAPE)
        assert app.dialog is None
    finally:
        pygame.display.quit()


def test_the_replay_shows_the_statistics_of_the_game_up_to_its_action(finished, tmp_path):
    states, entries = replay_states(finished)
    viewer = ReplayViewer(states, entries, screen=pygame.Surface((1280, 800)))
    viewer.goto(len(entries) // 2)
    viewer.key(pygame.K_t)
    assert viewer.stats is not None
    half = viewer.stats.stats
    assert not half.over and half.rolls < verified_game(finished.repo, "s").stats().rolls
    assert all(s.victory_cards is None for s in half.per_player.values())
    viewer.draw()
    viewer.step(40)  # moving on recounts to the action shown
    viewer.draw()
    assert viewer.stats.at == viewer.index and viewer.stats.stats.rolls >= half.rolls
    viewer.key(pygame.K_ESCAPE)
    assert viewer.stats is None and viewer.running
