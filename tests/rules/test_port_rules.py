"""Maritime trade: 4:1 with the bank, 3:1 at a generic harbour, 2:1 at a special harbour."""

import pytest
from builders import (
    RED,
    at_turn,
    cards,
    fresh,
    give,
    path,
    place_roads,
    place_settlement,
    play,
    refused,
)

from catan_p2p.rules.actions import BuildCity, BuildSettlement, MaritimeTrade
from catan_p2p.rules.cards import SETTLEMENT_COST, Resource, add
from catan_p2p.rules.hexgrid import edge_ends
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import Phase

LUMBER, BRICK, WOOL, GRAIN, ORE = Resource
GENERIC_PORT = edge_ends(((0, -3), (0, -2)))[0]
ORE_PORT = edge_ends(((2, -1), (3, -2)))[0]
INLAND = ((-1, 0), (0, -1), (0, 0))


def _red_at(vertex, hand, city=False):
    state = place_settlement(fresh(2), RED, vertex, city=city)
    return give(at_turn(state, RED), RED, hand)


def test_four_to_one_without_a_harbour():
    state = _red_at(INLAND, cards(wool=4))
    assert state.rate(0, WOOL) == 4
    after = play(state, MaritimeTrade(RED, WOOL, ORE))
    assert after.hands[0].resources == cards(ore=1)
    assert after.bank == (19, 19, 19, 19, 18)


def test_four_to_one_needs_four_cards():
    refused(_red_at(INLAND, cards(wool=3)), MaritimeTrade(RED, WOOL, ORE), "4:1")


def test_three_to_one_at_a_generic_harbour():
    state = _red_at(GENERIC_PORT, cards(wool=3))
    assert all(state.rate(0, r) == 3 for r in Resource)
    after = play(state, MaritimeTrade(RED, WOOL, ORE))
    assert after.hands[0].resources == cards(ore=1)


def test_three_to_one_needs_three_cards():
    refused(_red_at(GENERIC_PORT, cards(wool=2)), MaritimeTrade(RED, WOOL, ORE), "3:1")


def test_two_to_one_at_a_special_harbour_for_its_resource():
    state = _red_at(ORE_PORT, cards(ore=2))
    after = play(state, MaritimeTrade(RED, ORE, GRAIN))
    assert after.hands[0].resources == cards(grain=1)


@pytest.mark.parametrize("resource", [LUMBER, BRICK, WOOL, GRAIN])
def test_special_harbour_gives_no_three_to_one_on_other_resources(resource):
    state = _red_at(ORE_PORT, cards(**{resource.label: 3}))
    assert state.rate(0, resource) == 4
    refused(state, MaritimeTrade(RED, resource, ORE), "4:1")
    assert not any(isinstance(a, MaritimeTrade) for a in legal_actions(state))


def test_every_two_to_one_harbour_of_the_standard_board():
    board = fresh(2).board
    for port in board.ports:
        if port.resource is None:
            continue
        vertex = edge_ends(port.edge)[1]
        state = _red_at(vertex, cards(**{port.resource.label: 2}))
        other = Resource((port.resource + 1) % 5)
        after = play(state, MaritimeTrade(RED, port.resource, other))
        assert after.hands[0].resources == cards(**{other.label: 1}), port


def test_special_and_generic_harbours_combine():
    state = place_settlement(_red_at(ORE_PORT, cards(ore=2, wool=3)), RED, GENERIC_PORT)
    assert state.rate(0, ORE) == 2 and state.rate(0, WOOL) == 3
    after = play(state, MaritimeTrade(RED, ORE, GRAIN), MaritimeTrade(RED, WOOL, GRAIN))
    assert after.hands[0].resources == cards(grain=2)


def test_city_keeps_its_harbour():
    state = _red_at(ORE_PORT, cards(grain=2, ore=5))
    state = play(state, BuildCity(RED, ORE_PORT))
    assert state.rate(0, ORE) == 2
    play(state, MaritimeTrade(RED, ORE, GRAIN))


def test_maritime_trade_for_the_same_resource_is_refused():
    refused(_red_at(INLAND, cards(wool=4)), MaritimeTrade(RED, WOOL, WOOL), "same resource")


def test_maritime_trade_needs_the_bank_to_hold_the_card():
    state = _red_at(INLAND, cards(wool=4, ore=19))
    refused(state, MaritimeTrade(RED, WOOL, ORE), "no ore left")


def test_maritime_trade_only_after_the_roll():
    state = at_turn(_red_at(INLAND, cards(wool=4)), RED, Phase.ROLL)
    refused(state, MaritimeTrade(RED, WOOL, ORE), "trade with the bank")


def test_harbour_is_usable_the_turn_its_settlement_is_built():
    # Red's road leads to the generic harbour; building there gives 3:1 at once.
    graph = fresh(2).board.graph
    port = graph.vertex_index[GENERIC_PORT]
    step1 = next(n for n in graph.vertex_neighbours[port])
    start = next(n for n in graph.vertex_neighbours[step1] if n != port)
    state = place_settlement(fresh(2), RED, graph.vertices[start])
    state = place_roads(
        state, RED, path(graph.vertices[start], graph.vertices[step1], GENERIC_PORT)
    )
    state = give(at_turn(state, RED), RED, add(SETTLEMENT_COST, cards(ore=3)))
    state = play(state, BuildSettlement(RED, GENERIC_PORT))
    assert state.rate(0, ORE) == 3
    after = play(state, MaritimeTrade(RED, ORE, BRICK))
    assert after.hands[0].resources == cards(brick=1)


def test_setup_settlement_on_a_harbour_owns_it():
    state = play(fresh(2), BuildSettlement(RED, ORE_PORT))
    assert state.rate(0, ORE) == 2 and state.rate(0, WOOL) == 4
    assert state.rate(1, ORE) == 4
