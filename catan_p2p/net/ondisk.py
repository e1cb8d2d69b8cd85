"""An idle poll of a remote on this machine's disk, answered without starting Git.

A bot and the window poll their remotes several times a second and most polls find
nothing new, yet each ``git fetch`` costs a process and milliseconds of CPU. When the
remote is a folder here (a path or a ``file://`` URL; a bot game's bare repository, a
hot seat over a shared folder), ``unchanged`` reads exactly what the fetch would bring
(the logs, the players' answers to the open steps and their chat refs, by name) with
``store.foreign`` and compares it with this repository's tracking refs. Only when every
value there already equals its tracking ref may the caller skip the fetch: a skip
changes nothing here, so nothing is adopted that a fetch did not bring and verification
did not pass. Any doubt (the reader's, a log the remote lacks, a URL Git might read
otherwise) means "fetch".
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from catan_p2p.net.transport import answers_and_chat, log_players
from catan_p2p.store.foreign import read_foreign
from catan_p2p.store.refnames import RefStore, tracking_ref


def remote_dir(url: str | None) -> Path | None:
    """The git directory of a remote that is a folder on this machine, found as Git
    finds it (``<path>/.git`` before ``<path>``), or None: not a folder, or any doubt
    (a URL Git would decode or expand, a ``.git`` file, two candidates)."""
    if not url or "%" in url or url.startswith(("~", "-")):
        return None
    if url.startswith("file://"):
        url = url[len("file://") :]
        if not url.startswith("/"):
            return None  # file://host/... : not a path here
    elif "://" in url or (":" in url.split("/", 1)[0] and not os.path.isabs(url)):
        return None  # ssh, https, git daemon, or scp-like host:path
    path = Path(url)
    dotgit = path / ".git"
    if os.path.lexists(dotgit):
        return dotgit if dotgit.is_dir() and not _looks_bare(path) else None
    return path if _looks_bare(path) else None


def _looks_bare(path: Path) -> bool:
    return (path / "refs").is_dir() and (path / "objects").is_dir()


def unchanged(
    refs: RefStore,
    url: str | None,
    game: str,
    logs: Sequence[str],
    steps: Sequence[str],
    source: str,
) -> bool:
    """Whether a fetch of ``logs`` and ``steps`` (and the chat) from ``url`` into the
    tracking refs of ``source`` would change nothing here: the remote is a folder on
    this machine, read without doubt, holds every one of ``logs``, and every value it
    holds of them and of the players' answers and chat refs equals this repository's
    tracking ref (junk beside them is not read: the fetch does not bring it). False:
    fetch."""
    where = remote_dir(url)
    if where is None or not logs:
        return False
    seats = answers_and_chat(game, steps, log_players(logs), source)
    there = read_foreign(where, [*logs, *seats], [])
    if there is None or any(log not in there for log in logs):
        return False  # a missing log is for the fetch to report
    for ref, value in there.items():
        mine = seats.get(ref) or tracking_ref(ref, source)
        if refs.get(mine) != value:
            return False
    # an answer or chat ref the remote lost (someone deleted a seat's claim) is a change
    return not any(ref not in there and refs.get(mine) is not None for ref, mine in seats.items())
