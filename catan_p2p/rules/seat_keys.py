"""What the rules ask of a game with seat keys, and nothing of how it is answered.

The rules know cards and players. Where a move of a game with seat keys carries a
key, a proof or a secret (a seat claim, a dice-chain element, a shuffle, the shares
and proofs of the hidden deck, a steal's token and answer), the engine hands the
state to a ``SeatKeys`` and takes back the state or value after; ``catan_p2p.trust``
is the one that checks them, and ``catan_p2p.trust.engine.step`` plugs it in.
A state without keys never reaches these, so ``NO_KEYS`` serves the plain game.
"""

from __future__ import annotations

from typing import Protocol

from catan_p2p.errors import UsageError
from catan_p2p.rules.actions import BuildSettlement, BuyDevCard, ClaimSeat, RevealDeck
from catan_p2p.rules.cards import DevCard
from catan_p2p.rules.state import GameState, Steal


class SeatKeys(Protocol):
    """The checks a game with seat keys adds to the rules; each raises ``IllegalAction``
    naming the rule when the key, proof or secret does not hold."""

    def claim_seat(self, state: GameState, seat: int, a: ClaimSeat) -> GameState:
        """The state after ``seat`` is claimed with ``a``'s keys and dice-chain anchor."""
        ...

    def take_reveal(self, state: GameState, seat: int, reveal: str | None, what: str) -> GameState:
        """The state after ``seat`` reveals its next dice-chain element in ``what``."""
        ...

    def take_shuffle(self, state: GameState, seat: int, a: BuildSettlement) -> GameState:
        """The state after the shuffle ``seat``'s first set-up settlement carries."""
        ...

    def take_shares(self, state: GameState, seat: int, given: tuple[str, ...] | None) -> GameState:
        """The state after a roll's shares of the cards drawn since ``seat``'s last roll."""
        ...

    def draw_hidden(self, state: GameState, seat: int, a: BuyDevCard) -> GameState:
        """The state after ``seat`` pays for and takes the top card face down."""
        ...

    def show_card(
        self, state: GameState, seat: int, card: DevCard, proof: str | None, what: str
    ) -> GameState:
        """The state after ``seat`` turns a hidden card face up, proving it is ``card``."""
        ...

    def reveal_deck(self, state: GameState, seat: int, a: RevealDeck) -> GameState:
        """The state after ``seat`` reveals its deck secret once the game is over."""
        ...

    def steal_token(
        self, state: GameState, seat: int, token: str | None, tile: int, victim: int
    ) -> str:
        """The robber's checked token for robbing ``victim`` at ``tile``."""
        ...

    def steal_answer(self, state: GameState, seat: int, answer: str) -> str:
        """The robbed seat's checked answer to the open steal."""
        ...

    def shared_value(
        self, state: GameState, seat: int, steal: Steal, proof: str, point: str
    ) -> str:
        """The value that picks ``steal``'s card, from ``seat``'s proof over ``point``."""
        ...


class _NoKeys:
    """The plain game's ``SeatKeys``: a state with keys never gets this far."""

    def __getattr__(self, name: str) -> object:
        raise UsageError(
            f"this game has seat keys: its moves are applied with catan_p2p.trust.engine "
            f"(rules.engine was asked to {name.replace('_', ' ')} without them)"
        )


NO_KEYS: SeatKeys = _NoKeys()  # type: ignore[assignment]
