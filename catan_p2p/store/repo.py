"""One Git repository holding one or more games: objects, refs, commits and recording.

``GameRepo`` is the narrow store interface the protocol uses: read and write objects
(``store``), move refs by compare-and-swap (``refs``), parse commits (cached), walk
first-parent history, and record a new commit without a working tree or index.
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
import subprocess
from pathlib import Path

from catan_p2p import clock
from catan_p2p.errors import DamagedRepository, StateFileError, UsageError
from catan_p2p.rules.state import GameState
from catan_p2p.store import disk, gitcmd
from catan_p2p.store.codec import GameInfo, StateWriter
from catan_p2p.store.formats import Commit, ObjectStore, Signer, commit_data, player_email
from catan_p2p.store.objects import GitObjectStore
from catan_p2p.store.reading import read_state
from catan_p2p.store.refnames import PREFIX, RefStore, check_name, game_of, game_prefix
from catan_p2p.store.refs import Refs

#: Commits (one small pack each) between two background roll-ups of the small packs.
REPACK_EVERY = 64
#: Parsed commits and depths kept in memory (a few games' worth); older ones are read
#: again when needed, so a process's memory does not grow with the games it has seen.
COMMITS_KEPT = 8192
#: Games whose state writer (and its caches) stays in memory.
WRITERS_KEPT = 4


#: Up to this many bytes of packs, the end of a game packs the repository whole.
WHOLE_PACK_BYTES = 4 << 20


def _release_free_memory() -> None:
    """Hand memory freed during a game back to the system (glibc keeps it otherwise).

    Reading and packing a game frees many buffers of different sizes; without this a
    long process's resident memory grew by about 2 MB per game though nothing was
    kept (benchmarks/flat_cost.py). Elsewhere than glibc this does nothing.
    """
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _keep_newest_set(items: set, limit: int) -> None:
    if len(items) > limit:
        items.clear()


def _keep_newest(cache: dict, limit: int) -> None:
    """Drop the oldest half of ``cache`` once it holds more than ``limit`` entries."""
    if len(cache) > limit:
        for key in list(cache)[: len(cache) // 2]:
            del cache[key]


def find_git_dir(path: Path) -> Path:
    """The git directory of a work tree or bare repository at ``path``.

    Raises:
        UsageError: ``path`` is no repository.
        DamagedRepository: Git would not take it as one (its ``HEAD`` is damaged).
    """
    path = Path(path)
    if (path / ".git").is_dir():
        return check_head(path / ".git")
    if (path / "objects").is_dir() and (path / "refs").is_dir():
        return check_head(path)
    raise UsageError(
        f"{path} is not a catan_p2p game repository; create one with `catan-p2p new` "
        "or pass --repo PATH"
    )


_HEX_ID = re.compile(rb"[0-9a-f]{40}|[0-9a-f]{64}")


def check_head(git_dir: Path) -> Path:
    """``git_dir`` when Git takes it as a repository: its ``HEAD`` names a ref under
    ``refs/`` or is a commit id (what Git's own ``validate_headref`` asks). A game's reads
    never look at ``HEAD``, but every ``git`` a game starts (fetch, push, repack) refuses
    the whole repository without it: said once, up front, before any move is played.

    Raises:
        DamagedRepository: ``HEAD`` is missing or holds something else.
    """
    head = git_dir / "HEAD"
    try:
        if head.is_symlink():
            return git_dir
        text = head.read_bytes()[:256].strip()
    except OSError:
        text = b""
    target = text[4:].strip() if text.startswith(b"ref:") else b""
    if target.startswith(b"refs/") or _HEX_ID.fullmatch(text):
        return git_dir
    raise DamagedRepository(
        f"Git does not take {git_dir.parent if git_dir.name == '.git' else git_dir} as a "
        f"repository: its file {git_dir / 'HEAD'} is damaged or missing; write "
        f"'ref: refs/heads/main' into it (echo 'ref: refs/heads/main' > {git_dir / 'HEAD'}) "
        "and try again"
    )


def init_repo(path: Path, bare: bool = False) -> Path:
    """Create an empty repository (no hook samples) and return its git directory."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    args = ["init", "-q", "--template="]
    if bare:
        args.append("--bare")
    _git_on(path, None, *args, str(path))
    git_dir = path if bare else path / ".git"
    # The game lives in refs/heads/catan/...; keep Git from auto-packing behind our back.
    _git_on(path, git_dir, "config", "gc.auto", "0")
    return git_dir


#: The error a disk problem of ``disk.problem`` is raised as, so that every command
#: names it as it names any other failed write (``disk.sentence``).
_DISK_ERRNO = {disk.FULL: errno.ENOSPC, disk.READ_ONLY: errno.EROFS, disk.DENIED: errno.EACCES}


def _git_on(path: Path, git_dir: Path | None, *args: str) -> None:
    """Run a Git command that writes to ``path``; a failure is one sentence.

    Raises:
        OSError: the disk holding ``path`` is full, read-only or not ours to write.
        UsageError: Git refused for another reason (its first line quoted).
    """
    proc = gitcmd.run(git_dir, *args)
    if proc.returncode == 0:
        return
    said = proc.stderr.strip()
    kind = disk.problem(said) or disk.look(path) or ("denied" if "denied" in said else None)
    if kind is not None:
        raise OSError(_DISK_ERRNO[kind], os.strerror(_DISK_ERRNO[kind]), str(path))
    first = said.splitlines()[0] if said else f"exit status {proc.returncode}"
    raise UsageError(f"Git could not make a repository at {path} ({first}); pass another --repo")


def _pack_bytes(folder: Path) -> int:
    """Bytes of the packs in ``folder``; a pack removed meanwhile (another repack) counts 0."""
    total = 0
    for pack in folder.glob("pack-*.pack") if folder.is_dir() else ():
        try:
            total += pack.stat().st_size
        except FileNotFoundError:
            continue
    return total


class Repository:
    """Objects and refs of a repository, plus the commit and state caches of its games.

    What every repository does the same way, wherever its objects live: read and write
    objects (``store``), move refs by compare-and-swap (``refs``), parse commits (cached),
    walk first-parent history, record a commit. Two implement it: ``GameRepo`` (Git's
    object database on disk, kept packed by ``git``) and ``store.memory.MemoryRepo``
    (dicts, for fast protocol tests, as dulwich's ``MemoryRepo``).
    """

    path: Path
    git_dir: Path | None

    def _open(self, store: ObjectStore, refs: RefStore) -> None:
        self.store = store
        self.refs = refs
        self._commits: dict[str, Commit] = {}
        self._depths: dict[str, int] = {}
        self._writers: dict[str, StateWriter] = {}

    # --- games ---------------------------------------------------------------------------

    def games(self) -> list[str]:
        """Ids of the games that have refs in this repository."""
        return sorted({game_of(ref) for ref in self.refs.list(PREFIX)})

    def has_game(self, game: str) -> bool:
        """True when ``game`` has refs here (looks at that game's refs only)."""
        return bool(self.refs.list(game_prefix(game)))

    def only_game(self, game: str | None) -> str:
        """``game`` if given, else the only game here (a clear error otherwise)."""
        if game is not None and self.has_game(game):
            return game  # without listing every game of a big repository
        games = self.games()
        if game is not None:
            check_name("game id", game)
            if game not in games:
                have = ", ".join(games) or "none"
                raise UsageError(f"there is no game {game!r} in {self.path} (games here: {have})")
            return game
        if len(games) == 1:
            return games[0]
        if not games:
            raise UsageError(
                f"{self.path} holds no catan_p2p game; create one with `catan-p2p new`"
            )
        raise UsageError(
            f"{self.path} holds several games ({', '.join(games)}); choose one with --game"
        )

    def writer(self, info: GameInfo) -> StateWriter:
        w = self._writers.get(info.game)
        if w is None or w.info != info:
            _keep_newest(self._writers, WRITERS_KEPT)
            w = self._writers[info.game] = StateWriter(self.store, info)
        return w

    def write_state(
        self,
        info: GameInfo,
        state: GameState,
        parents: list[str],
        author: str,
        message: str,
        key: Signer,
        when: int | None = None,
    ) -> str:
        """Write ``state``'s tree and the commit on it, signed by ``key``, as one small
        pack: what every move of a seat writes, so the tree never lands without its commit."""
        with self.store.batch():
            tree = self.writer(info).write(state)
            return self.write_commit(tree, parents, author, message, key, when)

    # --- commits -------------------------------------------------------------------------

    def commit(self, oid: str) -> Commit:
        c = self._commits.get(oid)
        if c is None:
            kind, data = self.store.read(oid)
            if kind != b"commit":
                raise StateFileError(f"{oid} is a {kind.decode()}, not a commit")
            _keep_newest(self._commits, COMMITS_KEPT)
            c = self._commits[oid] = Commit(oid, data)
        return c

    def write_commit(
        self,
        tree: str,
        parents: list[str],
        author: str,
        message: str,
        key: Signer | None = None,
        when: int | None = None,
    ) -> str:
        """Write a commit by ``author``, signed by ``key`` (the genesis alone is unsigned).

        ``key`` is whatever signs (a seat key): the store writes the signature where
        Git puts it and knows nothing of how it is made.
        """
        fields = (
            tree,
            parents,
            author,
            player_email(author),
            int(clock.now()) if when is None else when,
            message,
        )
        data = commit_data(*fields)
        if key is not None:
            data = commit_data(*fields, key.sign(data))
        oid = self.store.write(b"commit", data)
        _keep_newest(self._commits, COMMITS_KEPT)
        self._commits[oid] = Commit(oid, data)
        self._wrote_commit()
        return oid

    def state_of(self, oid: str) -> tuple[GameState, GameInfo]:
        """Decode the state in a commit's tree (validated by the schema)."""
        c = self.commit(oid)
        return read_state(self.store, c.tree, f"commit {oid[:10]} by {c.author}")

    def first_parents(self, oid: str, stop: str | None = None) -> list[str]:
        """Commits from ``oid`` back along first parents to the root (or to ``stop``, excluded)."""
        out = []
        cur: str | None = oid
        while cur is not None and cur != stop:
            out.append(cur)
            parents = self.commit(cur).parents
            cur = parents[0] if parents else None
        return out

    def depth(self, oid: str) -> int:
        """Number of first-parent steps from the root (cached, so ancestry checks are short)."""
        d = self._depths.get(oid)
        if d is not None:
            return d
        chain = []
        cur: str | None = oid
        while cur is not None and cur not in self._depths:
            chain.append(cur)
            parents = self.commit(cur).parents
            cur = parents[0] if parents else None
        base = -1 if cur is None else self._depths[cur]
        _keep_newest(self._depths, COMMITS_KEPT)
        for c in reversed(chain):
            base += 1
            self._depths[c] = base
        return self._depths[oid]

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """True when ``ancestor`` is on the first-parent line of ``descendant`` (or equal)."""
        steps = self.depth(descendant) - self.depth(ancestor)
        if steps < 0:
            return False
        cur = descendant
        for _ in range(steps):
            cur = self.commit(cur).parents[0]
        return cur == ancestor

    # --- maintenance: what a repository on disk needs --------------------------------------

    def _wrote_commit(self) -> None:
        """A commit was written (a repository on disk rolls its small packs up)."""

    def finish(self, last: str) -> None:
        """A game ended at ``last``: leave the repository tidy."""

    def close(self) -> None:
        """Release what the repository holds open."""


class GameRepo(Repository):
    """A repository on disk (``path`` or a folder inside it), kept packed by ``git``."""

    git_dir: Path

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.git_dir = find_git_dir(self.path)
        self._open(GitObjectStore(self.git_dir), Refs(self.git_dir))
        self._loose_written = 0
        self._repack: subprocess.Popen | None = None
        self._finished: set[str] = set()  # final commits whose repository was packed

    def _wrote_commit(self) -> None:
        self._loose_written += 1
        if self._loose_written >= REPACK_EVERY:
            self.repack_in_background()

    def repack_in_background(self) -> None:
        """Roll small packs up without blocking the player (``git repack --geometric=2 -d``).

        Recording writes one small pack per commit; a geometric roll-up merges them so
        that only a few packs stay, and it only ever deletes packs whose objects it
        copied, so it is safe while commits keep being written.
        """
        if self._repack is not None and self._repack.poll() is None:
            return
        self._loose_written = 0
        self._repack = gitcmd.start(
            self.git_dir,
            *("repack", "--geometric=2", "-d", "-q"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def finish(self, last: str) -> None:
        """Pack the repository once a game is over at commit ``last`` (once per commit).

        A repository of a game or two is packed whole; a bigger one (a club remote, a
        long simulation) only rolls its small packs up geometrically, so the cost of
        ending a game does not grow with the games the repository already holds.
        """
        if last in self._finished:
            return
        _keep_newest_set(self._finished, 64)
        self._finished.add(last)
        self.wait_for_maintenance()  # a background roll-up deletes the packs it merged
        self.pack(whole=_pack_bytes(self.git_dir / "objects" / "pack") <= WHOLE_PACK_BYTES)
        _release_free_memory()

    def pack(self, aggressive: bool = False, whole: bool = True) -> None:
        """Pack everything now (or, not ``whole``, roll small packs up geometrically).

        Waits for a background repack first.
        """
        if self._repack is not None:
            self._repack.wait()
        how = ["-a"] if whole or aggressive else ["--geometric=2"]
        args = ["repack", *how, "-d", "-q"]
        if aggressive:
            args += ["-f", "--depth=250", "--window=250"]
        gitcmd.run(self.git_dir, *args, check=True)
        gitcmd.run(self.git_dir, "prune-packed", "-q")
        self._loose_written = 0

    def wait_for_maintenance(self) -> None:
        if self._repack is not None:
            self._repack.wait()
            self._repack = None

    def close(self) -> None:
        """Let a background repack finish and drop the spare files kept for packs."""
        self.wait_for_maintenance()
        self.store.close()
