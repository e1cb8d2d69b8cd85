"""Longest road: at least 5 roads in one trail, branches and loops, ties, broken roads."""

import random

from builders import (
    BLUE,
    RED,
    WHITE,
    at_turn,
    award,
    cards,
    fresh,
    give,
    path,
    place_roads,
    place_settlement,
    play,
    ring_walk,
    top_zigzag,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from catan_p2p.rules.actions import BuildRoad, BuildSettlement
from catan_p2p.rules.cards import ROAD_COST, SETTLEMENT_COST
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.roads import longest_road
from catan_p2p.rules.state import NOBODY

# Three long simple paths along the tops of three rows of tiles (2 edges per tile).
RED_ROW = top_zigzag([(-2, 0), (-1, 0), (0, 0), (1, 0)])  # 8 edges
BLUE_ROW = top_zigzag([(-2, 2), (-1, 2), (0, 2)])  # 6 edges
WHITE_ROW = top_zigzag([(0, -2), (1, -2), (2, -2)])  # 6 edges


def _roads(state, player, row, n):
    """``player`` settled at the west end of ``row`` with its first ``n`` roads."""
    state = place_settlement(state, player, row[0])
    return place_roads(state, player, path(*row[: n + 1]))


def _away(state, vertex, avoid, steps=2):
    """A walk of ``steps`` edges from ``vertex`` over free places, not touching ``avoid``.

    The walk ends where a settlement may stand (the distance rule holds there).
    """
    graph = state.board.graph
    owner = state.vertex_owner
    walk = [graph.vertex_index[vertex]]
    banned = {graph.vertex_index[v] for v in avoid}
    for k in range(steps):
        last = k == steps - 1
        nxt = min(
            n
            for n in graph.vertex_neighbours[walk[-1]]
            if n not in banned
            and n not in walk
            and owner[n] == NOBODY
            and (not last or all(owner[m] == NOBODY for m in graph.vertex_neighbours[n]))
        )
        walk.append(nxt)
    return [graph.vertices[v] for v in walk]


def _breaker(state, player, vertex, avoid):
    """``player`` gets a settlement two steps from ``vertex`` and roads up to it, plus cash."""
    walk = _away(state, vertex, avoid)
    state = place_settlement(state, player, walk[-1])
    state = place_roads(state, player, path(*walk))
    return give(at_turn(state, player), player, SETTLEMENT_COST)


def _length(state, seat):
    graph = state.board.graph
    return longest_road(graph, state.hands[seat].roads, state.vertex_owner, seat)


def test_four_roads_are_not_enough():
    state = at_turn(_roads(fresh(2), RED, RED_ROW, 4), RED)
    assert state.hands[0].road_length == 4 and state.longest_road == NOBODY


def test_five_road_chain_takes_longest_road():
    state = give(at_turn(_roads(fresh(2), RED, RED_ROW, 4), RED), RED, ROAD_COST)
    before = state.points(0)
    after = play(state, BuildRoad(RED, path(RED_ROW[4], RED_ROW[5])[0]))
    assert after.hands[0].road_length == 5
    assert after.longest_road == 0
    assert after.points(0) == before + 2


def test_branch_does_not_count():
    state = give(at_turn(_roads(fresh(2), RED, RED_ROW, 4), RED), RED, ROAD_COST)
    branch = _away(state, RED_ROW[2], RED_ROW, steps=1)
    after = play(state, BuildRoad(RED, path(*branch)[0]))
    assert len(after.hands[0].roads) == 5
    assert after.hands[0].road_length == 4
    assert after.longest_road == NOBODY


def test_branch_counts_only_the_longer_arm():
    state = _roads(fresh(2), RED, RED_ROW, 4)
    branch = _away(state, RED_ROW[2], RED_ROW, steps=3)
    state = place_roads(state, RED, path(*branch))  # arms 2, 2 and 3 meet at RED_ROW[2]
    assert state.hands[0].road_length == 5


def test_loop_counts_every_road_once():
    ring = ring_walk((0, 0), 0, 6)  # round the desert back to the start
    state = place_settlement(fresh(2), RED, ring[0])
    state = place_roads(state, RED, path(*ring))
    assert state.hands[0].road_length == 6
    tail = _away(state, ring[3], ring, steps=1)
    state = place_roads(state, RED, path(*tail))
    assert state.hands[0].road_length == 7


def test_loop_built_by_play_takes_the_award():
    ring = ring_walk((0, 0), 0, 6)
    state = place_settlement(fresh(2), RED, ring[0])
    state = place_roads(state, RED, path(*ring[:6]))
    state = give(at_turn(state, RED), RED, ROAD_COST)
    after = play(state, BuildRoad(RED, path(ring[5], ring[6])[0]))
    assert after.hands[0].road_length == 6 and after.longest_road == 0


def test_tie_keeps_the_holder():
    state = award(_roads(fresh(2), BLUE, BLUE_ROW, 5), longest_road=BLUE)
    state = _roads(state, RED, RED_ROW, 4)
    state = give(at_turn(state, RED), RED, ROAD_COST)
    after = play(state, BuildRoad(RED, path(RED_ROW[4], RED_ROW[5])[0]))
    assert after.hands[0].road_length == 5
    assert after.longest_road == 1


def test_longer_road_takes_the_award():
    state = award(_roads(fresh(2), BLUE, BLUE_ROW, 5), longest_road=BLUE)
    state = _roads(state, RED, RED_ROW, 5)
    state = give(at_turn(state, RED), RED, ROAD_COST)
    after = play(state, BuildRoad(RED, path(RED_ROW[5], RED_ROW[6])[0]))
    assert after.longest_road == 0
    assert after.points(1) == state.points(1) - 2


def test_first_to_five_while_another_has_five_without_holder_takes_nothing():
    # Both reach five without a holder (after an earlier break): the card stays aside.
    state = _roads(fresh(3), BLUE, BLUE_ROW, 5)
    state = _roads(state, WHITE, WHITE_ROW, 4)
    state = give(at_turn(state, WHITE), WHITE, ROAD_COST)
    after = play(state, BuildRoad(WHITE, path(WHITE_ROW[4], WHITE_ROW[5])[0]))
    assert after.longest_road == NOBODY


def test_break_by_settlement_hands_the_award_over():
    # Red holds with 6; Blue has 5 elsewhere and settles in the middle of Red's road.
    state = award(_roads(fresh(2), RED, RED_ROW, 6), longest_road=RED)
    state = _roads(state, BLUE, BLUE_ROW, 5)
    state = _breaker(state, BLUE, RED_ROW[3], RED_ROW + BLUE_ROW)
    after = play(state, BuildSettlement(BLUE, RED_ROW[3]))
    assert after.hands[0].road_length == 3
    assert after.longest_road == 1
    assert after.points(1) == state.points(1) + 1 + 2
    assert after.points(0) == state.points(0) - 2


def test_break_with_a_tie_for_the_new_longest_sets_the_award_aside():
    state = award(_roads(fresh(3), RED, RED_ROW, 6), longest_road=RED)
    state = _roads(state, BLUE, BLUE_ROW, 5)
    state = _roads(state, WHITE, WHITE_ROW, 5)
    state = _breaker(state, BLUE, RED_ROW[3], RED_ROW + BLUE_ROW + WHITE_ROW)
    after = play(state, BuildSettlement(BLUE, RED_ROW[3]))
    assert [h.road_length for h in after.hands] == [3, 5, 5]
    assert after.longest_road == NOBODY


def test_break_leaving_the_holder_tied_keeps_the_award():
    # Red's 8 roads broken at the sixth vertex: 5 and 3; Blue has 5. Red keeps the card.
    state = award(_roads(fresh(2), RED, RED_ROW, 8), longest_road=RED)
    state = _roads(state, BLUE, BLUE_ROW, 5)
    state = _breaker(state, BLUE, RED_ROW[5], RED_ROW + BLUE_ROW)
    after = play(state, BuildSettlement(BLUE, RED_ROW[5]))
    assert after.hands[0].road_length == 5
    assert after.longest_road == 0


def test_break_below_five_with_nobody_else_sets_the_award_aside():
    state = award(_roads(fresh(2), RED, RED_ROW, 5), longest_road=RED)
    state = _breaker(state, BLUE, RED_ROW[2], RED_ROW)
    after = play(state, BuildSettlement(BLUE, RED_ROW[2]))
    assert after.hands[0].road_length == 3
    assert after.longest_road == NOBODY


def test_award_set_aside_returns_when_one_player_leads():
    state = _roads(fresh(3), BLUE, BLUE_ROW, 5)
    state = _roads(state, WHITE, WHITE_ROW, 5)
    state = give(at_turn(state, WHITE), WHITE, ROAD_COST)
    after = play(state, BuildRoad(WHITE, path(WHITE_ROW[5], WHITE_ROW[6])[0]))
    assert after.longest_road == 2


def test_opponent_settlement_at_the_end_of_a_road_does_not_shorten_it():
    state = award(_roads(fresh(2), RED, RED_ROW, 5), longest_road=RED)
    state = place_settlement(state, BLUE, RED_ROW[5])
    assert _length(state, 0) == 5


def test_own_settlement_does_not_break_own_road():
    state = award(_roads(fresh(2), RED, RED_ROW, 5), longest_road=RED)
    state = give(at_turn(state, RED), RED, SETTLEMENT_COST)
    after = play(state, BuildSettlement(RED, RED_ROW[2]))
    assert after.hands[0].road_length == 5 and after.longest_road == 0


def test_broken_road_cannot_be_continued_through_the_settlement():
    state = _roads(fresh(2), RED, RED_ROW, 4)
    state = place_settlement(state, BLUE, RED_ROW[4])
    state = give(at_turn(state, RED), RED, cards(lumber=1, brick=1))
    beyond = BuildRoad(RED, path(RED_ROW[4], RED_ROW[5])[0])
    assert beyond not in legal_actions(state)


def _reference_longest(graph, roads, owner, seat):
    """Longest trail by growing edge sequences one road at a time (the rulebook's count)."""
    best = 0
    stack = [((e,), end) for e in roads for end in graph.edge_vertices[e]]
    while stack:
        trail, end = stack.pop()
        best = max(best, len(trail))
        if owner[end] not in (NOBODY, seat):
            continue  # an opponent's building: the road stops here
        for e in graph.vertex_edges[end]:
            if e in roads and e not in trail:
                a, b = graph.edge_vertices[e]
                stack.append((trail + (e,), b if a == end else a))
    return best


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    size=st.integers(1, 13),
    buildings=st.integers(0, 5),
    networks=st.integers(1, 2),
)
def test_longest_road_matches_a_plain_count_of_trails(seed, size, buildings, networks):
    """Random road networks (one or two) with own and opponents' buildings on them."""
    rng = random.Random(seed)
    graph = fresh(2).board.graph
    reached = {rng.randrange(len(graph.vertices)) for _ in range(networks)}
    roads: set[int] = set()
    while len(roads) < size:
        v = rng.choice(sorted(reached))
        free = [e for e in graph.vertex_edges[v] if e not in roads]
        if free:
            e = rng.choice(free)
            roads.add(e)
            reached.update(graph.edge_vertices[e])
    owner = [NOBODY] * len(graph.vertices)
    for v in rng.sample(sorted(reached), min(buildings, len(reached))):
        owner[v] = rng.choice([0, 1, 2])
    owner = tuple(owner)
    expected = _reference_longest(graph, roads, owner, 0)
    assert longest_road(graph, frozenset(roads), owner, 0) == expected
