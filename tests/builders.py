"""Builders of game states for scenario tests, so a test need not play a whole game.

Every builder starts from ``new_game`` and changes it with ``GameState._replace``
while keeping the conservation laws: cards move between the bank and a hand,
development cards between the deck and a hand, pieces between a player's supply and
the board (with ``vertex_owner``/``edge_owner``, ports and cached road lengths kept in
step). Placement builders skip the rule checks (that is their point), so a scenario
must still put pieces where the rules could have; ``play`` and ``refused`` run
``check_invariants`` on the state they are given, so a careless set-up fails loudly
instead of passing as an engine bug.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable, Mapping

import pytest

from catan_p2p.errors import IllegalAction
from catan_p2p.rules.actions import Action, BuildRoad, BuildSettlement, RollDice
from catan_p2p.rules.board import NO_PORT, STANDARD_BOARD, Board
from catan_p2p.rules.cards import Counts, DevCard, Resource, add, covers, one, sub
from catan_p2p.rules.chance import Chance, derive_chance
from catan_p2p.rules.hexgrid import EdgeId, Tile, VertexId, corners, edge_id
from catan_p2p.rules.invariants import check_invariants
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.roads import longest_road
from catan_p2p.rules.state import NOBODY, GameState, Phase, new_game
from catan_p2p.trust.engine import is_legal, step

RED, BLUE, WHITE, ORANGE = "red", "blue", "white", "orange"
COLOURS = (RED, BLUE, WHITE, ORANGE)


def git_identity() -> dict[str, str]:
    """The environment of a plain ``git commit`` in a test: the tests run with no Git
    identity (tests/conftest.py), as a fresh machine does, so such a test names one."""
    who = {"NAME": "catan-p2p tests", "EMAIL": "tests@catan-p2p.invalid"}
    return {
        **os.environ,
        **{f"GIT_{role}_{k}": v for role in ("AUTHOR", "COMMITTER") for k, v in who.items()},
    }


# --- geometry ---------------------------------------------------------------------------


def corner(tile: Tile, i: int) -> VertexId:
    """Vertex ``i`` (0..5) around ``tile``; corners ``i`` and ``i+1`` share a side."""
    return corners(tile)[i % 6]


def edge_between(a: VertexId, b: VertexId) -> EdgeId:
    """The edge joining two neighbouring vertices (the two tiles they share)."""
    common = sorted(set(a) & set(b))
    if len(common) != 2:
        raise ValueError(f"vertices {a} and {b} are not neighbours")
    return edge_id(common[0], common[1])


def path(*vertices: VertexId) -> list[EdgeId]:
    """The edges of a walk through consecutive neighbouring vertices."""
    return [edge_between(a, b) for a, b in zip(vertices, vertices[1:], strict=False)]


def ring_walk(tile: Tile, start: int, steps: int) -> list[VertexId]:
    """``steps + 1`` vertices walking round ``tile`` from corner ``start``."""
    return [corner(tile, start + k) for k in range(steps + 1)]


def top_zigzag(tiles: list[Tile]) -> list[VertexId]:
    """Vertices of the zig-zag along the top of a west-to-east row of tiles.

    Each tile adds its upper-left and top corners; the last adds its upper-right corner
    too, so ``n`` tiles give ``2n + 1`` vertices (``2n`` edges) in one simple path.
    """
    out: list[VertexId] = []
    for t in tiles:
        out += [corner(t, 2), corner(t, 1)]
    return out + [corner(tiles[-1], 0)]


def cards(**counts: int) -> Counts:
    """A resource 5-tuple from keywords: ``cards(lumber=1, ore=2)``."""
    out = [0, 0, 0, 0, 0]
    for name, n in counts.items():
        out[Resource.parse(name)] = n
    return tuple(out)  # type: ignore[return-value]


def _counts(value: Counts | Mapping[str, int]) -> Counts:
    return cards(**value) if isinstance(value, Mapping) else tuple(value)  # type: ignore[return-value]


# --- states -----------------------------------------------------------------------------


def fresh(n_players: int = 2, board: Board = STANDARD_BOARD, **options: object) -> GameState:
    """A new game of ``n_players`` (red, blue, white, orange) before any settlement."""
    return new_game(COLOURS[:n_players], board, **options)  # type: ignore[arg-type]


def at_turn(
    state: GameState,
    player: str,
    phase: Phase = Phase.MAIN,
    dice: tuple[int, int] | None = None,
) -> GameState:
    """``state`` with set-up over and ``player`` to act in ``phase``.

    In MAIN and later phases the dice show ``dice`` (default 2+1, which matters only
    for where the turn resumes after the robber); in ROLL nothing has been rolled yet.
    """
    if phase is Phase.ROLL:
        dice = None
    elif dice is None:
        dice = (2, 1)
    return state._replace(
        phase=phase,
        current=state.seat(player),
        setup_step=len(state.setup_order),
        turn=max(state.turn, 1),
        dice=dice,
        dev_played=False,
        discards=(0,) * len(state.players),
        trade=None,
        free_roads=0,
    )


def give(state: GameState, player: str, counts: Counts | Mapping[str, int]) -> GameState:
    """Move cards from the bank to ``player``'s hand."""
    counts = _counts(counts)
    if not covers(state.bank, counts):
        raise ValueError(f"the bank {state.bank} cannot give {counts}")
    s = state.seat(player)
    hand = state.hands[s]
    hand = hand._replace(resources=add(hand.resources, counts))
    return state._replace(hands=_with(state.hands, s, hand), bank=sub(state.bank, counts))


def take(state: GameState, player: str, counts: Counts | Mapping[str, int]) -> GameState:
    """Move cards from ``player``'s hand back to the bank."""
    counts = _counts(counts)
    s = state.seat(player)
    hand = state.hands[s]
    if not covers(hand.resources, counts):
        raise ValueError(f"{player} holds {hand.resources}, not {counts}")
    hand = hand._replace(resources=sub(hand.resources, counts))
    return state._replace(hands=_with(state.hands, s, hand), bank=add(state.bank, counts))


def set_hand(state: GameState, player: str, counts: Counts | Mapping[str, int]) -> GameState:
    """``player`` holds exactly ``counts`` (the old hand goes back to the bank first)."""
    state = take(state, player, state.hands[state.seat(player)].resources)
    return give(state, player, counts)


def drain_bank(state: GameState, resource: Resource, leave: int = 0) -> GameState:
    """Move ``resource`` cards from the bank to the last seat until ``leave`` remain.

    The last seat is a bystander in the scenarios that use this; tests that need it
    elsewhere can move the cards on with ``take``/``give``.
    """
    n = state.bank[resource] - leave
    return give(state, state.players[-1], one(resource, n)) if n > 0 else state


def give_dev(
    state: GameState, player: str, card: DevCard, count: int = 1, bought_now: bool = False
) -> GameState:
    """Move development cards from the deck to ``player`` (playable, or bought this turn)."""
    s = state.seat(player)
    hand = state.hands[s]
    if state.dev_deck[card] < count:
        raise ValueError(f"the deck holds only {state.dev_deck[card]} {card.label}")
    if bought_now:
        hand = hand._replace(new_dev_cards=add(hand.new_dev_cards, one(card, count)))
    else:
        hand = hand._replace(dev_cards=add(hand.dev_cards, one(card, count)))
    return state._replace(
        hands=_with(state.hands, s, hand), dev_deck=sub(state.dev_deck, one(card, count))
    )


def played_knights(state: GameState, player: str, count: int) -> GameState:
    """``player`` has ``count`` knights face up (taken from the deck); awards unchanged."""
    s = state.seat(player)
    hand = state.hands[s]
    hand = hand._replace(played=add(hand.played, one(DevCard.KNIGHT, count)))
    return state._replace(
        hands=_with(state.hands, s, hand),
        dev_deck=sub(state.dev_deck, one(DevCard.KNIGHT, count)),
    )


def place_settlement(
    state: GameState, player: str, vertex: VertexId, city: bool = False
) -> GameState:
    """Put a settlement (or city) of ``player`` on ``vertex``, free and without rule checks.

    Ports are recorded and every cached road length is refreshed, since a building can
    break an opponent's road.
    """
    graph = state.board.graph
    v = graph.vertex_index[vertex]
    if state.vertex_owner[v] != NOBODY:
        raise ValueError(f"vertex {vertex} is taken")
    s = state.seat(player)
    hand = state.hands[s]
    if city:
        hand = hand._replace(cities=hand.cities | {v})
    else:
        hand = hand._replace(settlements=hand.settlements | {v})
    if graph.vertex_port[v] != NO_PORT:
        hand = hand._replace(ports=hand.ports | {graph.vertex_port[v]})
    state = state._replace(
        hands=_with(state.hands, s, hand), vertex_owner=_with(state.vertex_owner, v, s)
    )
    return refresh_road_lengths(state)


def upgrade(state: GameState, player: str, vertex: VertexId) -> GameState:
    """Turn ``player``'s settlement on ``vertex`` into a city, free and without rule checks."""
    v = state.board.graph.vertex_index[vertex]
    s = state.seat(player)
    hand = state.hands[s]
    if v not in hand.settlements:
        raise ValueError(f"{player} has no settlement at {vertex}")
    hand = hand._replace(settlements=hand.settlements - {v}, cities=hand.cities | {v})
    return state._replace(hands=_with(state.hands, s, hand))


def place_roads(state: GameState, player: str, edges: Iterable[EdgeId]) -> GameState:
    """Put roads of ``player`` on ``edges``, free and without connection checks."""
    graph = state.board.graph
    s = state.seat(player)
    hand = state.hands[s]
    owner = state.edge_owner
    for eid in edges:
        e = graph.edge_index[eid]
        if owner[e] != NOBODY:
            raise ValueError(f"edge {eid} is taken")
        owner = _with(owner, e, s)
        hand = hand._replace(roads=hand.roads | {e})
    state = state._replace(hands=_with(state.hands, s, hand), edge_owner=owner)
    return refresh_road_lengths(state)


def refresh_road_lengths(state: GameState) -> GameState:
    """Recompute every player's cached longest-road length (awards are left alone)."""
    graph = state.board.graph
    hands = tuple(
        h._replace(road_length=longest_road(graph, h.roads, state.vertex_owner, s))
        for s, h in enumerate(state.hands)
    )
    return state._replace(hands=hands)


def award(
    state: GameState, longest_road: str | None = None, largest_army: str | None = None
) -> GameState:
    """Hand the longest road and/or largest army card to a player (None leaves it)."""
    if longest_road is not None:
        state = state._replace(longest_road=state.seat(longest_road))
    if largest_army is not None:
        state = state._replace(largest_army=state.seat(largest_army))
    return state


def spend_roads(state: GameState, player: str, left: int, near: VertexId) -> GameState:
    """Lay ``player``'s roads out from their settlement at ``near`` until ``left`` remain.

    Grows a connected network breadth-first over free edges, so the pieces placed
    stay legal (connected, not through opponents' buildings).
    """
    graph = state.board.graph
    s = state.seat(player)
    start = graph.vertex_index[near]
    if state.vertex_owner[start] != s:
        raise ValueError(f"{player} has no building at {near}")
    frontier = [start]
    seen = {start}
    while state.hands[s].roads_left > left:
        v = frontier.pop(0)
        for e in graph.vertex_edges[v]:
            if state.hands[s].roads_left <= left:
                break
            if state.edge_owner[e] != NOBODY:
                continue
            state = place_roads(state, player, [graph.edges[e]])
            for w in graph.edge_vertices[e]:
                if w not in seen and state.vertex_owner[w] in (NOBODY, s):
                    seen.add(w)
                    frontier.append(w)
    return state


# --- playing actions --------------------------------------------------------------------


def play(state: GameState, *actions: Action, chance: Chance | None = None) -> GameState:
    """Apply ``actions`` in order, checking the invariants before and after each one."""
    check_invariants(state)
    for i, action in enumerate(actions):
        state, _ = step(state, action, chance or derive_chance("builders", str(i)))
        check_invariants(state)
    return state


def roll(state: GameState, total: int) -> GameState:
    """The active player rolls ``total`` (2..12) with fixed dice."""
    first = min(6, total - 1)
    return play(state, RollDice(state.players[state.current], (first, total - first)))


def refused(state: GameState, action: Action, rule: str) -> IllegalAction:
    """Assert ``action`` is refused with a message naming ``rule``, and changes nothing."""
    check_invariants(state)
    before = state
    snapshot = tuple(state)
    with pytest.raises(IllegalAction) as info:
        step(state, action, derive_chance("builders", "refused"))
    assert rule.lower() in str(info.value).lower(), str(info.value)
    assert state is before and tuple(state) == snapshot
    assert not is_legal(state, action)
    assert action not in legal_actions(state)
    return info.value


def setup_with(
    state: GameState, placements: Mapping[str, list[tuple[VertexId, EdgeId]]]
) -> GameState:
    """Play the two set-up rounds with the given (settlement, road) pair per player and round.

    ``placements[colour]`` lists the first-round pair then the second-round pair; the
    snake order decides who places when.
    """
    rounds = {p: list(pairs) for p, pairs in placements.items()}
    while state.is_setup:
        player = state.players[state.current]
        vertex, road = rounds[player].pop(0)
        state = play(state, BuildSettlement(player, vertex), BuildRoad(player, road))
    return state


def quick_setup(state: GameState, seed: int = 0) -> GameState:
    """Play the whole set-up with seeded random legal placements; ends in ROLL."""
    rng = random.Random(seed)
    while state.is_setup:
        state, _ = step(state, rng.choice(legal_actions(state)))
    check_invariants(state)
    return state


#: Weights of a random player that prefers building, so random games end.
ACTION_WEIGHTS: dict[str, float] = {
    "build_settlement": 100.0,
    "build_city": 100.0,
    "buy_dev_card": 20.0,
    "build_road": 10.0,
    "confirm_trade": 5.0,
    "play_knight": 5.0,
    "play_road_building": 5.0,
    "play_year_of_plenty": 1.0,
    "play_monopoly": 1.0,
    "maritime_trade": 3.0,
    "end_turn": 2.0,
    "offer_trade": 0.05,
}


def pick_action(rng: random.Random, actions: list[Action]) -> Action:
    """A random choice among ``actions`` weighted by ``ACTION_WEIGHTS`` (default 1)."""
    weights = [ACTION_WEIGHTS.get(a.kind, 1.0) for a in actions]
    return rng.choices(actions, weights)[0]


def _with(items: tuple, index: int, value: object) -> tuple:
    return items[:index] + (value,) + items[index + 1 :]


__all__ = [
    "BLUE",
    "COLOURS",
    "ORANGE",
    "RED",
    "WHITE",
    "at_turn",
    "award",
    "cards",
    "corner",
    "drain_bank",
    "edge_between",
    "fresh",
    "give",
    "give_dev",
    "path",
    "pick_action",
    "top_zigzag",
    "upgrade",
    "place_roads",
    "place_settlement",
    "play",
    "played_knights",
    "quick_setup",
    "refresh_road_lengths",
    "refused",
    "ring_walk",
    "roll",
    "set_hand",
    "setup_with",
    "spend_roads",
    "take",
]
