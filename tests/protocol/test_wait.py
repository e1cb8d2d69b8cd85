"""The agreed wait counts from when a peer first saw the move, not from the move's date.

Red team: with ``--timeout 1m`` a mover whose clock runs 290 s fast (within the 300 s
every peer allows) made the others wait six minutes before they could end the game,
and a move dated back counted as if the game had waited since then. Each peer now
notes when it first held a head (``replica.seen``, in its own git directory, surviving
restarts, out of any remote's reach) and dates its abandon so that every peer takes it.
"""

from __future__ import annotations

import time

import pytest
from gitgames import two_players

from catan_p2p import clock
from catan_p2p.cli import main
from catan_p2p.protocol.genesis import genesis_of, open_genesis
from catan_p2p.protocol.verify import Verifier
from catan_p2p.replica.seen import FOLDER, SeenLog
from catan_p2p.rules.menu import legal_actions
from catan_p2p.session.git import GitSession
from catan_p2p.store.repo import GameRepo

pytestmark = pytest.mark.slow  # repositories on disk and a remote: processes (tests/conftest.py)


def _red_moves_at(red, when: float, fake_clock) -> str:
    """Red places its first settlement with its clock reading ``when`` and pushes it."""
    fake_clock.set(when)
    mover = GitSession.open(red, "g", ("red",))
    mover.submit(legal_actions(mover.state, "red")[0])
    moved = mover.head
    mover.flush()
    mover.close()
    return moved


def _at(fake_clock, when: float) -> None:
    fake_clock.set(when)


def _verifies_everywhere(red, blue, now: float, fake_clock) -> None:
    for repo in (red, blue):
        _at(fake_clock, now)
        assert main(["sync", "--repo", str(repo)]) == 0
        assert main(["verify", "--repo", str(repo)]) == 0
        session = GitSession.open(repo, "g", (repo.name,))
        assert session.state.is_over and session.state.abandoned == 0
        session.close()


def test_a_move_dated_ahead_does_not_stretch_the_wait(tmp_path, fake_clock, capsys):
    remote, red, blue = two_players(tmp_path, "1m")
    now = time.time() + 5
    moved = _red_moves_at(red, now + 290, fake_clock)  # Red's clock runs 290 s fast
    _at(fake_clock, now)
    assert main(["sync", "--repo", str(blue)]) == 0  # taken: within the 300 s allowed
    _at(fake_clock, now + 30)
    capsys.readouterr()
    assert main(["abandon", "--repo", str(blue)]) == 1, "ended before the agreed minute"
    assert "may be ended in" in capsys.readouterr().err
    # One agreed minute after Blue saw it, not six: Blue may end the game.
    _at(fake_clock, now + 62)
    assert main(["abandon", "--repo", str(blue)]) == 0, capsys.readouterr().err
    repo = GameRepo(blue)
    tip = repo.refs.get("refs/heads/catan/g/blue")
    abandon = next(
        repo.commit(o)
        for o in repo.first_parents(tip)
        if o != moved and repo.commit(o).parents == [moved]
    )
    assert abandon.when - repo.commit(moved).when >= 60  # what every verifier checks
    assert abandon.when <= now + 62 + 300  # and within what every peer allows
    repo.close()
    _verifies_everywhere(red, blue, now + 62, fake_clock)


def test_a_move_dated_back_does_not_shorten_the_wait(tmp_path, fake_clock, capsys):
    remote, red, blue = two_players(tmp_path, "1m")
    now = time.time() + 5
    _red_moves_at(red, now - 3600, fake_clock)  # Red's clock runs an hour slow
    _at(fake_clock, now + 600)  # Blue comes online ten minutes later and sees it
    assert main(["sync", "--repo", str(blue)]) == 0
    _at(fake_clock, now + 630)
    capsys.readouterr()
    assert main(["abandon", "--repo", str(blue)]) == 1, "the wait counted from the move's date"
    assert "may be ended in" in capsys.readouterr().err
    _at(fake_clock, now + 662)
    assert main(["abandon", "--repo", str(blue)]) == 0, capsys.readouterr().err
    _verifies_everywhere(red, blue, now + 662, fake_clock)


def test_the_first_sight_survives_a_restart_and_no_remote_reaches_it(tmp_path, fake_clock):
    remote, red, blue = two_players(tmp_path, "1m")
    now = time.time() + 5
    _red_moves_at(red, now, fake_clock)
    _at(fake_clock, now + 10)
    assert main(["sync", "--repo", str(blue)]) == 0
    session = GitSession.open(blue, "g", ("blue",))
    head = session.head
    assert session.waiting_since() == int(now + 10)
    session.close()
    _at(fake_clock, now + 50)  # a new process: the wait still counts from the first sight
    session = GitSession.open(blue, "g", ("blue",))
    assert session.waiting_since() == int(now + 10)
    session.close()
    # The note lives in the git directory, not under refs: nothing fetched can write it.
    note = blue / ".git" / FOLDER / "g"
    assert head in note.read_text()
    # A damaged line is ignored (the wait then counts from this look, never earlier).
    note.write_text(f"{head} soon\nnot a line\n")
    assert SeenLog(blue / ".git", "g").first_seen(head) == int(now + 50)


def test_an_honest_abandon_on_a_line_dated_ahead_verifies_at_once(tmp_path, fake_clock):
    """The abandon is dated as the verifier counts (``liveness.abandon_time``): at most
    300 s ahead of its writer's clock, and so taken by a peer whose clock agrees."""
    remote, red, blue = two_players(tmp_path, "1m")
    now = time.time() + 5
    _red_moves_at(red, now + 299, fake_clock)
    _at(fake_clock, now)
    assert main(["sync", "--repo", str(blue)]) == 0
    _at(fake_clock, now + 61)
    assert main(["abandon", "--repo", str(blue)]) == 0
    repo = GameRepo(blue)
    tip = repo.refs.get("refs/heads/catan/g/blue")
    state, info = open_genesis(repo, genesis_of(repo, tip))
    fresh = Verifier(repo, info, genesis_of(repo, tip), state, clock=clock.now)
    assert fresh.verify(tip).abandoned == 0
    repo.close()
