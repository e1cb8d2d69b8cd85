"""What only a seat's deck secret can add to its move, filled in in one place.

A seat hands its move, the state it is made on, its seat and its deck secret, and gets
the move back with its shuffle, its shares of other seats' cards, its steal token or
answer, the proof of a card it plays and the steals it must show (``rules.deck``,
``trust.poker``, ``trust.steals`` and ``trust.views`` beneath). The dice-chain element is
the peer's own (``replica.peer.Peer.with_reveal``): it comes from the key, not the deck.
"""

from __future__ import annotations

from dataclasses import replace

from catan_p2p.rules.actions import (
    Action,
    BuildSettlement,
    GiveCard,
    MoveRobber,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
    ShowsSteals,
    ShowSteal,
)
from catan_p2p.rules.cards import DevCard
from catan_p2p.rules.deck import Deck
from catan_p2p.rules.state import GameState
from catan_p2p.trust import poker
from catan_p2p.trust.engine import refusal
from catan_p2p.trust.steals import own_token
from catan_p2p.trust.views import own_cards

#: The card each play shows.
PLAYS = {
    PlayKnight: DevCard.KNIGHT,
    PlayRoadBuilding: DevCard.ROAD_BUILDING,
    PlayYearOfPlenty: DevCard.YEAR_OF_PLENTY,
    PlayMonopoly: DevCard.MONOPOLY,
}


def with_secrets(action: Action, state: GameState, player: str, secret: bytes) -> Action:
    """``action`` of ``player`` with what only its deck ``secret`` can add on ``state``."""
    deck = state.deck
    if deck is None or state.lobby_open:
        return action
    seat = state.players.index(player)
    if isinstance(action, RollDice) and action.shares is None:
        owed = deck.owed_shares(seat)
        if owed:
            shares = tuple(_share(deck, seat, secret, p) for p in owed)
            action = replace(action, shares=shares)
    elif (
        isinstance(action, BuildSettlement)
        and action.deck is None
        and state.is_setup
        and state.setup_step < len(state.players)
    ):
        after, proof = poker.seat_shuffle(deck, seat, secret)
        action = replace(action, deck=after, proof=proof)
    elif isinstance(action, MoveRobber) and action.victim in state.players and not action.token:
        tile = state.board.graph.tile_index.get(action.tile)  # type: ignore[arg-type]
        if tile is not None:
            victim = state.players.index(action.victim)
            action = replace(action, token=own_token(secret, state.turn, tile, victim))
    elif isinstance(action, GiveCard) and action.answer is None:
        action = replace(action, answer=own_token(secret, state.turn, state.robber, seat))
    elif isinstance(action, ShowSteal) and action.proof is None:
        robbed = [s for s in state.steals if s.victim == seat]
        if robbed:
            action = replace(action, proof=poker.exchange(secret, robbed[0].token))
    elif isinstance(action, tuple(PLAYS)) and action.card is None:
        wanted = PLAYS[type(action)]
        for pos, card in own_cards(state, seat, secret):
            if card is wanted and deck.bought[pos] != state.turn:
                action = replace(action, card=_share(deck, seat, secret, pos))
                break
    return _with_steals(action, state, seat, secret)


def card_proof(state: GameState, seat: int, secret: bytes, pos: int) -> str:
    """``seat``'s proof of the hidden card at ``pos`` (its share, which opens it)."""
    assert state.deck is not None
    return _share(state.deck, seat, secret, pos)


def _share(deck: Deck, seat: int, secret: bytes, pos: int) -> str:
    """``pos:share``: ``seat``'s share of the card at ``pos`` (a roll's share, a card's proof)."""
    return f"{pos}:{poker.share(secret, deck.opened[pos], deck.keys[seat])}"


def _with_steals(action: Action, state: GameState, seat: int, secret: bytes) -> Action:
    """``action`` showing this seat's pending steals, when it needs their cards.

    Only then: a steal shown tells everyone the card, so a move that the cards the
    state shows can pay for keeps them hidden.
    """
    if not isinstance(action, ShowsSteals):
        return action  # not a move that can show steals
    action = replace(action, steals=None)  # made for another state, they may be stale
    mine = [s for s in state.steals if seat in (s.mover, s.victim)]
    if not mine or refusal(state, action) is None:
        return action
    proofs = tuple(poker.exchange(secret, s.other_value(seat)) for s in mine)
    return replace(action, steals=proofs)
