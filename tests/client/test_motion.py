"""Produced cards fly to their players after a roll: short, skippable, never in the way."""

from __future__ import annotations

import driving  # noqa: F401  (sets SDL_VIDEODRIVER/SDL_AUDIODRIVER=dummy)
import pygame
import pytest
from builders import RED, roll
from driving import Driver, screens_dir
from test_play import make_app, scenario

from catan_p2p.client import motion
from catan_p2p.rules.actions import RollDice
from catan_p2p.rules.state import GameState


def _producing_total(state: GameState) -> int:
    """A roll that gives Red a card in ``scenario``."""
    for total in (2, 3, 4, 5, 6, 8, 9, 10, 11, 12):
        after = roll(state, total)
        if sum(after.hands[0].resources) > sum(state.hands[0].resources):
            return total
    raise AssertionError("no roll produces for Red")


@pytest.fixture
def drive(tmp_path, request):
    def start(app) -> Driver:
        return Driver(app, screens_dir(tmp_path), request.node.name)

    yield start
    pygame.display.quit()


def test_each_produced_card_flies_from_its_tile_to_its_players_row(drive):
    state = scenario()
    total = _producing_total(state)
    app = make_app(state, humans=(RED,))
    drive(app)
    after = roll(state, total)
    cards = motion.flights(state, after, app.view, app.layout.players, total)
    gained = sum(after.hands[0].resources) - sum(state.hands[0].resources)
    assert len([f for f in cards if f.end == cards[0].end]) == gained
    assert all(app.layout.board.collidepoint(f.start) for f in cards)
    assert all(app.layout.players.collidepoint(f.end) for f in cards)
    blank = pygame.Surface((1280, 800))
    motion.draw_flights(blank, cards, 0.2)
    assert blank.get_bounding_rect().width == 0 or not any(
        blank.get_at((x, y))[:3] != (0, 0, 0) for x in range(0, 1280, 16) for y in range(0, 800, 16)
    ), "nothing flies while the dice tumble"
    motion.draw_flights(blank, cards, 0.7)
    colour = pygame.Color(*motion.theme.RESOURCE_COLOURS[cards[0].resource])
    assert any(blank.get_at((x, y)) == colour for x in range(0, 1280, 2) for y in range(0, 800, 2))


def test_a_key_during_the_animation_skips_it_and_still_counts(drive):
    state = scenario()
    app = make_app(state, humans=(RED,))
    d = drive(app)
    app.submit(RollDice(RED, (3, _producing_total(state) - 3)))
    d.app.tick()
    assert app.roll_anim is not None and app.flights
    d.shot("flying")
    d.key(pygame.K_c)  # the building costs card, in the middle of the animation
    assert app.roll_anim is None and app.flights == []
    assert app.show_costs, "the key did what it does, at once"


def test_still_windows_show_the_roll_at_once_and_a_toggles_motion(drive):
    state = scenario()
    app = make_app(state, humans=(RED,))
    app.still = True
    d = drive(app)
    app.submit(RollDice(RED, (3, 5)))
    d.app.tick()
    assert app.roll_anim is None and app.flights == []
    assert "roll" in app.sounds.played or app.sounds.muted
    d.key(pygame.K_a)
    assert not app.still and "motion on" in (app.message or "")
    d.key(pygame.K_a)
    assert app.still
