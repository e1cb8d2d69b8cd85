"""A running game recorded in Git: hot-seat (every seat here) or networked (one seat).

``GitSession`` keeps one ``Peer`` per local seat. Submitting an action first brings
the acting seat's branch up to date (verifying what others wrote), then records the
action as one commit. Discards and trade answers go to temporary branches; the
active seat merges them. With a remote, every sync is one fetch of the game's refs,
verification, fast-forward, merges, and a push of the local seats' own refs only.

One owner of the state: a session is shared by a window's thread and its sync thread
(client/syncer.py), so every public method holds the session's lock (``self.lock``, an
``RLock``) for all it reads or changes in memory: the peers, their verifiers' states,
the answer and history caches, the repository's caches and the sync status. Network
transfers run outside it (a fetch before, a push after), serialised by a second lock,
so a slow remote never stalls the window's reads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import wraps
from pathlib import Path

from catan_p2p.errors import (
    ForkError,
    IllegalAction,
    NotYetValid,
    RemoteError,
    StateFileError,
    UsageError,
    VerificationError,
)
from catan_p2p.rules.actions import Action, ClaimSeat, GiveCard, RevealDice, ShowSteal
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import GameState, Phase
from catan_p2p.rules.waiting import actors, owed_reveal
from catan_p2p.session.base import LogEntry, SyncStatus
from catan_p2p.session.keys import existing_key, seat_key
from catan_p2p.store.refs import (
    REMOTE,
    answers_prefix,
    fetched,
    game_prefix,
    parse_ref,
    player_ref,
    source_of,
    tracking_prefix,
    tracking_ref,
    well_formed,
)
from catan_p2p.sync import checkpoint, concurrent, liveness, publish, refpolicy, transport
from catan_p2p.sync.concurrent import Answer, AnswerOnBranch, MergeThenRecord, SettleThenRecord
from catan_p2p.sync.peer import Peer
from catan_p2p.sync.protocol import parse_action
from catan_p2p.sync.publish import Source
from catan_p2p.sync.repo import GameRepo
from catan_p2p.sync.seen import SeenLog
from catan_p2p.sync.signing import SeatKey
from catan_p2p.sync.verify import Verifier
from catan_p2p.trust.engine import refusal


def _guarded(method: Callable) -> Callable:
    """Run ``method`` holding the session's lock (see the module docstring)."""

    @wraps(method)
    def locked(self: GitSession, *args, **kwargs):  # type: ignore[no-untyped-def]
        with self.lock:
            return method(self, *args, **kwargs)

    return locked


#: Seconds between two saves of the verified head while syncing (and always at close).
CHECKPOINT_EVERY = 5.0


class GitSession:
    """The session of the seats ``local_players`` of game ``game_id`` in ``repo``."""

    def __init__(
        self,
        repo: Path | GameRepo,
        game_id: str | None = None,
        local_players: tuple[str, ...] | list[str] | None = None,
        eager_push: bool = True,
        keys: dict[str, SeatKey] | None = None,
        read_only: bool = False,
    ) -> None:
        """Open a game's session.

        Args:
            eager_push: push after every own commit (for people watching); when False,
                own commits are pushed once another peer may act (bots, benchmarks).
            keys: the local seats' signing keys (default: ``session.keys.seat_key``).
            read_only: only read the game (show, log, replay, bisect): no key is needed
                or made, a seat without one reads no hidden card, and nothing is recorded.

        Every commit of the game is verified from its derived genesis, the local
        branches included.
        """
        self.eager_push = eager_push
        self.lock = threading.RLock()  # guards everything in memory; see the module doc
        self._net = threading.Lock()  # one fetch or push at a time, outside ``lock``
        self._push_due = False
        self._push_extra: set[str] = set()
        self._history: tuple[str, list[LogEntry]] | None = None  # (head, entries to it)
        self.repo = repo if isinstance(repo, GameRepo) else GameRepo(Path(repo))
        self.game_id = self.repo.only_game(game_id)
        git_dir = self.repo.git_dir
        self.remote = None if git_dir is None else transport.remote_url(git_dir)
        #: Where this machine publishes its seats' refs besides the shared remote, and
        #: where it was told other seats publish (hints until their claims say so).
        self.publish_url = None if git_dir is None else transport.config(git_dir, "catan.publish")
        self._hints = {} if git_dir is None else transport.config_map(git_dir, "catan.point")
        self._seen: dict[str, dict[str, str | None]] = {}  # source -> own ref -> remote value
        self._points_memo: tuple[str, dict[str, str]] | None = None
        self._lobby_claims: list[concurrent.Answer] | None = None  # once the lobby closed
        if self.networked and not read_only:
            refpolicy.drop_junk(self.repo, self.game_id)  # fetched before this version
        heads = self._player_heads()
        if not heads:
            raise UsageError(f"game {self.game_id} has no player branches in {self.repo.path}")
        self.genesis = self.repo.genesis_of(self._anchor(heads, local_players))
        genesis_state, self.info = self.repo.open_genesis(self.genesis)
        self.players = genesis_state.players
        wanted = tuple(local_players) if local_players else self.players
        for p in wanted:
            if p not in self.players:
                raise UsageError(
                    f"{p!r} is not a player of game {self.game_id} ({', '.join(self.players)})"
                )
        self.local_players = wanted
        given = keys or {}
        self.read_only = read_only
        self._throwaway: set[str] = set()  # read-only seats this machine holds no key for
        self.keys = {p: given.get(p) or self._key(p, read_only) for p in wanted}
        verifier = Verifier(self.repo, self.info, self.genesis, genesis_state)
        self._checkpoint: str | None = self._resume(verifier)
        self._checkpoint_at = 0.0  # time.monotonic() of the last save
        self.peers = {
            p: Peer(self.repo, self.info, p, self.genesis, self.keys[p], verifier) for p in wanted
        }
        self._status = SyncStatus(peers=self.players)
        self._rejected: dict[str, str] = {}  # bad commit id -> reason
        self._reported: set[str] = set()  # rejections already handed out by take_rejected
        self._early: set[str] = set()  # rejected for now only: dated ahead of this clock
        self._wait_start: tuple[str, int] | None = None  # head -> waiting_since()
        self._first_sight = SeenLog(self.repo.git_dir, self.game_id)  # where the wait counts from
        # (answer, opening) -> verified answer or None: an answer is valid on its own
        # opening only, and a replayed one under a later opening must be checked again.
        self._answer_cache: dict[tuple[str, str], Answer | None] = {}
        self._version = 0  # bumped whenever refs may have changed (own writes, sync)
        self._answers_memo: tuple[tuple, list[Answer]] | None = None
        self._filled: tuple[tuple[str, Action], Action] | None = None  # see _with_secrets
        self._pending_deletes: list[str] = []
        # Own temporary answer branches (ref -> opening), to delete once their step is over.
        self._own_answers: dict[str, str] = {}
        for ref in self.repo.refs.list(game_prefix(self.game_id)):
            if not well_formed(ref, self.game_id):
                continue
            owner, kind, opening = parse_ref(ref, self.game_id)
            if kind is not None and owner in self.peers and opening is not None:
                self._own_answers[ref] = opening
        if not read_only:
            self._check_keys()

    def _key(self, player: str, read_only: bool) -> SeatKey:
        if not read_only:
            return seat_key(player, git_dir=self.repo.git_dir)
        # Reading needs no signature: a throw-away key stands in for a seat this
        # machine holds no key for (its view then shows no hidden card).
        held = existing_key(player, git_dir=self.repo.git_dir)
        if held is None:
            self._throwaway.add(player)
        return held or SeatKey.generate()

    def _checkpoint_seat(self) -> str | None:
        """The local seat whose key signs this machine's checkpoint (``sync.checkpoint``)."""
        if self.repo.git_dir is None:
            return None
        return next((p for p in self.local_players if p not in self._throwaway), None)

    def _resume(self, verifier: Verifier) -> str | None:
        """Trust the head an earlier process here verified (its checkpoint), if any."""
        seat = self._checkpoint_seat()
        if seat is None:
            return None
        oid = checkpoint.load(self.repo.git_dir, self.game_id, self.genesis, seat, self.keys[seat])
        if oid is None:
            return None
        try:
            state = self.repo.state_of(oid)[0]
        except (StateFileError, ValueError, KeyError):
            return None  # gone (a pruned or copied repository): verify from the genesis
        if verifier.tree_of(state) != self.repo.commit(oid).tree:
            return None
        verifier.trust(oid, state, pin=True)
        return oid

    def _note_checkpoint(self, now: bool = False) -> None:
        """Save the verified head for the next process when it moved: at close, and while
        syncing at most every ``CHECKPOINT_EVERY`` seconds (a save costs about 0.8 ms)."""
        seat = self._checkpoint_seat()
        head = self._lead().head
        if seat is None or head is None or head == self._checkpoint:
            return
        if not now and time.monotonic() - self._checkpoint_at < CHECKPOINT_EVERY:
            return
        self._checkpoint_at = time.monotonic()
        checkpoint.save(self.repo.git_dir, self.game_id, self.genesis, seat, self.keys[seat], head)
        self._checkpoint = head

    @classmethod
    def open(
        cls,
        repo: Path,
        game_id: str | None = None,
        local_players: tuple[str, ...] | list[str] | None = None,
        eager_push: bool = True,
    ) -> GitSession:
        """Open a saved game (the same as calling the class; reads well at call sites)."""
        return cls(repo, game_id, local_players, eager_push)

    # --- views ---------------------------------------------------------------------------

    def _player_heads(self) -> dict[str, str]:
        """Every known head of every player's log: local refs and fetched ones."""
        out = {}
        found = {**self.repo.refs.list(game_prefix(self.game_id)), **self._fetched()}
        for ref, oid in found.items():
            if not well_formed(ref, self.game_id):
                continue  # junk a plain remote let anyone push (see fetch)
            player, kind, _ = parse_ref(ref, self.game_id)
            seats = getattr(self, "players", None)  # None while the session opens
            if kind is None and (seats is None or player in seats):  # a seat's log
                out[ref] = oid
        return out

    def _fetched(self) -> dict[str, str]:
        """What was fetched from any source (also into an in-memory repository, by a
        test's own transport: the readers do not care how refs arrived)."""
        return fetched(self.repo.refs, self.game_id)

    @property
    def networked(self) -> bool:
        """Whether this session exchanges with any remote (shared, or publication points)."""
        return self.repo.git_dir is not None and (
            self.remote is not None or self.publish_url is not None or bool(self._hints)
        )

    def _anchor(self, heads: dict[str, str], local: tuple[str, ...] | list[str] | None) -> str:
        """The head whose genesis is this game's: a local seat's own branch before any
        fetched one (a fetched ref may come from anyone and start another history)."""
        own = [player_ref(self.game_id, p) for p in local or ()]
        for ref in [*own, *sorted(heads)]:
            if ref in heads and not ref.startswith("refs/remotes/"):
                return heads[ref]
        return next(iter(heads.values()))

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
        if player in self.peers:
            return legal_actions(self.view(player), player)
        return legal_actions(self.state, player)

    @_guarded
    def refusal(self, action: Action) -> str | None:
        state = self.state
        peer = self.peers.get(action.player)
        if peer is not None:
            try:
                if self._answers():  # the state with answers: not what _submit fills on
                    action = peer.with_secrets(action, state)
                else:
                    action = self._with_secrets(peer, action, state, self.head)
            except IllegalAction as exc:
                return str(exc)
        return refusal(state, action)

    def _with_secrets(self, peer: Peer, action: Action, state: GameState, head: str) -> Action:
        """``peer.with_secrets(action, state)`` for ``state``, the one at ``head``; the last
        one is kept, so the window's check and the submit after it fill them in once (a
        first settlement's shuffle takes a tenth of a second or more). The key is the head
        and the action: the secrets are a function of the two and of the seat's key."""
        if self._filled is not None and self._filled[0] == (head, action):
            return self._filled[1]
        filled = peer.with_secrets(action, state)
        self._filled = ((head, action), filled)
        return filled

    @_guarded
    def view(self, player: str) -> GameState:
        """The state as ``player`` sees it: a local seat reads its own hidden cards."""
        state = self.state
        peer = self.peers.get(player)
        return state if peer is None else peer.view(state)

    @_guarded
    def history(self) -> list[LogEntry]:
        """Every recorded action from the genesis to the head, answers before their merge.

        Incremental: the entries up to the last head asked for are kept, and only the
        commits since are read (a window asks after every new state).
        """
        head = self.head
        if self._history is not None and self.repo.is_ancestor(self._history[0], head):
            known, entries = self._history
            new = self.repo.first_parents(head, stop=known)
        else:
            entries, new = [], self.repo.first_parents(head)[:-1]  # the genesis is no action
        if new:
            entries = entries + self._entries(reversed(new))
            self._history = (head, entries)
        elif self._history is None:
            self._history = (head, entries)
        pending = [LogEntry(a.commit, a.player, a.action, str(a.action)) for a in self._answers()]
        return entries + pending

    def _entries(self, commits) -> list[LogEntry]:  # type: ignore[no-untyped-def]
        entries = []
        for oid in commits:
            c = self.repo.commit(oid)
            for answer in c.parents[1:]:
                ac = self.repo.commit(answer)
                entries.append(LogEntry(answer, ac.author, parse_action(ac), ac.summary))
            if len(c.parents) == 1:
                entries.append(LogEntry(oid, c.author, parse_action(c), c.summary))
        return entries

    # --- concurrent answers --------------------------------------------------------------

    def _answers(self) -> list[Answer]:
        """Verified answers on temporary branches off the current head, in seat order."""
        lead = self._lead()
        opening = lead.head or self.genesis
        memo_key = (opening, self._version)
        if self._answers_memo is not None and self._answers_memo[0] == memo_key:
            return self._answers_memo[1]
        answers = self._collect_answers(lead, opening)
        self._answers_memo = (memo_key, answers)
        return answers

    def _collect_answers(self, lead: Peer, opening: str) -> list[Answer]:
        kind = concurrent.open_kind(lead.state)
        if kind is None:
            return []
        found: dict[str, Answer] = {}
        names = sorted({source_of(r) for r in self._fetched()} - {None})
        for base in concurrent.answer_prefixes(self.game_id, kind, opening, names):
            for ref, oid in self.repo.refs.list(base).items():
                player = concurrent.answer_owner(ref)
                if player in found:
                    continue
                cached = self._answer_cache.get((oid, opening), ...)
                if cached is ...:
                    try:
                        action, _ = lead.verifier.verify_answer(oid, opening, kind)
                        cached = Answer(player, oid, action) if action.player == player else None
                    except (VerificationError, IllegalAction) as exc:
                        self._reject(oid, str(exc))
                        cached = None
                    self._answer_cache[oid, opening] = cached
                if cached is not None:
                    found[player] = cached
        return concurrent.in_seat_order(found.values(), self.players)

    def _maybe_merge(self) -> bool:
        """The active seat, if local, merges a complete set of discards."""
        merge = concurrent.merge_due(self.committed_state, self.peers, self._answers)
        if merge is None:
            return False
        peer = self.peers[merge.merger]
        peer.advance(self.head)
        peer.record_merge(merge.kind, merge.answers)
        self._after_own_commit(peer)
        return True

    # --- acting --------------------------------------------------------------------------

    def submit(self, action: Action) -> GameState:
        """Record ``action`` for a local seat; ``IllegalAction`` (nothing recorded) if illegal."""
        with self.lock:
            self._submit(action)
            state = self._follow_up()
        self._send()
        return state

    def _submit(self, action: Action) -> GameState:
        if self.read_only:
            raise UsageError("this session only reads the game; open it to play to record moves")
        player = action.player
        if action != action.unresolved():
            raise IllegalAction(
                f"chance: {action} names its own outcome; dice, steals and draws are derived "
                "from the seed and the parent commit, submit the action without them"
            )
        peer = self.peers.get(player)
        if peer is None:
            raise IllegalAction(
                f"players: this session plays {', '.join(self.local_players)}, not {player!r}"
            )
        head = self.head
        if peer.head != head:
            peer.advance(head)
        opening = peer.head or self.genesis
        # What only this seat can add (dice-chain element, shuffle, shares, card proofs)
        # is filled in before the plan judges the action; none of it changes with a merge.
        action = self._with_secrets(peer, action, peer.state, opening)  # record reuses it
        plan = concurrent.plan_action(self.game_id, opening, peer.state, action, self._answers)
        if isinstance(plan, AnswerOnBranch):
            peer.record_answer(plan.ref, action)
            self._own_answers[plan.ref] = opening
            self._version += 1
            self._status.ahead += 1
            if not self._maybe_merge():
                self._push([plan.ref])
            return self.state
        if isinstance(plan, MergeThenRecord):
            peer.record_merge(plan.kind, plan.answers)
        elif isinstance(plan, SettleThenRecord):
            self._maybe_merge()
            if peer.head != self.head:
                peer.advance(self.head)
        peer.record(action, filled_on=opening)  # filled again only if a merge moved the head
        self._after_own_commit(peer)
        return self.state

    def _follow_up(self) -> GameState:
        """Record what no one chooses: a win shown from hidden victory point cards, and
        the deck secrets once the game is over (each local seat in its turn)."""
        for _ in range(2 * len(self.players)):
            state = self.state
            owed = owed_reveal(state)
            if owed is not None:
                if owed not in self.peers:
                    break
                self._submit(self.peers[owed].reveal_deck())
                continue
            if state.is_over or state.lobby_open:
                break
            if state.phase is Phase.STEAL:  # a robbed local seat answers (it has no choice)
                victim = state.players[state.victim]
                if victim not in self.peers:
                    break
                self._submit(GiveCard(victim))
                continue
            if state.phase is Phase.DICE:  # a local seat before the roller gives the dice
                giver = state.players[state.current]
                if giver not in self.peers:
                    break
                self._submit(RevealDice(giver))
                continue
            if state.phase is Phase.MONOPOLY:  # so do robbed local seats for a monopoly
                given = {a.player for a in self._answers()}
                owing = [p for p in concurrent.owed_answers(state) if p in self.peers]
                owing = [p for p in owing if p not in given]
                if not owing:
                    break
                self._submit(ShowSteal(owing[0]))
                continue
            current = state.players[state.current]
            claim = None
            if current in self.peers and state.phase in (Phase.ROLL, Phase.MAIN):
                claim = self.peers[current].victory_claim(state)
            if claim is None:
                break
            self._submit(claim)
        return self.state

    def _after_own_commit(self, peer: Peer) -> None:
        """Hot-seat sync: every other local seat verifies and fast-forwards; then push."""
        head = peer.head or self.genesis
        for other in self.peers.values():
            if other is not peer:
                other.advance(head)
        self._cleanup_answers()
        if self.eager_push or not self._only_local_can_act():
            self._push([peer.ref])

    def _only_local_can_act(self) -> bool:
        """True while nobody but this session's seats can do anything (mid-turn)."""
        state = self.state
        return not state.is_over and set(actors(state)) <= set(self.peers)

    def flush(self) -> None:
        """Push whatever own commits are not on the remote yet."""
        with self.lock:
            self._push(list(self._own_answers))
        self._send()

    def _cleanup_answers(self) -> None:
        """Delete local seats' temporary branches whose step is over (merged or moot)."""
        head = self.head
        for ref, opening in list(self._own_answers.items()):
            if opening != head:
                self.repo.refs.delete(ref)
                del self._own_answers[ref]
                self._pending_deletes.append(ref)
                self._version += 1

    # --- sync ----------------------------------------------------------------------------

    def _push(self, refs: list[str]) -> None:
        """Ask for own refs (and ``refs``) to be pushed once the lock is released.

        A read-only session (a spectator, ``show``) never pushes: its branches are only
        its verified copies of the players' logs, and it may have no right to write.
        """
        if not self.networked or self.read_only:
            return
        self._push_due = True
        self._push_extra.update(refs)

    # Publication (protocol 6, ``sync.publish``): every remote is read, the own refs go
    # to the shared remote and the own publication point, over anything there that is
    # not a verified descendant, with a lease on the value seen.

    def _points(self) -> dict[str, str]:
        """Each seat's publication point: from the signed claims, else this machine's hints."""
        head = self._lead().head if hasattr(self, "peers") else None
        key = head or self.genesis
        if self._points_memo is None or self._points_memo[0] != key:
            claims = [a.action for a in self._claims()]
            points = {**self._hints, **publish.claimed_points(claims)}
            if self.publish_url is not None:
                for p in self.local_players:
                    points.setdefault(p, self.publish_url)
            self._points_memo = (key, points)
        return self._points_memo[1]

    def add_point(self, player: str, url: str) -> None:
        """Note where ``player`` publishes (a hint, kept in the repository's config) until
        its signed claim says so itself."""
        if player not in self.players or player in self.local_players:
            raise UsageError(
                f"--peer {player}=...: {player!r} is no other seat of game {self.game_id} "
                f"({', '.join(self.players)})"
            )
        if url.startswith("-") or not url.strip():
            raise UsageError(f"--peer {player}={url!r}: not a Git URL")
        with self.lock:
            transport.set_config(self.repo.git_dir, f"catan.point.{player}", url)
            self._hints[player] = url
            self._points_memo = None

    def _claims(self) -> list[concurrent.Answer]:
        """The seat claims: merged ones (the lobby's merge), else the verified answers."""
        if not hasattr(self, "peers"):
            return []
        state = self._lead().state
        if state.lobby_open:
            return [a for a in self._answers() if isinstance(a.action, ClaimSeat)]
        if self._lobby_claims is None:
            self._lobby_claims = self._merged_claims(self._lead().head or self.genesis)
        return self._lobby_claims

    def _merged_claims(self, head: str) -> list[concurrent.Answer]:
        """The claims the lobby's merge joined: the merge is the genesis's child on the
        head's first-parent line, and its other parents are the claims."""
        line = self.repo.first_parents(head)
        if len(line) < 2:
            return []
        merge = self.repo.commit(line[-2])
        out = []
        for oid in merge.parents[1:]:
            action = parse_action(self.repo.commit(oid))
            if isinstance(action, ClaimSeat):
                out.append(concurrent.Answer(action.player, oid, action))
        return out

    def _sources(self) -> tuple[Source, ...]:
        if not self.networked:
            return ()
        return publish.sources(self.remote, self._points(), self.local_players)

    def _wanted(self, source: Source) -> tuple[list[str], list[str]]:
        """The logs and open-step prefixes to fetch from ``source``."""
        logs = publish.logs_to_read(self.game_id, source, self.players)
        state = self._lead().state
        kind = concurrent.open_kind(state)
        steps = []
        if kind is not None:
            steps.append(answers_prefix(self.game_id, kind, self._lead().head or self.genesis))
        return logs, steps

    def _fetch_all(self) -> str | None:
        """Fetch every source at once (one thread each); the first error, or None."""
        with self.lock:
            plans = [(src, *self._wanted(src)) for src in self._sources()]
        errors: dict[str, str] = {}

        missing: dict[str, frozenset[str]] = {}

        def one(src: Source, logs: list[str], steps: list[str]) -> None:
            try:
                missing[src.name] = self._fetch_from(src, logs, steps)
            except RemoteError as exc:
                errors[src.name] = str(exc)

        threads = [threading.Thread(target=one, args=plan, daemon=True) for plan in plans[1:]]
        for t in threads:
            t.start()
        if plans:
            one(*plans[0])
        for t in threads:
            t.join()
        with self.lock:
            for src, logs, steps in plans:
                if src.name not in errors:
                    self._note_fetched(src, [r for r in logs if r not in missing[src.name]], steps)
        if len(errors) == len(plans) and plans:
            return next(iter(errors.values()))
        shared = errors.get(REMOTE)
        return shared  # a seat's point down is not this peer's error: others relay

    def _fetch_from(self, src: Source, logs: list[str], steps: list[str]) -> frozenset[str]:
        """One fetch from ``src`` (outside the lock); the logs it does not hold."""
        url = None if src.name == REMOTE else src.url
        return transport.fetch(self.repo.git_dir, self.game_id, logs, steps, src.name, url)

    def _note_fetched(self, src: Source, logs: list[str], steps: list[str]) -> None:
        """Remember what ``src`` holds of the own refs, then drop fetched refs the game
        does not need (old steps, and junk of any shape: ``sync.refpolicy``)."""
        prefix = tracking_prefix(self.game_id, src.name)
        there = self.repo.refs.list(prefix)
        keep = {tracking_ref(r, src.name) for r in logs}
        bases = [tracking_ref(s, src.name) + "/" for s in steps]

        def wanted(ref: str) -> bool:
            return ref in keep or any(ref.startswith(b) for b in bases)

        own = {p.ref for p in self.peers.values()} | set(self._own_answers)
        self._seen[src.name] = {
            r: there.get(t) if wanted(t := tracking_ref(r, src.name)) else None for r in own
        }
        for ref, oid in there.items():
            if not wanted(ref) or refpolicy.is_junk(self.repo, ref, oid, self.game_id):
                refpolicy.forget(self.repo, ref, oid)
        self._version += 1

    def _refused(self, oid: str) -> bool:
        """A value no honest peer would publish: not a commit, or refused by verification."""
        if oid in self._rejected and oid not in self._early:
            return True
        return not refpolicy.names_a_commit(self.repo, oid)

    def _is_ancestor(self, old: str, new: str) -> bool:
        """Whether a branch at ``old`` may move to ``new`` (``liveness.extends``)."""
        try:
            return liveness.extends(self.repo, old, new)
        except (StateFileError, KeyError, ValueError):
            return False

    def _send(self) -> None:
        """Push what ``_push`` asked for to every own destination, planned and booked
        under the lock, sent outside. A lease the remote refused (it moved since it was
        seen) is fetched again and the push planned anew, a few times at most."""
        if not self.networked:
            return
        with self._net:
            for _ in range(3):
                stale = self._send_once()
                if not stale:
                    return
                for src in stale:  # fetch what moved, adopt it if it verifies, decide again
                    with self.lock:
                        logs, steps = self._wanted(src)
                    try:
                        gone = self._fetch_from(src, logs, steps)
                    except RemoteError as exc:
                        with self.lock:
                            self._status.error = str(exc)
                        return
                    with self.lock:
                        self._note_fetched(src, [r for r in logs if r not in gone], steps)
                with self.lock:
                    self._sync_local(True, None)
                    self._push_due = True

    def _send_once(self) -> list[Source]:
        with self.lock:
            if not self._push_due:
                return []
            self._push_due = False
            wanted = self._push_extra | {p.ref for p in self.peers.values()}
            self._push_extra = set()
            own = {ref: oid for ref in wanted if (oid := self.repo.refs.get(ref))}
            deletes = list(self._pending_deletes)
            plans, forked = [], []
            for src in self._sources():
                if not src.mine:
                    continue
                seen = self._seen.get(src.name)
                if seen is None:  # not fetched yet: a plain push, which never overwrites
                    plan = publish.Push(tuple(sorted(own)), {})
                else:
                    plan = publish.plan_push(own, seen, self._is_ancestor, self._refused)
                if plan.updates or deletes:
                    plans.append((src, plan))
                for ref in plan.forked:
                    forked.append(
                        f"cannot push to the remote (it holds a different history for "
                        f"{ref}, signed by that seat: another device plays it); stop one "
                        "of them"
                    )
            git_dir = self.repo.git_dir
        stale: list[Source] = []
        errors = list(forked)
        for src, plan in plans:
            target = REMOTE if src.name == REMOTE else src.url
            try:
                moved = transport.push(git_dir, plan.updates, deletes, plan.leases, target)
            except RemoteError as exc:
                errors.append(str(exc))
                continue
            with self.lock:
                seen = self._seen.setdefault(src.name, {})
                for ref in plan.updates:
                    if ref not in moved:
                        seen[ref] = own[ref]
                for ref in deletes:
                    seen.pop(ref, None)
            if moved:
                stale.append(src)
        with self.lock:
            if errors:
                self._status.error = errors[0]
                self._push_due = True  # tried again at the next sync
                return []
            self._pending_deletes = [d for d in self._pending_deletes if d not in deletes]
            if not stale:
                self._status.ahead = 0
                self._status.error = None
        return stale

    def _reject(self, oid: str, reason: str) -> None:
        """Note ``oid`` as refused: one line of at most 300 characters (a hostile commit
        may make a rule's sentence as long as it likes, e.g. with 300 parents)."""
        line = " ".join(reason.split())
        self._rejected[oid] = line if len(line) <= 280 else line[:279] + "…"

    def sync(self) -> SyncStatus:
        """Fetch (when networked), verify and fast-forward, merge, push."""
        fetched_ok, error = False, None
        if self.networked:
            with self._net:  # outside the session's lock: the window keeps reading
                error = self._fetch_all()
                fetched_ok = error is None
        with self.lock:
            status = self._sync_local(fetched_ok, error)
        self._send()
        return status

    def _sync_local(self, fetched: bool, error: str | None) -> SyncStatus:
        status = self._status
        self._version += 1
        reachable = self.networked and error is None
        if fetched:
            status.last_fetch = time.time()
            status.error = None
        elif error is not None:
            status.error = error  # keep the fetch error; pushing now would fail the same way
        forks = []
        behind = 0
        for ref, oid in self._abandoned_first(self._player_heads()):
            if oid in self._rejected and oid not in self._early:
                continue
            for peer in self.peers.values():
                try:
                    peer.advance(oid)
                except ForkError as exc:
                    if not self._close_if_abandoned(peer, oid):
                        forks.append(f"{ref}: {exc}")
                except (VerificationError, IllegalAction) as exc:
                    self._reject(oid, str(exc))
                    if isinstance(exc, NotYetValid):
                        self._early.add(oid)  # tried again at every sync until its time
                    behind += 1
                    break
            else:
                if oid in self._early:  # its time has come: no longer a rejection
                    self._early.discard(oid)
                    self._rejected.pop(oid, None)
                    self._reported.discard(oid)
        if not self.read_only:
            self._claim_seats()
            self._maybe_merge()
            self._follow_up()
        self._cleanup_answers()
        if reachable:
            self._push(list(self._own_answers))
        status.forks = tuple(sorted(set(forks)))
        status.behind = behind
        self._note_checkpoint()
        self._first_sight.first_seen(self.head)
        return status

    def _abandoned_first(self, heads: dict[str, str]) -> list[tuple[str, str]]:
        """Player heads in ref order, those of an abandoned game first: when the absent
        player's late moves and an abandon both arrive, the abandon is taken."""

        def abandoned(oid: str) -> bool:
            try:
                return self._lead().verifier.verify(oid).abandoned >= 0
            except (VerificationError, IllegalAction, StateFileError):
                return False

        return sorted(heads.items(), key=lambda kv: (not abandoned(kv[1]), kv[0]))

    def _close_if_abandoned(self, peer: Peer, oid: str) -> bool:
        """Join an abandoned game's line and the absent player's late moves with the
        closing merge (``sync.liveness``); False for any other fork."""
        if self.read_only:
            return False
        head = peer.head or self.genesis
        try:
            close = liveness.closing(self.repo, peer.verifier.verify, head, oid)
            if close is None:
                return False
            peer.verifier.verify(close.late)
        except (VerificationError, IllegalAction, StateFileError):
            return False
        peer.record_close(close)
        for other in self.peers.values():
            if other is not peer:
                other.advance(peer.head)  # type: ignore[arg-type]
        return True

    def _claim_seats(self) -> None:
        """Claim the local seats still open in the lobby (each with its key, once)."""
        state = self.state
        if not state.lobby_open:
            return
        for p in self.local_players:
            if not state.seats[state.players.index(p)]:
                self._submit(self.peers[p].claim_seat(self.publish_url))
                state = self.state

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

    @_guarded
    def waiting_since(self) -> int:
        """When the game began waiting on the next move, as this peer counts it for an
        ``abandon``: when it first saw the head (``liveness.waiting_since``); cached."""
        head = self.head
        if self._wait_start is None or self._wait_start[0] != head:
            since = liveness.waiting_since(self.repo, head, self._first_sight.first_seen(head))
            self._wait_start = (head, since)
        return self._wait_start[1]

    @_guarded
    def take_rejected(self) -> dict[str, str]:
        """Rejections not reported yet, each handed out once (commit id -> reason).

        The commits stay known as bad, so they are not verified again.
        """
        fresh = {oid: r for oid, r in self._rejected.items() if oid not in self._reported}
        self._reported.update(fresh)
        return fresh

    @property
    @_guarded
    def rejected(self) -> dict[str, str]:
        """Commits this session refused, with the reason (for the CLI and the client)."""
        return dict(self._rejected)

    @_guarded
    def close(self) -> None:
        self._note_checkpoint(now=True)
        self.repo.close()
