"""What one player may know: the shared state plus the face-down cards it holds.

The state in a commit's tree is public: with a hidden deck (``rules.deck``) nobody's
development cards are in it until shown. A player's own view adds the cards it can
read with its deck secret, as ordinary counts, so the engine, the bots and the window
work on it like on any state. A view is for deciding, never for recording: its ``deck``,
seat keys and dice chains are dropped, so a bot's search plays chance the simple way
(``dev_deck`` counts the cards this player has not seen; a steal is resolved at once).
"""

from __future__ import annotations

from catan_p2p.rules.cards import DevCard, add, one, sub
from catan_p2p.rules.state import GameState, Steal
from catan_p2p.rules.steals import settle, stolen_resource
from catan_p2p.trust.poker import peek, shared_value


def own_cards(state: GameState, seat: int, secret: bytes) -> list[tuple[int, DevCard]]:
    """``(position, card)`` of every hidden card ``seat`` holds and can read already."""
    deck = state.deck
    if deck is None:
        return []
    full = deck.complete(len(state.players))
    out = []
    for pos in deck.held(seat):
        if deck.shared[pos] == full:
            card = peek(secret, deck.opened[pos])
            if card is not None:
                out.append((pos, card))
    return out


def pending_cards(state: GameState, seat: int) -> int:
    """Hidden cards ``seat`` drew that some other seat has not opened for it yet."""
    deck = state.deck
    if deck is None:
        return 0
    full = deck.complete(len(state.players))
    return sum(1 for pos in deck.held(seat) if deck.shared[pos] != full)


def hidden_count(state: GameState, seat: int) -> int:
    """How many face-down development cards ``seat`` holds (public)."""
    hand = state.hands[seat]
    if state.deck is None:
        return sum(hand.dev_cards) + sum(hand.new_dev_cards)
    return len(state.deck.held(seat))


def stolen_card(steal: Steal, seat: int, secret: bytes) -> int:
    """The resource of a pending steal, as its robber or its victim reads it."""
    point = steal.other_value(seat)
    return stolen_resource(steal, shared_value(secret, point))


def _read_steals(state: GameState, seat: int, secret: bytes) -> GameState:
    """The steals ``seat`` took part in, moved as they will be once shown."""
    left = []
    for s in state.steals:
        if seat in (s.mover, s.victim):
            point = s.other_value(seat)
            state = settle(state, s, shared_value(secret, point))
        else:
            left.append(s)
    return state._replace(steals=tuple(left))


def private_view(state: GameState, seat: int, secret: bytes) -> GameState:
    """``state`` as ``seat`` sees it: its readable hidden cards in its hand, and the
    cards of its pending steals (robber or robbed) moved."""
    deck = state.deck
    if deck is None or state.lobby_open:
        return state  # nothing is hidden yet, and the lobby's seats must stay open
    if state.steals:
        state = _read_steals(state, seat, secret)
    hand = state.hands[seat]
    held, new, unseen = hand.dev_cards, hand.new_dev_cards, state.dev_deck
    for pos, card in own_cards(state, seat, secret):
        if deck.bought[pos] == state.turn:
            new = add(new, one(card))
        else:
            held = add(held, one(card))
        unseen = sub(unseen, one(card))
    hands = list(state.hands)
    hands[seat] = hand._replace(dev_cards=held, new_dev_cards=new)
    if not deck.left:
        unseen = (0,) * len(unseen)  # nothing left to buy, whatever the others hold
    return state._replace(hands=tuple(hands), dev_deck=unseen, deck=None, seats=(), reveals=())
