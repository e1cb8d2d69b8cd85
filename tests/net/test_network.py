"""Networked play: separate bot processes, each with its own clone, through a shared remote.

Every peer is a real ``catan-p2p bot`` process; the remote is a bare repository on disk
or a ``git daemon`` on 127.0.0.1. All peers must end on the same tree, and every clone
must verify. The games are played to ``VICTORY_POINTS`` (not 10): the protocol is the
same at every score, and a shorter game keeps these real-process tests to half a minute
or so each (they are marked ``slow`` and ``network``; ``./test.sh --quick`` skips them).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from gitgames import CLI, FOUR, cli, git
from remotes import daemon_args, listening

from catan_p2p.cli import main
from catan_p2p.net import transport

GAME_TIMEOUT = 420
#: Greedy bots (the bot's default) build what they can: 22-30 turns and 120-170 commits to
#: 4 points in 4 in-memory games, where random bots took 54-78 turns and 180-250 commits
#: (82 turns median in 12 hot-seat games): each commit is a push, fetches and
#: verifications by every process, and under load a random game outlived GAME_TIMEOUT.
#: To 3 points (a first building after set-up) 4 greedy seats took 47-177 actions in 12
#: in-memory games (set-up is 16): long enough for a bot to be killed and come back.
#: The games are the same on every run (conftest fixes the keys and the genesis time):
#: with seed "net" 50 commits, with "s8" 41 (with "daemon", once used, 92).
VICTORY_POINTS = 3
KILL_AFTER = 30  # commits (genesis, claims and set-up are 22) before a bot is SIGKILLed


def _start_bot(clone: Path, player: str, log: Path) -> subprocess.Popen:
    out = log.open("ab")
    return subprocess.Popen(
        [
            *CLI,
            "bot",
            "--as",
            player,
            "--repo",
            str(clone),
            "--strategy",
            "greedy",
            "--poll",
            "0.02",
        ],
        stdout=out,
        stderr=out,
    )


def _set_up(
    tmp_path: Path, url: str, players=FOUR, seed: str = "net", points: int = VICTORY_POINTS
) -> dict[str, Path]:
    clones = {p: tmp_path / p for p in players}
    made = cli(
        "new",
        "--players",
        ",".join(players),
        "--seed",
        seed,
        "--game",
        "g",
        "--repo",
        str(clones[players[0]]),
        "--remote",
        url,
        "--victory-points",
        str(points),
    )
    assert made.returncode == 0, made.stderr
    for p in players[1:]:
        joined = cli("join", url, "--game", "g", "--as", p, "--repo", str(clones[p]))
        assert joined.returncode == 0, joined.stderr
    return clones


def _play(tmp_path: Path, clones: dict[str, Path], kill: str | None = None) -> None:
    procs = {p: _start_bot(c, p, tmp_path / f"{p}.log") for p, c in clones.items()}
    deadline = time.monotonic() + GAME_TIMEOUT
    killed = False
    try:
        while any(proc.poll() is None for proc in procs.values()):
            if time.monotonic() > deadline:
                raise AssertionError("the networked game did not finish in time")
            if kill and not killed and _commits(clones[kill]) > KILL_AFTER:
                procs[kill].send_signal(signal.SIGKILL)
                procs[kill].wait()
                killed = True
                time.sleep(0.5)  # the others go on without it meanwhile
                procs[kill] = _start_bot(clones[kill], kill, tmp_path / f"{kill}.log")
            time.sleep(0.2)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    logs = {p: (tmp_path / f"{p}.log").read_text() for p in clones}
    for p, proc in procs.items():
        assert proc.returncode == 0, f"{p}'s bot failed:\n{logs[p][-2000:]}"
        assert "won." in logs[p]
    if kill:
        assert killed


def _commits(clone: Path) -> int:
    out = git("rev-list", "--count", "--all", cwd=clone, check=False).strip()
    return int(out or 0)


def _assert_converged(clones: dict[str, Path], capsys) -> None:  # type: ignore[no-untyped-def]
    trees = {
        p: git("rev-parse", f"refs/heads/catan/g/{p}^{{tree}}", cwd=c).strip()
        for p, c in clones.items()
    }
    assert len(set(trees.values())) == 1, trees
    for p, c in clones.items():  # ``catan-p2p verify`` in this process: no Python start each
        capsys.readouterr()
        verified = main(["verify", "--repo", str(c)])
        assert verified == 0, f"{p}: {capsys.readouterr().err}"


@pytest.mark.slow
@pytest.mark.network
def test_four_bot_processes_play_through_a_bare_remote_and_one_survives_sigkill(
    tmp_path: Path, capsys
):
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    clones = _set_up(tmp_path, str(remote))
    _play(tmp_path, clones, kill="white")
    _assert_converged(clones, capsys)
    # The remote holds only the player logs: temporary answer branches were deleted.
    refs = git("for-each-ref", "--format=%(refname)", cwd=remote).split()
    assert sorted(refs) == sorted(f"refs/heads/catan/g/{p}" for p in FOUR)


@pytest.mark.slow
@pytest.mark.network
def test_four_bot_processes_play_through_git_daemon(tmp_path: Path, capsys):
    base = tmp_path / "served"
    base.mkdir()
    remote = base / "game.git"
    git("init", "-q", "--bare", str(remote))
    with listening(lambda port: daemon_args(base, port), "git daemon", tmp_path / "d.log") as (
        _,
        port,
    ):
        url = f"git://127.0.0.1:{port}/game.git"
        clones = _set_up(tmp_path, url, seed="s8")  # the same game every run: 41 commits
        _play(tmp_path, clones)
        _assert_converged(clones, capsys)


@pytest.mark.slow
def test_an_unreachable_remote_is_one_clear_error_and_a_later_retry_works(tmp_path: Path):
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    clones = _set_up(tmp_path, str(remote), players=("red", "blue"), seed="gone")
    moved = tmp_path / "elsewhere.git"
    remote.rename(moved)
    failed = cli("sync", "--repo", str(clones["blue"]))
    assert failed.returncode == 1
    assert "cannot fetch from the remote" in failed.stdout + failed.stderr
    assert "Traceback" not in failed.stderr
    moved.rename(remote)
    again = cli("sync", "--repo", str(clones["blue"]))
    assert again.returncode == 0, again.stdout + again.stderr


@pytest.mark.slow
def test_a_lock_left_on_a_tracking_ref_by_a_killed_git_does_not_stop_every_later_sync(
    tmp_path: Path,
):
    """A Git killed while updating ``refs/remotes/origin/...`` leaves ``<ref>.lock`` (seen
    after a bot was stopped with Ctrl-C mid-push); sync clears it and goes on."""
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    clones = _set_up(tmp_path, str(remote), players=("red", "blue"), seed="lock")
    lock = clones["blue"] / ".git/refs/remotes/origin/catan/g/red.lock"
    lock.write_bytes(b"")  # Git creates it empty, then writes the new id
    os.utime(lock, (time.time() - 60, time.time() - 60))
    moved = cli("sync", "--repo", str(clones["red"]))  # Red merges the seat claims
    assert moved.returncode == 0, moved.stdout + moved.stderr
    synced = cli("sync", "--repo", str(clones["blue"]))  # so Blue's fetch needs the lock
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert not lock.exists()


def _plant(bare: Path, ref: str, oid: str) -> None:
    """Write a ref file straight into the remote, as a hostile host can (Git itself would
    not put a blob or a tree under refs/heads)."""
    path = bare / ref
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(oid + "\n")


@pytest.mark.slow
def test_junk_refs_beside_a_game_on_a_plain_remote_stop_no_peer(tmp_path: Path, capsys):
    """Anyone who may push to a plain remote can put refs of no protocol shape, or refs
    naming a blob, a tree or a tag, beside a game; before, one of them stopped every
    peer's sync and verify ("... is not a catan_p2p ref", "... is a blob")."""
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    clones = _set_up(tmp_path, str(remote), players=("red", "blue"), seed="junk")
    assert cli("sync", "--repo", str(clones["red"])).returncode == 0
    honest = git("rev-parse", "refs/heads/catan/g/red", cwd=remote).strip()
    blob = git("hash-object", "-w", "--stdin", cwd=remote, input="junk\n").strip()
    tree = git("mktree", cwd=remote, input="").strip()
    tag = git(
        "mktag",
        cwd=remote,
        input=f"object {honest}\ntype commit\ntag t\ntagger x <x@y> 0 +0000\n\nhi\n",
    ).strip()
    junk = {
        "refs/heads/catan/g/mallory": blob,  # a player's log shape, not a commit
        "refs/heads/catan/g/Blue": honest,  # no player name
        f"refs/heads/catan/g/trade/{'7' * 40}/blue": tree,
        f"refs/heads/catan/g/trade/{honest}/white": tag,
        "refs/heads/catan/g/discard/nothex/red": honest,
        f"refs/heads/catan/g/seat/{honest}/blue/deeper": honest,
        f"refs/heads/catan/g/bribe/{honest}/blue": honest,
        "refs/catan-chat/g/red": blob,
    }
    for ref, oid in junk.items():
        _plant(remote, ref, oid)
    # ``sync`` and ``verify`` in this process (their own main: a traceback would fail the
    # test here), without a Python start each; the first sync above is a real process.
    for _ in range(2):
        for p, clone in clones.items():
            synced = main(["sync", "--repo", str(clone)])
            said = capsys.readouterr()
            assert synced == 0 and "Traceback" not in said.err, f"{p}: {said.out}{said.err}"
    for clone in clones.values():
        checked = main(["verify", "--repo", str(clone)])
        said = capsys.readouterr()
        assert checked == 0, said.out + said.err
        left = git("for-each-ref", "--format=%(refname)", "refs/remotes/origin/catan", cwd=clone)
        assert not any(ref.replace("heads", "remotes/origin", 1) in left for ref in junk)
        assert git("rev-parse", "refs/remotes/origin/catan/g/red", cwd=clone).strip() == honest


@pytest.fixture(scope="module")
def guarded(tmp_path_factory) -> tuple[Path, Path, str]:
    """A guarded remote with Red and Blue seated, made once: every push the test below
    makes is refused, so the remote stays as it was for the next (remote, Red's clone,
    Red's head)."""
    tmp_path = tmp_path_factory.mktemp("guarded")
    remote = tmp_path / "remote.git"
    made = cli("host", "init", str(remote))
    assert made.returncode == 0, made.stdout + made.stderr
    clones = _set_up(tmp_path, str(remote), players=("red", "blue"), seed="shape")
    head = git("rev-parse", "refs/heads/catan/g/red", cwd=clones["red"]).strip()
    return remote, clones["red"], head


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["mallory", "Blue", "seat/{head}/blue/deeper", "bribe/{head}/blue", "trade/x/blue"]
)
def test_a_guarded_remote_refuses_a_ref_of_no_seat_or_shape(guarded, name: str):
    """An honest commit copied under a name that is no seat (or no protocol shape) is
    refused by the hook, so a guarded remote holds no junk for peers to skip."""
    remote, red, head = guarded
    ref = f"refs/heads/catan/g/{name.format(head=head)}"
    pushed = subprocess.run(
        ["git", "push", "origin", f"{head}:{ref}"],
        cwd=red,
        capture_output=True,
        text=True,
    )
    assert pushed.returncode != 0 and "catan-p2p: refused" in pushed.stderr, pushed.stderr
    assert git("for-each-ref", ref, cwd=remote) == ""


@pytest.mark.slow
def test_only_a_tracking_refs_lock_that_stands_still_is_cleared(tmp_path: Path, monkeypatch):
    git_dir = tmp_path / "x.git"
    git("init", "-q", "--bare", str(git_dir))
    tracking = git_dir / "refs/remotes/origin/catan/g"
    tracking.mkdir(parents=True)
    own = git_dir / "refs/heads/catan/g/red.lock"
    own.parent.mkdir(parents=True)
    own.write_text("Git's own lock on a player's ref\n")
    old = time.time() - 60
    os.utime(own, (old, old))
    for named in (own, tracking / "../../../../heads/catan/g/red.lock"):
        said = f"error: cannot lock ref 'x': Unable to create '{named}': File exists."
        assert not transport._clear_stale_lock(git_dir, said)
        assert own.exists(), "a lock outside refs/remotes/origin/ is never removed"
    assert not transport._clear_stale_lock(git_dir, "fatal: unable to access the remote")

    live = tracking / "red.lock"
    said = f"error: Unable to create '{live}': File exists."

    def meanwhile(action):
        """What another Git does while we wait for the lock to prove stale."""

        def sleep(seconds: float) -> None:
            assert 0 < seconds <= transport.STALE_LOCK_SECONDS
            action()

        return sleep

    # A Git that is alive lets go of its lock within the wait: the fetch is tried again.
    live.write_text("")
    assert transport._clear_stale_lock(git_dir, said, meanwhile(live.unlink))
    # Taken again meanwhile by another Git (which writes the new id into it): left alone.
    live.write_text("")
    taken = meanwhile(lambda: (live.unlink(), live.write_text("0" * 40 + "\n")))
    assert transport._clear_stale_lock(git_dir, said, taken)
    assert live.exists()

    os.utime(live, (old, old))
    assert transport._clear_stale_lock(git_dir, said)
    assert not live.exists()


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="uses POSIX paths")
def test_joining_a_game_that_does_not_exist_says_so(tmp_path: Path):
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    joined = cli(
        "join", str(remote), "--game", "nope", "--as", "red", "--repo", str(tmp_path / "c")
    )
    assert joined.returncode == 1
    assert "has no game 'nope'" in joined.stderr


@pytest.mark.slow
def test_a_stale_lock_under_a_publication_points_tracking_refs_is_cleared_too(tmp_path: Path):
    """Each seat's point has tracking refs of its own (``refs/remotes/seat-<p>/``): a lock
    a killed Git left there would fail every fetch from that point; it is cleared like
    the shared remote's."""
    git_dir = tmp_path / "x.git"
    git("init", "-q", "--bare", str(git_dir))
    lock = git_dir / "refs/remotes/seat-blue/catan/g/blue.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("")
    old = time.time() - 60  # stood still long past the wait: no sleep
    os.utime(lock, (old, old))
    said = f"error: cannot lock ref 'x': Unable to create '{lock}': File exists."
    assert transport._clear_stale_lock(git_dir, said)
    assert not lock.exists()
