"""Sounds made by the project itself, and the roll animation; nothing needs an audio device."""

from __future__ import annotations

import time
from array import array

import driving  # noqa: F401  (sets SDL_VIDEODRIVER/SDL_AUDIODRIVER=dummy)
import pygame
import pytest
from builders import BLUE, RED, cards, give
from driving import Driver, screens_dir
from test_play import make_app, scenario

from catan_p2p.client import animate
from catan_p2p.client.sound import NAMES, RATE, Sounds, synth
from catan_p2p.rules.actions import RollDice


@pytest.mark.parametrize("name", NAMES)
def test_every_sound_is_synthesised_audible_and_short(name):
    samples = array("h")
    samples.frombytes(synth(name))
    assert 0.05 < len(samples) / RATE < 0.6
    assert max(abs(v) for v in samples) > 3000, "audible"
    assert abs(samples[-1]) < 2000, "fades out instead of clicking off"


def test_sounds_stay_silent_without_a_device(monkeypatch):
    def no_device(*args, **kwargs):
        raise pygame.error("No available audio device")

    monkeypatch.setattr(pygame.mixer, "get_init", lambda: None)
    monkeypatch.setattr(pygame.mixer, "init", no_device)
    sounds = Sounds()
    assert not sounds.available
    sounds.play("roll")  # no exception, no sound
    assert sounds.played == ["roll"]


@pytest.fixture
def drive(tmp_path, request):
    def start(app) -> Driver:
        return Driver(app, screens_dir(tmp_path), request.node.name)

    yield start
    pygame.display.quit()


def test_a_roll_rattles_tumbles_and_lights_the_producing_tiles_and_s_mutes(drive):
    app = make_app(give(scenario(), RED, cards(lumber=1)), humans=(RED,), bots=(BLUE,))
    d = drive(app)
    app.submit(RollDice(RED, (3, 5)))
    d.app.tick()
    assert app.roll_anim is not None and "roll" in app.sounds.played
    before = app.screen.copy()
    # the middle of the animation: the tiles numbered 8 glow
    animate.production(app.screen, app.view, app.state, 8, 0.7)
    assert app.screen.get_view("2").raw != before.get_view("2").raw
    app.roll_anim = (time.monotonic() - 0.65, app.roll_anim[1])  # draw that moment
    d.shot("production_glow")
    app.roll_anim = (app.roll_anim[0] - 5, app.roll_anim[1])
    d.app.tick()
    assert app.roll_anim is None, "the animation ends by itself"
    d.key(pygame.K_s)
    assert app.sounds.muted
    heard = list(app.sounds.played)
    d.key(pygame.K_1)
    d.key(pygame.K_e)
    d.settle()
    assert app.sounds.played == heard, "muted: nothing more is played"
