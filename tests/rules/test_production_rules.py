"""Production: settlements take one card, cities two, the robber blocks, the bank may run short."""

import random

from builders import (
    BLUE,
    RED,
    at_turn,
    cards,
    corner,
    drain_bank,
    fresh,
    give,
    place_settlement,
    quick_setup,
    roll,
    upgrade,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from catan_p2p.rules.cards import Resource, one
from catan_p2p.rules.state import Phase

HILLS_6 = (0, -1)
FIELDS_6 = (-1, 2)
RED_ON_HILLS = corner(HILLS_6, 0)  # hills 6, pasture 2, pasture 4
BLUE_ON_HILLS = corner(HILLS_6, 3)  # fields 12, forest 11, hills 6
RED_ON_FIELDS = corner(FIELDS_6, 3)  # fields 6, hills 5 and the sea


def _board(n_players: int = 3, blue_city: bool = True):
    state = place_settlement(fresh(n_players), RED, RED_ON_HILLS)
    state = place_settlement(state, BLUE, BLUE_ON_HILLS, city=blue_city)
    return at_turn(state, RED, Phase.ROLL)


def test_settlement_produces_one_card_city_two():
    state = roll(_board(), 6)
    assert state.hands[0].resources == cards(brick=1)
    assert state.hands[1].resources == cards(brick=2)
    assert state.bank[Resource.BRICK] == 16
    assert state.phase is Phase.MAIN


def test_other_numbers_produce_nothing_here():
    state = roll(_board(), 8)
    assert state.hands[0].resources == cards() and state.hands[1].resources == cards()


def test_every_tile_with_the_number_produces():
    state = place_settlement(_board(), RED, RED_ON_FIELDS)
    state = roll(state, 6)
    assert state.hands[0].resources == cards(brick=1, grain=1)


def test_robber_blocks_its_tile():
    state = place_settlement(_board(), RED, RED_ON_FIELDS)
    state = state._replace(robber=state.board.graph.tile_index[HILLS_6])
    state = roll(state, 6)
    assert state.hands[0].resources == cards(grain=1)  # fields still pay
    assert state.hands[1].resources == cards()


def test_bank_shortage_several_players_owed_nobody_gets_it():
    state = drain_bank(_board(), Resource.BRICK, leave=2)  # red owed 1, blue 2: 3 > 2
    after = roll(state, 6)
    assert after.hands[0].resources == cards() and after.hands[1].resources == cards()
    assert after.bank[Resource.BRICK] == 2


def test_bank_shortage_is_per_resource():
    state = place_settlement(_board(), RED, RED_ON_FIELDS)
    state = drain_bank(state, Resource.BRICK, leave=2)
    after = roll(state, 6)
    assert after.hands[0].resources == cards(grain=1)


def test_bank_shortage_lone_player_owed_gets_what_is_left():
    # Only Blue's city is on the hills: it is owed 2 brick and the bank has 1 left.
    state = place_settlement(fresh(3), BLUE, BLUE_ON_HILLS, city=True)
    state = at_turn(drain_bank(state, Resource.BRICK, leave=1), RED, Phase.ROLL)
    after = roll(state, 6)
    assert after.hands[1].resources == cards(brick=1)
    assert after.bank[Resource.BRICK] == 0


def test_bank_exactly_enough_pays_everyone():
    state = drain_bank(_board(), Resource.BRICK, leave=3)
    after = roll(state, 6)
    assert after.hands[0].resources == cards(brick=1)
    assert after.hands[1].resources == cards(brick=2)
    assert after.bank[Resource.BRICK] == 0


def test_seven_produces_nothing():
    state = roll(_board(), 7)
    assert all(h.resources == cards() for h in state.hands[:2])
    assert state.phase is Phase.MOVE_ROBBER


def _reference_production(state, total):
    """Production written out plainly from the rulebook, to compare the engine with."""
    graph = state.board.graph
    n = len(state.players)
    owed = [[0] * 5 for _ in range(n)]
    for t, number in enumerate(graph.tile_number):
        if number != total or t == state.robber:
            continue
        r = graph.tile_resource[t]
        for v in graph.tile_vertices[t]:
            for s, hand in enumerate(state.hands):
                if v in hand.settlements:
                    owed[s][r] += 1
                elif v in hand.cities:
                    owed[s][r] += 2
    hands = [list(h.resources) for h in state.hands]
    bank = list(state.bank)
    for r in range(5):
        want = sum(owed[s][r] for s in range(n))
        takers = [s for s in range(n) if owed[s][r]]
        if want <= bank[r]:
            for s in takers:
                hands[s][r] += owed[s][r]
            bank[r] -= want
        elif len(takers) == 1:
            hands[takers[0]][r] += bank[r]
            bank[r] = 0
    return [tuple(h) for h in hands], tuple(bank)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n_players=st.integers(2, 4),
    total=st.sampled_from([2, 3, 4, 5, 6, 8, 9, 10, 11, 12]),
)
def test_production_matches_the_rulebook(seed, n_players, total):
    rng = random.Random(seed)
    state = quick_setup(fresh(n_players), seed)
    graph = state.board.graph
    for s, player in enumerate(state.players):
        for v in sorted(state.hands[s].settlements):
            if rng.random() < 0.5:
                state = upgrade(state, player, graph.vertices[v])
    for r in Resource:  # a random bank, from plenty to short
        keep = rng.choice([0, 1, 2, 3, 5, state.bank[r]])
        if state.bank[r] > keep:
            state = give(state, rng.choice(state.players), one(r, state.bank[r] - keep))
    state = state._replace(robber=rng.randrange(len(graph.tiles)))
    state = at_turn(state, state.players[0], Phase.ROLL)
    hands, bank = _reference_production(state, total)
    after = roll(state, total)
    assert [h.resources for h in after.hands] == hands
    assert after.bank == bank
