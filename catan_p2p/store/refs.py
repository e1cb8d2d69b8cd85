"""Ref names of the protocol and compare-and-swap updates of loose refs.

Every ref name is built here (``player_ref``, ``answer_ref``), never by concatenation
elsewhere, and read here (``read_name``: what a name is, or None for junk). A ref only moves by ``set(name, new, expected)``, which takes Git's own
``<ref>.lock`` file (``store/reflock.py``, which also clears the lock of a killed
writer), so two writers can never lose an update. ``MemoryRefs`` is the same in a dict.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from catan_p2p.errors import ForkError, UsageError
from catan_p2p.rules.steps import STEPS
from catan_p2p.store.reflock import RefLock, write_all

PREFIX = "refs/heads/catan"
HEADS = "refs/heads/"
REMOTES = "refs/remotes/"
#: The one remote a game repository fetches from and pushes to.
REMOTE = "origin"
#: Where the players' chat refs live: ``refs/catan-chat/<game>/<player>``.
CHAT_PREFIX = "refs/catan-chat"
ZERO = "0" * 40
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
KINDS = tuple(s.name for s in STEPS)  # the concurrent steps (rules.steps)


def check_name(what: str, name: str) -> str:
    """Game ids and player names are short lower-case words (they become ref parts)."""
    if not _NAME.match(name):
        raise UsageError(
            f"{what} {name!r} must be 1-40 characters of a-z, 0-9, '-' or '_', "
            "starting with a letter or digit"
        )
    return name


def game_prefix(game: str) -> str:
    return f"{PREFIX}/{check_name('game id', game)}"


def player_ref(game: str, player: str) -> str:
    """``refs/heads/catan/<game>/<player>``: the player's single-writer log."""
    return f"{game_prefix(game)}/{check_name('player', player)}"


def answer_ref(game: str, kind: str, opening: str, player: str) -> str:
    """``refs/heads/catan/<game>/<kind>/<opening>/<player>``: a concurrent answer."""
    return f"{answers_prefix(game, kind, opening)}/{check_name('player', player)}"


def answers_prefix(game: str, kind: str, opening: str) -> str:
    """``refs/heads/catan/<game>/<kind>/<opening>``: where the answers to one step live."""
    if kind not in KINDS:
        raise UsageError(f"concurrent step kind {kind!r} must be one of {', '.join(KINDS)}")
    return f"{game_prefix(game)}/{kind}/{opening}"


def tracking_ref(ref: str, remote: str = REMOTE) -> str:
    """Where a fetched ``refs/heads/...`` ref lands: ``refs/remotes/<remote>/...``."""
    if not ref.startswith(HEADS):
        raise UsageError(f"{ref} is not a branch (refs/heads/...)")
    return f"refs/remotes/{remote}/{ref[len(HEADS) :]}"


def tracking_prefix(game: str, remote: str = REMOTE) -> str:
    """Where fetched refs of ``game`` land: ``refs/remotes/origin/catan/<game>``."""
    return tracking_ref(game_prefix(game), remote)


def local_ref(ref: str, game: str, remote: str | None = None) -> str:
    """The local name of a game ref, fetched (``refs/remotes/<any remote>/...``) or local."""
    if ref.startswith(REMOTES):
        source, _, rest = ref[len(REMOTES) :].partition("/")
        if remote in (None, source) and (rest + "/").startswith(f"catan/{game}/"):
            return HEADS + rest
    return ref


def source_of(ref: str) -> str | None:
    """The remote a fetched ref came from (``origin``, ``seat-blue``), None for a local ref."""
    if not ref.startswith(REMOTES):
        return None
    return ref[len(REMOTES) :].partition("/")[0]


def point_source(player: str) -> str:
    """The tracking namespace of ``player``'s publication point: ``seat-<player>``."""
    return f"seat-{check_name('player', player)}"


def fetched(refs: RefStore, game: str) -> dict[str, str]:
    """Every fetched ref of ``game``, from every remote (the shared one and each seat's)."""
    out: dict[str, str] = {}
    for ref, oid in refs.list(REMOTES.rstrip("/")).items():
        if local_ref(ref, game) != ref:
            out[ref] = oid
    return out


def game_of(ref: str) -> str:
    """The game id of a ref under ``refs/heads/catan/``."""
    if not ref.startswith(PREFIX + "/"):
        raise UsageError(f"{ref} is not a catan_p2p ref")
    return ref[len(PREFIX) + 1 :].split("/", 1)[0]


def parse_ref(ref: str, game: str) -> tuple[str, str | None, str | None]:
    """``(player, kind, opening)`` of a game ref (local or fetched); kind/opening are
    None for player logs."""
    ref = local_ref(ref, game)
    prefix = game_prefix(game)
    if not ref.startswith(prefix + "/"):
        raise UsageError(f"{ref} is not a ref of game {game}")
    rest = ref[len(prefix) + 1 :]
    parts = rest.split("/")
    if len(parts) == 1:
        return parts[0], None, None
    if len(parts) == 3 and parts[0] in KINDS:
        return parts[2], parts[0], parts[1]
    raise UsageError(f"{ref} is not a catan_p2p ref")


_OPENING = re.compile(r"^[0-9a-f]{40}$")
_GAMES = HEADS + "catan/"
_CHATS = CHAT_PREFIX + "/"


@dataclass(frozen=True)
class RefName:
    """What a ref name is in the protocol: whose, of which game, log, answer or chat."""

    game: str
    player: str
    kind: str | None = None  # the step's name for an answer branch
    opening: str | None = None
    chat: bool = False
    source: str | None = None  # the remote it was fetched from; None for a local ref

    @property
    def is_log(self) -> bool:
        """A player's single-writer log (not an answer branch, not chat)."""
        return self.kind is None and not self.chat


def read_name(ref: str, game: str | None = None) -> RefName | None:
    """The protocol name ``ref`` is (local, or fetched from any source), or None when it
    has no protocol shape or belongs to another game than ``game``. Reads no object."""
    source = None
    if ref.startswith(REMOTES):
        source, _, tail = ref[len(REMOTES) :].partition("/")
        if not source:
            return None
    elif ref.startswith(_GAMES):
        tail = ref[len(HEADS) :]
    elif ref.startswith(_CHATS):
        tail = ref[len("refs/") :]
    else:
        return None
    top, _, rest = tail.partition("/")
    parts = rest.split("/")
    if top not in ("catan", "catan-chat") or not _NAME.match(parts[0]):
        return None
    if game is not None and parts[0] != game:
        return None
    if not _NAME.match(parts[-1]):
        return None
    if top == "catan-chat":
        return RefName(parts[0], parts[1], chat=True, source=source) if len(parts) == 2 else None
    if len(parts) == 2:
        return RefName(parts[0], parts[1], source=source)
    if len(parts) == 4 and parts[1] in KINDS and _OPENING.match(parts[2]):
        return RefName(parts[0], parts[3], parts[1], parts[2], source=source)
    return None


def well_formed(ref: str, game: str) -> bool:
    """Whether ``ref`` has a shape of PROTOCOL.md section 2 (a player's log, or an answer
    under a known kind and a full commit id), so a junk ref anyone can push is not read."""
    name = read_name(ref, game)
    return name is not None and not name.chat


def _read_at_start(fd: int) -> bytes:
    """The first bytes of a ref file (``os.pread`` where the platform has it)."""
    if hasattr(os, "pread"):
        return os.pread(fd, 256, 0)
    os.lseek(fd, 0, os.SEEK_SET)  # Windows: no pread
    return os.read(fd, 256)


def _write_at_start(fd: int, data: bytes) -> None:
    """Overwrite a ref file from its start (``os.pwrite`` where the platform has it)."""
    if hasattr(os, "pwrite") and os.pwrite(fd, data, 0) == len(data):
        return
    os.lseek(fd, 0, os.SEEK_SET)  # Windows: no pwrite; or a short write, finished here
    write_all(fd, data)


def parse_packed(text: str, strict: bool = False) -> dict[str, str]:
    """The refs a ``packed-refs`` file lists (name -> id), peeled lines skipped.

    ``strict``: the file is someone else's (``read_foreign``); any line of another shape
    than Git writes (a header first, ``<40 hex> <refs/...>``, ``^<40 hex>`` after a ref)
    raises ``ValueError`` instead of being read as best it can.
    """
    out: dict[str, str] = {}
    for i, line in enumerate(text.splitlines()):
        if strict and not (
            (i == 0 and line.startswith("# pack-refs with:"))
            or (line.startswith("^") and i > 0 and _OPENING.match(line[1:]))
            or _PACKED_LINE.match(line)
        ):
            raise ValueError(f"packed-refs line {i + 1} is not of a shape Git writes")
        if line and line[0] not in "#^":
            oid, _, name = line.partition(" ")
            out[name] = oid
    return out


_PACKED_LINE = re.compile(r"^[0-9a-f]{40} refs/[!-~]+$")


class RefStore(Protocol):
    """Where refs live: read one, list a namespace, move one by compare-and-swap."""

    def get(self, name: str) -> str | None: ...

    def list(self, prefix: str) -> dict[str, str]: ...

    def set(self, name: str, new: str, expected: str | None) -> None: ...

    def delete(self, name: str, expected: str | None = None) -> None: ...


class Refs:
    """Loose refs of one repository, with packed-refs as a read-only fallback."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = Path(git_dir)

    def _path(self, name: str) -> Path:
        return self.git_dir / name

    def _packed(self) -> dict[str, str]:
        packed = self.git_dir / "packed-refs"
        return parse_packed(packed.read_text()) if packed.exists() else {}

    def get(self, name: str) -> str | None:
        """The commit id a ref points at, or None when it does not exist."""
        try:
            value = self._path(name).read_text().strip()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return self._packed().get(name)
        return value or None

    def list(self, prefix: str) -> dict[str, str]:
        """Every ref under ``prefix`` (loose ones override packed ones)."""
        out = {n: o for n, o in self._packed().items() if n.startswith(prefix + "/")}
        base = self._path(prefix)
        if base.is_dir():
            for root, _dirs, files in os.walk(base):
                for f in files:
                    if f.endswith(".lock"):
                        continue
                    path = Path(root) / f
                    name = path.relative_to(self.git_dir).as_posix()
                    value = path.read_text().strip()
                    if value:
                        out[name] = value
        return out

    def set(self, name: str, new: str, expected: str | None) -> None:
        """Point ``name`` at ``new`` if it still points at ``expected`` (None: absent).

        Holds Git's ``<ref>.lock`` while checking and writing, so Git and other writers
        wait; a lock whose owner was killed is cleared (``store/reflock.py``). An
        existing loose ref is rewritten in place; a new one is written aside and renamed
        into place. Renaming over an existing ref makes the filesystem flush the new
        file's data first (ext4's ``auto_da_alloc``): in benchmarks/ab_store.py a whole
        4-player hot-seat game takes about twice the time per action that way, while the
        in-place write of 41 bytes costs microseconds. A process killed at any moment
        leaves the old value or the new one (one small write), and its lock is cleared
        by the next writer.

        Raises:
            ForkError: the ref moved meanwhile (someone else wrote it), or a live writer
                holds its lock.
        """
        with RefLock(self.git_dir, name) as lock:
            try:
                fd = os.open(lock.file, os.O_RDWR | getattr(os, "O_BINARY", 0))
            except (FileNotFoundError, IsADirectoryError):
                # No loose ref yet (absent or only packed): write it whole.
                _check_expected(name, self.get(name), expected)
                lock.replace((new + "\n").encode())
                return
            try:
                old = _read_at_start(fd)
                _check_expected(name, old.decode().strip() or None, expected)
                data = (new + "\n").encode()
                _write_at_start(fd, data)
                if len(old) != len(data):
                    os.ftruncate(fd, len(data))
            finally:
                os.close(fd)

    def delete(self, name: str, expected: str | None = None) -> None:
        """Remove a ref (loose and packed) if it points at ``expected`` (any if None).

        Takes the ref's lock and, to drop a packed copy, Git's ``packed-refs.lock``;
        the new ``packed-refs`` is written aside and renamed over the old one.
        """
        path = self._path(name)
        with RefLock(self.git_dir, name):
            current = self.get(name)
            if current is None:
                return
            if expected is not None and current != expected:
                raise ForkError(f"{name} moved to {current}; not deleting it")
            if name in self._packed():
                self._drop_packed(name)
            path.unlink(missing_ok=True)
        # Tidy empty directories left behind by temporary answer branches.
        parent = path.parent
        while parent != self.git_dir / "refs" / "heads" and parent.is_dir():
            try:
                parent.rmdir()
            except OSError:
                break
            parent = parent.parent

    def _drop_packed(self, name: str) -> None:
        packed = self.git_dir / "packed-refs"
        with RefLock(self.git_dir, "packed-refs") as lock:
            kept = []
            dropping = False
            for line in packed.read_text().splitlines():
                if line.startswith("^"):  # the peeled id of the line before
                    if not dropping:
                        kept.append(line)
                    continue
                dropping = line.partition(" ")[2] == name
                if not dropping:
                    kept.append(line)
            lock.replace(("\n".join(kept) + "\n").encode())


def _check_expected(name: str, current: str | None, expected: str | None) -> None:
    if current != expected:
        raise ForkError(
            f"{name} moved to {current or 'nothing'} while expected at {expected or 'nothing'}"
        )


class MemoryRefs:
    """Refs in a dict, with the same interface and compare-and-swap as ``Refs`` (no disk)."""

    def __init__(self) -> None:
        self.refs: dict[str, str] = {}

    def get(self, name: str) -> str | None:
        return self.refs.get(name)

    def list(self, prefix: str) -> dict[str, str]:
        start = prefix + "/"
        return {n: o for n, o in self.refs.items() if n.startswith(start)}

    def set(self, name: str, new: str, expected: str | None) -> None:
        current = self.refs.get(name)
        if current != expected:
            raise ForkError(
                f"{name} moved to {current or 'nothing'} while expected at {expected or 'nothing'}"
            )
        self.refs[name] = new

    def delete(self, name: str, expected: str | None = None) -> None:
        current = self.refs.get(name)
        if current is None:
            return
        if expected is not None and current != expected:
            raise ForkError(f"{name} moved to {current}; not deleting it")
        del self.refs[name]
