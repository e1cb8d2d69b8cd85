"""Reading the refs of a repository someone else writes (a remote folder on this
machine's disk), without Git and without trusting a byte of it.

``read_foreign`` answers what a ``git fetch`` of exact names and of a few prefixes
would find there, or None the moment anything is not exactly as Git's files backend
writes it: a symlink anywhere under ``refs/``, a file where a directory belongs or the
reverse, a FIFO or device, a ``.lock`` (a writer at work), a value that is not 40 hex
and a newline, a ``packed-refs`` of another shape or over ``PACKED_BYTES``, more than
``ENTRIES`` names under the prefixes, a reftable or a linked worktree, a config that
includes another file or hides refs, another user's folder. Every file is opened without following a link and without
blocking, checked to be a regular file, and read up to a fixed size, so a hostile
folder costs a few system calls and never hangs the reader. None means "ask Git".
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from catan_p2p.store.refs import parse_packed

#: The most bytes of ``packed-refs`` read; a bigger file is left to Git.
PACKED_BYTES = 256 * 1024
#: The most names (files and directories) looked at under the prefixes.
ENTRIES = 256
#: How deep under a prefix a ref may lie (an answer is one level below its step's prefix).
DEPTH = 4
_CONFIG_BYTES = 64 * 1024
_LOOSE_BYTES = 41  # 40 hex and a newline
_HEX = frozenset(b"0123456789abcdef")
_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_DIR = _FLAGS | getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: Relative opens without following links are what make the reading safe; a platform
#: without them (Windows) always asks Git.
SUPPORTED = os.open in os.supports_dir_fd and bool(getattr(os, "O_NOFOLLOW", 0))


class _Doubt(Exception):
    """Something in the folder is not as Git writes it: ask Git instead."""


def read_foreign(
    git_dir: Path, names: Iterable[str], prefixes: Iterable[str]
) -> dict[str, str] | None:
    """The values (name -> 40 hex) of ``names`` and of every ref under ``prefixes``
    (``refs/...``, no trailing slash) in the repository at ``git_dir``; a name it does
    not hold is absent. None on any doubt (see the module's docstring)."""
    if not SUPPORTED:
        return None
    try:
        root = os.open(git_dir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
    except OSError:
        return None
    try:
        return _read(root, list(names), list(prefixes))
    except (_Doubt, OSError, ValueError):
        return None
    finally:
        os.close(root)


def _read(root: int, names: list[str], prefixes: list[str]) -> dict[str, str]:
    _check_repository(root)
    packed_before = _stat(root, "packed-refs")
    if _stat(root, "packed-refs.lock") is not None:
        raise _Doubt("packed-refs is being written")
    loose: dict[str, str] = {}
    for name in names:
        value = _loose(root, _parts(name))
        if value is not None:
            loose[name] = value
    budget = [ENTRIES]
    for prefix in prefixes:
        _walk(root, _parts(prefix), loose, budget)
    packed = _packed(root, packed_before)
    wanted = set(names)
    bases = tuple(p + "/" for p in prefixes)
    out = {n: v for n, v in packed.items() if n in wanted or n.startswith(bases)}
    out.update(loose)  # a loose ref overrides its packed copy, as in Git
    return out


#: Words of a config that change what a fetch sees (another ref storage, an included
#: file, hidden refs, a namespace): such a remote is left to Git.
_CONFIG_DOUBTS = (b"refstorage", b"include", b"hiderefs", b"namespace")


def _check_repository(root: int) -> None:
    """A files-backend git directory of its own (no reftable, no linked worktree) that
    this user owns (Git may refuse another's), read as a plain fetch would see it."""
    if os.environ.get("GIT_NAMESPACE") or os.fstat(root).st_uid != _uid():
        raise _Doubt("a Git namespace, or another user's repository")
    for absent in ("reftable", "commondir"):
        if _stat(root, absent) is not None:
            raise _Doubt(f"{absent} present")
    for name, kind in (("HEAD", stat.S_ISREG), ("objects", stat.S_ISDIR), ("refs", stat.S_ISDIR)):
        st = _stat(root, name)
        if st is None or not kind(st.st_mode):
            raise _Doubt(f"{name} missing or odd")
    config = _stat(root, "config")
    if config is not None:
        text = _small_file(root, "config", _CONFIG_BYTES).lower()
        if any(word in text for word in _CONFIG_DOUBTS):
            raise _Doubt("the config changes what a fetch sees")


def _uid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else -1


def _parts(ref: str) -> list[str]:
    parts = ref.split("/")
    if parts[0] != "refs" or any(p in ("", ".", "..") or "\0" in p for p in parts):
        raise _Doubt(f"{ref!r} is not a plain ref name")
    return parts


def _stat(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _open_dirs(root: int, parts: list[str]) -> int | None:
    """A descriptor of the directory ``parts`` under ``root`` (None: absent), each step
    opened without following a link."""
    fd = os.dup(root)
    try:
        for part in parts:
            try:
                nxt = os.open(part, _DIR | _CLOEXEC, dir_fd=fd)
            except FileNotFoundError:
                os.close(fd)
                return None
            except OSError as exc:  # a link (ELOOP) or a file (ENOTDIR) on the way
                raise _Doubt(f"{part}: {errno.errorcode.get(exc.errno, exc.errno)}") from None
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def _small_file(dir_fd: int, name: str, limit: int) -> bytes:
    """At most ``limit`` bytes of a regular file (anything else is a doubt)."""
    fd = os.open(name, _FLAGS | _CLOEXEC, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            raise _Doubt(f"{name} is no small regular file")
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _Doubt(f"{name} grew while read")
    return data


def _value(data: bytes) -> str:
    if len(data) != _LOOSE_BYTES or data[-1:] != b"\n" or not _HEX.issuperset(data[:40]):
        raise _Doubt("a ref file holds something else than 40 hex and a newline")
    return data[:40].decode("ascii")


def _loose(root: int, parts: list[str]) -> str | None:
    """The value of one loose ref, None when there is no loose file for it."""
    parent = _open_dirs(root, parts[:-1])
    if parent is None:
        return None
    try:
        leaf = parts[-1]
        if _stat(parent, leaf + ".lock") is not None:
            raise _Doubt(f"{leaf}.lock present")
        st = _stat(parent, leaf)
        if st is None:
            return None
        if not stat.S_ISREG(st.st_mode):
            raise _Doubt(f"{leaf} is not a regular file")
        return _value(_small_file(parent, leaf, _LOOSE_BYTES))
    finally:
        os.close(parent)


def _walk(root: int, parts: list[str], out: dict[str, str], budget: list[int]) -> None:
    """Every loose ref under the directory ``parts`` into ``out``."""
    fd = _open_dirs(root, parts)
    if fd is None:
        return
    try:
        _walk_fd(fd, "/".join(parts), out, budget, DEPTH)
    finally:
        os.close(fd)


def _walk_fd(fd: int, where: str, out: dict[str, str], budget: list[int], depth: int) -> None:
    if depth == 0:
        raise _Doubt(f"{where} is nested too deep")
    with os.scandir(fd) as entries:
        found = []
        for entry in entries:
            budget[0] -= 1
            if budget[0] < 0:
                raise _Doubt("too many names under the prefixes")
            found.append(entry.name)
    for name in found:
        if name.startswith(".") or name.endswith(".lock"):
            raise _Doubt(f"{where}/{name}: a lock or a name Git does not write")
        st = _stat(fd, name)
        if st is None:
            raise _Doubt(f"{where}/{name} went away while read")
        if stat.S_ISREG(st.st_mode):
            out[f"{where}/{name}"] = _value(_small_file(fd, name, _LOOSE_BYTES))
        elif stat.S_ISDIR(st.st_mode):
            sub = os.open(name, _DIR | _CLOEXEC, dir_fd=fd)
            try:
                _walk_fd(sub, f"{where}/{name}", out, budget, depth - 1)
            finally:
                os.close(sub)
        else:
            raise _Doubt(f"{where}/{name} is neither a file nor a directory")


def _packed(root: int, before: os.stat_result | None) -> dict[str, str]:
    """The refs ``packed-refs`` lists, if it did not change since ``before``."""
    if before is None:
        if _stat(root, "packed-refs") is not None:
            raise _Doubt("packed-refs appeared while the loose refs were read")
        return {}
    data = _small_file(root, "packed-refs", PACKED_BYTES)
    after = _stat(root, "packed-refs")
    mark = (before.st_ino, before.st_mtime_ns, before.st_size, before.st_mode)
    if after is None or (after.st_ino, after.st_mtime_ns, after.st_size, after.st_mode) != mark:
        raise _Doubt("packed-refs changed while read")
    return parse_packed(data.decode("ascii"), strict=True)
