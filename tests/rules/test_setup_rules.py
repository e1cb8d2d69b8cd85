"""Set-up: snake order, free pieces, and resources from the second settlement only."""

from builders import (
    BLUE,
    RED,
    WHITE,
    cards,
    corner,
    fresh,
    path,
    play,
    quick_setup,
    refused,
    setup_with,
)

from catan_p2p.rules.actions import BuildRoad, BuildSettlement, RollDice
from catan_p2p.rules.cards import RESOURCE_SUPPLY
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import Phase

# Desert corner: forest 11, hills 6 and the desert.
DESERT_CORNER = corner((0, 0), 2)
# Two corners of hills 6 (0,-1) far from the desert corner and from each other.
HILLS_TOP = corner((0, -1), 1)  # mountains 10, hills 6, pasture 2
PASTURE_CORNER = corner((1, 0), 0)  # forest 3, hills 10, mountains 8


def _placements():
    return {
        RED: [
            (HILLS_TOP, path(HILLS_TOP, corner((0, -1), 0))[0]),
            (DESERT_CORNER, path(DESERT_CORNER, corner((0, 0), 3))[0]),
        ],
        BLUE: [
            (PASTURE_CORNER, path(PASTURE_CORNER, corner((1, 0), 1))[0]),
            (corner((0, 1), 4), path(corner((0, 1), 4), corner((0, 1), 5))[0]),
        ],
        WHITE: [
            (corner((-2, 1), 3), path(corner((-2, 1), 3), corner((-2, 1), 4))[0]),
            (corner((1, -2), 0), path(corner((1, -2), 0), corner((1, -2), 5))[0]),
        ],
    }


def _expected(state, vertex):
    """One card per producing land tile at ``vertex``, read off the board."""
    graph = state.board.graph
    counts = [0] * 5
    for t in graph.vertex_tiles[graph.vertex_index[vertex]]:
        if graph.tile_resource[t] >= 0:
            counts[graph.tile_resource[t]] += 1
    return tuple(counts)


def _play_setup(n_players: int):
    state = fresh(n_players)
    placements = {p: list(v) for p, v in _placements().items()}
    order = []
    while state.is_setup:
        player = state.players[state.current]
        order.append(player)
        vertex, road = placements[player].pop(0)
        state = play(state, BuildSettlement(player, vertex), BuildRoad(player, road))
    return state, order


def test_setup_snake_order_three_players():
    state, order = _play_setup(3)
    assert order == [RED, BLUE, WHITE, WHITE, BLUE, RED]
    assert state.phase is Phase.ROLL
    assert state.players[state.current] == RED
    assert state.turn == 1


def test_setup_snake_order_two_players():
    _, order = _play_setup(2)
    assert order == [RED, BLUE, BLUE, RED]


def test_setup_order_four_players_from_legal_play():
    state = fresh(4)
    order = []
    while state.is_setup:
        if state.phase is Phase.SETUP_SETTLEMENT:
            order.append(state.players[state.current])
        state = play(state, legal_actions(state)[0])
    assert order == ["red", "blue", "white", "orange", "orange", "white", "blue", "red"]


def test_first_settlement_gives_no_resources():
    state = play(fresh(2), BuildSettlement(RED, DESERT_CORNER))
    assert state.hands[0].resources == cards()
    assert state.bank == RESOURCE_SUPPLY


def test_second_settlement_takes_one_card_per_adjacent_producing_tile():
    state = setup_with(fresh(3), _placements())
    # Red's second settlement touches forest, hills and the desert: 1 lumber, 1 brick.
    assert state.hands[0].resources == cards(lumber=1, brick=1)
    # White's second is on the coast: pasture 2, forest 9 and the sea give 2 cards.
    assert state.hands[2].resources == cards(wool=1, lumber=1)
    # Blue's second: fields 6, fields 4 and pasture 11, so two grain and a wool.
    assert state.hands[1].resources == cards(grain=2, wool=1)
    assert state.hands[1].resources == _expected(state, corner((0, 1), 4))
    assert sum(state.bank) == 95 - sum(sum(h.resources) for h in state.hands)


def test_setup_pieces_are_free():
    state = setup_with(fresh(2), _placements())
    for hand in state.hands:
        assert len(hand.settlements) == 2 and len(hand.roads) == 2
    # Only second-settlement cards left the bank.
    assert sum(state.bank) + sum(sum(h.resources) for h in state.hands) == 95


def test_setup_road_must_touch_new_settlement():
    state = play(fresh(2), BuildSettlement(RED, DESERT_CORNER))
    far = path(HILLS_TOP, corner((0, -1), 0))[0]
    refused(state, BuildRoad(RED, far), "set-up")


def test_setup_second_road_must_touch_second_settlement():
    state = fresh(2)
    placements = _placements()
    red1, blue1, blue2 = placements[RED][0], placements[BLUE][0], placements[BLUE][1]
    state = play(
        state,
        BuildSettlement(RED, red1[0]),
        BuildRoad(RED, red1[1]),
        *[BuildSettlement(BLUE, blue1[0]), BuildRoad(BLUE, blue1[1])],
        *[BuildSettlement(BLUE, blue2[0]), BuildRoad(BLUE, blue2[1])],
        BuildSettlement(RED, DESERT_CORNER),
    )
    # A road next to the first settlement does not do for the second.
    refused(state, BuildRoad(RED, path(HILLS_TOP, corner((0, -1), 2))[0]), "set-up")


def test_setup_settlement_obeys_distance_rule():
    state = play(
        fresh(2),
        BuildSettlement(RED, DESERT_CORNER),
        BuildRoad(RED, path(DESERT_CORNER, corner((0, 0), 3))[0]),
    )
    refused(state, BuildSettlement(BLUE, corner((0, 0), 3)), "distance rule")
    assert all(a.vertex != corner((0, 0), 3) for a in legal_actions(state))


def test_setup_out_of_turn_is_refused():
    refused(fresh(2), BuildSettlement(BLUE, DESERT_CORNER), "turn order")


def test_no_dice_during_setup():
    refused(fresh(2), RollDice(RED, (3, 4)), "roll")


def test_setup_must_place_road_before_next_settlement():
    state = play(fresh(2), BuildSettlement(RED, DESERT_CORNER))
    refused(state, BuildSettlement(RED, HILLS_TOP), "road")


def test_quick_setup_ends_in_first_roll():
    state = quick_setup(fresh(4), seed=3)
    assert state.phase is Phase.ROLL and state.current == 0
    assert all(len(h.settlements) == 2 and len(h.roads) == 2 for h in state.hands)
