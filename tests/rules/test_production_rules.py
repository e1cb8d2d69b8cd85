"""Production: settlements take one card, cities two, the robber blocks, the bank may run short."""

from builders import (
    BLUE,
    RED,
    at_turn,
    cards,
    corner,
    drain_bank,
    fresh,
    place_settlement,
    roll,
)

from catan_p2p.rules.cards import Resource
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
