"""``check_invariants`` catches each kind of broken state (so the property tests can fail)."""

import pytest
from builders import (
    BLUE,
    RED,
    at_turn,
    award,
    cards,
    corner,
    fresh,
    give,
    give_dev,
    path,
    place_roads,
    place_settlement,
    played_knights,
    quick_setup,
    top_zigzag,
)

from catan_p2p.errors import InvariantViolation
from catan_p2p.rules.cards import DevCard
from catan_p2p.rules.invariants import check_invariants
from catan_p2p.rules.state import Phase

ROW = top_zigzag([(-2, 0), (-1, 0), (0, 0)])


def _broken(state, law):
    with pytest.raises(InvariantViolation, match=law):
        check_invariants(state)


def test_consistent_states_pass():
    check_invariants(fresh(4))
    check_invariants(quick_setup(fresh(3), seed=1))


def test_resource_card_created_from_nothing_is_caught():
    state = fresh(2)
    red = state.hands[0]._replace(resources=cards(ore=1))
    _broken(state._replace(hands=(red, state.hands[1])), "conservation of resource cards")


def test_negative_bank_is_caught():
    state = give(fresh(2), RED, cards(ore=19))
    _broken(state._replace(bank=(19, 19, 19, 19, -1)), "negative")


def test_development_card_created_from_nothing_is_caught():
    state = give_dev(fresh(2), RED, DevCard.KNIGHT)
    _broken(state._replace(dev_deck=(14, 5, 2, 2, 2)), "conservation of development cards")


def test_board_disagreeing_with_pieces_is_caught():
    state = place_settlement(fresh(2), RED, ROW[0])
    _broken(state._replace(vertex_owner=(-1,) * 54), "pieces")


def test_distance_rule_break_is_caught():
    state = place_settlement(place_settlement(fresh(2), RED, ROW[0]), BLUE, ROW[1])
    _broken(state, "distance rule")


def test_orphan_road_is_caught():
    state = place_settlement(fresh(2), RED, ROW[0])
    state = place_roads(state, RED, path(ROW[3], ROW[4]))
    _broken(state, "road connectivity")


def test_stale_road_length_is_caught():
    state = place_roads(place_settlement(fresh(2), RED, ROW[0]), RED, path(*ROW[:3]))
    red = state.hands[0]._replace(road_length=1)
    _broken(state._replace(hands=(red, state.hands[1])), "longest road")


def test_longest_road_holder_below_five_is_caught():
    state = place_roads(place_settlement(fresh(2), RED, ROW[0]), RED, path(*ROW[:5]))
    _broken(award(state, longest_road=RED), "shorter than 5")


def test_longest_road_with_a_longer_rival_is_caught():
    state = place_roads(place_settlement(fresh(2), RED, ROW[0]), RED, path(*ROW))
    blue_row = top_zigzag([(-2, 2), (-1, 2), (0, 2)])
    state = place_roads(place_settlement(state, BLUE, blue_row[0]), BLUE, path(*blue_row[:6]))
    _broken(award(state, longest_road=BLUE), "longer than the holder")


def test_largest_army_without_three_knights_is_caught():
    state = played_knights(fresh(2), RED, 2)
    _broken(award(state, largest_army=RED), "largest army")


def test_active_player_at_ten_without_game_over_is_caught():
    state = fresh(2)
    spots = [corner((2, -2), 0), corner((0, 0), 0), corner((0, 0), 2), corner((0, 0), 4)]
    spots += [corner((-2, 0), 3), corner((0, 2), 5)]
    for i, v in enumerate(spots):
        state = place_settlement(state, RED, v, city=i >= 2)
    assert state.points(0) == 10
    check_invariants(at_turn(state, BLUE))  # Red waits for its own turn: fine
    _broken(at_turn(state, RED, Phase.ROLL), "victory")
