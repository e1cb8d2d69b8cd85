"""One ssh connection per host while a bot runs (``gitcmd.ssh_reuse``), and none after.

Over ssh every fetch paid a new connection (key exchange and login: about eight round
trips, ``benchmarks/wan.py``). Within ``ssh_reuse`` Git's transfers share one OpenSSH
ControlMaster connection per host; when the command ends the connection is closed and
its socket directory removed, so no ssh process is left behind. A user's own ssh setup
(another program, their own ControlMaster settings) is left alone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from gitgames import CLI, cli
from remotes import ServerUnavailable, serve

from catan_p2p.store import gitcmd

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.wan_link import WanLink  # noqa: E402


def _processes_naming(text: str) -> list[int]:
    """Ids of live processes whose command line holds ``text``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            line = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in line:
            found.append(int(proc.name))
    return found


def test_plain_openssh_commands_get_connection_sharing():
    shared = gitcmd.shared_ssh_command("ssh -i key -p 2222", "/tmp/x/%C")
    assert shared is not None
    assert shared.startswith("ssh -o ControlMaster=auto -o ControlPath=/tmp/x/%C")
    assert shared.endswith(f"-o ControlPersist={gitcmd.SSH_PERSIST} -i key -p 2222")
    assert gitcmd.shared_ssh_command("/usr/bin/ssh", "/tmp/x/%C").startswith("/usr/bin/ssh -o")


@pytest.mark.parametrize(
    "command",
    [
        "plink -P 2222",  # not OpenSSH: its options differ
        "ssh -o ControlMaster=no",  # the user's own choice, the way to turn sharing off
        "ssh -S /run/me/ctl",  # ... or their own control socket (-S is ControlPath)
        "ssh -o ControlPath=/run/me/%C",
        "'/opt/my ssh/ssh' -p 22",  # a quoted program: left as the user wrote it
        "ssh 'unbalanced",
        "",
    ],
)
def test_other_ssh_setups_are_left_alone(command: str):
    assert gitcmd.shared_ssh_command(command, "/tmp/x/%C") is None


def _dead_pid() -> int:
    """A process id that no process has now (searched down from the highest)."""
    pid = int(Path("/proc/sys/kernel/pid_max").read_text()) - 1
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except PermissionError:
            pass
        pid -= 1


def test_a_killed_processs_empty_socket_folder_is_swept_at_the_next_start(tmp_path):
    """SIGKILL leaves ``catan-PID-*`` behind (no chance to clean up); the next start
    removes it, and nothing of a live process, nothing not empty, nothing of another
    shape."""
    dead, alive = _dead_pid(), os.getpid()
    left = tmp_path / f"catan-{dead}-abcd1234"
    live = tmp_path / f"catan-{alive}-abcd1234"
    holding = tmp_path / f"catan-{dead}-efgh5678"
    other = tmp_path / f"catan-x{dead}-abcd1234"
    plain_file = tmp_path / f"catan-{dead}-ijkl9012"
    for folder in (left, live, holding, other):
        folder.mkdir()
    (holding / "socket").write_text("")
    plain_file.write_text("")
    assert gitcmd.sweep_socket_folders(tmp_path) == [left]
    assert not left.exists()
    assert live.is_dir() and holding.is_dir() and other.is_dir() and plain_file.is_file()
    assert gitcmd.sweep_socket_folders(tmp_path / "absent") == []


def test_each_start_of_connection_sharing_sweeps_the_folders_left_behind(monkeypatch):
    monkeypatch.setenv("GIT_SSH_COMMAND", "ssh")  # plain OpenSSH: sharing switches on
    left = Path(f"/tmp/catan-{_dead_pid()}-leftbehind")
    left.mkdir(exist_ok=True)
    with gitcmd.ssh_reuse(None):
        assert not left.exists()
        own = list(Path("/tmp").glob(f"catan-{os.getpid()}-*"))
        assert len(own) == 1 and own[0].is_dir()
    assert not own[0].exists()


@pytest.mark.slow  # asks git config
def test_a_program_named_by_git_ssh_is_left_alone(monkeypatch):
    monkeypatch.delenv("GIT_SSH_COMMAND", raising=False)
    monkeypatch.setenv("GIT_SSH", "/usr/bin/plink")
    with gitcmd.ssh_reuse():
        assert "GIT_SSH_COMMAND" not in gitcmd.environment()


@pytest.mark.network
@pytest.mark.slow
def test_transfers_share_one_connection_and_none_outlives_the_command(tmp_path, monkeypatch):
    bare = tmp_path / "remote.git"
    gitcmd.run(None, "init", "-q", "--bare", str(bare), check=True)
    with ExitStack() as stack:
        try:
            remote = stack.enter_context(serve("ssh", bare, tmp_path / "server"))
        except ServerUnavailable as exc:
            pytest.skip(f"no sshd on this machine: {exc}")
        port = remote.env["GIT_SSH_COMMAND"].rsplit("-p ", 1)[1]
        link = stack.enter_context(WanLink(int(port), rtt_ms=0))  # counts the connections
        # An ssh config alias of the same server, as a deploy key for one repository is
        # set up: its transfers must not ride on a connection logged in with another key.
        config = tmp_path / "ssh_config"
        config.write_text("Host alias-of-the-server\n    HostName 127.0.0.1\n")
        command = remote.env["GIT_SSH_COMMAND"].replace(f"-p {port}", f"-p {link.port}")
        command += f" -F {config}"
        monkeypatch.setenv("GIT_SSH_COMMAND", command)
        aliased = remote.url.replace("@127.0.0.1", "@alias-of-the-server")
        with gitcmd.ssh_reuse(bare):
            shared = gitcmd.environment()["GIT_SSH_COMMAND"]
            where = shared.split("ControlPath=", 1)[1].split("/", 3)
            where = "/".join(where[:3])  # /tmp/catan-XXXXXXXX
            for _ in range(3):
                done = gitcmd.run(None, "ls-remote", remote.url)
                assert done.returncode == 0, done.stderr
            assert link.stats.connections == 1
            assert _processes_naming(where), "no shared connection was kept open"
            for _ in range(2):
                done = gitcmd.run(None, "ls-remote", aliased)
                assert done.returncode == 0, done.stderr
            assert link.stats.connections == 2  # one for the alias, shared by its two
        assert gitcmd.environment()["GIT_SSH_COMMAND"] == command
        assert not Path(where).exists()
        deadline = time.monotonic() + 10
        while _processes_naming(where) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _processes_naming(where), "an ssh process outlived the command"
        done = gitcmd.run(None, "ls-remote", remote.url)  # a connection of its own again
        assert done.returncode == 0 and link.stats.connections == 3


@pytest.mark.network
@pytest.mark.slow
def test_a_bot_stopped_with_sigterm_saves_and_leaves_no_folder(tmp_path):
    """``kill PID`` (a service manager, a time limit) stops a bot as a Ctrl-C does: one
    sentence, exit 143, its ssh socket folder removed and no lock left in its repository
    (it used to die on the spot and leave ``/tmp/catan-*`` behind)."""
    bare = tmp_path / "remote.git"
    gitcmd.run(None, "init", "-q", "--bare", str(bare), check=True)
    red, blue = tmp_path / "red", tmp_path / "blue"
    made = cli(
        "new", "--players", "red,blue", "--game", "g", "--repo", str(red), "--remote", str(bare)
    )
    assert made.returncode == 0, made.stderr
    joined = cli("join", str(bare), "--game", "g", "--as", "blue", "--repo", str(blue))
    assert joined.returncode == 0, joined.stderr
    # Blue waits for Red's first settlement, syncing: a bot that is idle, not finished.
    bot = subprocess.Popen(
        [*CLI, "bot", "--as", "blue", "--repo", str(blue)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not list(Path("/tmp").glob(f"catan-{bot.pid}-*")):  # its ssh socket folder
            assert bot.poll() is None, bot.communicate()
            assert time.monotonic() < deadline, "the bot never started"
            time.sleep(0.05)
        bot.send_signal(signal.SIGTERM)
        out, err = bot.communicate(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert bot.returncode == 143, err
    assert err.strip().endswith("terminated; everything played so far is saved."), err
    assert "Traceback" not in err
    assert not list(Path("/tmp").glob(f"catan-{bot.pid}-*"))
    assert not list((blue / ".git").rglob("*.lock"))
    assert cli("verify", "--repo", str(blue)).returncode == 0
