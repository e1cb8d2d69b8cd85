"""A steal with seat keys: the robber's token, the robbed player's answer, and the
shared value only those two can compute, which picks the card (``rules.state.Steal``)."""

from __future__ import annotations

from catan_p2p.errors import IllegalAction
from catan_p2p.rules.common import seat_name
from catan_p2p.rules.state import GameState, Steal
from catan_p2p.trust import poker as cards_deck


def steal_context(turn: int, tile: int, victim: int) -> bytes:
    """What a steal's token and answer are for: the turn, the robber's new tile (it
    moves at most twice a turn, never to where it is) and the victim."""
    return f"steal\0{turn}\0{tile}\0{victim}".encode()


def own_token(secret: bytes, turn: int, tile: int, victim: int) -> str:
    """A seat's token for the steal of ``victim`` at ``tile`` in ``turn``: the robber's
    token and the robbed seat's answer alike, which ``steal_token`` and ``steal_answer``
    check against the seat's deck key."""
    return cards_deck.token(secret, steal_context(turn, tile, victim))


def steal_token(state: GameState, seat: int, token: str | None, tile: int, victim: int) -> str:
    """The robber's token for robbing ``victim`` at ``tile``, checked against its deck key."""
    assert state.deck is not None
    try:
        return cards_deck.check_token(
            token, state.deck.keys[seat], steal_context(state.turn, tile, victim)
        )
    except ValueError as exc:
        raise IllegalAction(
            f"robber: {seat_name(state, seat)}'s move carries its token for this steal, made "
            f"with its deck key ({exc})"
        ) from None


def steal_answer(state: GameState, seat: int, answer: str) -> str:
    """The robbed seat's value for the open steal, checked against its deck key."""
    assert state.deck is not None
    try:
        return cards_deck.check_token(
            answer, state.deck.keys[seat], steal_context(state.turn, state.robber, seat)
        )
    except ValueError as exc:
        raise IllegalAction(
            f"robber: {seat_name(state, seat)}'s answer carries its value for this steal, made "
            f"with its deck key ({exc})"
        ) from None


def shared_value(state: GameState, seat: int, steal: Steal, proof: str, point: str) -> str:
    """The value that picks ``steal``'s card: ``seat``'s deck key applied to the other
    party's ``point``, with the proof that it was (``trust.poker.exchange``)."""
    assert state.deck is not None
    try:
        return cards_deck.check_exchange(proof, state.deck.keys[seat], point)
    except ValueError as exc:
        raise IllegalAction(
            f"steal: {seat_name(state, seat)}'s proof for the card stolen in turn {steal.turn} "
            f"does not hold ({exc})"
        ) from None
