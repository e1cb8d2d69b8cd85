"""One peer runtime in every layout, and one program per seat on a machine.

The window used to decide "networked" by a shared remote alone, so the layout README
recommends with strangers (each seat publishing at its own point, no shared remote)
opened as a local game: "Red against 0 bots", and Blue's moves never came. A second
window on the same seat opened without a word and then refused every move with a
cut-off Git message. Real repositories, bare remotes on disk, a real pygame surface.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest

from catan_p2p.errors import UsageError
from catan_p2p.net import transport
from catan_p2p.net.runtime import Runtime
from catan_p2p.rules.waiting import actors
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game, join_game

pytestmark = pytest.mark.network


def git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True)


def settle(sessions: dict[str, GitSession]) -> None:
    """Sync around the table until a whole round moves no head."""
    before = None
    for _ in range(8):
        for s in sessions.values():
            s.sync()
        heads = tuple(s.head for s in sessions.values())
        if heads == before:
            return
        before = heads


def _points_only(tmp_path: Path) -> dict[str, Path]:
    """Red and Blue, each publishing at its own bare repository; no shared remote."""
    points = {p: tmp_path / f"{p}.git" for p in ("red", "blue")}
    for bare in points.values():
        git("init", "-q", "--bare", str(bare))
    red = tmp_path / "red"
    create_game(
        red,
        ["red", "blue"],
        seed="pts",
        game_id="g",
        local=("red",),
        publish_url=str(points["red"]),
    )
    transport.set_config(red / ".git", "catan.point.blue", str(points["blue"]))
    first = GitSession(red, "g", ("red",))
    first.sync()
    blue = join_game(
        str(points["red"]), tmp_path / "blue", "g", "blue", publish_url=str(points["blue"])
    )
    settle({"red": first, "blue": blue})
    first.close()
    blue.close()
    return {"red": red, "blue": tmp_path / "blue"}


def test_a_window_on_a_points_only_game_shows_the_other_seats_moves_live(tmp_path):
    from catan_p2p.client.app import App
    from catan_p2p.commands.play import build_options, open_runtime, resume_game

    repos = _points_only(tmp_path)
    game = resume_game(build_options(resume=str(repos["red"])))
    assert game.networked, "a game with publication points only is a networked game"
    runtime = open_runtime(game)
    blue = GitSession(repos["blue"], "g", ("blue",))
    screen = pygame.display.set_mode((1280, 800))
    try:
        assert runtime.threaded
        app = App(game.session, game.seats, screen=screen, runtime=runtime, bot_delay=0)
        app.tick()
        assert "bots" not in app.local_text() or app.session.networked
        deadline = time.monotonic() + 120
        # Red places its set-up pieces from the window; Blue plays from its own clone.
        while True:
            assert time.monotonic() < deadline, "the window never showed Blue's set-up"
            app.tick()
            state = app.session.state
            if any(e.author == "blue" and "settlement" in e.summary for e in app._log):
                if runtime.heard.get("blue"):  # the sync line names when Blue last moved
                    break
            if "red" in actors(state):
                app.submit(app.session.legal_actions("red")[0])
                assert runtime.wait_sent(30)
            blue.sync()
            if "blue" in actors(blue.state):
                blue.submit(blue.legal_actions("blue")[0])
            time.sleep(0.02)
    finally:
        runtime.stop()
        runtime.session.close()
        blue.close()
        pygame.display.quit()


def test_a_second_program_on_an_open_seat_is_refused_in_one_sentence(tmp_path):
    repos = _points_only(tmp_path)
    session = GitSession(repos["red"], "g", ("red",))
    first = Runtime(session)
    other = GitSession(repos["red"], "g", ("red",))
    try:
        with pytest.raises(UsageError, match="Red's seat of game g is already open"):
            Runtime(other)
        # the bot command says so too, in one line, before it records anything
        head = session.head
        bot = subprocess.run(
            [
                sys.executable,
                "-m",
                "catan_p2p.cli",
                "bot",
                "--repo",
                str(repos["red"]),
                "--as",
                "red",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert bot.returncode == 1 and "already open on this machine" in bot.stderr, bot.stderr
        assert bot.stderr.strip().count("\n") == 0 and "Traceback" not in bot.stderr
        assert GitSession(repos["red"], "g", ("red",)).head == head
        first.stop()  # let go: the seat opens again
        Runtime(other).stop()
    finally:
        first.stop()
        session.close()
        other.close()


def test_a_window_whose_seat_moved_elsewhere_reloads_and_says_why(tmp_path):
    """Another program recorded on Red's branch behind the window's back (a terminal
    `sync` recording a move nobody chooses, or a copy of the repository): the window's
    next move met a moved ref and was refused with a cut-off Git message. Now the
    runtime reopens the game from the branch and the window says why."""
    from catan_p2p.client.app import App
    from catan_p2p.client.dialogs import MessageDialog
    from catan_p2p.commands.play import build_options, open_runtime, resume_game

    repos = _points_only(tmp_path)
    game = resume_game(build_options(resume=str(repos["red"])))
    runtime = open_runtime(game)
    screen = pygame.display.set_mode((1280, 800))
    behind = GitSession(repos["red"], "g", ("red",))  # no runtime: takes no lock
    try:
        app = App(game.session, game.seats, screen=screen, runtime=runtime, bot_delay=0)
        deadline = time.monotonic() + 60
        while runtime.status is None:
            assert time.monotonic() < deadline
            app.tick()
            time.sleep(0.01)
        behind.sync()
        moved = behind.legal_actions("red")[0]
        behind.submit(moved)  # Red's branch moves outside the window
        stale = app.session.legal_actions("red")[0]
        runtime.ask(lambda s: None)  # the runtime is between rounds
        app.submit(stale)
        assert runtime.wait_sent(30)
        deadline = time.monotonic() + 60
        while not isinstance(app.dialog, MessageDialog):
            assert time.monotonic() < deadline, "the window never said the game was reloaded"
            app.tick()
            time.sleep(0.01)
        assert "reloaded" in app.dialog.title.lower() and "moved on outside" in app.dialog.message
        deadline = time.monotonic() + 60
        while behind.head not in {e.commit for e in app._log}:
            assert time.monotonic() < deadline, "the reloaded window does not show the move"
            app.tick()
            time.sleep(0.01)
    finally:
        runtime.stop()
        runtime.session.close()
        behind.close()
        pygame.display.quit()


@pytest.mark.slow
def test_a_window_and_a_bot_process_play_a_points_only_game_to_the_end(tmp_path):
    """Red's window (its seat played by the window's bot, as `play --resume` plays a seat
    noted as a bot) against Blue's `catan-p2p bot` process, each publishing only at its
    own bare repository: the window shows every one of Blue's moves as it comes, and
    both end on one verified head."""
    from catan_p2p.client.app import App
    from catan_p2p.commands._seats import save_seats
    from catan_p2p.commands.play import build_options, open_runtime, resume_game

    repos = _points_only(tmp_path)
    save_seats(repos["red"] / ".git", "g", (), {"red": "greedy"})
    blue = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "catan_p2p.cli",
            "bot",
            "--repo",
            str(repos["blue"]),
            "--as",
            "blue",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    game = resume_game(build_options(resume=str(repos["red"])))
    runtime = open_runtime(game)
    screen = pygame.display.set_mode((1280, 800))
    seen_blue: set[str] = set()
    try:
        app = App(game.session, game.seats, screen=screen, runtime=runtime, bot_delay=0)
        deadline = time.monotonic() + 900
        while not app.session.state.settled:
            assert time.monotonic() < deadline, "the game did not end in 15 minutes"
            assert blue.poll() is None or blue.returncode == 0, blue.stderr.read()
            app.tick()
            seen_blue |= {e.commit for e in app._log if e.author == "blue"}
            time.sleep(0.01)
        out, err = blue.communicate(timeout=300)
        assert blue.returncode == 0, err
        assert "won" in out
    finally:
        if blue.poll() is None:
            blue.kill()
        runtime.stop()
        runtime.session.close()
        pygame.display.quit()
    final = GitSession(repos["blue"], "g", ("blue",))
    try:
        assert app.session.state.winner >= 0 and not app.bot_errors
        # every move of Blue's up to the window's last one showed in the window as it came
        log = final.history()
        upto = [e.commit for e in log].index(app._log[-1].commit)
        blues = {e.commit for e in log[: upto + 1] if e.author == "blue"}
        assert len(blues) > 20 and blues <= seen_blue
    finally:
        final.close()
