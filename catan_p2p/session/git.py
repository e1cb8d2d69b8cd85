"""A running game recorded in Git: hot-seat (every seat here) or networked (one seat).

``GitSession`` holds one ``Peer`` per local seat and orchestrates: it asks ``sync/`` what
to do and does it. Submitting brings the acting seat up to date, records the action where
``concurrent.plan_action`` says, then the moves nobody chooses (``sync.followup``). A
sync fetches every source (``sync.exchange``), adopts what verifies (``sync.adopt``),
merges a complete concurrent step and pushes the own refs (``sync.exchange``).

Threads: every public method holds ``self.lock`` (an ``RLock``); transfers run outside it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import wraps
from pathlib import Path

from catan_p2p.errors import IllegalAction, StateFileError, UsageError
from catan_p2p.rules.actions import Action, ClaimSeat
from catan_p2p.rules.engine import actors, legal_actions, refusal
from catan_p2p.rules.state import GameState
from catan_p2p.session.base import LogEntry, SyncStatus
from catan_p2p.session.history import History
from catan_p2p.session.keys import existing_key, seat_key
from catan_p2p.store.refs import answers_prefix
from catan_p2p.sync import checkpoint, concurrent, liveness, publish, refpolicy
from catan_p2p.sync.adopt import adopt
from catan_p2p.sync.answers import AnswerBook, OwnBranches, merged_claims
from catan_p2p.sync.concurrent import Answer, AnswerOnBranch, MergeThenRecord, SettleThenRecord
from catan_p2p.sync.exchange import Exchange
from catan_p2p.sync.followup import owed_move
from catan_p2p.sync.peer import Peer
from catan_p2p.sync.publish import Source
from catan_p2p.sync.rejections import Rejections
from catan_p2p.sync.repo import GameRepo
from catan_p2p.sync.signing import SeatKey
from catan_p2p.sync.verify import Verifier


def _guarded(method: Callable) -> Callable:
    @wraps(method)
    def locked(self: GitSession, *args, **kwargs):  # type: ignore[no-untyped-def]
        with self.lock:
            return method(self, *args, **kwargs)

    return locked


class GitSession:
    """The session of the seats ``local_players`` of game ``game_id`` in ``repo``.

    Args:
        eager_push: push after every own commit (for people watching); when False, own
            commits are pushed once another peer may act (bots, benchmarks).
        keys: the local seats' signing keys (default: ``session.keys.seat_key``).
        read_only: only read the game (show, log, replay): a seat without a key here
            gets a throw-away one and reads no hidden card; nothing is recorded.
    """

    def __init__(
        self,
        repo: Path | GameRepo,
        game_id: str | None = None,
        local_players: tuple[str, ...] | list[str] | None = None,
        eager_push: bool = True,
        keys: dict[str, SeatKey] | None = None,
        read_only: bool = False,
    ) -> None:
        self.eager_push, self.read_only = eager_push, read_only
        self.lock = threading.RLock()
        self.repo = repo if isinstance(repo, GameRepo) else GameRepo(Path(repo))
        self.game_id = self.repo.only_game(game_id)
        self.exchange = Exchange(self.repo, self.game_id, (), guard=self.lock)
        if self.networked and not read_only:
            refpolicy.drop_junk(self.repo, self.game_id)  # fetched before this version
        heads = refpolicy.player_heads(self.repo, self.game_id)
        if not heads:
            raise UsageError(f"game {self.game_id} has no player branches in {self.repo.path}")
        self.genesis = self.repo.genesis_of(
            refpolicy.anchor(heads, self.game_id, local_players or ())
        )
        genesis_state, self.info = self.repo.open_genesis(self.genesis)
        self.players = genesis_state.players
        for p in local_players or ():
            if p not in self.players:
                raise UsageError(
                    f"{p!r} is not a player of game {self.game_id} ({', '.join(self.players)})"
                )
        self.local_players = self.exchange.local = tuple(local_players or self.players)
        self._throwaway: set[str] = set()  # read-only seats this machine holds no key for
        self.keys = {p: (keys or {}).get(p) or self._key(p) for p in self.local_players}
        verifier = Verifier(self.repo, self.info, self.genesis, genesis_state)
        seat = next((p for p in self.local_players if p not in self._throwaway), None)
        self.checkpoint = checkpoint.Keeper(
            self.repo.git_dir, self.game_id, self.genesis, seat, self.keys.get(seat or "")
        )
        self.checkpoint.resume(self.repo, verifier)
        self.peers = {
            p: Peer(self.repo, self.info, p, self.genesis, self.keys[p], verifier)
            for p in self.local_players
        }
        self.rejections = Rejections()
        self.answers = AnswerBook(self.repo, self.game_id, self.players, self.rejections)
        self.own_branches = OwnBranches(self.repo, self.game_id, self.local_players)
        self._status = SyncStatus(peers=self.players)
        self._history = History(self.repo)
        self._wait_start: tuple[str, int] | None = None  # head -> waiting_since()
        self._lobby_claims: list[ClaimSeat] | None = None  # once the lobby closed
        if not read_only:
            self._check_keys()

    def _key(self, player: str) -> SeatKey:
        if not self.read_only:
            return seat_key(player, git_dir=self.repo.git_dir)
        held = existing_key(player, git_dir=self.repo.git_dir)
        if held is None:
            self._throwaway.add(player)
        return held or SeatKey.generate()

    @classmethod
    def open(cls, repo: Path, game_id=None, local_players=None, eager_push=True) -> GitSession:  # type: ignore[no-untyped-def]
        """Open a saved game (the same as calling the class; reads well at call sites)."""
        return cls(repo, game_id, local_players, eager_push)

    @property
    def remote(self) -> str | None:
        return self.exchange.remote

    @remote.setter
    def remote(self, url: str | None) -> None:
        self.exchange.remote = url

    @property
    def publish_url(self) -> str | None:
        return self.exchange.publish_url

    @property
    def networked(self) -> bool:
        return self.exchange.networked

    # --- reading -------------------------------------------------------------------------

    def _lead(self) -> Peer:
        """The local peer whose branch is furthest ahead (all local branches are one line)."""
        return max(self.peers.values(), key=lambda p: self.repo.depth(p.head or self.genesis))

    @property
    @_guarded
    def head(self) -> str:
        return self._lead().head or self.genesis

    @property
    @_guarded
    def committed_state(self) -> GameState:
        """The state at the newest local head, without answers that are not merged yet."""
        return self._lead().state

    @property
    @_guarded
    def state(self) -> GameState:
        """The state players see: the head plus verified answers of an open concurrent step."""
        return concurrent.with_answers(self.committed_state, self._answers())

    @_guarded
    def legal_actions(self, player: str | None = None) -> list[Action]:
        """The legal actions of ``player`` as it sees the game (its hidden cards included)."""
        return legal_actions(self.view(player) if player in self.peers else self.state, player)  # type: ignore[arg-type]

    @_guarded
    def refusal(self, action: Action) -> str | None:
        state, peer = self.state, self.peers.get(action.player)
        try:
            action = action if peer is None else peer.with_secrets(action, state)
        except IllegalAction as exc:
            return str(exc)
        return refusal(state, action)

    @_guarded
    def view(self, player: str) -> GameState:
        """The state as ``player`` sees it: a local seat reads its own hidden cards."""
        peer = self.peers.get(player)
        return self.state if peer is None else peer.view(self.state)

    @_guarded
    def history(self) -> list[LogEntry]:
        """Every recorded action from the genesis to the head, answers before their merge."""
        pending = [LogEntry(a.commit, a.player, a.action, str(a.action)) for a in self._answers()]
        return self._history.upto(self.head) + pending

    def _answers(self) -> list[Answer]:
        return self.answers.of(self._lead())

    @_guarded
    def waiting_since(self) -> int:
        """When the game began waiting on the next move, as peers count it for an
        ``abandon`` (the newest commit time on the head's line); cached per head."""
        if self._wait_start is None or self._wait_start[0] != self.head:
            self._wait_start = (self.head, liveness.wait_start(self.repo, self.head))
        return self._wait_start[1]

    @_guarded
    def take_rejected(self) -> dict[str, str]:
        """Rejections not reported yet (commit id -> reason), each handed out once."""
        return self.rejections.take()

    @property
    @_guarded
    def rejected(self) -> dict[str, str]:
        """Commits this session refused, with the reason (for the CLI and the client)."""
        return dict(self.rejections.reasons)

    # --- acting --------------------------------------------------------------------------

    def submit(self, action: Action) -> GameState:
        """Record ``action`` for a local seat; ``IllegalAction`` (nothing recorded) if illegal."""
        with self.lock:
            self._submit(action)
            state = self._follow_up()
        self._send()
        return state

    def _submit(self, action: Action) -> None:
        if self.read_only:
            raise UsageError("this session only reads the game; open it to play to record moves")
        if action != action.unresolved():
            raise IllegalAction(
                f"chance: {action} names its own outcome; dice, steals and draws are derived "
                "from the seed and the parent commit, submit the action without them"
            )
        peer = self.peers.get(action.player)
        if peer is None:
            raise IllegalAction(
                f"players: this session plays {', '.join(self.local_players)}, "
                f"not {action.player!r}"
            )
        peer.advance(self.head)
        opening = peer.head or self.genesis
        # What only this seat can add is filled in before the plan judges the action.
        action = peer.with_secrets(action, peer.state)
        plan = concurrent.plan_action(self.game_id, opening, peer.state, action, self._answers)
        if isinstance(plan, AnswerOnBranch):
            peer.record_answer(plan.ref, action)
            self.own_branches.add(plan.ref, opening)
            self.answers.changed()
            self._status.ahead += 1
            if not self._maybe_merge():
                self._push([plan.ref])
            return
        if isinstance(plan, MergeThenRecord):
            peer.record_merge(plan.kind, plan.answers)
        elif isinstance(plan, SettleThenRecord):
            self._maybe_merge()
            peer.advance(self.head)
        peer.record(action)
        self._after_own_commit(peer)

    def _follow_up(self) -> GameState:
        """Record what no one chooses (``sync.followup``), each local seat in its turn."""
        for _ in range(2 * len(self.players)):
            move = owed_move(self.state, self.peers, self._answers)
            if move is None:
                break
            self._submit(move)
        return self.state

    def _maybe_merge(self) -> bool:
        """The active seat, if local, merges a complete set of answers."""
        merge = concurrent.merge_due(self.committed_state, self.peers, self._answers)
        if merge is None:
            return False
        peer = self.peers[merge.merger]
        peer.advance(self.head)
        peer.record_merge(merge.kind, merge.answers)
        self._after_own_commit(peer)
        return True

    def _after_own_commit(self, peer: Peer) -> None:
        """Every other local seat verifies and fast-forwards; then push (when due)."""
        for other in self.peers.values():
            if other is not peer:
                other.advance(peer.head or self.genesis)
        self._cleanup_answers()
        state = self.state
        if self.eager_push or state.is_over or not set(actors(state)) <= set(self.peers):
            self._push([peer.ref])

    def _cleanup_answers(self) -> None:
        """Delete local seats' temporary branches whose step is over (merged or moot)."""
        done = self.own_branches.finish(self.head)
        if done:
            self.exchange.delete(done)
            self.answers.changed()

    def _claim_seats(self) -> None:
        """Claim the local seats still open in the lobby (each with its key, once)."""
        for p in self.local_players:
            state = self.state
            if state.lobby_open and not state.seats[state.players.index(p)]:
                self._submit(self.peers[p].claim_seat(self.publish_url))

    def _check_keys(self) -> None:
        """Refuse to play a seat whose claimed key is not the one this machine holds."""
        state = self.state
        for p in self.local_players:
            claimed = state.seats[state.players.index(p)] if state.seats else ""
            if claimed and claimed != self.keys[p].public:
                raise UsageError(
                    f"{p.capitalize()}'s seat in game {self.game_id} was claimed with another "
                    f"key than this machine's ({self.keys[p].public[:30]}...); pass --key "
                    "with the key that claimed it"
                )

    # --- exchanging (the ``exchange.Local`` the exchange asks) ---------------------------

    def _push(self, refs) -> None:  # type: ignore[no-untyped-def]
        """Push own refs (and ``refs``) at the next send; never from a read-only session."""
        if self.networked and not self.read_only:
            self.exchange.want_push(refs)

    def flush(self) -> None:
        """Push whatever own commits are not on the remote yet."""
        with self.lock:
            self._push(list(self.own_branches.openings))
        self._send()

    def sync(self) -> SyncStatus:
        """Fetch (when networked), verify and fast-forward, merge, push."""
        fetched, error = False, None
        if self.networked:
            sources = self._sources()
            error = Exchange.first_error(self.exchange.fetch(self, sources), len(sources))
            fetched = error is None
        with self.lock:
            status = self._sync_local(fetched, error)
        self._send()
        return status

    def _sync_local(self, fetched: bool, error: str | None) -> SyncStatus:
        status = self._status
        self.answers.changed()
        if fetched:
            status.last_fetch, status.error = time.time(), None
        elif error is not None:
            status.error = error  # keep the fetch error; pushing now would fail the same way
        heads = refpolicy.player_heads(self.repo, self.game_id, self.players)
        found = adopt(
            self.repo, self.game_id, heads, self.peers, self.rejections, not self.read_only
        )
        if not self.read_only:
            self._claim_seats()
            self._maybe_merge()
            self._follow_up()
        self._cleanup_answers()
        if self.networked and error is None:
            self._push(list(self.own_branches.openings))
        status.forks, status.behind = found.forks, found.behind
        self.checkpoint.note(self._lead().head)
        return status

    def _send(self) -> None:
        sent = self.exchange.send(self, self._sources)
        with self.lock:
            if sent.error is not None:
                self._status.error = sent.error
            elif sent.clean:
                self._status.ahead, self._status.error = 0, None

    @_guarded
    def _sources(self) -> tuple[Source, ...]:
        return self.exchange.sources(self._points())

    def _points(self) -> dict[str, str]:
        """Each seat's publication point: from the signed claims, else this machine's hints."""
        return self.exchange.points(self.head, self._claims)

    def _claims(self) -> list[ClaimSeat]:
        """The seat claims: the verified answers while the lobby is open, else merged."""
        if self._lead().state.lobby_open:
            return [a.action for a in self._answers() if isinstance(a.action, ClaimSeat)]
        if self._lobby_claims is None:
            self._lobby_claims = [a.action for a in merged_claims(self.repo, self.head)]  # type: ignore[misc]
        return self._lobby_claims

    def add_point(self, player: str, url: str) -> None:
        """Note where ``player`` publishes until its signed claim says so itself."""
        if player not in self.players or player in self.local_players:
            raise UsageError(
                f"--peer {player}=...: {player!r} is no other seat of game {self.game_id} "
                f"({', '.join(self.players)})"
            )
        with self.lock:
            self.exchange.add_point(player, url)

    def wanted(self, source: Source) -> tuple[list[str], list[str]]:
        logs = publish.logs_to_read(self.game_id, source, self.players)
        kind = concurrent.open_kind(self._lead().state)
        return logs, [] if kind is None else [answers_prefix(self.game_id, kind, self.head)]

    def own_refs(self) -> set[str]:
        return {p.ref for p in self.peers.values()} | set(self.own_branches.openings)

    def refused(self, oid: str) -> bool:
        return self.rejections.refused(oid) or not refpolicy.names_a_commit(self.repo, oid)

    def extends(self, old: str, new: str) -> bool:
        try:
            return liveness.extends(self.repo, old, new)
        except (StateFileError, KeyError, ValueError):
            return False

    def readopt(self) -> None:
        with self.lock:
            self._sync_local(True, None)
            self._push(())

    @_guarded
    def close(self) -> None:
        self.checkpoint.note(self._lead().head, now=True)
        self.repo.close()
