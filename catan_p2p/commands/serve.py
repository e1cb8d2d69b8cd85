"""``catan-p2p serve``: publish your seat from this machine, read-only, over ``git://``.

A game made or joined with ``--publish serve[:PORT]`` names this repository itself as
the seat's publication point (``net.serve``). The window and ``bot`` serve it while
they run; this command serves it when neither does (so the others can still join and
read your moves while you are away from the game), until Ctrl-C. Nothing is written:
``git daemon`` only uploads.
"""

from __future__ import annotations

import argparse
import sys

from catan_p2p.commands._common import open_repo
from catan_p2p.commands._options import add_repo
from catan_p2p.errors import UsageError
from catan_p2p.net import serve


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p serve``."""
    add_repo(parser)


def run(args: argparse.Namespace) -> int:
    repo = open_repo(args.repo)
    url = serve.served(repo.git_dir)
    if url is None:
        raise UsageError(
            f"{repo.path} is not published from this machine; make or join a game with "
            "`--publish serve` (or serve:PORT) to serve it, or publish on a forge instead"
        )
    port = serve.port_of(url)
    if serve.listening(port):
        raise UsageError(
            f"port {port} is already taken (a window or bot of this game serves it, or "
            "another program); nothing to do here"
        )
    daemon = serve.start_daemon(repo.git_dir, url)
    print(f"Serving {repo.path} at {url} (read-only); Ctrl-C stops.", flush=True)
    try:
        return daemon.wait()
    finally:
        if daemon.poll() is None:
            daemon.terminate()
            daemon.wait(5)
        print("Stopped serving.", file=sys.stderr)
