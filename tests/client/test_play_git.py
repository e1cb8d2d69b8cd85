"""The play window over real Git sessions: hot-seat in one repository, and networked peers.

Each click becomes a commit in a repository in a tmp folder; the networked test runs a
real background sync thread against a shared remote (a repository path as the URL).
"""

from __future__ import annotations

import re
import sys
import time
from subprocess import DEVNULL, Popen, run

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from driving import Driver, screens_dir

from catan_p2p.client.app import App
from catan_p2p.client.replay import replay_states
from catan_p2p.client.seats import Seats
from catan_p2p.net.runtime import Runtime
from catan_p2p.rules.board import STANDARD_BOARD
from catan_p2p.rules.state import Phase
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game, join_game
from catan_p2p.store.repo import init_repo

RED, BLUE = "red", "blue"


@pytest.fixture
def window(tmp_path, request):
    screen = pygame.display.set_mode((1280, 800))

    def start(app: App) -> Driver:
        return Driver(app, screens_dir(tmp_path), request.node.name)

    yield screen, start
    pygame.display.quit()


def _place_setup(d: Driver, player: str) -> None:
    """The human ``player`` places a settlement and its road by clicking highlighted places."""
    app = d.app
    assert app.actor() == player
    d.vertex(sorted(app.highlights().vertices)[0])
    d.edge(sorted(app.highlights().edges)[0])


@pytest.mark.slow
def test_hot_seat_clicks_become_commits_in_the_game_repository(tmp_path, window):
    screen, start = window
    repo = tmp_path / "game"
    game = create_game(repo, [RED, BLUE], STANDARD_BOARD, seed="git-ui", game_id="g1")
    session = GitSession.open(repo, game)
    app = App(session, Seats((RED, BLUE)), screen=screen, bot_delay=0)
    d = start(app)
    for player in (RED, BLUE, BLUE, RED):
        _place_setup(d, player)
    assert session.state.phase is Phase.ROLL
    d.key(pygame.K_r)
    if session.state.phase is Phase.MOVE_ROBBER:  # the seed rolled a seven
        d.tile(sorted(app.highlights().tiles)[0])
    d.key(pygame.K_e)
    d.key(pygame.K_r)
    d.shot("after_first_turns")
    history = session.history()
    moves = [e for e in history if e.action.kind != "claim_seat"]  # the seat claims come first
    assert [e.author for e in history[:2]] == [RED, BLUE]
    assert [e.action.kind for e in moves][:8] == ["build_settlement", "build_road"] * 4
    assert [e.author for e in moves][:8] == [RED, RED, BLUE, BLUE, BLUE, BLUE, RED, RED]
    assert "end_turn" in [e.action.kind for e in history]
    assert all(re.fullmatch(r"[0-9a-f]{40}", e.commit) for e in history)
    assert app._log[-1].commit == history[-1].commit  # the log panel reads the commits

    reopened = GitSession.open(repo, game)
    assert [e.commit for e in reopened.history()] == [e.commit for e in history]
    states, entries = replay_states(reopened)
    assert states[-1] == session.state and len(states) == len(entries) + 1


@pytest.mark.slow
def test_networked_window_syncs_in_the_background_and_reports_a_lost_remote(tmp_path, window):
    screen, start = window
    host = tmp_path / "host"
    game = create_game(host, [RED, BLUE], STANDARD_BOARD, seed="net-ui", game_id="net")
    red = join_game(str(host), tmp_path / "red", game, RED)
    blue = join_game(str(host), tmp_path / "blue", game, BLUE)
    syncer = Runtime(red, slowest=0.05).start()
    try:
        app = App(red, Seats((RED,)), screen=screen, runtime=syncer)
        d = start(app)
        d.vertex(sorted(app.highlights().vertices)[0])
        _wait(d, lambda: app.state.phase is Phase.SETUP_ROAD)
        d.edge(sorted(app.highlights().edges)[0])
        _wait(d, lambda: app.state.current == 1)
        assert app.actor() is None and "Blue" in app._waiting_text(app.state)

        _wait(d, lambda: _blue_sees(blue, 2))  # red's commits reached the remote
        for _ in range(2):  # blue's two set-up placements, on blue's own machine
            blue.submit(blue.legal_actions(BLUE)[0])
            blue.submit(blue.legal_actions(BLUE)[0])
        _wait(d, lambda: len(app._log) == 2 + 6)  # 2 seat claims; fetched in the background
        assert app.actor() == RED
        assert syncer.status is not None and syncer.status.last_fetch is not None
        d.shot("networked_red")

        host.rename(
            tmp_path / "host-gone"
        )  # the remote is lost (atomically: no half-deleted repository)
        _wait(d, lambda: syncer.status is not None and syncer.status.error is not None)
        d.shot("lost_remote")
        assert app.running and app.state.phase is Phase.SETUP_SETTLEMENT
    finally:
        syncer.stop()


@pytest.mark.slow
def test_a_window_ends_a_game_the_other_player_left_after_the_agreed_wait(
    tmp_path, window, fake_clock
):
    """Blue never places its settlement; once the hour the players agreed has passed,
    Red's window offers X, which ends the game without Blue, and Blue's peer agrees."""
    screen, start = window
    host = tmp_path / "host"
    game = create_game(host, [RED, BLUE], STANDARD_BOARD, seed="left", game_id="left", timeout=3600)
    red = join_game(str(host), tmp_path / "red", game, RED)
    blue = join_game(str(host), tmp_path / "blue", game, BLUE)
    syncer = Runtime(red, slowest=0.05).start()
    try:
        app = App(red, Seats((RED,)), screen=screen, runtime=syncer)
        d = start(app)
        d.vertex(sorted(app.highlights().vertices)[0])  # recorded on the sync thread
        _wait(d, lambda: app.state.phase is Phase.SETUP_ROAD)
        d.edge(sorted(app.highlights().edges)[0])
        _wait(d, lambda: app.state.current == 1)
        assert app.may_abandon(app.state) is None  # the hour has not passed
        d.key(pygame.K_x)
        assert not app.state.is_over
        later = time.time() + 3600 + 60
        fake_clock.set(later)
        assert app.may_abandon(app.state) == (RED, BLUE)
        assert "X ends it without Blue" in app._waiting_text(app.state)
        d.shot("waited_too_long")
        d.key(pygame.K_x)
        _wait(d, lambda: app.state.is_over)
        d.shot("ended_without_blue")
        assert app.state.players[app.state.abandoned] == BLUE
        _wait(d, lambda: _blue_sees(blue, 3) and blue.state.is_over)
    finally:
        syncer.stop()


def _moves(session: GitSession) -> list:
    """The history without its seat claims."""
    return [e for e in session.history() if e.action.kind != "claim_seat"]


def _blue_sees(blue: GitSession, n: int) -> bool:
    blue.sync()
    return len(_moves(blue)) >= n


def _wait(d: Driver, done, seconds: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    """Tick the window until ``done()`` (the sync thread works meanwhile); ``seconds`` only
    bounds a wait that is stuck (20 s was too short at a load of 10 on 2 cores)."""
    deadline = time.monotonic() + seconds
    d.app.tick()
    while not done():
        assert time.monotonic() < deadline, f"the sync did not catch up in time ({d.app.message})"
        time.sleep(0.01)
        d.app.tick()


@pytest.mark.slow
def test_hot_seat_trade_over_git_answer_on_its_own_branch_then_confirmed(tmp_path, window):
    screen, start = window
    repo = tmp_path / "game"
    game = create_game(repo, [RED, BLUE], STANDARD_BOARD, seed="git-trade", game_id="t1")
    session = GitSession.open(repo, game)
    while session.state.is_setup:  # set-up by the rules' first choice, then red rolls
        player = session.state.players[session.state.current]
        session.submit(session.legal_actions(player)[0])
    app = App(session, Seats((RED, BLUE)), screen=screen, bot_delay=0)
    d = start(app)
    d.key(pygame.K_r)
    if session.state.phase is Phase.MOVE_ROBBER:  # a seven: move the robber anywhere
        d.tile(sorted(app.highlights().tiles)[0])
    assert session.state.phase is Phase.MAIN
    red, blue = session.state.hands[0].resources, session.state.hands[1].resources
    give = next(r for r in range(5) if red[r])
    get = next(r for r in range(5) if blue[r] and r != give)
    d.key(pygame.K_o)
    d.click(app.dialog.give[give].plus.rect.center)
    d.click(app.dialog.get[get].plus.rect.center)
    d.press("Offer")
    d.click(app.dialog.answer_button(BLUE, accept=True).rect.center)
    assert session.state.trade is not None, "blue's answer waits on its own branch"
    d.shot("answered")
    d.press("Trade with Blue")
    kinds = [f"{e.author}:{e.action.kind}" for e in session.history()]
    assert kinds[-3:] == ["red:offer_trade", "blue:answer_trade", "red:confirm_trade"]
    assert session.state.hands[0].resources[get] == red[get] + 1
    assert GitSession.open(repo, game).state == session.state


@pytest.mark.slow
@pytest.mark.network
def test_window_plays_against_a_bot_running_as_its_own_peer_process(tmp_path, window):
    screen, start = window
    remote = tmp_path / "remote.git"
    init_repo(remote, bare=True)
    red_repo, blue_repo = tmp_path / "red", tmp_path / "blue"
    cli = [sys.executable, "-m", "catan_p2p.cli"]
    new = ["new", "--players", "red,blue", "--game", "duel", "--seed", "peer"]
    run([*cli, *new, "--repo", str(red_repo), "--remote", str(remote), "--as", RED], check=True)
    run(
        [*cli, "join", str(remote), "--game", "duel", "--as", BLUE, "--repo", str(blue_repo)],
        check=True,
        capture_output=True,
    )
    bot = Popen(
        [*cli, "bot", "--as", BLUE, "--repo", str(blue_repo), "--poll", "0.02"],
        stdout=DEVNULL,
        stderr=DEVNULL,
    )
    red = GitSession.open(red_repo, "duel", (RED,))
    syncer = Runtime(red, slowest=0.05).start()
    try:
        app = App(red, Seats((RED,)), screen=screen, runtime=syncer)
        d = start(app)
        for placed in (2, 6):  # red's two set-up rounds; blue's come from the bot process
            _wait(d, lambda: app.actor() == RED)
            d.vertex(sorted(app.highlights().vertices)[0])
            _wait(d, lambda: app.state.phase is Phase.SETUP_ROAD)
            d.edge(sorted(app.highlights().edges)[0])
            _wait(d, lambda n=placed: len(app._log) >= 2 + n)  # after the 2 seat claims
        _wait(d, lambda: app.state.phase is Phase.ROLL and app.actor() == RED)
        d.shot("against_bot_peer")
        authors = [e.author for e in _moves(red)]
        assert authors == [RED, RED, BLUE, BLUE, BLUE, BLUE, RED, RED]
    finally:
        syncer.stop()
        bot.kill()
        bot.wait()


@pytest.mark.slow  # asks git config
@pytest.mark.parametrize("networked", [True, False])
def test_a_networked_window_shares_one_ssh_connection_per_host(tmp_path, monkeypatch, networked):
    """The window polls its remote several times a second: over ssh it shares one
    connection per host while it is open (as the bot does), and closes it after."""
    from catan_p2p.commands import play
    from catan_p2p.store import gitcmd

    monkeypatch.delenv("GIT_SSH", raising=False)
    monkeypatch.setenv("GIT_SSH_COMMAND", "ssh -p 2222")
    run(["git", "init", "-q", str(tmp_path / "g")], check=True)  # a HEAD Git takes
    seen = []
    monkeypatch.setattr(
        play, "_window", lambda *a: seen.append(gitcmd.environment()["GIT_SSH_COMMAND"])
    )
    game = play.Game(None, Seats((RED,)), tmp_path / "g", networked=networked)  # type: ignore[arg-type]
    play.play_in_window(game, play.build_options(), None)  # type: ignore[arg-type]
    assert ("ControlMaster=auto" in seen[0]) is networked
    assert gitcmd.environment()["GIT_SSH_COMMAND"] == "ssh -p 2222"
