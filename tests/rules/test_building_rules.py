"""Building: costs, the distance rule, road connection and opponents' settlements, pieces."""

from builders import (
    BLUE,
    RED,
    at_turn,
    cards,
    corner,
    fresh,
    give,
    path,
    place_roads,
    place_settlement,
    play,
    refused,
    ring_walk,
    spend_roads,
)

from catan_p2p.rules.actions import BuildCity, BuildRoad, BuildSettlement
from catan_p2p.rules.cards import CITY_COST, ROAD_COST, SETTLEMENT_COST, add
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import Phase

RICH = cards(lumber=5, brick=5, wool=5, grain=5, ore=5)
# Red's settlement on corner 0 of the desert, with roads round the desert.
RING = ring_walk((0, 0), 0, 5)  # six corners of the desert tile, in order


def _red_base(*road_count: int):
    """Red settled on RING[0] with ``n`` roads along RING, rich, in its main phase."""
    n = road_count[0] if road_count else 1
    state = place_settlement(fresh(2), RED, RING[0])
    state = place_roads(state, RED, path(*RING[: n + 1]))
    return give(at_turn(state, RED), RED, RICH)


def test_settlement_distance_rule_refuses_neighbour_of_own_settlement():
    state = _red_base(1)
    refused(state, BuildSettlement(RED, RING[1]), "distance rule")


def test_settlement_distance_rule_refuses_neighbour_of_opponent_settlement():
    state = _red_base(2)
    state = place_settlement(state, BLUE, RING[3])
    refused(state, BuildSettlement(RED, RING[2]), "distance rule")


def test_settlement_two_steps_away_is_allowed_and_paid():
    state = _red_base(2)
    after = play(state, BuildSettlement(RED, RING[2]))
    assert after.hands[0].resources == cards(lumber=4, brick=4, wool=4, grain=4, ore=5)
    assert after.bank == add(state.bank, SETTLEMENT_COST)
    assert after.points(0) == 2


def test_settlement_must_touch_own_road():
    state = _red_base(1)
    refused(state, BuildSettlement(RED, RING[3]), "connection")


def test_settlement_on_occupied_vertex_is_refused():
    state = place_settlement(_red_base(2), BLUE, RING[2])
    refused(state, BuildSettlement(RED, RING[2]), "occupied")


def test_road_must_connect_to_own_network():
    state = _red_base(1)
    refused(state, BuildRoad(RED, path(RING[3], RING[4])[0]), "connection")


def test_road_extends_own_road_and_costs_lumber_and_brick():
    state = _red_base(1)
    after = play(state, BuildRoad(RED, path(RING[1], RING[2])[0]))
    assert len(after.hands[0].roads) == 2
    assert after.bank == add(state.bank, ROAD_COST)


def test_road_cannot_pass_opponent_settlement():
    # Red's road reaches RING[2] where Blue has a settlement: no road beyond it.
    state = place_settlement(_red_base(2), BLUE, RING[2])
    beyond = path(RING[2], RING[3])[0]
    refused(state, BuildRoad(RED, beyond), "connection")
    assert BuildRoad(RED, beyond) not in legal_actions(state)
    # Blue, whose settlement it is, may build there.
    blue = give(at_turn(state, BLUE), BLUE, RICH)
    play(blue, BuildRoad(BLUE, beyond))


def test_road_through_own_settlement_is_allowed():
    state = place_settlement(_red_base(2), RED, RING[2])
    play(state, BuildRoad(RED, path(RING[2], RING[3])[0]))


def test_road_on_taken_edge_is_refused():
    state = _red_base(1)
    refused(state, BuildRoad(RED, path(RING[0], RING[1])[0]), "occupied")


def test_building_without_the_cost_is_refused():
    state = place_settlement(fresh(2), RED, RING[0])
    state = place_roads(state, RED, path(RING[0], RING[1], RING[2]))
    state = at_turn(state, RED)
    refused(state, BuildRoad(RED, path(RING[2], RING[3])[0]), "cost")
    refused(state, BuildSettlement(RED, RING[2]), "cost")
    refused(state, BuildCity(RED, RING[0]), "cost")


def test_city_replaces_own_settlement_and_counts_two():
    state = _red_base(1)
    after = play(state, BuildCity(RED, RING[0]))
    hand = after.hands[0]
    assert hand.cities == {after.board.graph.vertex_index[RING[0]]} and not hand.settlements
    assert after.points(0) == 2
    assert after.bank == add(state.bank, CITY_COST)


def test_city_needs_own_settlement():
    state = place_settlement(_red_base(2), BLUE, RING[2])
    refused(state, BuildCity(RED, RING[2]), "city")
    refused(state, BuildCity(RED, RING[3]), "city")


def test_no_settlement_pieces_left_refuses_settlement():
    state = fresh(2)
    spots = [corner((0, 0), 0), corner((0, 0), 2), corner((0, 0), 4)]
    spots += [corner((-2, 0), 3), corner((2, -2), 0)]
    for v in spots:
        state = place_settlement(state, RED, v)
    state = place_roads(state, RED, path(RING[0], RING[5]))
    state = give(at_turn(state, RED), RED, RICH)
    assert state.hands[0].settlements_left == 0
    refused(state, BuildSettlement(RED, corner((1, 0), 0)), "pieces")


def test_no_road_pieces_left_refuses_road():
    state = spend_roads(place_settlement(fresh(2), RED, RING[0]), RED, 0, RING[0])
    state = give(at_turn(state, RED), RED, RICH)
    assert state.hands[0].roads_left == 0
    graph = state.board.graph
    reached = sorted({v for e in state.hands[0].roads for v in graph.edge_vertices[e]})
    edge = next(e for v in reached for e in graph.vertex_edges[v] if state.edge_owner[e] == -1)
    refused(state, BuildRoad(RED, state.board.graph.edges[edge]), "pieces")
    assert not any(isinstance(a, BuildRoad) for a in legal_actions(state))


def test_building_is_refused_before_the_roll():
    state = at_turn(_red_base(1), RED, Phase.ROLL)
    refused(state, BuildRoad(RED, path(RING[1], RING[2])[0]), "roll")


def test_building_on_another_players_turn_is_refused():
    state = give(_red_base(1), BLUE, RICH)
    refused(state, BuildRoad(BLUE, path(RING[3], RING[4])[0]), "turn order")


def test_city_returns_the_settlement_to_the_supply():
    state = _red_base(1)
    assert state.hands[0].settlements_left == 4
    after = play(state, BuildCity(RED, RING[0]))
    assert after.hands[0].settlements_left == 5
    assert after.hands[0].cities_left == 3


def test_no_city_pieces_left_refuses_city():
    state = _red_base(1)
    for v in (corner((2, -2), 0), corner((-2, 0), 3), corner((0, 2), 5), corner((2, 0), 5)):
        state = place_settlement(state, RED, v, city=True)
    assert state.hands[0].cities_left == 0
    refused(state, BuildCity(RED, RING[0]), "no cities left")
