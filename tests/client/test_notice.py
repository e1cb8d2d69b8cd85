"""Your turn, noticed: a networked window that starts to wait on its player says so."""

from __future__ import annotations

import time

import driving  # noqa: F401  (sets SDL_VIDEODRIVER/SDL_AUDIODRIVER=dummy)
import pygame
from builders import BLUE, RED, at_turn
from driving import Driver, screens_dir
from test_play import scenario

from catan_p2p.client.app import App
from catan_p2p.client.notice import MARK, TurnNotice, clock_text, desktop_notify
from catan_p2p.client.seats import Seats
from catan_p2p.client.sound import Sounds
from catan_p2p.net.runtime import Runtime
from catan_p2p.rules.actions import EndTurn, RollDice
from catan_p2p.rules.state import Phase
from catan_p2p.session.memory import MemorySession


class _Elsewhere(MemorySession):
    """A game in memory whose other seats play elsewhere: the window is networked."""

    networked = True


def _until(app: App, condition, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the window never got there"
        app.tick()
        time.sleep(0.005)


def test_the_game_turning_to_the_player_rings_flashes_the_title_and_notifies(tmp_path):
    session = _Elsewhere(at_turn(scenario(), BLUE, Phase.ROLL), "notice")
    runtime = Runtime(session, slowest=0.02, watch=False, lock=False).start()
    notes: list[tuple[str, str]] = []
    app = App(session, Seats((RED,), {}), screen=pygame.display.set_mode((1280, 800)),
              bot_delay=0, runtime=runtime, notify=lambda t, b: notes.append((t, b)))  # fmt: skip
    captions: list[str] = []
    app.notice.caption = captions.append
    d = Driver(app, screens_dir(tmp_path), "notice")
    try:
        assert app.notice.waiting_on == () and not notes, "Blue's move: nothing to notice"
        runtime.submit(RollDice(BLUE, (1, 2)))  # Blue, playing elsewhere, moves
        runtime.submit(EndTurn(BLUE))
        _until(app, lambda: app.notice.waiting_on == (RED,))
        assert "turn" in app.sounds.played
        assert notes and "Red" in notes[0][0] and notes[0][1]
        # the title flashes while the player is away
        base = time.monotonic() + 10
        for k in range(4):
            app.notice.tick(now=base + k)
        flashed = captions[-4:]
        assert sorted(set(flashed)) == sorted({f"{MARK} — {app.notice.title}", app.notice.title})
        assert all(a != b for a, b in zip(flashed, flashed[1:], strict=False))
        assert app.notice.thinking() is not None and app.notice.thinking() < 60
        d.shot("waiting")
        pill = app.layout.board.centerx, app.layout.board.top + 12
        assert app.screen.get_at(pill)[:3] != app.screen.get_at((pill[0], pill[1] + 60))[:3]
        d.key(pygame.K_LEFT)  # any key: the player is back
        app.notice.tick(now=base + 100)
        assert captions[-1] == f"{MARK} — {app.notice.title}", "steady once seen"
        runtime.submit(RollDice(RED, (1, 2)))
        runtime.submit(EndTurn(RED))
        _until(app, lambda: app.notice.waiting_on == ())
        assert captions[-1] == app.notice.title and app.notice.thinking() is None
        assert app.sounds.played.count("turn") == 1, "the window plays it once per wait"
    finally:
        runtime.stop()
        pygame.display.quit()


def test_muted_the_notice_is_silent_but_still_shows():
    sounds = Sounds(muted=True)
    notes: list[tuple[str, str]] = []
    captions: list[str] = []
    notice = TurnNotice("catan-p2p — g", sounds, lambda t, b: notes.append((t, b)),
                        captions.append)  # fmt: skip
    notice.follow([], "")  # the window opens on someone else's move
    notice.follow([RED], "Red to roll", since=time.time() - 75)
    assert sounds.played == [] and notes
    assert clock_text(notice.thinking() or 0).startswith("1:1")


def test_the_window_opening_on_its_own_move_does_not_ring():
    sounds = Sounds()
    notes: list[tuple[str, str]] = []
    notice = TurnNotice("t", sounds, lambda t, b: notes.append((t, b)), lambda c: None)
    notice.follow([RED], "Red to roll")
    assert "turn" not in sounds.played and not notes
    assert notice.thinking() is not None


def test_the_clock_shows_the_agreed_timeout_left():
    pygame.font.init()
    notice = TurnNotice("t", Sounds(muted=True), lambda t, b: None, lambda c: None)
    notice.follow([], "")
    notice.follow([RED], "Red to roll", since=time.time() - 30)
    board = pygame.Rect(0, 0, 840, 700)
    plain = pygame.Surface((840, 700), pygame.SRCALPHA)
    timed = pygame.Surface((840, 700), pygame.SRCALPHA)
    notice.draw(plain, board)
    notice.draw(timed, board, timeout=300)
    assert plain.get_bounding_rect().width < timed.get_bounding_rect().width
    assert clock_text(42) == "0:42" and clock_text(3729) == "1:02:09"


def test_no_notifier_on_the_system_is_no_error(monkeypatch):
    monkeypatch.setenv("PATH", "")
    desktop_notify("catan-p2p", "your move")  # nothing happens, nothing raises
