"""The test servers start on a port nobody else holds, even when they lose a race for one.

``free_port`` picks a port that is free now; another process (a second test run, an
xdist worker) can bind it before the server does. The server then fails to bind and
exits, while the other process answers on that port: ``listening`` asks the port for
the served repository, notices and starts the server again on another port.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import remotes

pytestmark = pytest.mark.slow  # starts processes (git, the CLI): see tests/conftest.py


def test_a_server_that_loses_its_port_starts_again_on_another(tmp_path: Path, monkeypatch):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()  # someone else's server, on the port free_port offers first
    busy = taken.getsockname()[1]

    def hang_up() -> None:  # it answers every connection, but not with our repository
        while True:
            try:
                conn, _ = taken.accept()
            except OSError:
                return
            conn.close()

    threading.Thread(target=hang_up, daemon=True).start()
    offered = iter([busy, remotes.free_port()])
    monkeypatch.setattr(remotes, "free_port", lambda: next(offered))
    here = str(Path(remotes.__file__).resolve())
    bare = tmp_path / "game.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    try:
        with remotes.listening(
            lambda port: [sys.executable, here, str(tmp_path), str(port)],
            "the git http server",
            tmp_path / "http.log",
            lambda port: remotes.serves(f"http://127.0.0.1:{port}/game.git"),
        ) as (proc, port):
            assert port != busy and proc.poll() is None
    finally:
        taken.close()
