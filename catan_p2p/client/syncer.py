"""Sync in the background, so a slow or lost remote never freezes the window.

A daemon thread calls ``session.sync()`` and the window only reads ``status``. How
often it fetches adapts (``Pace``): right after a move came in or went out it fetches
again within ``fastest`` seconds, and while nothing happens the wait grows to
``slowest`` (a few seconds), so a game on a hosted forge stays polite. When the remote
is a path on this machine, a ``RefWatcher`` looks at the remote's ref files every
50 ms (a few ``stat`` calls, no Git process) and a fetch starts as soon as they change,
so a remote move shows within a fraction of a second.

A failed sync is kept as the status's error and retried on a later round. The
player's own actions go through the same thread (``submit``), because recording one
also pushes it: the window checks the action against the rules first, queues it, and
keeps drawing while it is sent. ``heard`` keeps when each peer's branch last moved.

The window and this thread share the session: ``GitSession`` guards everything it keeps
in memory with its own lock (see session/git.py) and fetches and pushes outside it, so
the window's reads wait at most for the local part of a sync round.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import time
from pathlib import Path

from catan_p2p.errors import CatanError
from catan_p2p.rules.actions import Action
from catan_p2p.session.base import Session, SyncStatus
from catan_p2p.session.chat import ChatLog, ChatMessage
from catan_p2p.sync import disk

#: While moves come in, the next fetch follows this soon (seconds) ...
FASTEST = 0.1
#: ... and each quiet round waits this much longer ...
GROWTH = 1.5
#: ... up to one fetch every this many seconds.
SLOWEST = 4.0
#: How often a local remote's ref files are looked at (seconds).
WATCH_EVERY = 0.05


class Pace:
    """How long to wait before the next fetch: short after a change, growing while quiet."""

    def __init__(
        self, fastest: float = FASTEST, slowest: float = SLOWEST, growth: float = GROWTH
    ) -> None:
        self.fastest = fastest
        self.slowest = max(fastest, slowest)
        self.growth = growth
        self.wait = fastest

    def after(self, changed: bool) -> float:
        """The wait after a round that did (or did not) bring or send a move."""
        self.wait = self.fastest if changed else min(self.slowest, self.wait * self.growth)
        return self.wait


def local_remote_dir(url: str | None) -> Path | None:
    """The git directory of a remote that is a path on this machine (None otherwise)."""
    if not url:
        return None
    if url.startswith("file://"):
        url = url[len("file://") :]
    elif "://" in url or (":" in url.split("/", 1)[0] and not os.path.isabs(url)):
        return None  # ssh, https, git daemon, or scp-like host:path
    path = Path(url).expanduser()
    if (path / "refs").is_dir() and (path / "objects").is_dir():
        return path
    if (path / ".git" / "refs").is_dir():
        return path / ".git"
    return None


class RefWatcher:
    """Tells when the ref files of a remote on this machine change (by ``stat`` only)."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir
        self._seen = self.signature()

    def signature(self) -> tuple:  # type: ignore[type-arg]
        marks = []
        packed = self.git_dir / "packed-refs"
        for path in (packed,):
            try:
                st = path.stat()
                marks.append((str(path), st.st_mtime_ns, st.st_size))
            except OSError:
                pass
        for root, _dirs, files in os.walk(self.git_dir / "refs" / "heads" / "catan"):
            for f in files:
                try:
                    st = os.stat(os.path.join(root, f))
                except OSError:
                    continue
                marks.append((root, f, st.st_mtime_ns, st.st_size, st.st_ino))
        return tuple(sorted(marks))

    def changed(self) -> bool:
        now = self.signature()
        if now != self._seen:
            self._seen = now
            return True
        return False


class Syncer:
    """Runs ``session.sync()`` on its own thread; ``status`` is the latest result.

    Args:
        session: the networked session.
        interval: the slowest pace (seconds between fetches while nothing happens);
            tests pass a small one to sync continuously.
        fastest: the wait after a round that brought or sent a move.
        watch: look at a local remote's ref files between fetches (True by default).
    """

    def __init__(
        self,
        session: Session,
        interval: float = SLOWEST,
        fastest: float = FASTEST,
        watch: bool = True,
        chat: ChatLog | None = None,
    ) -> None:
        self.session = session
        self.chat = chat
        self.chat_messages: list[ChatMessage] = chat.messages() if chat is not None else []
        self._said: queue.Queue[tuple[str, str]] = queue.Queue()
        self.interval = interval
        self.pace = Pace(min(fastest, interval), interval)
        remote = local_remote_dir(getattr(session, "remote", None)) if watch else None
        self.watcher = RefWatcher(remote) if remote is not None else None
        self.status: SyncStatus | None = None
        self.rounds = 0
        self.heard: dict[str, float] = {}  # player -> time.time() its branch last moved
        self._heads: dict[str, str] = {}
        self.failures: queue.Queue[tuple[Action, str]] = queue.Queue()
        self.chat_failures: queue.Queue[str] = queue.Queue()
        self._actions: queue.Queue[Action] = queue.Queue()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="catan-sync", daemon=True)

    def start(self) -> Syncer:
        self._thread.start()
        return self

    def submit(self, action: Action) -> None:
        """Record ``action`` on the sync thread; a refusal lands in ``failures``."""
        self._actions.put(action)
        self._wake.set()

    @property
    def sending(self) -> bool:
        """True while own actions wait to be recorded."""
        return self._actions.unfinished_tasks > 0

    def wait_sent(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for queued actions to be recorded; True if they are."""
        deadline = time.monotonic() + timeout
        while self.sending and time.monotonic() < deadline:
            time.sleep(0.005)
        return not self.sending

    def say(self, player: str, text: str) -> None:
        """Send a chat line on the sync thread (written here, then pushed)."""
        self._said.put((player, text))
        self._wake.set()

    def _talk(self) -> bool:
        """Write queued chat lines, push them, adopt fetched ones; True if the chat changed."""
        if self.chat is None:
            return False
        wrote = False
        while True:
            try:
                player, text = self._said.get_nowait()
            except queue.Empty:
                break
            try:
                self.chat.send(player, text)
                wrote = True
            except CatanError as exc:
                self.chat_failures.put(str(exc))
        try:
            self.chat.push()
        except CatanError as exc:
            self.chat_failures.put(f"chat not shared yet: {exc}")
        try:
            moved = self.chat.update()
            if wrote or moved:
                self.chat_messages = self.chat.messages()
        except CatanError as exc:
            self.chat_failures.put(str(exc))
            return False
        return bool(wrote or moved)

    def poke(self) -> None:
        """Sync as soon as possible (e.g. to push an action just played)."""
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop syncing; actions still queued are recorded (and pushed) first."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if not self._thread.is_alive() and self._actions.unfinished_tasks:
            self._record_queued()
            self.sync_once()
        if not self._thread.is_alive() and not self._said.empty():
            self._talk()

    def sync_once(self) -> SyncStatus:
        """One round, with every failure turned into the status's error sentence."""
        try:
            status = self.session.sync()
        except CatanError as exc:
            status = self._failed(str(exc))
        except OSError as exc:  # the disk: named as such, and said at every round
            status = self._failed(disk_sentence(self.session, exc))
        except Exception as exc:  # noqa: BLE001 - a dead sync thread would stall the game unseen
            status = self._failed(f"sync failed: {type(exc).__name__}: {exc}")
        self.status = status
        self.rounds += 1
        return status

    def _failed(self, error: str) -> SyncStatus:
        old = self.status or SyncStatus()
        return SyncStatus(old.peers, old.ahead, old.behind, old.last_fetch, error, old.forks)

    def _record_queued(self) -> None:
        while True:
            try:
                action = self._actions.get_nowait()
            except queue.Empty:
                return
            try:
                self.session.submit(action)
            except CatanError as exc:
                self.failures.put((action, str(exc)))
            except OSError as exc:
                self.failures.put((action, disk_sentence(self.session, exc)))
            finally:
                self._actions.task_done()

    def _peer_heads(self) -> dict[str, str]:
        """Each peer's fetched branch head (player -> commit), for ``heard``."""
        repo = getattr(self.session, "repo", None)
        game = getattr(self.session, "game_id", None)
        if repo is None or game is None:
            return {}
        from catan_p2p.sync import transport

        prefix = transport.tracking_prefix(game)
        heads = {}
        for ref, oid in repo.refs.list(prefix).items():
            rest = ref[len(prefix) + 1 :]
            if "/" not in rest:  # a player's branch, not a concurrent answer
                heads[rest] = oid
        return heads

    def _listen(self) -> bool:
        """Note which peers' branches moved; True if any did since the last round."""
        try:
            heads = self._peer_heads()
        except Exception:  # noqa: BLE001 - the indicator must never stop the sync
            return False
        moved = False
        for player, oid in heads.items():
            if self._heads.get(player) != oid:
                moved = True
                self.heard[player] = (
                    time.time() if player in self._heads else self._commit_time(oid)
                )
        self._heads = heads
        return moved

    def _commit_time(self, oid: str) -> float:
        """When a peer's newest commit was made (the first time its branch is seen)."""
        repo = getattr(self.session, "repo", None)
        if repo is None:
            return time.time()
        proc = subprocess.run(
            ["git", "--git-dir", str(repo.git_dir), "show", "-s", "--format=%ct", oid],
            capture_output=True,
            text=True,
        )
        try:
            return float(proc.stdout.strip())
        except ValueError:
            return time.time()

    def _run(self) -> None:
        while not self._stop.is_set():
            sent = self._actions.unfinished_tasks > 0
            self._record_queued()
            self.sync_once()
            talked = self._talk()
            changed = self._listen() or sent or talked
            wait = self.pace.after(changed)
            if self.watcher is None:
                self._wake.wait(wait)
            else:
                self._watch(wait)
            self._wake.clear()

    def _watch(self, wait: float) -> None:
        """Wait up to ``wait`` seconds, and less once the local remote's refs change."""
        deadline = time.monotonic() + wait
        assert self.watcher is not None
        while not self._stop.is_set():
            left = deadline - time.monotonic()
            if left <= 0 or self._wake.wait(min(WATCH_EVERY, left)):
                return
            if self.watcher.changed():
                self.pace.after(True)
                return


def disk_sentence(session: object, exc: OSError) -> str:
    """What the window says when the disk refused a write (``sync.disk``)."""
    repo = getattr(session, "repo", None)
    where = getattr(repo, "path", None) or exc.filename or "the game's repository"
    return disk.describe(exc, where) or f"cannot write {exc.filename or 'a file'}: {exc.strerror}"
