"""Invariants that no sequence of legal actions can break (the thesis's safety properties).

``check_invariants`` is separate from parsing: a corrupt file fails in store/, a broken
rule fails here, with ``InvariantViolation`` naming the law and the numbers.
"""

from __future__ import annotations

from catan_p2p.errors import InvariantViolation
from catan_p2p.rules.cards import (
    CITY_PIECES,
    RESOURCES,
    ROAD_PIECES,
    SETTLEMENT_PIECES,
    DevCard,
    add,
    dev_deck,
    resource_supply,
)
from catan_p2p.rules.roads import longest_road
from catan_p2p.rules.state import (
    LARGEST_ARMY_MIN,
    LONGEST_ROAD_MIN,
    NOBODY,
    Answer,
    GameState,
    Phase,
)


def check_invariants(state: GameState) -> None:
    """Raise ``InvariantViolation`` for the first broken invariant of ``state``."""
    _check_resources(state)
    _check_steals(state)
    _check_dev_cards(state)
    _check_pieces(state)
    _check_distance_rule(state)
    _check_road_networks(state)
    _check_awards(state)
    _check_points_and_victory(state)
    _check_trade(state)


def _check_trade(state: GameState) -> None:
    """An open offer: counts beside exactly the counter answers, answers only from the
    players it is made to, never to or from its offerer."""
    offer = state.trade
    if offer is None:
        return
    if offer.to == state.current:
        raise InvariantViolation("player trade: an offer is made to its own offerer")
    for s, answer in enumerate(offer.answers):
        if (answer is Answer.COUNTER) != (offer.counter_of(s) is not None):
            raise InvariantViolation(
                f"player trade: {state.players[s]}'s counter counts and answer disagree"
            )
        if answer is not Answer.PENDING and (s == state.current or not offer.may_answer(s)):
            raise InvariantViolation(
                f"player trade: {state.players[s]} answered an offer not made to it"
            )


def _check_resources(state: GameState) -> None:
    """Conservation of resource cards: hands + bank = 19 of each (24 for 5-6 players)."""
    hands = state.hands
    supply = resource_supply(len(state.players))
    total = state.bank
    for h in hands:
        if min(h.resources) < 0:
            raise InvariantViolation(f"resource cards: a hand holds a negative count {h.resources}")
        total = add(total, h.resources)
    if min(state.bank) < 0:
        raise InvariantViolation(f"resource cards: the bank holds a negative count {state.bank}")
    if total != supply:
        bad = [f"{r.label} {total[r]}" for r in RESOURCES if total[r] != supply[r]]
        raise InvariantViolation(
            f"conservation of resource cards: {', '.join(bad)} instead of {supply[0]}"
        )


def _check_steals(state: GameState) -> None:
    """Pending steals: the hands' hidden counts are theirs, a seat is robbed in at most one (it
    shows the last before it is robbed again), and its card is still there."""
    hands = state.hands
    hidden = [0] * len(hands)
    for s in state.steals:
        hidden[s.mover] += 1
        hidden[s.victim] -= 1
        if s.mover == s.victim or not any(s.hand):
            raise InvariantViolation(f"steals: a pending steal is malformed {s}")
        if not any(n >= 1 for n in hands[s.victim].resources):
            raise InvariantViolation(f"steals: seat {s.victim} no longer holds its stolen card")
    if hidden != [h.hidden for h in hands]:
        raise InvariantViolation(f"steals: hidden cards {[h.hidden for h in hands]}, not {hidden}")
    victims = [s.victim for s in state.steals]
    if len(set(victims)) != len(victims):
        raise InvariantViolation("steals: a seat is robbed in two pending steals")
    if (state.phase is Phase.MONOPOLY) != (state.monopoly != NOBODY) or (
        state.phase is Phase.MONOPOLY and not state.steals
    ):
        raise InvariantViolation("steals: a monopoly waits for shown steals in phase monopoly only")


def _check_dev_cards(state: GameState) -> None:
    """Conservation of development cards: deck + hands + played = 25 by kind (34 for 5-6)."""
    hands = state.hands
    box = dev_deck(len(state.players))
    dev = state.dev_deck
    for h in hands:
        dev = add(add(add(dev, h.dev_cards), h.new_dev_cards), h.played)
    if dev != box or min(state.dev_deck) < 0:
        raise InvariantViolation(f"conservation of development cards: {dev} instead of {box}")
    if any(h.played[DevCard.VICTORY_POINT] for h in hands):
        raise InvariantViolation("development cards: victory point cards are never played")
    if state.deck is not None:
        _check_deck(state)


def _check_pieces(state: GameState) -> None:
    """Pieces: placed + left = 15 / 5 / 4, and the board agrees with the hands."""
    graph = state.board.graph
    hands = state.hands
    vertex_owner = [NOBODY] * len(graph.vertices)
    edge_owner = [NOBODY] * len(graph.edges)
    for s, h in enumerate(hands):
        if (
            len(h.roads) > ROAD_PIECES
            or len(h.settlements) > SETTLEMENT_PIECES
            or len(h.cities) > CITY_PIECES
        ):
            raise InvariantViolation(f"pieces: {state.players[s]} placed more pieces than exist")
        if h.settlements & h.cities:
            raise InvariantViolation(
                f"pieces: {state.players[s]} has a settlement and city on one vertex"
            )
        for v in h.settlements | h.cities:
            if vertex_owner[v] != NOBODY:
                raise InvariantViolation(f"pieces: two buildings on vertex {graph.vertices[v]}")
            vertex_owner[v] = s
        for e in h.roads:
            if edge_owner[e] != NOBODY:
                raise InvariantViolation(f"pieces: two roads on edge {graph.edges[e]}")
            edge_owner[e] = s
    if tuple(vertex_owner) != state.vertex_owner or tuple(edge_owner) != state.edge_owner:
        raise InvariantViolation("pieces: the board's owners disagree with the players' pieces")


def _check_distance_rule(state: GameState) -> None:
    """Distance rule: no building stands next to another (the board agrees with the hands)."""
    vertex_owner = state.vertex_owner
    graph = state.board.graph
    for v, o in enumerate(vertex_owner):
        if o != NOBODY and any(vertex_owner[n] != NOBODY for n in graph.vertex_neighbours[v]):
            raise InvariantViolation(
                f"distance rule: vertex {graph.vertices[v]} has a neighbour building"
            )


def _check_road_networks(state: GameState) -> None:
    """Road connectivity: every road reaches its owner's building through its own roads (a
    later opponent settlement may split a network but never orphans a road)."""
    graph = state.board.graph
    hands = state.hands
    for s, h in enumerate(hands):
        reached: set[int] = set()
        stack = [v for v in h.settlements | h.cities]
        seen_v = set(stack)
        while stack:
            v = stack.pop()
            for e in graph.vertex_edges[v]:
                if e in h.roads and e not in reached:
                    reached.add(e)
                    for w in graph.edge_vertices[e]:
                        if w not in seen_v:
                            seen_v.add(w)
                            stack.append(w)
        if reached != h.roads:
            raise InvariantViolation(
                f"road connectivity: {state.players[s]} has a road not joined to its network"
            )


def _check_awards(state: GameState) -> None:
    """Cached road lengths and the awards: each holder holds it by the rule."""
    graph = state.board.graph
    hands = state.hands
    for s, h in enumerate(hands):
        if h.road_length != longest_road(graph, h.roads, state.vertex_owner, s):
            raise InvariantViolation(f"longest road: {state.players[s]}'s cached length is stale")
    if state.longest_road != NOBODY and hands[state.longest_road].road_length < LONGEST_ROAD_MIN:
        raise InvariantViolation("longest road: the holder's road is shorter than 5")
    if state.longest_road != NOBODY and any(
        h.road_length > hands[state.longest_road].road_length for h in hands
    ):
        raise InvariantViolation("longest road: someone's road is longer than the holder's")
    if state.largest_army != NOBODY:
        k = hands[state.largest_army].knights
        if k < LARGEST_ARMY_MIN or any(h.knights > k for h in hands):
            raise InvariantViolation("largest army: the holder does not have the largest army")


def _check_points_and_victory(state: GameState) -> None:
    """Points are consistent with the board; nobody but the winner reached the goal on their
    turn."""
    hands = state.hands
    for s in range(len(hands)):
        pts = state.points(s)
        if pts != len(hands[s].settlements) + 2 * len(hands[s].cities) + hands[s].victory_cards + (
            2 if state.longest_road == s else 0
        ) + (2 if state.largest_army == s else 0):
            raise InvariantViolation(f"points: {state.players[s]}'s points disagree with the board")
    if state.phase is Phase.GAME_OVER and state.abandoned != NOBODY:
        if state.winner != NOBODY:
            raise InvariantViolation("victory: an abandoned game has no winner")
    elif state.phase is Phase.GAME_OVER:
        if state.winner == NOBODY or state.points(state.winner) < state.victory_points:
            raise InvariantViolation("victory: the game ended without a winner at the goal")
    elif (
        Phase.ROLL <= state.phase < Phase.SPECIAL_BUILD
        and state.points(state.current) >= state.victory_points
    ):
        raise InvariantViolation("victory: the active player has won but the game goes on")


def _check_deck(state: GameState) -> None:
    """The hidden deck agrees with the hands: what is shown is what the hands hold face up."""
    deck = state.deck
    assert deck is not None
    n = len(state.players)
    drawn = len(deck.holders)
    lengths = {len(deck.bought), len(deck.opened), len(deck.shared), len(deck.shown)}
    if lengths != {drawn} or drawn > sum(dev_deck(n)) or len(deck.passes) > n:
        raise InvariantViolation("deck: the drawn cards' records disagree in length")
    if drawn and len(deck.passes) < n:
        raise InvariantViolation("deck: a card was drawn before every seat shuffled")
    shown = [0] * len(DevCard)
    cards = zip(deck.holders, deck.shown, deck.shared, strict=True)
    for pos, (holder, kind, mask) in enumerate(cards):
        if not 0 <= holder < n or not mask >> holder & 1:
            raise InvariantViolation(f"deck: card {pos} has no holder")
        if kind >= 0:
            shown[kind] += 1
    face_up = [
        sum(h.dev_cards[k] + h.new_dev_cards[k] + h.played[k] for h in state.hands)
        for k in range(len(DevCard))
    ]
    if shown != face_up:
        raise InvariantViolation(
            f"deck: the hands show {face_up} development cards, the deck {shown}"
        )
