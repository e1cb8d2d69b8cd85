"""The one place the ``git`` program is started: every Git command of the package.

A game's objects and refs are read and written without Git (``store.objects`` over
gitdb, ``store.refs``); the program is for what only it does: transfers
(``sync.transport``, the lobby's listing and shallow fetch), ``init`` and ``config``,
packing (``repack``), the batch reader (``cat-file --batch``) and a few questions
(``merge-base``, ``rev-list``, ``log``). One home is one place to say what every call
needs (never a password prompt on a terminal) and one place to look when one misbehaves.
GitPython's ``Repo``/``Remote`` would start the same program with more Python around
it; the A/B in docs/ARCHITECTURE.md measured that cost, so the calls stay plain.
"""

from __future__ import annotations

import os
import subprocess
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
