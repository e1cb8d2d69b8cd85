"""Crash safety: the recorder is SIGKILLed at random moments; Git finds the repository sound
and nothing that was recorded is lost.

A child process plays a hot-seat bot game on disk and prints every head it recorded.
The whole process group is killed (the recorder and any ``git repack`` it started) at a
random moment, then ``git fsck`` must be clean, every printed head must still be on the
game's history, the game must verify from its genesis, and the next run must go on.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gitgames import FOUR

from catan_p2p import clock
from catan_p2p.protocol.audit import audit
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.repo import GameRepo

RECORDER = """
import sys
from catan_p2p.bots import make_bot
from catan_p2p.net.driver import Driver
from catan_p2p.session.git import GitSession

session = GitSession(sys.argv[1], "g")
driver = Driver(session, {p: make_bot("random", sys.argv[2] + p) for p in session.players})
print("open", session.head, flush=True)
while not session.state.is_over:
    if driver.step() is None:
        # What the game waits for is written by a sync, as in any client: a robbed
        # seat's answer when the last run was killed between the robbery and it.
        session.sync()
    print("head", session.head, flush=True)
"""
KILLS = 12


def _heads(line: str) -> list[str]:
    """The head a ``head <id>`` line names; none from a line the kill cut short."""
    words = line.split()
    if len(words) == 2 and words[0] == "head" and len(words[1]) == 40:
        return [words[1]]
    return []


def _git(path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=path, capture_output=True, text=True)


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="SIGKILL of a process group is POSIX")
def test_sigkill_at_random_moments_leaves_git_sound_and_loses_nothing(tmp_path: Path):
    path = tmp_path / "game"
    create_game(path, FOUR, seed="crash", game_id="g")
    rng = random.Random(11)
    recorded: list[str] = []
    for kill in range(KILLS):
        child = subprocess.Popen(
            [sys.executable, "-c", RECORDER, str(path), f"k{kill}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        # Wait until it has recorded a few moves, then kill it somewhere in the next
        # one: counted in moves, not seconds, so a loaded machine still gets there.
        first = child.stdout.readline()
        assert first.startswith("open"), child.stderr.read()
        for _ in range(rng.randint(1, 4)):
            recorded += _heads(child.stdout.readline())
        time.sleep(rng.uniform(0.0, 0.02))
        os.killpg(child.pid, signal.SIGKILL)
        out = child.stdout.read()  # not communicate(): it skips what readline() buffered
        child.wait()
        recorded += [head for line in out.splitlines() for head in _heads(line)]
        fsck = _git(path, "fsck", "--strict", "--no-dangling")
        assert fsck.returncode == 0 and "error" not in fsck.stdout + fsck.stderr, (
            f"kill {kill}: {fsck.stdout}{fsck.stderr}"
        )
        session = GitSession(path, "g")  # opens: refs, packs and objects readable
        for head in recorded:
            assert session.repo.is_ancestor(head, session.head), f"kill {kill} lost {head[:10]}"
        if session.state.is_over:
            break
    assert len(recorded) >= KILLS, "the recorder never got to record between kills"
    report = audit(GameRepo(path), "g", clock.now)
    assert report.ok, report.problem
    assert report.commits >= len(set(recorded))
