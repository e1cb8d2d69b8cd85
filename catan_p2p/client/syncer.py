"""The owner thread of a running session: it alone touches the session; the window reads.

A daemon thread owns the session: it syncs, records the player's actions (``submit``
queues them), plays the window's bot seats (``drive``), answers the window's questions
(``ask``) and, after each of these, publishes a frozen ``Snapshot`` of what the window
shows. The window plays through ``view``, a ``Session`` that reads the latest snapshot
and sends commands, so it never waits for a sync and never touches the repository, and
no bot pushes on its thread. How often it fetches adapts (``Pace``): right after a move
came in or went out it fetches again within ``fastest`` seconds, and while nothing
happens the wait grows to ``slowest`` (a few seconds), so a game on a hosted forge stays
polite. When the remote is a path on this machine, a ``RefWatcher`` looks at the remote's
ref files every 50 ms (a few ``stat`` calls, no Git process) and a fetch starts as soon
as they change, so a remote move shows within a fraction of a second.

A failed sync is kept as the status's error and retried on a later round. ``heard``
keeps when each peer's branch last moved.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from catan_p2p.bots.base import Bot
from catan_p2p.errors import CatanError
from catan_p2p.rules.actions import Action
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import GameState
from catan_p2p.session.base import LogEntry, Session, SyncStatus
from catan_p2p.session.chat import ChatLog, ChatMessage
from catan_p2p.session.driver import Driver
from catan_p2p.sync import disk

#: While moves come in, the next fetch follows this soon (seconds) ...
FASTEST = 0.1
#: ... and each quiet round waits this much longer ...
GROWTH = 1.5
#: ... up to one fetch every this many seconds.
SLOWEST = 4.0
#: How often a local remote's ref files are looked at (seconds).
WATCH_EVERY = 0.05
#: How often a resting owner thread looks for the window's questions (seconds).
ANSWER_EVERY = 0.02


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


@dataclass(frozen=True)
class Snapshot:
    """What the window shows of a session, as its owner thread last published it."""

    state: GameState
    views: Mapping[str, GameState]  # each local seat's own view (its hidden cards)
    history: tuple[LogEntry, ...]
    said: Mapping[str, str]  # commit -> the log's words where a subject cannot say it all
    waiting_since: int = 0
    rejected: Mapping[str, str] = field(default_factory=dict)


#: How long the window waits for the owner thread's answer to a question (seconds).
ASK_WAIT = 0.3


class SessionView:
    """The ``Session`` the window plays through: reads the owner's latest ``Snapshot``,
    sends actions and questions to the owner thread, never touches the session."""

    def __init__(self, syncer: Syncer, session: Session) -> None:
        self._syncer = syncer
        self.game_id = session.game_id
        self.local_players = session.local_players
        for name in ("players", "info", "remote"):  # fixed for the session's life
            if hasattr(session, name):
                setattr(self, name, getattr(session, name))

    @property
    def _snap(self) -> Snapshot:
        return self._syncer.snapshot

    @property
    def state(self) -> GameState:
        return self._snap.state

    def view(self, player: str) -> GameState:
        snap = self._snap
        return snap.views.get(player, snap.state)

    def legal_actions(self, player: str | None = None) -> list[Action]:
        return legal_actions(self.view(player) if player else self.state, player)  # type: ignore[arg-type]

    def refusal(self, action: Action) -> str | None:
        """The owner's judgement; None when it is busy (a refusal then comes back through
        ``Syncer.failures`` once it records the action)."""
        return self._syncer.ask(lambda session: session.refusal(action), ASK_WAIT)

    def submit(self, action: Action) -> GameState:
        """Queue ``action`` for the owner thread; the state as last published."""
        self._syncer.submit(action)
        return self.state

    def history(self) -> list[LogEntry]:
        return list(self._snap.history)

    def said(self, entries: Iterable[LogEntry]) -> dict[str, str]:
        words = self._snap.said
        return {e.commit: words[e.commit] for e in entries if e.commit in words}

    def sync(self) -> SyncStatus:
        """The latest round's status (the owner thread syncs on its own)."""
        return self._syncer.status or SyncStatus()

    def waiting_since(self) -> int:
        return self._snap.waiting_since

    @property
    def rejected(self) -> dict[str, str]:
        return dict(self._snap.rejected)


class Syncer:
    """Owns ``session`` on its own thread; ``status`` is the latest round's result.

    Args:
        session: the running session (networked, or a spectator's).
        interval: the slowest pace (seconds between fetches while nothing happens);
            tests pass a small one to sync continuously.
        fastest: the wait after a round that brought or sent a move.
        watch: look at a local remote's ref files between fetches (True by default).
        chat: the game's chat, read and written on this thread.
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
        self.bot_failures: queue.Queue[str] = queue.Queue()
        self._actions: queue.Queue[Action] = queue.Queue()
        self._asks: queue.Queue[tuple[Callable[[Session], Any], Future]] = queue.Queue()
        self._driver: Driver | None = None
        self._bot_delay = 0.0
        self._last_bot = 0.0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="catan-sync", daemon=True)
        self.snapshot = self._snapshot(None)  # read here, before the thread owns the session
        self.view = SessionView(self, session)

    def start(self) -> Syncer:
        self._thread.start()
        return self

    # --- commands (any thread) -----------------------------------------------------------

    def submit(self, action: Action) -> None:
        """Record ``action`` on the owner thread; a refusal lands in ``failures``."""
        self._actions.put(action)
        self._wake.set()

    def drive(self, bots: Mapping[str, Bot], delay: float = 0.0) -> None:
        """Play the seats of ``bots`` on the owner thread, one move per ``delay`` seconds."""
        self._bot_delay = delay
        self._driver = Driver(self.session, dict(bots)) if bots else None
        self._wake.set()

    def ask(self, question: Callable[[Session], Any], timeout: float) -> Any:
        """``question(session)`` answered on the owner thread; None if it takes longer
        than ``timeout`` seconds (the owner is in a slow fetch) or fails."""
        if not self._thread.is_alive():
            return None
        answer: Future = Future()
        self._asks.put((question, answer))
        self._wake.set()
        try:
            return answer.result(timeout)
        except Exception:  # noqa: BLE001 - a question never breaks the window
            return None

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
        """Send a chat line on the owner thread (written here, then pushed)."""
        self._said.put((player, text))
        self._wake.set()

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

    # --- the owner thread ----------------------------------------------------------------

    def _snapshot(self, old: Snapshot | None) -> Snapshot:
        """Read what the window shows (on the owner thread, or before it starts)."""
        session = self.session
        state = session.state
        history = tuple(session.history())
        known = dict(old.said) if old is not None else {}
        seen = {e.commit for e in old.history} if old is not None else set()
        known.update(session.said([e for e in history if e.commit not in seen]))
        waiting = getattr(session, "waiting_since", None)
        return Snapshot(
            state=state,
            views=MappingProxyType({p: session.view(p) for p in session.local_players}),
            history=history,
            said=MappingProxyType(known),
            waiting_since=waiting() if waiting is not None else 0,
            rejected=MappingProxyType(dict(getattr(session, "rejected", {}))),
        )

    def _publish(self) -> None:
        try:
            self.snapshot = self._snapshot(self.snapshot)
        except CatanError as exc:  # the window keeps the last snapshot
            self.status = self._failed(f"cannot read the game: {exc}")

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
        self._publish()
        return status

    def _failed(self, error: str) -> SyncStatus:
        old = self.status or SyncStatus()
        return replace(old, error=error)

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
                self._publish()  # before the window may judge its next action
                self._actions.task_done()

    def _answer(self) -> None:
        while True:
            try:
                question, answer = self._asks.get_nowait()
            except queue.Empty:
                return
            try:
                answer.set_result(question(self.session))
            except Exception as exc:  # noqa: BLE001 - handed to the asking thread
                answer.set_exception(exc)

    def _bot_wait(self) -> float | None:
        """Seconds until a bot may move again, or None while no bot may act."""
        driver = self._driver
        if driver is None or not driver.to_act(self.session.state):
            return None
        return max(0.0, self._last_bot + self._bot_delay - time.monotonic())

    def _drive(self) -> bool:
        """Let the bots move: one move per delay, or a burst of 50 ms when it is 0."""
        moved = False
        budget = time.monotonic() + 0.05
        while self._driver is not None and self._bot_wait() == 0.0:
            try:
                if self._driver.step() is None:
                    break
            except CatanError as exc:
                self.bot_failures.put(str(exc))
                break
            except OSError as exc:
                self.bot_failures.put(disk_sentence(self.session, exc))
                break
            moved = True
            self._last_bot = time.monotonic()
            self._publish()
            if self._bot_delay or time.monotonic() > budget:
                break
        return moved

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

    def _listen(self) -> bool:
        """Note which peers' branches moved; True if any did since the last round."""
        heads_of = getattr(self.session, "peer_heads", None)
        try:
            heads = heads_of() if heads_of is not None else {}
        except Exception:  # noqa: BLE001 - the indicator must never stop the sync
            return False
        moved = False
        for player, (oid, when) in heads.items():
            if self._heads.get(player) != oid:
                moved = True
                self.heard[player] = time.time() if player in self._heads else float(when)
        self._heads = {p: oid for p, (oid, _) in heads.items()}
        return moved

    def _run(self) -> None:
        while not self._stop.is_set():
            sent = self._actions.unfinished_tasks > 0
            self._record_queued()
            self._answer()
            bots = self._drive()
            self.sync_once()
            talked = self._talk()
            changed = self._listen() or sent or talked or bots
            wait = self.pace.after(changed)
            bot_wait = self._bot_wait()
            self._rest(wait if bot_wait is None else min(wait, bot_wait))
            self._wake.clear()

    def _rest(self, wait: float) -> None:
        """Wait up to ``wait`` seconds, answering the window's questions meanwhile; less
        once a command comes (``_wake``) or the local remote's refs change."""
        deadline = time.monotonic() + wait
        look = time.monotonic() + WATCH_EVERY
        while not self._stop.is_set():
            self._answer()
            left = deadline - time.monotonic()
            if left <= 0 or self._wake.wait(min(ANSWER_EVERY, left)):
                return
            if self.watcher is not None and time.monotonic() >= look:
                look = time.monotonic() + WATCH_EVERY
                if self.watcher.changed():
                    self.pace.after(True)
                    return


def disk_sentence(session: object, exc: OSError) -> str:
    """What the window says when the disk refused a write (``sync.disk``)."""
    said = disk.describe(exc, disk.where(exc))
    return said or f"cannot write {exc.filename or 'a file'}: {exc.strerror}"
