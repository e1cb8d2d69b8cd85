"""The window's frame: its title, its footer, the help card and the building-costs card."""

from __future__ import annotations

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from builders import BLUE, RED, WHITE
from driving import Driver, screens_dir
from test_play import make_app, scenario

from catan_p2p.client.dialogs import HelpDialog


@pytest.fixture
def drive(tmp_path, request):
    def start(app) -> Driver:
        return Driver(app, screens_dir(tmp_path), request.node.name)

    yield start
    pygame.display.quit()


def test_the_window_title_names_the_game_not_pygame(drive):
    app = make_app(scenario(), humans=(RED,), bots=(BLUE,))
    drive(app)
    title = pygame.display.get_caption()[0]
    assert title.startswith("catan-p2p") and app.session.game_id in title


def test_the_footer_of_a_one_human_game_does_not_say_hot_seat(drive):
    alone = make_app(scenario(3), humans=(RED,), bots=(BLUE, WHITE))
    assert alone.local_text() == "Red against 2 bots"
    shared = make_app(scenario(3), humans=(RED, BLUE), bots=(WHITE,))
    assert shared.local_text().startswith("hot-seat: 2 players and 1 bot share this window")


def test_help_lists_ctrl_q(drive):
    app = make_app(scenario(), humans=(RED,), bots=(BLUE,))
    d = drive(app)
    d.key(pygame.K_h)
    assert isinstance(app.dialog, HelpDialog)
    assert ("Ctrl+Q", "quit (the game is saved)") in HelpDialog.KEYS
    d.shot("help")


def test_refusals_and_the_log_name_places_in_words(drive):
    from builders import corner, edge_between, fresh
    from test_play import EAST

    app = make_app(fresh(2), humans=(RED, BLUE))
    d = drive(app)
    d.vertex(corner(EAST, 0))
    d.edge(edge_between(corner(EAST, 0), corner(EAST, 1)))
    d.vertex(corner(EAST, 1))  # next to red's settlement
    message = app.message or ""
    assert message.startswith("distance rule: the corner at ") and "|" not in message
    assert "wool 4" in message  # EAST is pasture 4
    d.shot("refusal_in_words")


def test_c_toggles_the_building_costs_card_and_ticks_what_the_hand_pays(drive):
    from builders import cards, give

    from catan_p2p.client import panels

    app = make_app(give(scenario(), RED, cards(lumber=1, brick=1)), humans=(RED,), bots=(BLUE,))
    d = drive(app)
    card = panels.costs_rect(app.layout.board)
    paper = pygame.Color(236, 226, 196)
    probe = (card.left + 4, card.centery)
    app.draw()
    assert app.screen.get_at(probe) != paper
    d.key(pygame.K_c)
    app.draw()
    assert app.show_costs and app.screen.get_at(probe) == paper
    d.shot("costs_card")
    d.key(pygame.K_c)
    app.draw()
    assert not app.show_costs and app.screen.get_at(probe) != paper


def test_the_sync_line_warns_when_the_awaited_peer_is_silent(drive):
    import time

    from catan_p2p.client import panels, theme
    from catan_p2p.net.game import SyncStatus

    surface = pygame.Surface((400, 26))
    rect = surface.get_rect()
    status = SyncStatus(peers=("blue",), last_fetch=time.time())
    dot = (rect.left + 15, rect.centery)
    panels.draw_sync(surface, rect, status, True, waiting_on=("blue", time.time() - 5))
    assert surface.get_at(dot) == pygame.Color(*theme.GOOD)
    panels.draw_sync(surface, rect, status, True, waiting_on=("blue", time.time() - 600))
    assert surface.get_at(dot) == pygame.Color(*theme.WARN), "silent for 10 min: offline?"
