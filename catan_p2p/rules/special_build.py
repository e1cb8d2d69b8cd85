"""The special building phase of the 5-6 player extension.

After each turn every other player, in seat order from the one after the turn's player,
may build (roads, settlements, cities) and buy development cards, but not trade and
not play development cards. With five or six at the table this keeps everyone busy
between their own turns, and a hand does not sit idle through five others' sevens.

How the phase is held in the state: phase ``SPECIAL_BUILD`` with ``current`` the seat
building now; the turn's player is ``(turn - 1) % players`` (turns go round the seats
in order). A seat that could not pay for any piece or card is passed over by the rules
themselves, so it commits nothing; a seat that can builds and ends with
``end_special_build``, or is done as soon as it can pay for nothing more. The phase
ends after the last seat before the turn's player; then the next turn begins.

A player who reaches the winning points here does not win yet: a player wins only on
its own turn, so it wins when its turn begins (``turns.check_victory`` at the turn's
start), unless someone whose turn comes first wins before.

Pure functions of the state; ``engine`` and ``turns`` call them from ``end_turn``, the builds and
``end_special_build``.
"""

from __future__ import annotations

from catan_p2p.rules.cards import (
    CITY_COST,
    DEV_CARD_COST,
    NO_CARDS,
    ROAD_COST,
    SETTLEMENT_COST,
    Counts,
    add,
    is_extension,
)
from catan_p2p.rules.state import GameState

#: What a seat may buy in the phase; the rulebook lets it do nothing else.
COSTS: tuple[Counts, ...] = (ROAD_COST, SETTLEMENT_COST, CITY_COST, DEV_CARD_COST)


def applies(state: GameState) -> bool:
    """True when this game has a special building phase (5 or 6 players)."""
    return is_extension(len(state.players))


def turn_player(state: GameState) -> int:
    """The seat whose turn it is (or just ended): turns go round the seats in order."""
    return (state.turn - 1) % len(state.players)


def _affords(resources: Counts, wild: int, cost: Counts) -> bool:
    """True when ``resources`` plus ``wild`` cards of any kind pay ``cost``."""
    return sum(max(0, c - r) for c, r in zip(cost, resources, strict=True)) <= wild


def may_build(state: GameState, seat: int) -> bool:
    """True when ``seat`` could pay for a piece it has left or a card of the deck.

    An upper bound read from the public state alone, so every peer passes over the same
    seats: a card the seat gained in a steal not shown yet counts as any resource (it
    may be the one missing). Where a piece could go is left to the seat to find; a seat
    asked in vain just ends its step.
    """
    hand = state.hands[seat]
    res = hand.resources
    wild = max(hand.hidden, 0)
    deck_left = state.deck.left if state.deck is not None else sum(state.dev_deck)
    return (
        (hand.roads_left > 0 and _affords(res, wild, ROAD_COST))
        or (hand.settlements_left > 0 and _affords(res, wild, SETTLEMENT_COST))
        or (hand.cities_left > 0 and bool(hand.settlements) and _affords(res, wild, CITY_COST))
        or (deck_left > 0 and _affords(res, wild, DEV_CARD_COST))
    )


def next_builder(state: GameState, after: int) -> int | None:
    """The next seat after ``after`` (in seat order, before the turn's player again) that
    may build, or None when the phase is over."""
    n = len(state.players)
    first = turn_player(state)
    seat = (after + 1) % n
    while seat != first:
        if may_build(state, seat):
            return seat
        seat = (seat + 1) % n
    return None


def keep_bought_cards(state: GameState, seat: int) -> GameState:
    """Development cards a seat bought in the phase were not bought on its own turn: it
    may play them from its next turn on."""
    hand = state.hands[seat]
    if not any(hand.new_dev_cards):
        return state
    hand = hand._replace(dev_cards=add(hand.dev_cards, hand.new_dev_cards), new_dev_cards=NO_CARDS)
    return state._replace(hands=state.hands[:seat] + (hand,) + state.hands[seat + 1 :])
