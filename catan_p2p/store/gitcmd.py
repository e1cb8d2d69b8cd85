"""The one place the ``git`` program is started: every Git command of the package.

A game's objects and refs are written without Git (``store.objects``, ``store.refs``);
the program is for what only it does: transfers (``net.transport.run_git``, under
the lobby's listing too), ``init`` and ``config``, packing (``repack``), the one
object reader (``store.catfile``: a long-running ``cat-file --batch``) and a few
questions (``merge-base``, ``rev-list``, ``log``). One home is one place to say what
every call needs (never a password prompt on a terminal) and one place to look when one
misbehaves. GitPython's ``Repo``/``Remote`` and its persistent reader would start the
same program with more Python around it; benchmarks/ab_transfer.py and ab_reader.py
measured that cost, so the calls stay plain.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

GIT = "git"


def argv(git_dir: Path | str | None, *args: str) -> list[str]:
    """The command line of ``git [--git-dir DIR] ARGS``."""
    where = [] if git_dir is None else ["--git-dir", str(git_dir)]
    return [GIT, *where, *args]


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment for Git: never waiting for a password on a terminal."""
    env = dict(os.environ)
    env.setdefault("GIT_TERMINAL_PROMPT", "0")
    env.update(_ssh_reuse)
    env.update(extra or {})
    return env


def run(
    git_dir: Path | str | None,
    *args: str,
    input: str | bytes | None = None,  # noqa: A002 - subprocess's own word
    env: dict[str, str] | None = None,
    text: bool = True,
    check: bool = False,
) -> subprocess.CompletedProcess:
    """Run one Git command to its end, its output captured."""
    return subprocess.run(
        argv(git_dir, *args),
        input=input,
        capture_output=True,
        text=text,
        check=check,
        env=environment(env),
    )


def start(git_dir: Path | str | None, *args: str, **popen: Any) -> subprocess.Popen:
    """Start one Git command and hand back the process (a batch reader, a background
    repack, a transfer the caller stops gently)."""
    popen.setdefault("env", environment())
    return subprocess.Popen(argv(git_dir, *args), **popen)


# --- one ssh connection per host while a command runs ---------------------------------
# Over ssh every fetch and push pays a new connection (TCP, key exchange, login): about
# eight round trips before Git says a word (measured in benchmarks/wan.py). Within
# ``ssh_reuse`` OpenSSH's ControlMaster keeps one connection per host for every
# transfer; the command closes them when it ends, and one a killed process left behind
# ends by itself after ``SSH_PERSIST`` idle seconds.

#: Seconds an unused shared ssh connection stays open when nobody closes it.
SSH_PERSIST = 15
#: One connection per host *as named in the URL*, user and port: two ssh config aliases
#: of one server (a deploy key for one's own publication point, say) never share a
#: connection logged in with the other's key, as OpenSSH's usual ``%C`` would.
SOCKET_NAME = "%r@%n:%p"
#: A Unix socket's path must stay under 108 bytes, and ssh adds 17 while it makes one;
#: a host name longer than what is left makes ssh refuse (``ssh -o ControlMaster=no``
#: in GIT_SSH_COMMAND turns sharing off).
_SOCKET_ROOM = 107 - 17

_ssh_reuse: dict[str, str] = {}  # environment additions while ``ssh_reuse`` is on


def shared_ssh_command(command: str, control_path: str) -> str | None:
    """``command`` (a Git ssh command line) with connection sharing switched on, or None
    when it is not plain OpenSSH or already says how to share connections."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or Path(words[0]).name not in ("ssh", "ssh.exe"):
        return None
    own = "control" in command.lower() or any(w.startswith(("-S", "-M")) for w in words[1:])
    if own or not command.lstrip().startswith(words[0]):
        return None  # the user manages ControlMaster/ControlPath, or a quoted program
    rest = command.lstrip()[len(words[0]) :]
    options = (
        f" -o ControlMaster=auto -o ControlPath={shlex.quote(control_path)}"
        f" -o ControlPersist={SSH_PERSIST}"
    )
    return words[0] + options + rest


def _ssh_command(git_dir: Path | str | None) -> str | None:
    """The ssh command Git would run (GIT_SSH_COMMAND, core.sshCommand, else ``ssh``),
    None when Git would run another kind of program (GIT_SSH, an ssh.variant)."""
    env = environment()
    if env.get("GIT_SSH_VARIANT", "ssh") not in ("ssh", "auto"):
        return None
    if env.get("GIT_SSH_COMMAND"):
        return env["GIT_SSH_COMMAND"]
    variant = run(git_dir, "config", "--get", "ssh.variant").stdout.strip()
    if variant not in ("", "ssh", "auto") or env.get("GIT_SSH"):
        return None
    return run(git_dir, "config", "--get", "core.sshCommand").stdout.strip() or "ssh"


def sweep_socket_folders(root: Path = Path("/tmp")) -> list[Path]:
    """Remove the empty socket folders (``catan-PID-*``) that processes of this user
    left when they were killed (SIGKILL gives no chance to clean up), and name them.

    Only a folder that is empty, owned by this user and named by a process that no
    longer exists goes: a live process's folder, or one that still holds a socket (an
    ssh master outliving its killed owner, gone on its own within ``SSH_PERSIST``
    seconds and swept by a later start), stays.
    """
    removed = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        parts = entry.name.split("-", 2)
        if len(parts) != 3 or parts[0] != "catan" or not parts[1].isdigit():
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid != os.getuid() or not entry.is_dir(
                follow_symlinks=False
            ):
                continue
            os.kill(int(parts[1]), 0)
        except ProcessLookupError:
            try:
                os.rmdir(entry.path)  # refuses a folder that is not empty
                removed.append(Path(entry.path))
            except OSError:
                pass
        except (OSError, ValueError, OverflowError):
            continue  # alive (another user's process), or nothing to judge by
    return removed


@contextmanager
def ssh_reuse(git_dir: Path | str | None = None) -> Iterator[None]:
    """Within: Git's transfers over ssh share one connection per host; at the end every
    shared connection is closed and its socket directory removed.

    Nothing changes where Git would not run OpenSSH, on Windows, or when the user's ssh
    command already sets ControlMaster/ControlPath. Not reentrant: an inner use is a
    no-op.
    """
    command = None if os.name == "nt" or _ssh_reuse else _ssh_command(git_dir)
    if command:
        sweep_socket_folders()
    where = Path(tempfile.mkdtemp(prefix=f"catan-{os.getpid()}-", dir="/tmp")) if command else None
    changed = None
    if command and where and len(str(where)) + 40 < _SOCKET_ROOM:  # room for 40 more
        changed = shared_ssh_command(command, str(where / SOCKET_NAME))
    if changed is None:
        if where is not None:
            shutil.rmtree(where, ignore_errors=True)
        yield
        return
    assert where is not None
    _ssh_reuse["GIT_SSH_COMMAND"] = changed
    try:
        yield
    finally:
        _ssh_reuse.clear()
        program = shlex.split(changed)[0]
        for socket in sorted(where.iterdir()):
            subprocess.run(
                [program, "-o", f"ControlPath={socket}", "-O", "exit", "catan-p2p"],
                capture_output=True,
                env=environment(),
                timeout=10,
                check=False,
            )
        shutil.rmtree(where, ignore_errors=True)
