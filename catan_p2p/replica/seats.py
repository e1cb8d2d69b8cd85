"""The local seats of one game as one replica: what they see and what they record.

A process plays some seats of a game (all of them in hot-seat, one in a networked
game), one ``Peer`` each; their branches are one line. ``Seats`` is the protocol
decisions about them, with no transfer and no thread: the state they see (the head plus
the verified answers of an open concurrent step), where an action goes
(``concurrent.plan_action``), the merge that is due, the moves nobody chooses
(``followup``), adopting every head peers offer (``adopt``), and their own answer
branches. The session tells it what to do and is told, through ``on_commit`` and
``on_answer``, what to publish.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from catan_p2p import clock
from catan_p2p.errors import ForkError, IllegalAction, StateFileError, UsageError
from catan_p2p.protocol import concurrent, liveness, publish, refpolicy
from catan_p2p.protocol.concurrent import Answer, AnswerOnBranch, MergeThenRecord, SettleThenRecord
from catan_p2p.protocol.genesis import genesis_of, open_genesis
from catan_p2p.protocol.publish import Source
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.protocol.verify import Verifier
from catan_p2p.replica.adopt import Adopted, adopt
from catan_p2p.replica.answers import AnswerBook, OwnBranches, merged_claims
from catan_p2p.replica.followup import owed_move
from catan_p2p.replica.peer import Peer
from catan_p2p.replica.rejections import Rejections
from catan_p2p.rules.actions import Action, ClaimSeat
from catan_p2p.rules.state import GameState
from catan_p2p.rules.waiting import actors
from catan_p2p.store.codec import GameInfo
from catan_p2p.store.refnames import answers_prefix
from catan_p2p.store.repo import Repository
from catan_p2p.trust.engine import refusal


def _nothing(ref: str, *more: object) -> None:
    pass


def game_start(
    repo: Repository, game: str, local: Sequence[str] = ()
) -> tuple[str, GameState, GameInfo]:
    """The derived start of ``game`` (genesis id, its state and the game's info), found
    from a ``local`` seat's own branch before any fetched one.

    Raises:
        UsageError: the game has no seat's log here, or ``local`` names no seat of it.
    """
    heads = refpolicy.player_heads(repo, game)
    if not heads:
        raise UsageError(f"game {game} has no player branches in {repo.path}")
    genesis = genesis_of(repo, refpolicy.anchor(heads, game, local))
    state, info = open_genesis(repo, genesis)
    for p in local:
        if p not in state.players:
            raise UsageError(f"{p!r} is not a player of game {game} ({', '.join(state.players)})")
    return genesis, state, info


class Seats:
    """The ``peers`` (seat -> ``Peer``, sharing one verifier) of ``game`` in ``repo``.

    ``on_commit(ref)`` is told of every own commit on a log, ``on_answer(ref, merged)`` of
    every own answer branch (``merged``: the answer completed a step that was merged).
    """

    def __init__(
        self,
        repo: Repository,
        game: str,
        players: tuple[str, ...],
        peers: Mapping[str, Peer],
        on_commit: Callable[[str], None] = _nothing,
        on_answer: Callable[[str, bool], None] = _nothing,
    ) -> None:
        self.repo, self.game, self.players = repo, game, players
        self.peers = dict(peers)
        self.genesis = next(iter(self.peers.values())).genesis
        self.rejections = Rejections()
        self.answers = AnswerBook(repo, game, players, self.rejections)
        self.branches = OwnBranches(repo, game, self.peers)
        self.on_commit, self.on_answer = on_commit, on_answer
        self.deleted: list[str] = []  # finished answer branches, for the remotes to lose
        self._claims: list[ClaimSeat] | None = None  # the merged claims, once the lobby closed
        self._lead: tuple[tuple[str | None, ...], Peer] | None = None  # see lead

    @classmethod
    def open(
        cls,
        repo: Repository,
        start: tuple[str, GameState, GameInfo],
        keys: Mapping[str, SeatKey],
        resume: Callable[[Verifier], object] = _nothing,
        on_commit: Callable[[str], None] = _nothing,
        on_answer: Callable[[str, bool], None] = _nothing,
        playing: bool = True,
    ) -> Seats:
        """The seats of ``keys`` from the game's ``start`` (``game_start``); ``resume``
        may let the shared verifier trust a checkpoint before the branches are verified.
        Seats ``playing`` are lined up (``line_up``); reading ones record nothing, so no
        ref is moved on opening."""
        genesis, state, info = start
        verifier = Verifier(repo, info, genesis, state, clock=clock.now)
        resume(verifier)
        peers = {p: Peer(repo, info, p, genesis, key, verifier) for p, key in keys.items()}
        seats = cls(repo, info.game, state.players, peers, on_commit, on_answer)
        if playing:
            seats.line_up()
        return seats

    def line_up(self) -> None:
        """Bring every seat to the one furthest ahead, before any records: a process
        stopped after one seat moved its branch and before the others followed left them
        behind. From here on they move together (``_committed``, ``adopt``); a seat apart
        from the lead is a fork, which ``adopt`` reports, and records nothing (``_at_head``)."""
        lead = self.lead().head
        if lead is None:
            return
        for peer in self.peers.values():
            try:
                peer.advance(lead)
            except ForkError:
                pass

    def _at_head(self, peer: Peer) -> None:
        """Refuse to write for a seat whose branch is not at the head: its commit would
        fork its own branch off the game the other local seats hold."""
        if peer.head != self.lead().head:
            at = (peer.head or self.genesis)[:10]
            raise ForkError(
                f"fork: {peer.player.capitalize()}'s branch is at {at}, apart from the game's "
                f"head {self.head[:10]}; nothing was recorded (sync reports the fork)"
            )

    # --- what they see -------------------------------------------------------------------

    def lead(self) -> Peer:
        """The peer whose branch is furthest ahead (all local branches are one line);
        kept while no head moves (it is asked several times per action)."""
        heads = tuple(p.head for p in self.peers.values())
        if self._lead is None or self._lead[0] != heads:
            lead = max(self.peers.values(), key=lambda p: self.repo.depth(p.head or self.genesis))
            self._lead = (heads, lead)
        return self._lead[1]

    @property
    def head(self) -> str:
        return self.lead().head or self.genesis

    def open_answers(self) -> list[Answer]:
        """The verified answers of the open step off the head, in seat order."""
        return self.answers.of(self.lead())

    @property
    def state(self) -> GameState:
        """The head's state plus the open step's verified answers."""
        return concurrent.with_answers(self.lead().state, self.open_answers())

    def view(self, player: str) -> GameState:
        """The state as ``player`` sees it: a local seat reads its own hidden cards."""
        peer = self.peers.get(player)
        return self.state if peer is None else peer.view(self.state)

    def refusal(self, action: Action) -> str | None:
        """Why ``action`` would be refused now, judged as it would be recorded: with what
        only its seat adds (dice-chain element, shuffle, shares, card proofs)."""
        state, peer = self.state, self.peers.get(action.player)
        try:
            if peer is not None and self.open_answers():  # not the state record fills on
                action = peer.with_secrets(action, state)
            elif peer is not None:
                action = peer.filled(action, state, self.head)
        except IllegalAction as exc:
            return str(exc)
        return refusal(state, action)

    def only_local_can_act(self) -> bool:
        """True while nobody but these seats can do anything (mid-turn)."""
        state = self.state
        return not state.is_over and set(actors(state)) <= set(self.peers)

    def claims(self) -> list[ClaimSeat]:
        """The seat claims: the verified answers while the lobby is open, else merged."""
        if self.lead().state.lobby_open:
            return [a.action for a in self.open_answers() if isinstance(a.action, ClaimSeat)]
        if self._claims is None:
            self._claims = [a.action for a in merged_claims(self.repo, self.head)]  # type: ignore[misc]
        return self._claims

    # --- recording -----------------------------------------------------------------------

    def record(self, action: Action) -> None:
        """Record a local seat's unresolved ``action`` where the protocol says it goes."""
        if action != action.unresolved():
            raise IllegalAction(
                f"chance: {action} names its own outcome; dice, steals and draws are derived "
                "from the seed and the parent commit, submit the action without them"
            )
        peer = self.peers.get(action.player)
        if peer is None:
            raise IllegalAction(
                f"players: this session plays {', '.join(self.peers)}, not {action.player!r}"
            )
        self._at_head(peer)
        opening = peer.head or self.genesis
        # What only this seat can add is filled in before the plan judges the action.
        action = peer.filled(action, peer.state, opening)  # record reuses it
        plan = concurrent.plan_action(self.game, opening, peer.state, action, self.open_answers)
        if isinstance(plan, AnswerOnBranch):
            oid, resolved = peer.record_answer(plan.ref, action)
            self.branches.add(plan.ref, opening)
            self.answers.made(oid, opening, Answer(action.player, oid, resolved))
            self.on_answer(plan.ref, self.merge_due())
            return
        if isinstance(plan, MergeThenRecord):
            peer.record_merge(plan.kind, plan.answers, plan.state)
        elif isinstance(plan, SettleThenRecord):
            self.merge_due()  # its ``_committed`` brings this seat up to the merge
        peer.record(action, filled_on=opening)  # filled again only if a merge moved the head
        self._committed(peer)

    def follow_up(self) -> None:
        """Record what no one chooses (``replica.followup``), each local seat in its turn."""
        for _ in range(2 * len(self.players)):
            move = owed_move(self.state, self.peers, self.open_answers)
            if move is None:
                return
            self.record(move)

    def merge_due(self) -> bool:
        """The active seat, if local, merges a complete set of answers; True if it did."""
        merge = concurrent.merge_due(self.lead().state, self.peers, self.open_answers)
        if merge is None:
            return False
        peer = self.peers[merge.merger]
        self._at_head(peer)
        peer.record_merge(merge.kind, merge.answers)
        self._committed(peer)
        return True

    def claim_open_seats(self, publish_url: str | None) -> None:
        """Claim the seats still open in the lobby (each with its key, once)."""
        for p in self.peers:
            state = self.state
            if state.lobby_open and not state.seats[state.players.index(p)]:
                self.record(self.peers[p].claim_seat(publish_url))

    def _committed(self, peer: Peer) -> None:
        """Every other seat fast-forwards to ``peer``'s new commit; finished answer
        branches go."""
        for other in self.peers.values():
            if other is not peer:
                other.fast_forward(peer.head or self.genesis)
        self.finish_answers()
        self.on_commit(peer.ref)

    def finish_answers(self) -> None:
        """Delete own answer branches whose step is over (merged or moot)."""
        done = self.branches.finish(self.head)
        if done:
            self.deleted.extend(done)
            self.answers.changed()

    # --- what peers offer ----------------------------------------------------------------

    def adopt(self, may_close: bool) -> Adopted:
        """Verify and fast-forward to every known head (``replica.adopt``)."""
        self.answers.changed()
        heads = refpolicy.player_heads(self.repo, self.game, self.players)
        return adopt(self.repo, self.game, heads, self.peers, self.rejections, may_close)

    # --- the ``exchange.Local`` an exchange asks -----------------------------------------

    def wanted(self, source: Source) -> tuple[list[str], list[str]]:
        logs = publish.logs_to_read(self.game, source, self.players)
        kind = concurrent.open_kind(self.lead().state)
        return logs, [] if kind is None else [answers_prefix(self.game, kind, self.head)]

    def own_refs(self) -> set[str]:
        return {p.ref for p in self.peers.values()} | set(self.branches.openings)

    def refused(self, oid: str) -> bool:
        return self.rejections.refused(oid) or not refpolicy.names_a_commit(self.repo, oid)

    def extends(self, old: str, new: str) -> bool:
        try:
            return liveness.extends(self.repo, old, new)
        except (StateFileError, KeyError, ValueError):
            return False
