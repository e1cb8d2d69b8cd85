"""The test servers start on a port nobody else holds, even when they lose a race for one.

``free_port`` picks a port that is free now; another process (a second test run, an
xdist worker) can bind it before the server does. The server then fails to bind and
exits, while the other process answers on that port: ``listening`` notices and starts
the server again on another port.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import remotes


def test_a_server_that_loses_its_port_starts_again_on_another(tmp_path: Path, monkeypatch):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()  # someone else's server, on the port free_port offers first
    busy = taken.getsockname()[1]
    offered = iter([busy, remotes.free_port()])
    monkeypatch.setattr(remotes, "free_port", lambda: next(offered))
    here = str(Path(remotes.__file__).resolve())
    try:
        with remotes.listening(
            lambda port: [sys.executable, here, str(tmp_path), str(port)],
            "the git http server",
            tmp_path / "http.log",
        ) as (proc, port):
            assert port != busy and proc.poll() is None
    finally:
        taken.close()
