"""The peer runtime: own actions go through it, failures come back as sentences."""

from __future__ import annotations

import time

import pytest
from builders import fresh

from catan_p2p.errors import RemoteError
from catan_p2p.net.game import SyncStatus
from catan_p2p.net.runtime import Runtime
from catan_p2p.rules.actions import EndTurn
from catan_p2p.session.memory import MemorySession
from catan_p2p.store.memory import MemoryRepo


def test_queued_actions_are_recorded_and_refusals_reported():
    session = MemorySession(fresh(2), "sync")
    first = session.legal_actions("red")[0]
    syncer = Runtime(session, slowest=0.01).start()
    syncer.submit(first)
    syncer.submit(EndTurn("red"))  # illegal during set-up
    assert syncer.wait_sent(5.0)
    syncer.stop()
    assert [e.action for e in session.history()] == [first]
    (notice,) = [n for n in syncer.take_notices() if n.kind == "refused"]
    assert notice.action == EndTurn("red") and "cannot end the turn now" in notice.text
    assert syncer.status is not None and syncer.rounds >= 1


def test_actions_queued_when_the_window_closes_are_still_recorded():
    session = MemorySession(fresh(2), "close")
    syncer = Runtime(session)  # never started: stop() must record what is queued
    syncer.submit(session.legal_actions("red")[0])
    syncer.stop()
    assert len(session.history()) == 1


class _LostRemote(MemorySession):
    def sync(self) -> SyncStatus:
        raise RemoteError("cannot fetch from the remote (host unreachable); retrying")


def test_a_failing_sync_becomes_the_status_error_and_the_thread_keeps_going():
    syncer = Runtime(_LostRemote(fresh(2), "lost"), slowest=0.01).start()
    try:
        deadline = time.monotonic() + 5.0
        while syncer.rounds < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert syncer.rounds >= 2
        assert syncer.status is not None and "unreachable" in (syncer.status.error or "")
    finally:
        syncer.stop()


# --- pace and the watch on a local remote ---------------------------------------------


def test_the_pace_quickens_on_a_move_and_backs_off_to_the_slowest_while_quiet():
    from catan_p2p.net.pacing import Pace

    pace = Pace(fastest=0.1, slowest=4.0, growth=1.5)
    waits = [pace.after(False) for _ in range(20)]
    assert waits == sorted(waits) and waits[-1] == 4.0, "quiet: one fetch every few seconds"
    assert pace.after(True) == 0.1


@pytest.mark.slow
def test_only_a_path_on_this_machine_is_watched(tmp_path):
    import subprocess

    from catan_p2p.net.pacing import local_remote_dir

    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    assert local_remote_dir(str(bare)) == bare
    assert local_remote_dir(f"file://{bare}") == bare
    assert local_remote_dir("https://example.org/catan.git") is None
    assert local_remote_dir("git@example.org:catan.git") is None
    assert local_remote_dir("git://127.0.0.1/remote.git") is None
    assert local_remote_dir(str(tmp_path / "missing.git")) is None


@pytest.mark.slow
def test_a_move_pushed_to_a_local_remote_shows_long_before_the_slow_poll(tmp_path):
    import subprocess

    from catan_p2p.rules.board import STANDARD_BOARD
    from catan_p2p.session.start import create_game, join_game

    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    host = tmp_path / "host"
    game = create_game(host, ["red", "blue"], STANDARD_BOARD, seed="watch", game_id="w")
    subprocess.run(
        [
            "git",
            "-C",
            str(host),
            "push",
            "-q",
            str(remote),
            "refs/heads/catan/*:refs/heads/catan/*",
        ],
        check=True,
    )
    red = join_game(str(remote), tmp_path / "red", game, "red")
    blue = join_game(str(remote), tmp_path / "blue", game, "blue")
    # A poll alone would come after 300 s: a move seen within a minute, even on a busy
    # machine, was seen by the watch on the remote's refs.
    syncer = Runtime(blue, slowest=300.0).start()
    try:
        deadline = time.monotonic() + 60.0
        while syncer.rounds < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        for _ in range(3):  # let the pace slow down: nothing happens
            time.sleep(0.2)
        before = time.time()
        known = len(syncer.view.history())  # the seat claims (blue is the sync thread's)
        red.submit(red.legal_actions("red")[0])  # recorded and pushed
        pushed = time.monotonic()
        while len(syncer.view.history()) <= known:  # (it waited for 1: claims made it pass)
            assert time.monotonic() - pushed < 60.0, "the watch on the remote's refs missed it"
            time.sleep(0.01)
        # the sync line says Red was heard now (the move), not when it took its seat
        while syncer.heard.get("red", 0) < int(before) - 1:
            assert time.monotonic() - pushed < 60.0, "the sync line never heard Red's move"
            time.sleep(0.01)
        assert syncer.heard["red"] <= time.time()
    finally:
        syncer.stop()
        red.close()
        blue.close()


# --- one owner: the sync thread -------------------------------------------------------


def _networked_in_memory(pushes: list[str]):  # type: ignore[no-untyped-def]
    """A two-seat game in memory whose session exchanges with a stand-in remote, noting
    the thread of every push."""
    import threading

    from catan_p2p.session.git import GitSession
    from catan_p2p.session.start import create_game

    repo = MemoryRepo()
    create_game(repo, ["red", "blue"], seed="owner", game_id="o")
    session = GitSession(repo, "o")

    def push(git_dir, updates, deletes, leases, target):  # type: ignore[no-untyped-def]
        pushes.append(threading.current_thread().name)
        return frozenset()

    session.exchange._fetch = lambda *args: frozenset()
    session.exchange._push = push
    session.exchange.remote = "mem://remote"
    assert session.networked
    return session


def test_a_windows_bot_seats_play_and_push_on_the_sync_thread_not_the_windows():
    """A resumed networked game with bot seats: the window draws, the sync thread plays
    the bots and pushes their moves; the window's thread never pushes."""
    import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
    import pygame

    from catan_p2p.bots import make_bot
    from catan_p2p.client.app import App
    from catan_p2p.client.seats import Seats

    pushes: list[str] = []
    session = _networked_in_memory(pushes)
    screen = pygame.display.set_mode((1280, 800))
    syncer = Runtime(session, slowest=0.05, watch=False).start()
    try:
        bots = {p: make_bot("random", p) for p in ("red", "blue")}
        app = App(session, Seats((), bots), screen=screen, bot_delay=0, runtime=syncer)
        deadline = time.monotonic() + 120
        while len(app._log) < 12:
            assert time.monotonic() < deadline, "the bots did not play on the sync thread"
            app.tick()
            time.sleep(0.01)
    finally:
        syncer.stop()
        pygame.display.quit()
    assert pushes and set(pushes) <= {"catan-peer"}, set(pushes)


def test_the_window_reads_a_frozen_snapshot_and_its_status_is_frozen():
    import dataclasses

    import pytest

    pushes: list[str] = []
    session = _networked_in_memory(pushes)
    syncer = Runtime(session, slowest=0.05, watch=False).start()
    try:
        deadline = time.monotonic() + 30
        while syncer.status is None:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        snap, status = syncer.snapshot, syncer.status
        before = list(snap.history)
        with pytest.raises(dataclasses.FrozenInstanceError):
            status.error = "changed under the window"  # type: ignore[misc]
        with pytest.raises(TypeError):
            snap.views["red"] = snap.state  # type: ignore[index]
        action = syncer.view.legal_actions("red")[0]
        assert syncer.view.refusal(action) is None  # asked of the owner thread
        syncer.view.submit(action)
        assert syncer.wait_sent(30)
        assert syncer.snapshot is not snap
        assert len(syncer.view.history()) == len(before) + 1
        assert list(snap.history) == before  # the old snapshot did not change under its reader
    finally:
        syncer.stop()
