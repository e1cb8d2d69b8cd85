"""Reading what a remote holds the cheap way: its refs, and the newest commit of each.

One ``git ls-remote`` names every game's refs; one shallow fetch (``--depth 1``) brings
only the newest commit of each log that a cache repository has not seen yet. A remote
that is a path on this disk is read in place. Both go through ``transport.run_git``,
so a remote that is stopped is let to clear its locks as every transfer is.

A remote may be hostile: it may never answer, list refs without end or hand out junk.
Every call has a deadline (a ``time.monotonic()`` the whole listing shares), a listing
is read up to ``MAX_LISTING`` bytes, and a shallow fetch that fails is split so one
bad ref costs only itself. What the objects hold is the reader's to judge (the lobby).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

from catan_p2p.errors import RemoteError, RemoteStopped, UsageError
from catan_p2p.net.transport import MAX_LISTING, run_git
from catan_p2p.store.catfile import CatFile
from catan_p2p.store.refnames import PREFIX


def ls_remote(url: str, end: float, limit: int = MAX_LISTING) -> dict[str, str]:
    """``ref -> oid`` of every ref under ``refs/heads/catan/`` of ``url``, by ``end``,
    from at most ``limit`` bytes of listing.

    Raises:
        UsageError: ``url`` would be read as an option.
        RemoteError: the remote cannot be listed, did not answer by ``end`` or listed
            more than ``limit`` (one sentence and what to do).
    """
    if url.startswith("-"):
        raise UsageError(f"{url!r} is not a Git URL; give a path, ssh or https URL")
    try:
        proc = run_git(
            None,
            *("ls-remote", "--refs", "--", url, f"{PREFIX}/*"),
            timeout=_left(end),
            limit=limit,
        )
        reason = next((ln.strip() for ln in proc.stderr.splitlines() if ln.strip()), "")
    except RemoteStopped as stopped:
        proc, reason = None, stopped.reason
    if proc is None or proc.returncode != 0:
        raise RemoteError(
            f"cannot list the games of {url} ({reason or 'no details'}); check the URL and "
            "that the remote is reachable"
        )
    refs = {}
    for line in proc.stdout.splitlines():
        oid, _, ref = line.partition("\t")
        refs[ref] = oid
    return refs


def on_this_disk(url: str) -> Path | None:
    """The git directory of a remote given as a plain path, read in place (no copy).

    Its objects are read as warily as fetched ones (bounded, parsed, never trusted);
    ``file://`` URLs and every other transport are fetched.
    """
    if "://" in url or (":" in url.split("/", 1)[0]):
        return None
    path = Path(url).expanduser()
    for git_dir in (path, path / ".git"):
        if (git_dir / "objects").is_dir() and (git_dir / "refs").is_dir():
            return git_dir
    return None


def bring_tips(url: str, cache: Path, tips: Mapping[str, str], end: float) -> Path:
    """The git directory to read the commits ``tips`` (oid -> a ref naming it) of ``url``
    from: ``url`` itself when it is on this disk, else the bare repository ``cache``
    (made when missing) with each tip it lacks fetched shallowly.

    What is not fetched by ``end`` stays missing there; the reader says so per game.
    """
    here = on_this_disk(url)
    if here is not None:
        return here
    if not (cache / "objects").is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        try:
            run_git(None, "init", "-q", "--bare", "--template=", str(cache), timeout=_left(end))
        except RemoteStopped:
            return cache  # a disk slower than the deadline: nothing is read
    fetch_shallow(cache, url, _missing(cache, tips), end)
    return cache


def _missing(git_dir: Path, tips: Mapping[str, str]) -> list[str]:
    """The refs of ``tips`` whose commit ``git_dir`` does not hold yet."""
    with CatFile(git_dir) as reader:
        have = reader.read_all(list(tips), limit=0)
    return [ref for oid, ref in tips.items() if have.get(oid, (b"",))[0] != b"commit"]


def fetch_shallow(git_dir: Path, url: str, refs: list[str], end: float) -> None:
    """Fetch the newest commit of each of ``refs`` (no history) into ``git_dir``.

    When the fetch fails (a ref moved or vanished since it was listed, a junk object),
    each half is tried again, so one bad ref costs only its own game; what is left
    when the deadline comes stays unread.
    """
    if not refs or time.monotonic() >= end:
        return
    args = (
        "fetch",
        "--quiet",
        "--depth",
        "1",
        "--no-tags",
        "--no-write-fetch-head",
        "--no-auto-gc",
        "--no-auto-maintenance",
        "--stdin",
        "--",
        url,
    )
    stdin = "".join(r + "\n" for r in refs)
    try:
        proc = run_git(git_dir, *args, stdin=stdin, timeout=_left(end), limit=MAX_LISTING)
    except RemoteStopped:
        return  # the deadline came (or the remote talked without end): the rest stays unread
    if proc.returncode != 0 and len(refs) > 1:
        half = len(refs) // 2
        fetch_shallow(git_dir, url, refs[:half], end)
        fetch_shallow(git_dir, url, refs[half:], end)


def _left(end: float) -> float:
    """Seconds until ``end``, at least a tenth (Git gets the chance to say why)."""
    return max(0.1, end - time.monotonic())
