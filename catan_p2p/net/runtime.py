"""The one peer: a game's owner loop, shared by the window, ``catan-p2p bot`` and ``watch``.

A ``Runtime`` alone touches its session. Each round it records the actions queued for
it (``submit``), answers questions (``ask``), lets its bot seats move (``bots``), syncs
(fetch, verify, fast-forward, merge, push: a local round when the game has no remote),
writes and reads the chat, and then publishes a frozen ``Snapshot`` of what a front end
shows. What goes wrong comes back as ``Notice`` values, one queue for all: an own action
refused, a bot's failure, a peer's commit rejected, a disk that refuses writes, another
device playing this seat. Front ends only decide and show:

- the window (hot-seat and networked alike) plays through ``view``, a ``Session`` that
  reads the latest snapshot; networked, the runtime runs on its own thread (``start``),
  so a slow remote never freezes the window; with no remote it runs inline, one round
  per frame (``pump``), since a local round costs a millisecond;
- ``catan-p2p bot`` runs the same loop in the foreground (``run``) until the game is
  settled, its one seat played by a bot;
- ``catan-p2p watch`` runs it for a spectator, which records nothing.

How often it fetches adapts (``net.pacing``), every remote that is a folder here is
watched by ``stat``, and a served seat is nudged (``net.nudge``), so a move shows about
one fetch after it was made, however long its player thought.
"""

from __future__ import annotations

import queue
import select
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from catan_p2p import clock
from catan_p2p.bots.base import Bot
from catan_p2p.errors import CatanError, ForkError, IllegalAction
from catan_p2p.net import nudge, pacing, serve
from catan_p2p.net.chat import ChatLog, ChatMessage
from catan_p2p.net.driver import Driver
from catan_p2p.net.game import LogEntry, Session, SyncStatus
from catan_p2p.net.pacing import FASTEST, SLOWEST, WATCH_EVERY, Pace, watcher_for
from catan_p2p.net.seatlock import SeatLock
from catan_p2p.rules.actions import Action
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import GameState
from catan_p2p.rules.waiting import actors, owed_reveal
from catan_p2p.store import disk
from catan_p2p.store.refnames import player_ref, tracking_ref

#: How often a resting runtime looks for questions (seconds).
ANSWER_EVERY = 0.02
#: How long a question waits for the owner thread's answer (seconds).
ASK_WAIT = 0.3
#: Seconds a finished game waits for a silent seat's deck secret before a bot gives up.
REVEAL_WAIT = 120.0
#: A disk problem is said again every this many seconds while it lasts ...
DISK_REPEAT = 30.0
#: ... and a bot whose move the disk refused tries again after this many seconds.
DISK_RETRY = 2.0
#: A peer with nudgeable peers says where its seats stand at least this often (seconds).
NUDGE_EVERY = 2.0

# The kinds of ``Notice``.
REFUSED = "refused"  # an own action was not recorded
BOT = "bot"  # a bot seat's move failed
CHAT = "chat"  # a chat line could not be written or shared
REJECTED = "rejected"  # a peer's commit was refused
ELSEWHERE = "elsewhere"  # another device plays a seat of this runtime
RELOADED = "reloaded"  # the seat's branch moved outside this runtime; the game was reopened
SYNC = "sync"  # a sync round failed (the status's error); said when it changes


@dataclass(frozen=True)
class Snapshot:
    """What a front end shows of a session, as its runtime last published it."""

    state: GameState
    views: Mapping[str, GameState]  # each local seat's own view (its hidden cards)
    history: tuple[LogEntry, ...]
    said: Mapping[str, str]  # commit -> the log's words where a subject cannot say it all
    waiting_since: int = 0
    rejected: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Notice:
    """Something a front end should say: its kind (``REFUSED``, ``BOT``, ...), one
    sentence, and the own action it concerns (``REFUSED`` only)."""

    kind: str
    text: str
    action: Action | None = None


class SessionView:
    """The ``Session`` a front end plays through: reads the runtime's latest ``Snapshot``,
    sends actions and questions to the runtime, never touches the session itself."""

    def __init__(self, runtime: Runtime, session: Session) -> None:
        self._runtime = runtime
        self.game_id = session.game_id
        self.local_players = session.local_players
        self.players = session.players
        self.info = session.info
        self.networked = session.networked

    @property
    def _snap(self) -> Snapshot:
        return self._runtime.snapshot

    @property
    def state(self) -> GameState:
        return self._snap.state

    def view(self, player: str) -> GameState:
        snap = self._snap
        return snap.views.get(player, snap.state)

    def legal_actions(self, player: str | None = None) -> list[Action]:
        return legal_actions(self.view(player) if player else self.state, player)  # type: ignore[arg-type]

    def refusal(self, action: Action) -> str | None:
        """The runtime's judgement; None when it is busy (a refusal then comes back as a
        ``REFUSED`` notice once it records the action)."""
        return self._runtime.ask(lambda session: session.refusal(action), ASK_WAIT)

    def submit(self, action: Action) -> GameState:
        """Queue ``action`` for the runtime; the state as last published."""
        self._runtime.submit(action)
        return self.state

    def history(self) -> list[LogEntry]:
        return list(self._snap.history)

    def said(self, entries: Iterable[LogEntry]) -> dict[str, str]:
        words = self._snap.said
        return {e.commit: words[e.commit] for e in entries if e.commit in words}

    def sync(self) -> SyncStatus:
        """The latest round's status (the runtime syncs on its own)."""
        return self._runtime.status or SyncStatus()

    def waiting_since(self) -> int:
        return self._snap.waiting_since

    def take_rejected(self) -> dict[str, str]:
        return {}  # the runtime hands rejections out as ``REJECTED`` notices

    @property
    def rejected(self) -> dict[str, str]:
        return dict(self._snap.rejected)

    def remotes(self) -> tuple[str, ...]:
        return self._runtime.remotes

    def peer_heads(self) -> dict[str, tuple[str, int]]:
        return {}  # the runtime keeps them (``Runtime.heard``)

    def flush(self) -> None:
        self._runtime.poke()

    def close(self) -> None:
        """Nothing to do: the runtime's owner closes the session."""


class Runtime:
    """The owner of ``session``: one loop for every front end.

    Args:
        session: the running session (hot-seat, networked, or a spectator's).
        bots: the bot of each seat this runtime plays (``drive`` changes them).
        bot_delay: seconds between two bot moves (so people can follow them).
        think: seconds a bot waits, from when it may act, before each move (drawn anew
            per move; a networked bot that plays like a person, for the benchmarks).
        trade_wait: seconds an own bot's trade offer waits for answers from seats this
            runtime does not play (None: until everyone answered).
        slowest: the slowest pace (seconds between fetches while nothing happens).
        fastest: the wait after a round that brought or sent a move.
        watch: look at the ref files of remotes on this machine between fetches.
        chat: the game's chat, read and written by the runtime.
        reopen: opens the session again, when the seat's branch moved outside this
            runtime (another program recorded on it); None: such a move is only said.
        lock: hold this machine's lock on the session's seats for the runtime's life
            (``net.seatlock``): a second window or bot on a seat is refused at once.
    """

    def __init__(
        self,
        session: Session,
        bots: Mapping[str, Bot] | None = None,
        *,
        bot_delay: float = 0.0,
        think: Callable[[], float] | None = None,
        trade_wait: float | None = None,
        slowest: float = SLOWEST,
        fastest: float = FASTEST,
        watch: bool = True,
        chat: ChatLog | None = None,
        reopen: Callable[[], Session] | None = None,
        lock: bool = True,
    ) -> None:
        self.session = session
        self.lock = (
            SeatLock.take(session.git_dir, session.game_id, session.local_players) if lock else None
        )
        self.chat = chat
        self.chat_messages: list[ChatMessage] = chat.messages() if chat is not None else []
        self.networked = session.networked
        self.remotes = session.remotes()
        self.slowest = slowest
        self.pace = Pace(min(fastest, slowest), slowest)
        self.watcher = watcher_for(self.remotes) if watch else None
        self.daemon, self.listener = self._serve(session.served)
        self.reopen = reopen
        self.status: SyncStatus | None = None
        self.rounds = 0
        self.heard: dict[str, float] = {}  # player -> clock.now() its branch last moved
        self.stopped_by: str | None = None  # why recording stopped (another device)
        self.notices: queue.Queue[Notice] = queue.Queue()
        self._heads: dict[str, str] = {}
        self._said: queue.Queue[tuple[str, str]] = queue.Queue()
        self._actions: queue.Queue[Action] = queue.Queue()
        self._asks: queue.Queue[tuple[Callable[[Session], Any], Future]] = queue.Queue()
        self._trade_wait = trade_wait
        self._driver: Driver | None = None
        self._bot_delay = bot_delay
        self._last_bot = 0.0
        self._think = think
        self._ready: float | None = None  # when a bot may move (``think`` counted from it)
        self._last_error: tuple[str, float] | None = None
        self._owed: tuple[str | None, float] | None = None
        self._nudged_at = 0.0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._owner = threading.get_ident()
        if bots:
            self.drive(bots, bot_delay)
        self.snapshot = self._snapshot(None)  # read here, before any thread owns the session
        self.view = SessionView(self, session)

    # --- how it runs ---------------------------------------------------------------------

    def start(self) -> Runtime:
        """Run the loop on a thread of its own (a networked window, a spectator)."""
        self._thread = threading.Thread(target=self._loop, name="catan-peer", daemon=True)
        self._thread.start()
        return self

    def run(self, until: Callable[[Runtime], bool]) -> None:
        """Run the loop on this thread until ``until(self)`` holds after a round."""
        self._owner = threading.get_ident()
        while not self._stop.is_set():
            changed = self.round()
            if until(self):
                return
            self._rest(self._next_wait(changed))
            self._wake.clear()

    def pump(self) -> bool:
        """One round now, unless a thread runs the loop; True if anything changed.

        A window with no remote calls it every frame: its runtime has no thread, so the
        window never waits on one and sees its own moves in the very next frame.
        """
        if self._thread is not None:
            return False
        return self.round(sync=self._wake.is_set() or self.status is None)

    @property
    def threaded(self) -> bool:
        return self._thread is not None

    # --- commands (any thread) -----------------------------------------------------------

    def submit(self, action: Action) -> None:
        """Record ``action`` (on the owner's next round; at once when inline); a refusal
        comes back as a ``REFUSED`` notice."""
        self._actions.put(action)
        self._wake.set()
        if self._thread is None and threading.get_ident() == self._owner:
            self._record_queued()
            self.sync_once()  # a local round: the moves nobody chooses, the status
            self._wake.clear()  # synced: the next ``pump`` need not sync again

    def drive(self, bots: Mapping[str, Bot], delay: float | None = None) -> None:
        """Play the seats of ``bots``, one move per ``delay`` seconds (a burst when 0)."""
        if delay is not None:
            self._bot_delay = delay
        self._driver = (
            Driver(self.session, dict(bots), trade_wait=self._trade_wait) if bots else None
        )
        self._wake.set()

    def ask(self, question: Callable[[Session], Any], timeout: float = ASK_WAIT) -> Any:
        """``question(session)`` answered by the owner; None if it takes longer than
        ``timeout`` seconds (the owner is in a slow fetch) or fails."""
        if self._thread is None:
            try:
                return question(self.session)
            except Exception:  # noqa: BLE001 - a question never breaks the front end
                return None
        if not self._thread.is_alive():
            return None
        answer: Future = Future()
        self._asks.put((question, answer))
        self._wake.set()
        try:
            return answer.result(timeout)
        except Exception:  # noqa: BLE001 - a question never breaks the front end
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
        """Send a chat line (written by the owner, then pushed)."""
        self._said.put((player, text))
        self._wake.set()
        if self._thread is None and threading.get_ident() == self._owner:
            self._talk()

    def poke(self) -> None:
        """Sync as soon as possible (e.g. to push an action just played)."""
        self._wake.set()

    def take_notices(self) -> list[Notice]:
        """Every notice not handed out yet, oldest first."""
        out = []
        while True:
            try:
                out.append(self.notices.get_nowait())
            except queue.Empty:
                return out

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the loop; actions and chat lines still queued are recorded (and pushed)
        first. The seats' lock is let go."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout)
        if self._thread is None or not self._thread.is_alive():
            if self._actions.unfinished_tasks:
                self._record_queued()
                self.sync_once()
            if not self._said.empty():
                self._talk()
            if self.lock is not None:
                self.lock.release()
            self._unserve()

    # --- the loop ------------------------------------------------------------------------

    def _loop(self) -> None:
        self.run(until=lambda _runtime: False)  # until ``stop``

    def round(self, sync: bool = True) -> bool:
        """Record, answer, let the bots move, sync, talk, listen; True if anything moved."""
        sent = self._actions.unfinished_tasks > 0
        self._record_queued()
        self._answer()
        bots = self._drive()
        if self.networked and (sent or bots or self._nudge_due()):
            self._nudge()  # the move is published (pushed, or served): say so before fetching
        # While a bot of this runtime may move again at once, nobody else can add
        # anything it needs first (mid-turn): it moves on without a fetch.
        mid_turn = bots and self._bot_wait() == 0.0
        if (sync and not mid_turn) or (self.networked and sent):
            self.sync_once()
            self._wake.clear()
        talked = self._talk()
        heard = self._listen()
        return heard or sent or talked or bots

    def _next_wait(self, changed: bool) -> float:
        self.pace.slowest = max(self.pace.fastest, self._slowest())
        wait = self.pace.after(changed)
        bot_wait = self._bot_wait()
        return wait if bot_wait is None else min(wait, bot_wait)

    def _rest(self, wait: float) -> None:
        """Wait up to ``wait`` seconds, answering questions meanwhile; less once a command
        comes (``_wake``) or a watched remote's refs change."""
        deadline = time.monotonic() + wait
        look = time.monotonic() + WATCH_EVERY
        while not self._stop.is_set():
            self._answer()
            left = deadline - time.monotonic()
            if left <= 0 or self._pause(min(ANSWER_EVERY, left)):
                return
            if self.listener is not None and self._heard_nudge():
                self.pace.after(True)
                return
            if self.watcher is not None and time.monotonic() >= look:
                look = time.monotonic() + WATCH_EVERY
                if self.watcher.changed():
                    self.pace.after(True)
                    return

    def _pause(self, seconds: float) -> bool:
        """Wait ``seconds``, or less when a command or a datagram comes; True on a command.
        A served peer waits on its nudge socket, so a nudge is read the moment it lands."""
        if self.listener is None:
            return self._wake.wait(seconds)
        if self._wake.is_set():
            return True
        select.select([self.listener.sock], [], [], seconds)
        return self._wake.is_set()

    # --- one round's parts (the owner only) ----------------------------------------------

    def _snapshot(self, old: Snapshot | None) -> Snapshot:
        session = self.session
        history = tuple(session.history())
        known = dict(old.said) if old is not None else {}
        seen = {e.commit for e in old.history} if old is not None else set()
        known.update(session.said([e for e in history if e.commit not in seen]))
        return Snapshot(
            state=session.state,
            views=MappingProxyType({p: session.view(p) for p in session.local_players}),
            history=history,
            said=MappingProxyType(known),
            waiting_since=session.waiting_since(),
            rejected=MappingProxyType(session.rejected),
        )

    def _publish(self) -> None:
        try:
            self.snapshot = self._snapshot(self.snapshot)
        except CatanError as exc:  # the front end keeps the last snapshot
            self.status = self._failed(f"cannot read the game: {exc}")

    def sync_once(self) -> SyncStatus:
        """One sync, with every failure turned into the status's error sentence."""
        try:
            status = self.session.sync()
        except ForkError as exc:
            status = self._reload(exc) or self._failed(str(exc))
        except CatanError as exc:
            status = self._failed(str(exc))
        except OSError as exc:  # the disk: named as such, and said at every round
            status = self._failed(disk_sentence(exc, self.session.git_dir))
        except Exception as exc:  # noqa: BLE001 - a dead loop would stall the game unseen
            status = self._failed(f"sync failed: {type(exc).__name__}: {exc}")
        self.status = status
        self.rounds += 1
        self._note(status)
        self._publish()
        return status

    def _note(self, status: SyncStatus) -> None:
        """Hand out what the round found: rejected commits, another device on an own
        seat, and an error sentence when it changes (a disk's again now and then)."""
        for oid, reason in self.session.take_rejected().items():
            self.notices.put(Notice(REJECTED, f"refused {oid[:10]}: {reason}"))
        mine = {tracking_ref(player_ref(self.session.game_id, p)) for p in self.local_players}
        taken = sorted({f.ref for f in status.forks if f.ref in mine})
        if taken and self.stopped_by is None:
            names = ", ".join(r.rsplit("/", 1)[-1].capitalize() for r in taken)
            self.stopped_by = (
                f"{names}'s branch on the remote holds moves this peer did not make: another "
                "device is playing this seat, so this one records nothing more; close one of "
                "them (the game goes on on the other)"
            )
            self.notices.put(Notice(ELSEWHERE, self.stopped_by))
        if status.error is None:
            self._last_error = None
        else:
            self._error(status.error)

    def _error(self, error: str) -> None:
        """Say ``error`` when it is new; a disk's problem again every ``DISK_REPEAT`` s
        while it lasts (a peer left running must not fall silent on a full disk)."""
        now = time.monotonic()
        last = self._last_error
        again = disk.is_sentence(error) and last is not None and now - last[1] >= DISK_REPEAT
        if last is None or last[0] != error or again:
            self._last_error = (error, now)
            self.notices.put(Notice(SYNC, error))

    @property
    def local_players(self) -> tuple[str, ...]:
        return self.session.local_players

    def _failed(self, error: str) -> SyncStatus:
        old = self.status or SyncStatus()
        return replace(old, error=error)

    def _reload(self, exc: ForkError) -> SyncStatus | None:
        """Open the session again after its seat's branch moved outside this runtime."""
        if self.reopen is None:
            return None
        try:
            self.session.close()
            self.session = self.reopen()
        except CatanError as again:
            return self._failed(f"{exc}; reopening the game failed too: {again}")
        if self._driver is not None:
            self.drive(self._driver.bots)
        self.notices.put(
            Notice(
                RELOADED,
                "your seat's branch moved on outside this window (another program recorded "
                "on it), so the game was reloaded from it: check the board, then play on",
            )
        )
        return self.session.sync()

    def _record_queued(self) -> None:
        while True:
            try:
                action = self._actions.get_nowait()
            except queue.Empty:
                return
            try:
                if self.stopped_by is not None:
                    raise IllegalAction(self.stopped_by)
                self.session.submit(action)
            except ForkError as exc:
                self._reload(exc)
                self.notices.put(Notice(REFUSED, str(exc), action))
            except CatanError as exc:
                self.notices.put(Notice(REFUSED, str(exc), action))
            except OSError as exc:
                self.notices.put(Notice(REFUSED, disk_sentence(exc, self.session.git_dir), action))
            finally:
                self._publish()  # before the front end may judge its next action
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
        if driver is None or self.stopped_by is not None:
            return None
        if not driver.to_act(self.session.state):
            self._ready = None
            return None
        if self._think is not None and self._ready is None:
            self._ready = time.monotonic() + self._think()
        after = max(self._last_bot + self._bot_delay, self._ready or 0.0)
        return max(0.0, after - time.monotonic())

    def _slowest(self) -> float:
        """The slowest pace now: ``WAITING_SLOWEST`` while the game waits on a seat this
        runtime does not play, else the runtime's own (nothing can come meanwhile but
        answers, chat and the seats' claims)."""
        state = self.session.state
        if self.networked and not state.is_over:
            bots = self._driver.bots if self._driver is not None else {}
            local = set(self.local_players) | set(bots)
            if any(p not in local for p in actors(state)):
                return min(self.slowest, pacing.WAITING_SLOWEST)
        return self.slowest

    def _drive(self) -> bool:
        """Let the bots move: one move per delay, or a burst of 50 ms when it is 0."""
        moved = False
        budget = time.monotonic() + 0.05
        while self._driver is not None and self._bot_wait() == 0.0:
            try:
                if self._driver.step() is None:
                    break
            except CatanError as exc:
                self.notices.put(Notice(BOT, str(exc)))
                break
            except OSError as exc:  # the disk: said now and then, tried again later
                self._error(disk_sentence(exc, self.session.git_dir))
                self._last_bot = time.monotonic() + DISK_RETRY
                break
            moved = True
            self._last_bot = time.monotonic()
            self._ready = None
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
                self.notices.put(Notice(CHAT, str(exc)))
        if self.networked:
            try:
                self.chat.push()
            except CatanError as exc:
                self.notices.put(Notice(CHAT, f"chat not shared yet: {exc}"))
        try:
            moved = self.chat.update() if self.networked else False
        except CatanError as exc:
            self.notices.put(Notice(CHAT, str(exc)))
            return wrote
        if wrote or moved:
            self.chat_messages = self.chat.messages()
        return bool(wrote or moved)

    def _listen(self) -> bool:
        """Note which peers' branches moved; True if any did since the last round."""
        if not self.networked:
            return False
        try:
            heads = self.session.peer_heads()
        except Exception:  # noqa: BLE001 - the indicator must never stop the loop
            return False
        moved = False
        for player, (oid, when) in heads.items():
            if self._heads.get(player) != oid:
                moved = True
                self.heard[player] = clock.now() if player in self._heads else float(when)
        self._heads = {p: oid for p, (oid, _) in heads.items()}
        return moved

    # --- served from this machine (``net.serve``), nudged and nudging (``net.nudge``) --

    def _serve(self, url: str | None):  # type: ignore[no-untyped-def]
        """Start ``git daemon`` on this repository (unless one already serves the port)
        and listen for nudges on the port's number; (None, None) when not served."""
        if url is None or self.session.git_dir is None:
            return None, None
        port = serve.port_of(url)
        daemon = None
        if not serve.listening(port):
            log = Path(self.session.git_dir) / "catan-p2p-serve.log"
            daemon = serve.start_daemon(self.session.git_dir, url, log)
        try:
            listener = nudge.Listener(port)
        except OSError:
            listener = None  # another program listens: moves still come by polling
            self.notices.put(
                Notice(SYNC, f"UDP port {port} is taken, so nudges cannot reach this peer")
            )
        return daemon, listener

    def _unserve(self) -> None:
        if self.daemon is not None:
            self.daemon.terminate()
            try:
                self.daemon.wait(5)
            except Exception:  # noqa: BLE001 - a daemon that will not stop is killed
                self.daemon.kill()
            self.daemon = None
        if self.listener is not None:
            self.listener.close()
            self.listener = None

    def _nudge(self) -> None:
        """Tell every reachable peer that this one moved (a datagram each, never waited on)."""
        self._nudged_at = time.monotonic()
        try:
            for datagram, to in self.session.nudges():
                nudge.send(datagram, to)
        except CatanError:
            pass  # a nudge is a courtesy: the next poll brings the move anyway

    def _nudge_due(self) -> bool:
        """Besides after each own move, every ``NUDGE_EVERY`` s while the game goes on:
        a peer that started late, or a creator that does not know this seat's point yet
        (a joiner's hello), hears of it without waiting for a move. A receiver drops a
        nudge of a head it holds before checking anything else, so this costs nothing."""
        now = time.monotonic()
        if now - self._nudged_at < NUDGE_EVERY or self.session.state.is_over:
            return False
        return True

    def _heard_nudge(self) -> bool:
        """True when a datagram that arrived is a nudge worth fetching for now."""
        assert self.listener is not None
        return any(self.session.hear(d) for d in self.listener.take())

    # --- what a bot peer waits for -------------------------------------------------------

    def settled(self, reveal_wait: float = REVEAL_WAIT) -> bool:
        """True once nothing is left to play: the game is settled, or over and a silent
        seat's deck secret has been owed longer than ``reveal_wait`` seconds."""
        state = self.session.state
        if state.settled:
            return True
        if not state.is_over:
            self._owed = None
            return False
        owed = owed_reveal(state)
        now = time.monotonic()
        if self._owed is None or self._owed[0] != owed:
            self._owed = (owed, now)
            return False
        if now - self._owed[1] > reveal_wait:
            self.notices.put(
                Notice(
                    SYNC,
                    f"the game is over; it waits for {str(owed).capitalize()}'s deck secret "
                    f"since {reveal_wait:.0f} s, the game cannot be fully verified yet",
                )
            )
            return True
        return False


def disk_sentence(exc: OSError, git_dir: Path | None = None) -> str:
    """What a front end says when the disk refused a write (``store.disk``): the game's
    repository named, when known, rather than a temporary file inside it."""
    where = disk.repository(git_dir) if git_dir is not None else disk.where(exc)
    said = disk.describe(exc, where)
    return said or f"cannot write {exc.filename or 'a file'}: {exc.strerror}"
