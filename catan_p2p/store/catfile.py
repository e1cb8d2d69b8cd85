"""Reading objects through ``git cat-file --batch``: whatever Git itself can see.

Used where the object database is not a plain folder, e.g. in a ``pre-receive`` hook,
where pushed objects wait in a quarantine directory that Git names only through
environment variables.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from catan_p2p.errors import StateFileError
from catan_p2p.store import gitcmd


class CatFileStore:
    """A read-only object store backed by one long-running ``git cat-file --batch``."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = Path(git_dir)
        self._proc = gitcmd.start(
            self.git_dir,
            *("cat-file", "--batch"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def read(self, oid: str) -> tuple[bytes, bytes]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(oid.encode() + b"\n")
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().split()
        if len(header) != 3:
            raise StateFileError(f"object {oid} is missing from {self.git_dir}")
        data = self._proc.stdout.read(int(header[2]))
        self._proc.stdout.read(1)  # the newline after each object
        return header[1], data

    def has(self, oid: str) -> bool:
        try:
            self.read(oid)
        except StateFileError:
            return False
        return True

    def write(self, kind: bytes, data: bytes) -> str:
        raise StateFileError("a cat-file store is read-only")

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        self._proc.wait()
