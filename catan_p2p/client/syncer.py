"""Sync in the background, so a slow or lost remote never freezes the window.

A daemon thread calls ``session.sync()`` every ``interval`` seconds, and at once when
``poke``d; the window only reads ``status``. A failed sync is kept as the status's
error and retried on the next round. The player's own actions go through the same
thread (``submit``), because recording one also pushes it: the window checks the
action against the rules first, queues it, and keeps drawing while it is sent.

The window and this thread share the session: ``GitSession`` guards everything it keeps
in memory with its own lock (see session/git.py) and fetches and pushes outside it, so
the window's reads wait at most for the local part of a sync round.
"""

from __future__ import annotations

import queue
import threading
import time

from catan_p2p.errors import CatanError
from catan_p2p.rules.actions import Action
from catan_p2p.session.base import Session, SyncStatus


class Syncer:
    """Runs ``session.sync()`` on its own thread; ``status`` is the latest result."""

    def __init__(self, session: Session, interval: float = 1.0) -> None:
        self.session = session
        self.interval = interval
        self.status: SyncStatus | None = None
        self.rounds = 0
        self.failures: queue.Queue[tuple[Action, str]] = queue.Queue()
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

    def sync_once(self) -> SyncStatus:
        """One round, with every failure turned into the status's error sentence."""
        try:
            status = self.session.sync()
        except CatanError as exc:
            status = self._failed(str(exc))
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
            finally:
                self._actions.task_done()

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            self._record_queued()
            self.sync_once()
            wait = max(0.0, self.interval - (time.monotonic() - started))
            self._wake.wait(wait)
            self._wake.clear()
