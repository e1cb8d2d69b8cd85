"""A read-only or full disk is named as such: by ``sync`` and ``bot`` (one sentence, what
is wrong and what to do, a non-zero exit, no traceback), by the window, and the bot
keeps saying so instead of going silent.

Red team: on a read-only repository ``sync`` named a ref-deletion error and ``bot``
printed nothing. In-process, the disk is made full where objects are written
(``store.objects.write_pack`` raising ENOSPC); with real processes, the repository is
made read-only (``chmod``, or a read-only bind mount when running as root, where chmod
binds nobody) and put on a full tmpfs (root only), each skipped where it cannot be made.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from gitgames import CLI, two_players

from catan_p2p.cli import main
from catan_p2p.net import runtime
from catan_p2p.net.runtime import Runtime
from catan_p2p.session.git import GitSession
from catan_p2p.store import disk, objects


def _full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device", "objects/pack/tmp_pack")


def test_disk_problems_are_named_in_one_sentence():
    assert disk.problem(OSError(errno.EROFS, "Read-only file system")) == disk.READ_ONLY
    assert disk.problem(OSError(errno.ENOSPC, "No space left on device")) == disk.FULL
    assert disk.problem("error: unable to write: No space left on device") == disk.FULL
    assert disk.problem("Permission denied (publickey).") is None  # ssh's, not the disk's
    assert disk.problem(OSError(errno.ECONNRESET, "reset")) is None
    for kind in (disk.READ_ONLY, disk.FULL, disk.DENIED):
        said = disk.sentence(kind, "/games/red")
        assert "/games/red" in said and said.count(". ") == 0 and len(said) < 200


@pytest.mark.slow  # starts processes (git, the CLI)
def test_a_bot_on_a_full_disk_keeps_saying_so(tmp_path, monkeypatch, capsys):
    remote, red, blue = two_players(tmp_path, None)
    capsys.readouterr()
    monkeypatch.setattr(objects, "write_pack", _full)
    monkeypatch.setattr(runtime, "DISK_RETRY", 0.0)
    monkeypatch.setattr(runtime, "DISK_REPEAT", 0.0)
    rests = []

    def rest(self, seconds: float) -> None:  # the bot's own waits, counted; Ctrl-C after a few
        rests.append(seconds)
        if len(rests) >= 4:
            raise KeyboardInterrupt

    monkeypatch.setattr(runtime.Runtime, "_rest", rest)
    assert main(["bot", "--repo", str(red), "--as", "red"]) == 130
    said = capsys.readouterr().err
    full = [line for line in said.splitlines() if "is full" in line]
    assert len(full) >= 3, said  # said again at every try, not once and then silence
    assert full[0].startswith("red: the disk holding") and str(red) in full[0]
    assert "free some space" in full[0] and "Traceback" not in said


@pytest.mark.slow  # starts processes (git, the CLI)
def test_a_command_on_a_full_disk_says_so_and_fails(tmp_path, monkeypatch, capsys, fake_clock):
    remote, red, blue = two_players(tmp_path, "1h")
    capsys.readouterr()
    monkeypatch.setattr(objects, "write_pack", _full)
    later = time.time() + 3600 + 60
    fake_clock.set(later)
    assert main(["abandon", "--repo", str(blue)]) == 1
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "is full" in said and str(blue) in said, said


@pytest.mark.slow  # starts processes (git, the CLI)
def test_the_window_names_a_full_or_read_only_disk(tmp_path, monkeypatch):
    remote, red, blue = two_players(tmp_path, None)
    session = GitSession.open(red, "g", ("red",))
    syncer = Runtime(session)
    try:

        def read_only():
            raise OSError(errno.EROFS, "Read-only file system", str(red / ".git" / "x.lock"))

        monkeypatch.setattr(session, "sync", read_only)
        status = syncer.sync_once()
        assert status.error is not None and "is read-only" in status.error
        assert f"holding {red} is" in status.error
        monkeypatch.undo()
        monkeypatch.setattr(objects, "write_pack", _full)
        from catan_p2p.rules.menu import legal_actions

        syncer.submit(legal_actions(session.state, "red")[0])
        syncer._record_queued()
        (notice,) = [n for n in syncer.take_notices() if n.kind == "refused"]
        why = notice.text
        assert "is full" in why and "free some space" in why
    finally:
        syncer.stop() if hasattr(syncer, "stop") else None
        session.close()


# --- real processes ------------------------------------------------------------------------


def _confined(repo: Path, how: str, tmp_path: Path) -> list[str] | None:
    """A command prefix that runs a process with ``repo`` read-only or on a full disk,
    or None where this machine cannot make that."""
    if how == "read-only" and os.geteuid() != 0:
        for root, dirs, files in os.walk(repo):
            for name in dirs + files:
                os.chmod(Path(root) / name, 0o555 if name in dirs else 0o444)
        os.chmod(repo, 0o555)
        return []
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return None
    if how == "read-only":
        script = 'mount --bind -o ro "$0" "$0" && exec "$@"'
    else:  # a small tmpfs over the repository, its files copied in, then filled up
        script = (
            'cp -a "$0" "$0.copy" && mount -t tmpfs -o size=8m tmpfs "$0" && '
            'cp -a "$0.copy/." "$0" && (dd if=/dev/zero of="$0/fill" bs=64k 2>/dev/null; '
            'true) && exec "$@"'
        )
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", script, str(repo), "true"], capture_output=True
    )
    if probe.returncode != 0:
        return None
    shutil.rmtree(f"{repo}.copy", ignore_errors=True)
    return ["unshare", "-m", "sh", "-c", script, str(repo)]


def _thaw(repo: Path) -> None:
    for root, dirs, _files in os.walk(repo):
        for name in dirs:
            os.chmod(Path(root) / name, 0o755)
    os.chmod(repo, 0o755)


@pytest.mark.network
@pytest.mark.parametrize("how", ["read-only", "full"])
def test_sync_and_bot_name_the_disk_and_the_bot_keeps_going(tmp_path, how):
    remote, red, blue = two_players(tmp_path, None)
    prefix = _confined(red, how, tmp_path)
    if prefix is None:
        pytest.skip(f"this machine cannot make a {how} disk for a test")
    word = {"read-only": ("is read-only", "permission denied"), "full": ("is full",)}[how]
    try:
        sync = subprocess.run(
            [*prefix, *CLI, "sync", "--repo", str(red)], capture_output=True, text=True, timeout=120
        )
        assert sync.returncode == 1
        assert any(w in sync.stderr for w in word), sync.stderr
        assert "Traceback" not in sync.stderr
        log = tmp_path / f"bot-{how}.log"
        with log.open("w") as out:
            bot = subprocess.Popen(
                [*prefix, *CLI, "bot", "--repo", str(red), "--as", "red", "--poll", "0.05"],
                stdout=out,
                stderr=out,
                start_new_session=True,
            )
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not any(w in log.read_text() for w in word):
                assert bot.poll() is None, f"the bot stopped: {log.read_text()}"
                time.sleep(0.1)
            said = log.read_text()
            assert any(w in said for w in word), said
            assert bot.poll() is None, "the bot gave up instead of trying again"
            assert "Traceback" not in said
        finally:
            os.killpg(bot.pid, 9)
            bot.wait(10)
    finally:
        if how == "read-only" and os.geteuid() != 0:
            _thaw(red)
