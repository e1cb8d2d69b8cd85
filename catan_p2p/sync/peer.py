"""One player's replica of a game: its single-writer branch and how it moves.

A ``Peer`` only ever moves its own ref, and only forward: to its own new commit, or
to a descendant it has verified (fast-forward). A candidate head that neither
descends from nor precedes its own is a fork: reported with both ids, never merged
or dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from catan_p2p.errors import ForkError, IllegalAction
from catan_p2p.rules.actions import Action, EndTurn, RollDice
from catan_p2p.rules.chance import chain, derive_chance
from catan_p2p.rules.engine import step
from catan_p2p.rules.state import GameState, Phase
from catan_p2p.store.codec import GameInfo
from catan_p2p.store.refs import player_ref
from catan_p2p.sync.concurrent import Answer, merge_commit
from catan_p2p.sync.protocol import action_message
from catan_p2p.sync.repo import GameRepo
from catan_p2p.sync.signing import SeatKey
from catan_p2p.sync.verify import Verifier

__all__ = ["Answer", "Peer"]  # Answer lives in sync.concurrent; re-exported for callers

_GAME_OVER = Phase.GAME_OVER


class Peer:
    """The replica of ``player`` in ``repo`` for game ``info.game``."""

    def __init__(
        self,
        repo: GameRepo,
        info: GameInfo,
        player: str,
        genesis: str,
        key: SeatKey,
        verifier: Verifier,
    ):
        """The replica of ``player``, signing with ``key``.

        ``verifier`` holds the derived genesis; the peers of one session may share it.
        The own branch is verified from the genesis like anything else: a ref on disk
        may have been written by anyone with access to the repository.
        """
        self.repo = repo
        self.info = info
        self.player = player
        self.key = key
        self.ref = player_ref(info.game, player)
        self.verifier = verifier
        self.genesis = genesis
        self._dice: list[str] | None = None
        self._dice_at: dict[str, int] = {}
        self._head = repo.refs.get(self.ref)
        if self._head is not None:
            verifier.verify(self._head)

    def _chain(self) -> list[str]:
        """This player's dice chain in this game, from its key (the same on every device)."""
        if self._dice is None:
            secret = self.key.secret(b"catan-p2p dice chain", bytes.fromhex(self.genesis))
            self._dice = chain(secret)
            self._dice_at = {e: i for i, e in enumerate(self._dice)}
        return self._dice

    def dice_anchor(self) -> str:
        """The last element of the dice chain: what a seat claim publishes."""
        return self._chain()[-1]

    def with_reveal(self, action: Action, state: GameState) -> Action:
        """``action`` with the next dice-chain element filled in when it must reveal one."""
        if not state.reveals or state.lobby_open or not isinstance(action, (RollDice, EndTurn)):
            return action
        if action.reveal is not None:
            return action
        chain_ = self._chain()
        last = state.reveals[state.players.index(self.player)]
        at = self._dice_at.get(last)
        if not at:
            raise IllegalAction(
                f"dice: {self.player.capitalize()}'s dice chain is used up or not this key's; "
                "play this seat with the key that claimed it"
            )
        return replace(action, reveal=chain_[at - 1])

    @property
    def head(self) -> str | None:
        """The own branch's commit (kept in memory: only this peer ever moves it)."""
        return self._head

    def _move(self, new: str) -> None:
        self.repo.refs.set(self.ref, new, self._head)  # compare-and-swap on disk
        self._head = new

    @property
    def state(self) -> GameState:
        head = self.head or self.genesis
        return self.verifier.verify(head)

    def advance(self, target: str) -> int:
        """Fast-forward to ``target`` after verifying it; returns the commits gained.

        Raises:
            ForkError: ``target`` and the own head have diverged.
            VerificationError: a commit on the way is bad (the own branch stays put).
        """
        head = self.head or self.genesis
        if target == head or self.repo.is_ancestor(target, head):
            return 0
        if not self.repo.is_ancestor(head, target):
            raise ForkError(
                f"fork: {self.player.capitalize()}'s branch is at {head[:10]} and a peer offers "
                f"{target[:10]}, which does not extend it; both are kept, nothing was merged"
            )
        state = self.verifier.verify(target)
        gained = len(self.repo.first_parents(target, stop=head))
        self._move(target)
        if state.phase is _GAME_OVER:
            self.repo.finish(target)  # the game leaves its repository packed
        return gained

    def record(self, action: Action) -> tuple[str, GameState, Action]:
        """Apply an own action on the head, commit it and move the branch."""
        parent = self.head or self.genesis
        state = self.verifier.verify(parent)
        action = self.with_reveal(action, state)
        new, resolved = step(state, action, derive_chance(self.info.seed, parent))
        with self.repo.store.batch():  # tree and commit land as one small pack
            tree = self.repo.writer(self.info).write(new)
            oid = self.repo.write_commit(
                tree, [parent], self.player, action_message(resolved, self.info.game), self.key
            )
        self.verifier.trust(oid, new)
        self._move(oid)
        if new.phase is _GAME_OVER:
            self.repo.finish(oid)  # the game leaves its repository packed
        return oid, new, resolved

    def record_answer(self, ref: str, action: Action) -> str:
        """Commit a concurrent answer on its temporary branch ``ref`` off the own head.

        The own head is the opening; ``ref`` comes from ``concurrent.plan_action``.
        """
        opening = self.head or self.genesis
        state = self.verifier.verify(opening)
        new, resolved = step(state, action, derive_chance(self.info.seed, opening))
        with self.repo.store.batch():
            tree = self.repo.writer(self.info).write(new)
            oid = self.repo.write_commit(
                tree, [opening], self.player, action_message(resolved, self.info.game), self.key
            )
        self.repo.refs.set(ref, oid, None)  # one answer per player: fails if one exists
        return oid

    def record_merge(self, kind: str, answers: Sequence[Answer]) -> tuple[str, GameState]:
        """The custom merge (``concurrent.merge_commit``) on the own head, the opening."""
        opening = self.head or self.genesis
        merge = merge_commit(
            self.info.game, self.player, kind, opening, self.verifier.verify(opening), answers
        )
        with self.repo.store.batch():
            tree = self.repo.writer(self.info).write(merge.state)
            oid = self.repo.write_commit(
                tree, list(merge.parents), self.player, merge.message, self.key
            )
        self.verifier.trust(oid, merge.state)
        self._move(oid)
        return oid, merge.state
