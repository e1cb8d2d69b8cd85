"""Development cards: buying one, playing a knight, road building, year of plenty or a
monopoly, and showing victory point cards to win (a hidden deck's cards through the
``SeatKeys``)."""

from __future__ import annotations

from catan_p2p.errors import IllegalAction
from catan_p2p.rules.actions import (
    Action,
    BuyDevCard,
    ClaimVictory,
    EndRoadBuilding,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    ShowSteal,
)
from catan_p2p.rules.cards import DEV_CARD_COST, DevCard, add, covers, format_counts, one, sub
from catan_p2p.rules.chance import Chance
from catan_p2p.rules.common import Phase, need_chance, pay, pick_card, replaced, seat_name
from catan_p2p.rules.roads import road_edges
from catan_p2p.rules.seat_keys import SeatKeys
from catan_p2p.rules.state import LARGEST_ARMY_MIN, NOBODY, GameState
from catan_p2p.rules.steals import move_stolen, settle
from catan_p2p.rules.turns import after_robber_phase, check_victory
from catan_p2p.rules.waiting import need_phase, need_turn


def buy_dev_card(
    state: GameState, seat: int, a: BuyDevCard, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    need_phase(state, "buy a development card", Phase.MAIN, Phase.SPECIAL_BUILD)
    need_turn(state, seat, "buy a development card")
    if state.deck is not None:
        state = keys.draw_hidden(state, seat, a)
        if state.phase is Phase.SPECIAL_BUILD:
            state = check_victory(state)  # (nobody wins here: the builder may be done)
        return state, a
    deck = state.dev_deck
    if not any(deck):
        raise IllegalAction("development cards: the deck is empty")
    resources, bank = pay(state, seat, DEV_CARD_COST, "a development card")
    if a.card is not None:
        card = int(a.card)
        if deck[card] <= 0:
            raise IllegalAction(f"development cards: no {DevCard(card).label} is left in the deck")
    else:
        card = pick_card(deck, need_chance(chance, "drawing").randrange(sum(deck)))
    hand = state.hands[seat]
    hand = hand._replace(resources=resources, new_dev_cards=add(hand.new_dev_cards, one(card)))
    state = state._replace(
        hands=replaced(state.hands, seat, hand), bank=bank, dev_deck=sub(deck, one(card))
    )
    return check_victory(state), BuyDevCard(a.player, DevCard(card))


def take_dev_card(
    state: GameState, seat: int, card: DevCard, proof: str | None, keys: SeatKeys
) -> GameState:
    """Common checks and bookkeeping of playing a development card.

    With a hidden deck the card is named by ``proof`` (``"position:proof"``), which
    shows its type to everyone; without one it comes from the hand's counts.
    """
    what = f"play {card.label}"
    need_turn(state, seat, what)
    need_phase(state, what, Phase.ROLL, Phase.MAIN)
    if state.dev_played:
        raise IllegalAction("development cards: only one development card may be played per turn")
    if state.deck is not None:
        state = keys.show_card(state, seat, card, proof, what)
        hand = state.hands[seat]
        hand = hand._replace(played=add(hand.played, one(card)))
        return state._replace(hands=replaced(state.hands, seat, hand), dev_played=True)
    if proof is not None:
        raise IllegalAction("development cards: this game has no hidden deck; play without a proof")
    hand = state.hands[seat]
    if hand.dev_cards[card] <= 0:
        if hand.new_dev_cards[card] > 0:
            raise IllegalAction(
                f"development cards: a {card.label} bought this turn cannot be played "
                "until the next turn"
            )
        raise IllegalAction(f"development cards: {seat_name(state, seat)} holds no {card.label}")
    hand = hand._replace(
        dev_cards=sub(hand.dev_cards, one(card)), played=add(hand.played, one(card))
    )
    return state._replace(hands=replaced(state.hands, seat, hand), dev_played=True)


def play_knight(
    state: GameState, seat: int, a: PlayKnight, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    state = take_dev_card(state, seat, DevCard.KNIGHT, a.card, keys)
    knights = state.hands[seat].knights
    holder = state.largest_army
    if knights >= LARGEST_ARMY_MIN and (holder == NOBODY or knights > state.hands[holder].knights):
        state = state._replace(largest_army=seat)
    return check_victory(state._replace(phase=Phase.MOVE_ROBBER)), a


def play_road_building(
    state: GameState, seat: int, a: PlayRoadBuilding, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    hand = state.hands[seat]
    if seat == state.current and hand.roads_left <= 0:
        raise IllegalAction(f"road building: {seat_name(state, seat)} has no road pieces left")
    if seat == state.current and not road_edges(state, seat):
        raise IllegalAction(f"road building: {seat_name(state, seat)} has nowhere to build a road")
    state = take_dev_card(state, seat, DevCard.ROAD_BUILDING, a.card, keys)
    return state._replace(phase=Phase.ROAD_BUILDING, free_roads=min(2, hand.roads_left)), a


def end_road_building(
    state: GameState, seat: int, a: EndRoadBuilding, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    need_phase(state, "stop road building", Phase.ROAD_BUILDING)
    need_turn(state, seat, "stop road building")
    return state._replace(free_roads=0, phase=after_robber_phase(state)), a


def play_year_of_plenty(
    state: GameState, seat: int, a: PlayYearOfPlenty, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    take = add(one(int(a.first)), one(int(a.second)))
    if not covers(state.bank, take):
        raise IllegalAction(f"year of plenty: the bank cannot give {format_counts(take)}")
    state = take_dev_card(state, seat, DevCard.YEAR_OF_PLENTY, a.card, keys)
    hand = state.hands[seat]
    hand = hand._replace(resources=add(hand.resources, take))
    state = state._replace(hands=replaced(state.hands, seat, hand), bank=sub(state.bank, take))
    return check_victory(state), a


def play_monopoly(
    state: GameState, seat: int, a: PlayMonopoly, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    state = take_dev_card(state, seat, DevCard.MONOPOLY, a.card, keys)
    r = int(a.resource)
    if any(seat in (s.mover, s.victim) for s in state.steals):
        raise IllegalAction(
            f"monopoly: {seat_name(state, seat)} shows its pending steals (`steals`) with the "
            "monopoly: how many cards it takes depends on them"
        )
    if state.steals and not state.reveals:
        # Only a player's view has steals but no keys (``trust.views``): a bot's search
        # plays them the simple way, each the victim's first card it still holds.
        for steal in state.steals:
            r0 = next(k for k, n in enumerate(state.hands[steal.victim].resources) if n)
            state = move_stolen(state, steal, r0)
        state = state._replace(steals=())
    if state.steals:  # the others' steals must be shown first: the robbed players answer
        return state._replace(phase=Phase.MONOPOLY, monopoly=r), a
    return check_victory(take_monopoly(state, seat, r)), a


def take_monopoly(state: GameState, seat: int, r: int) -> GameState:
    hands = list(state.hands)
    taken = 0
    for s, h in enumerate(hands):
        if s != seat and h.resources[r]:
            taken += h.resources[r]
            hands[s] = h._replace(resources=replaced(h.resources, r, 0))
    hands[seat] = hands[seat]._replace(resources=add(hands[seat].resources, one(r, taken)))
    return state._replace(hands=tuple(hands))


def show_steal(
    state: GameState, seat: int, a: ShowSteal, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    """A robbed player shows its steal for a pending monopoly; the last one lets the
    monopoly take its cards."""
    need_phase(state, "show a stolen card", Phase.MONOPOLY)
    name = seat_name(state, seat)
    found = [i for i, s in enumerate(state.steals) if s.victim == seat]
    if not found:
        raise IllegalAction(f"monopoly: {name} was robbed in no pending steal")
    i = found[0]
    steal = state.steals[i]
    shared = keys.shared_value(state, seat, steal, a.proof, steal.token)
    state = settle(state, steal, shared)
    state = state._replace(steals=state.steals[:i] + state.steals[i + 1 :])
    if state.steals:
        return state, a
    state = take_monopoly(state, state.current, state.monopoly)
    state = state._replace(monopoly=NOBODY, phase=after_robber_phase(state))
    return check_victory(state), a


def claim_victory(
    state: GameState, seat: int, a: ClaimVictory, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    need_turn(state, seat, "claim victory")
    if state.deck is None:
        raise IllegalAction("victory: only a hidden deck has victory point cards to show")
    need_phase(state, "claim victory", Phase.ROLL, Phase.MAIN)
    if not a.cards:
        raise IllegalAction("victory: a claim shows at least one victory point card")
    for proof in a.cards:
        state = keys.show_card(state, seat, DevCard.VICTORY_POINT, proof, "claim victory")
        hand = state.hands[seat]
        hand = hand._replace(dev_cards=add(hand.dev_cards, one(DevCard.VICTORY_POINT)))
        state = state._replace(hands=replaced(state.hands, seat, hand))
    points = state.points(seat)
    if points < state.victory_points:
        raise IllegalAction(
            f"victory: showing these cards gives {seat_name(state, seat)} {points} points, "
            f"not the {state.victory_points} that win"
        )
    return check_victory(state), a
