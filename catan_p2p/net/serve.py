"""A seat published from its player's own machine: ``git daemon`` on the game repository.

With no forge and no shared disk, a seat can still have a publication point: the
player's own repository, served read-only over Git's own protocol (``git://``, upload
only: ``git daemon`` refuses every push unless told otherwise). The others fetch this
seat's log from it as from any point; this peer never pushes there, since the point is
its very repository, so a move is published the moment it is committed. Only verified
refs are advertised (``uploadpack.hideRefs`` hides the fetched, unverified copies).

``--publish serve`` (or ``serve:PORT``) on ``new`` and ``join`` names such a point:
``git://<this machine's address>:<port>/<repository folder>``, remembered in the
repository's ``catan.serve``; the window and ``bot`` serve it while they run, and
``catan-p2p serve`` serves it on its own.
"""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

from catan_p2p.errors import UsageError
from catan_p2p.net import transport
from catan_p2p.store import gitcmd

#: Git's own port for ``git://``.
DEFAULT_PORT = 9418
#: The repository config key of the URL this repository is served at.
CONFIG = "catan.serve"


def wants_serving(publish: str | None) -> bool:
    """True for ``--publish serve`` or ``--publish serve:PORT``."""
    return publish is not None and (publish == "serve" or publish.startswith("serve:"))


def this_address() -> str:
    """This machine's address on its network (the one a route outward leaves from), or
    127.0.0.1 when it has none. No packet is sent: connecting a UDP socket only picks
    the route."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere real
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def served_url(publish: str, repo: Path, host: str | None = None) -> str:
    """The ``git://`` URL that ``--publish serve[:PORT]`` names for ``repo``.

    Raises:
        UsageError: the port is not a number from 1 to 65535.
    """
    port_text = publish.partition(":")[2] or str(DEFAULT_PORT)
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise UsageError(
            f"--publish {publish}: the port must be a number from 1 to 65535, e.g. "
            "--publish serve:9419"
        )
    name = Path(repo).resolve().name
    return f"git://{host or this_address()}:{int(port_text)}/{name}"


def remember(git_dir: Path, url: str) -> None:
    """Note that this repository is served at ``url``, and advertise only verified refs."""
    transport.set_config(git_dir, CONFIG, url)
    transport.set_config(git_dir, "uploadpack.hideRefs", "refs/remotes")


def served(git_dir: Path) -> str | None:
    """The URL this repository is served at (``catan.serve``), or None."""
    return transport.config(git_dir, CONFIG)


def port_of(url: str) -> int:
    return int(url.rsplit("/", 1)[0].rsplit(":", 1)[1])


def listening(port: int, host: str = "127.0.0.1") -> bool:
    """True when something accepts connections on ``port`` (a daemon already serves)."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def start_daemon(git_dir: Path, url: str, log: Path | None = None) -> subprocess.Popen:
    """Start ``git daemon`` serving only this repository, read-only, at ``url``'s port.

    The repository is reached by its folder's name below its parent
    (``--base-path``); the daemon serves no other folder (the directory list) and takes
    no push (receive-pack stays off).
    """
    repo = Path(git_dir).resolve()
    folder = repo.parent if repo.name == ".git" else repo
    out = open(log, "ab") if log is not None else subprocess.DEVNULL  # noqa: SIM115
    return gitcmd.start(
        None,
        "daemon",
        "--export-all",
        "--reuseaddr",
        f"--base-path={folder.parent}",
        f"--port={port_of(url)}",
        str(folder),
        str(repo),
        stdout=out,
        stderr=out,
        stdin=subprocess.DEVNULL,
    )
