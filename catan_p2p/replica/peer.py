"""One player's replica of a game: its single-writer branch and how it moves.

A ``Peer`` only ever moves its own ref, and only forward: to its own new commit, or
to a descendant it has verified (fast-forward). A candidate head that neither
descends from nor precedes its own is a fork: reported with both ids, never merged
or dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from types import MappingProxyType

from catan_p2p import clock
from catan_p2p.errors import ForkError, IllegalAction
from catan_p2p.protocol import liveness
from catan_p2p.protocol.concurrent import Answer, merge_commit
from catan_p2p.protocol.liveness import KIND, Closing, Offer
from catan_p2p.protocol.message import action_message, merge_message
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.protocol.verify import Verifier
from catan_p2p.rules.actions import (
    Abandon,
    Action,
    ClaimSeat,
    ClaimVictory,
    EndTurn,
    RevealDeck,
    RevealDice,
    RollDice,
)
from catan_p2p.rules.cards import DevCard
from catan_p2p.rules.chance import chain, derive_chance
from catan_p2p.rules.state import GameState
from catan_p2p.store.codec import GameInfo
from catan_p2p.store.refnames import player_ref
from catan_p2p.store.repo import Repository
from catan_p2p.trust import filling
from catan_p2p.trust import poker as cards_deck
from catan_p2p.trust.engine import step
from catan_p2p.trust.views import own_cards, private_view

__all__ = ["Answer", "Peer"]  # Answer lives in protocol.concurrent; re-exported for callers


@lru_cache(maxsize=16)
def _dice_chain(secret: bytes) -> tuple[tuple[str, ...], Mapping[str, int]]:
    """The dice chain of ``secret`` and each element's place in it: 4,097 hashes, made
    once per process and secret (a session reopened after a crash needs it again)."""
    elements = tuple(chain(secret))
    return elements, MappingProxyType({e: i for i, e in enumerate(elements)})


class Peer:
    """The replica of ``player`` in ``repo`` for game ``info.game``."""

    def __init__(
        self,
        repo: Repository,
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
        self._deck_secret: bytes | None = None
        self._dice_at: dict[str, int] = {}
        self._filled: tuple[tuple[str, Action], Action] | None = None  # see filled
        self._head = repo.refs.get(self.ref)
        if self._head is not None:
            verifier.verify(self._head)

    def _chain(self) -> tuple[str, ...]:
        """This player's dice chain in this game, from its key (the same on every device)."""
        if self._dice is None:
            secret = self.key.secret(b"catan-p2p dice chain", bytes.fromhex(self.genesis))
            self._dice, self._dice_at = _dice_chain(secret)
        return self._dice

    def dice_anchor(self) -> str:
        """The last element of the dice chain: what a seat claim publishes."""
        return self._chain()[-1]

    @property
    def deck_secret(self) -> bytes:
        """This player's deck secret in this game, from its key (``trust.poker``)."""
        if self._deck_secret is None:
            self._deck_secret = self.key.secret(b"catan-p2p deck", bytes.fromhex(self.genesis))
        return self._deck_secret

    def claim_seat(self, publish: str | None = None) -> ClaimSeat:
        """The claim of this seat: signing key, dice-chain anchor, deck key and its proof,
        and where the seat publishes (protocol 6), if it has a publication point."""
        secret = self.deck_secret
        return ClaimSeat(
            self.player,
            self.key.public,
            self.dice_anchor(),
            cards_deck.public_key(secret),
            cards_deck.key_proof(secret, self.key.public),
            publish,
        )

    def view(self, state: GameState) -> GameState:
        """``state`` as this player may see it (its own hidden cards read)."""
        return private_view(state, state.players.index(self.player), self.deck_secret)

    def reveal_deck(self) -> RevealDeck:
        return RevealDeck(self.player, self.deck_secret.hex())

    def victory_claim(self, state: GameState) -> ClaimVictory | None:
        """The claim that wins now, when this player's hidden victory points make it win."""
        seat = state.players.index(self.player)
        if state.deck is None or state.is_over or state.current != seat or state.is_setup:
            return None
        points = [
            pos
            for pos, card in own_cards(state, seat, self.deck_secret)
            if card is DevCard.VICTORY_POINT
        ]
        if not points or state.points(seat) + len(points) < state.victory_points:
            return None
        return ClaimVictory(self.player, tuple(self._card_proof(state, p) for p in points))

    def _card_proof(self, state: GameState, pos: int) -> str:
        seat = state.players.index(self.player)
        return filling.card_proof(state, seat, self.deck_secret, pos)

    def filled(self, action: Action, state: GameState, at: str) -> Action:
        """``with_secrets(action, state)`` for ``state``, the one at commit ``at``; the last
        one is kept, so the window's check and the submit after it fill them in once (a
        first settlement's shuffle takes a tenth of a second or more). The key is the
        commit and the action: the secrets are a function of the two and of this seat's key."""
        if self._filled is not None and self._filled[0] == (at, action):
            return self._filled[1]
        filled = self.with_secrets(action, state)
        self._filled = ((at, action), filled)
        return filled

    def with_secrets(self, action: Action, state: GameState) -> Action:
        """``action`` with what only this player can add: its dice-chain element, and what
        its deck secret adds (``trust.filling``: its shuffle, its shares of other seats'
        cards, its steal token or answer, the proof of a card it plays)."""
        action = self.with_reveal(action, state)
        return filling.with_secrets(action, state, self.player, self.deck_secret)

    def with_reveal(self, action: Action, state: GameState) -> Action:
        """``action`` with the next dice-chain element filled in when it must reveal one."""
        if not state.reveals or state.lobby_open:
            return action
        if not isinstance(action, (RollDice, RevealDice, EndTurn)):
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
        offer = liveness.offered(self.repo, head, target)
        if offer is Offer.HELD:
            return 0
        # Verified before any fork is reported: a line that does not verify is a refused
        # commit, not a fork; a fork report is evidence that the seat signed two versions,
        # which a stranger's unsigned or illegal commit on a diverging line must not fake.
        state = self.verifier.verify(target)
        if offer is Offer.APART:
            raise self._fork(target)
        gained = len(self.repo.first_parents(target, stop=head))
        self._moved_to(target, state)
        return gained

    def fast_forward(self, target: str) -> None:
        """Fast-forward to ``target``, the commit another local seat has just written.

        The seats of one session share a verifier and the writer computed the state
        itself (``_took``), so it is not verified again; a ``target`` off the own line is
        a fork, as in ``advance``.
        """
        state = self.verifier.states.get(target)
        if state is None:
            raise LookupError(f"{target[:10]} is not a state the local seats' verifier holds")
        head = self.head or self.genesis
        if target == head:
            return
        if not self.repo.is_ancestor(head, target):
            raise self._fork(target)
        self._moved_to(target, state)

    def _fork(self, target: str) -> ForkError:
        """The fork of the own head and ``target``, which does not extend it."""
        head = self.head or self.genesis
        return ForkError(
            f"fork: {self.player.capitalize()}'s branch is at {head[:10]} and a peer offers "
            f"{target[:10]}, which does not extend it; both are kept, nothing was merged"
        )

    def _moved_to(self, target: str, state: GameState) -> None:
        self._move(target)
        if state.settled:
            self.repo.finish(target)  # the game leaves its repository packed

    def record(self, action: Action, filled_on: str | None = None) -> tuple[str, GameState, Action]:
        """Apply an own action on the head, commit it and move the branch.

        ``filled_on``: the commit on whose state the caller already ran ``with_secrets``;
        when that is still the head they are not filled in again (a second pass costs a
        legality check and, for a played card, reading the own cards).
        """
        parent = self.head or self.genesis
        state = self.state
        if filled_on != parent:
            action = self.with_secrets(action, state)
        when = None  # now; an abandon waits on a line dated ahead (``liveness.abandon_time``)
        if isinstance(action, Abandon):
            when = liveness.abandon_time(self.repo, parent, self.info.timeout, int(clock.now()))
        oid, new, resolved = self._write(parent, state, action, when)
        self._took(oid, new)
        if new.settled:
            self.repo.finish(oid)  # the game leaves its repository packed
        return oid, new, resolved

    def record_answer(self, ref: str, action: Action) -> tuple[str, Action]:
        """Commit a concurrent answer on its temporary branch ``ref`` off the own head;
        returns its id and the action as its message states it.

        The own head is the opening; ``ref`` comes from ``concurrent.plan_action``.
        """
        oid, _, resolved = self._write(self.head or self.genesis, self.state, action)
        self.repo.refs.set(ref, oid, None)  # one answer per player: fails if one exists
        return oid, resolved

    def _write(
        self, parent: str, state: GameState, action: Action, when: int | None = None
    ) -> tuple[str, GameState, Action]:
        """Apply an own ``action`` on ``state``, the one at ``parent``, and write its commit
        (moving no ref): its id, the new state and the action as its message states it."""
        new, resolved = step(state, action, derive_chance(self.info.seed, parent))
        message = action_message(resolved, self.info.game)
        oid = self.repo.write_state(self.info, new, [parent], self.player, message, self.key, when)
        return oid, new, resolved

    def _took(self, oid: str, state: GameState) -> None:
        """Move the own branch to its new commit ``oid``, whose ``state`` it computed."""
        self.verifier.trust(oid, state)
        self._move(oid)

    def record_close(self, close: Closing) -> str:
        """The closing merge of an abandoned game and the absent player's late moves
        (``protocol.liveness``); the own head is one of its parents, so it fast-forwards."""
        state = self.verifier.verify(close.over)
        self.verifier.verify(close.late)
        message = merge_message(self.player, KIND, [close.absent], self.info.game)
        parents = [close.over, close.late]
        oid = self.repo.write_state(self.info, state, parents, self.player, message, self.key)
        self._took(oid, state)
        return oid

    def record_merge(
        self, kind: str, answers: Sequence[Answer], merged: GameState | None = None
    ) -> tuple[str, GameState]:
        """The custom merge (``concurrent.merge_commit``) on the own head, the opening;
        ``merged``, the answers applied, when the plan computed it already."""
        opening = self.head or self.genesis
        merge = merge_commit(
            self.info.game, self.player, kind, opening, self.state, answers, merged
        )
        parents = list(merge.parents)
        oid = self.repo.write_state(
            self.info, merge.state, parents, self.player, merge.message, self.key
        )
        self._took(oid, merge.state)
        return oid, merge.state
