"""A running game recorded in Git: hot-seat (every seat here) or networked (one seat).

``GitSession`` keeps one ``Peer`` per local seat. Submitting an action first brings
the acting seat's branch up to date (verifying what others wrote), then records the
action as one commit. Discards and trade answers go to temporary branches; the
active seat merges them. With a remote, every sync is one fetch of the game's refs,
verification, fast-forward, merges, and a push of the local seats' own refs only.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from catan_p2p.errors import (
    ForkError,
    IllegalAction,
    RemoteError,
    UsageError,
    VerificationError,
)
from catan_p2p.rules.actions import Action, ClaimSeat
from catan_p2p.rules.board import STANDARD_BOARD, Board
from catan_p2p.rules.engine import actors, legal_actions
from catan_p2p.rules.state import GameState
from catan_p2p.session.base import LogEntry, SyncStatus
from catan_p2p.session.keys import remember, seat_key
from catan_p2p.store.codec import BANK
from catan_p2p.store.refs import check_name, game_prefix, parse_ref, player_ref
from catan_p2p.sync import concurrent, transport
from catan_p2p.sync.concurrent import Answer, AnswerOnBranch, MergeThenRecord, SettleThenRecord
from catan_p2p.sync.genesis import check_declared, initial_state
from catan_p2p.sync.peer import Peer
from catan_p2p.sync.protocol import GenesisInfo, genesis_message, parse_action
from catan_p2p.sync.repo import GameRepo, init_repo
from catan_p2p.sync.signing import SeatKey
from catan_p2p.sync.verify import Verifier


def new_game_id() -> str:
    return "g" + os.urandom(4).hex()


def write_genesis(
    repo: GameRepo, declared: GenesisInfo, board: Board, when: int | None = None
) -> str:
    """Write the genesis commit ``declared`` describes on ``board``; returns its id."""
    state, info = initial_state(declared, board)
    tree = repo.writer(info).write(state)
    return repo.write_commit(tree, [], declared.players[0], genesis_message(declared), when=when)


def create_game(
    repo: Path,
    players: list[str] | tuple[str, ...],
    board: Board = STANDARD_BOARD,
    seed: str | None = None,
    game_id: str | None = None,
    victory_points: int = 10,
    local: tuple[str, ...] | None = None,
    keys: dict[str, SeatKey] | None = None,
) -> str:
    """Write a game's genesis, claim the seats played here, and return the game id.

    Args:
        local: the seats this repository plays (default: all, hot-seat). Each claims
            its seat with its key; when every seat is local the first player merges the
            claims at once and set-up can start, else the others claim theirs with
            ``join`` and the first player's next sync merges them.
        keys: signing keys by player (default: ``session.keys.seat_key``).
    """
    players = tuple(check_name("player", p) for p in players)
    if BANK in players:
        raise UsageError(
            f"{BANK!r} cannot be a player's name, turn.json lists the bank's cards "
            "under it; choose another name"
        )
    game = check_name("game id", game_id or new_game_id())
    seed = seed if seed is not None else os.urandom(8).hex()
    declared = GenesisInfo(game, players, seed, victory_points)
    try:
        check_declared(declared)
    except ValueError as exc:
        raise UsageError(f"{exc}; choose other --players") from None
    path = Path(repo)
    try:
        game_repo = GameRepo(path)
    except UsageError:
        init_repo(path)
        game_repo = GameRepo(path)
    if game in game_repo.games():
        raise UsageError(f"{path} already holds a game {game!r}; choose another --game id")
    oid = write_genesis(game_repo, declared, board)
    seats = players if local is None else local
    for p in seats:
        game_repo.refs.set(player_ref(game, p), oid, None)
    session = GitSession(path, game, seats, keys=keys)
    try:
        session.sync()  # claims the local seats, and merges the claims when all are in
    finally:
        session.close()
    return game


class GitSession:
    """The session of the seats ``local_players`` of game ``game_id`` in ``repo``."""

    def __init__(
        self,
        repo: Path,
        game_id: str | None = None,
        local_players: tuple[str, ...] | list[str] | None = None,
        eager_push: bool = True,
        keys: dict[str, SeatKey] | None = None,
    ) -> None:
        """Open a game's session.

        Args:
            eager_push: push after every own commit (for people watching); when False,
                own commits are pushed once another peer may act (bots, benchmarks).
            keys: the local seats' signing keys (default: ``session.keys.seat_key``).

        Every commit of the game is verified from its derived genesis, the local
        branches included.
        """
        self.eager_push = eager_push
        self.repo = GameRepo(Path(repo))
        self.game_id = self.repo.only_game(game_id)
        self.remote = transport.remote_url(self.repo.git_dir)
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
        self.keys = {p: given.get(p) or seat_key(p, git_dir=self.repo.git_dir) for p in wanted}
        verifier = Verifier(self.repo, self.info, self.genesis, genesis_state)
        self.peers = {
            p: Peer(self.repo, self.info, p, self.genesis, self.keys[p], verifier) for p in wanted
        }
        self._status = SyncStatus(peers=self.players)
        self._rejected: dict[str, str] = {}  # bad commit id -> reason
        self._reported: set[str] = set()  # rejections already handed out by take_rejected
        self._answer_cache: dict[str, Answer | None] = {}
        self._version = 0  # bumped whenever refs may have changed (own writes, sync)
        self._answers_memo: tuple[tuple, list[Answer]] | None = None
        self._pending_deletes: list[str] = []
        self._pushed: dict[str, str | None] = {}  # own refs as last pushed
        # Own temporary answer branches (ref -> opening), to delete once their step is over.
        self._own_answers: dict[str, str] = {}
        for ref in self.repo.refs.list(game_prefix(self.game_id)):
            owner, kind, opening = parse_ref(ref, self.game_id)
            if kind is not None and owner in self.peers and opening is not None:
                self._own_answers[ref] = opening
        self._check_keys()

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
        for prefix in (game_prefix(self.game_id), transport.tracking_prefix(self.game_id)):
            for ref, oid in self.repo.refs.list(prefix).items():
                rest = ref[len(prefix) + 1 :]
                if "/" not in rest:
                    out[ref] = oid
        return out

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
    def head(self) -> str:
        return self._lead().head or self.genesis

    @property
    def committed_state(self) -> GameState:
        """The state at the newest local head, without answers that are not merged yet."""
        return self._lead().state

    @property
    def state(self) -> GameState:
        """The state players see: the head plus verified answers of an open concurrent step."""
        return concurrent.with_answers(self.committed_state, self._answers())

    def legal_actions(self, player: str | None = None) -> list[Action]:
        return legal_actions(self.state, player)

    def history(self) -> list[LogEntry]:
        """Every recorded action from the genesis to the head, answers before their merge."""
        entries: list[LogEntry] = []
        for oid in reversed(self.repo.first_parents(self.head)[:-1]):
            c = self.repo.commit(oid)
            for answer in c.parents[1:]:
                ac = self.repo.commit(answer)
                act = parse_action(ac)
                entries.append(LogEntry(answer, ac.author, act, ac.summary))
            if len(c.parents) == 1:
                entries.append(LogEntry(oid, c.author, parse_action(c), c.summary))
        for a in self._answers():
            entries.append(LogEntry(a.commit, a.player, a.action, str(a.action)))
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
        for base in concurrent.answer_prefixes(self.game_id, kind, opening):
            for ref, oid in self.repo.refs.list(base).items():
                player = concurrent.answer_owner(ref)
                if player in found:
                    continue
                cached = self._answer_cache.get(oid, ...)
                if cached is ...:
                    try:
                        action, _ = lead.verifier.verify_answer(oid, opening, kind)
                        cached = Answer(player, oid, action) if action.player == player else None
                    except (VerificationError, IllegalAction) as exc:
                        self._reject(oid, str(exc))
                        cached = None
                    self._answer_cache[oid] = cached
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
        action = peer.with_reveal(action, peer.state)
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
        peer.record(action)
        self._after_own_commit(peer)
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
        self._push(list(self._own_answers))

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
        if self.remote is None:
            return
        wanted = set(refs) | {p.ref for p in self.peers.values()}
        values = {ref: self.repo.refs.get(ref) for ref in wanted}
        updates = sorted(r for r, oid in values.items() if oid and self._pushed.get(r) != oid)
        deletes = self._pending_deletes
        if not updates and not deletes:
            return  # the remote already has every own ref as it is here
        try:
            transport.push(self.repo.git_dir, updates, deletes)
            self._pushed.update({r: values[r] for r in updates})
            self._pending_deletes = []
            self._status.ahead = 0
            self._status.error = None
        except RemoteError as exc:
            self._status.error = str(exc)

    def _reject(self, oid: str, reason: str) -> None:
        self._rejected[oid] = reason

    def sync(self) -> SyncStatus:
        """Fetch (when networked), verify and fast-forward, merge, push."""
        status = self._status
        self._version += 1
        reachable = self.remote is not None
        if self.remote is not None:
            try:
                transport.fetch(self.repo.git_dir, self.game_id)
                status.last_fetch = time.time()
                status.error = None
            except RemoteError as exc:
                status.error = str(exc)
                reachable = False  # keep the fetch error; pushing now would fail the same way
        forks = []
        behind = 0
        for ref, oid in sorted(self._player_heads().items()):
            if oid in self._rejected:
                continue
            for peer in self.peers.values():
                try:
                    peer.advance(oid)
                except ForkError as exc:
                    forks.append(f"{ref}: {exc}")
                except (VerificationError, IllegalAction) as exc:
                    self._reject(oid, str(exc))
                    behind += 1
                    break
        self._claim_seats()
        self._maybe_merge()
        self._cleanup_answers()
        if reachable:
            self._repush_if_lost()
            self._push(list(self._own_answers))
        status.forks = tuple(sorted(set(forks)))
        status.behind = behind
        return status

    def _claim_seats(self) -> None:
        """Claim the local seats still open in the lobby (each with its key, once)."""
        state = self.state
        if not state.lobby_open:
            return
        for p in self.local_players:
            if not state.seats[state.players.index(p)]:
                self.submit(ClaimSeat(p, self.keys[p].public, self.peers[p].dice_anchor()))
                state = self.state

    def _repush_if_lost(self) -> None:
        """Push own refs again when the remote's copy is not what this peer last pushed.

        Someone with write access may delete or roll back a player's ref on a remote;
        the owner's running peer puts it back (a forward push, never a forced one).
        """
        for peer in self.peers.values():
            pushed = self._pushed.get(peer.ref)
            if pushed is not None:
                if self.repo.refs.get(transport.tracking_ref(peer.ref)) != pushed:
                    self._pushed.pop(peer.ref, None)

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

    def take_rejected(self) -> dict[str, str]:
        """Rejections not reported yet, each handed out once (commit id -> reason).

        The commits stay known as bad, so they are not verified again.
        """
        fresh = {oid: r for oid, r in self._rejected.items() if oid not in self._reported}
        self._reported.update(fresh)
        return fresh

    @property
    def rejected(self) -> dict[str, str]:
        """Commits this session refused, with the reason (for the CLI and the client)."""
        return dict(self._rejected)

    def close(self) -> None:
        self.repo.close()


def join_game(
    url: str, repo: Path, game_id: str, player: str, key_path: Path | None = None
) -> GitSession:
    """Fetch ``game_id`` from ``url`` into ``repo`` and claim the seat ``player``.

    Nothing fetched is adopted unverified: the genesis is derived from what it declares,
    and the own branch starts there and moves only through verified commits (the
    remote's copy of it included).
    """
    path = Path(repo)
    try:
        game_repo = GameRepo(path)
    except UsageError:
        init_repo(path)
        game_repo = GameRepo(path)
    key = seat_key(player, key_path, game_repo.git_dir)
    transport.set_remote(game_repo.git_dir, url)
    transport.fetch(game_repo.git_dir, game_id)
    tracked = game_repo.refs.list(transport.tracking_prefix(game_id))
    if not tracked:
        raise UsageError(f"the remote {url} has no game {game_id!r}; check the id with its creator")
    roots = sorted({game_repo.genesis_of(oid) for oid in tracked.values()})
    if len(roots) != 1:
        raise VerificationError(
            f"the remote {url} holds {len(roots)} different starts of game {game_id} "
            f"({', '.join(r[:10] for r in roots)}); ask its creator which one is the game"
        )
    genesis = roots[0]
    state, _ = game_repo.open_genesis(genesis)
    if player not in state.players:
        raise UsageError(f"{player!r} is not a seat of game {game_id} ({', '.join(state.players)})")
    mine = player_ref(game_id, player)
    if game_repo.refs.get(mine) is None:
        game_repo.refs.set(mine, genesis, None)
    if key_path is not None:
        remember(game_repo.git_dir, player, key_path)
    session = GitSession(path, game_id, (player,), keys={player: key})
    session.sync()
    return session
