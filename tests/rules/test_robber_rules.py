"""Rolling a seven: discards of half rounded down, moving the robber, stealing one card."""

import pytest
from builders import (
    BLUE,
    RED,
    WHITE,
    at_turn,
    cards,
    corner,
    fresh,
    give,
    place_settlement,
    play,
    refused,
    roll,
    take,
)

from catan_p2p.rules.actions import Discard, EndTurn, MoveRobber
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import Phase
from catan_p2p.rules.waiting import actors
from catan_p2p.trust.engine import step

HILLS_6 = (0, -1)
FOREST_3 = (1, 0)
DESERT = (0, 0)


def _seven(red: int, blue: int, white: int = 0):
    """Three players holding ``red``/``blue``/``white`` cards; Red has just rolled a seven."""
    state = fresh(3)
    for player, n in ((RED, red), (BLUE, blue), (WHITE, white)):
        # Spread each hand over the resources so any discard choice is possible.
        counts = [n // 5 + (1 if i < n % 5 else 0) for i in range(5)]
        state = give(state, player, tuple(counts))
    return roll(at_turn(state, RED, Phase.ROLL), 7)


@pytest.mark.parametrize(("held", "owed"), [(7, 0), (8, 4), (9, 4), (10, 5), (11, 5), (15, 7)])
def test_seven_discards_half_rounded_down_above_seven(held, owed):
    state = _seven(0, held)
    assert state.discards[1] == owed
    assert state.phase is (Phase.DISCARD if owed else Phase.MOVE_ROBBER)


def test_exactly_eight_cards_discards_four():
    state = _seven(8, 0)
    assert state.discards == (4, 0, 0)
    after = play(state, Discard(RED, cards(lumber=2, brick=2)))
    assert after.hands[0].card_count == 4
    assert after.phase is Phase.MOVE_ROBBER


def test_seven_cards_discard_nothing():
    state = _seven(7, 7, 7)
    assert state.discards == (0, 0, 0)
    assert state.phase is Phase.MOVE_ROBBER
    refused(state, Discard(RED, cards(lumber=1)), "discard")


def test_discard_must_be_exactly_half():
    state = _seven(0, 9)
    refused(state, Discard(BLUE, cards(lumber=1, brick=1, wool=1)), "exactly 4")
    refused(state, Discard(BLUE, cards(lumber=2, brick=2, wool=1)), "exactly 4")


def test_discard_of_cards_not_held_is_refused():
    state = _seven(0, 8)  # Blue holds 2 lumber, 2 brick, 2 wool, 1 grain, 1 ore
    refused(state, Discard(BLUE, cards(ore=4)), "discard")


def test_every_player_over_seven_discards_before_the_robber_moves():
    state = _seven(9, 10, 3)
    assert state.discards == (4, 5, 0)
    refused(state, MoveRobber(RED, FOREST_3), "move the robber")
    state = play(state, Discard(BLUE, cards(lumber=2, brick=2, wool=1)))
    assert state.phase is Phase.DISCARD
    state = play(state, Discard(RED, cards(lumber=2, brick=2)))
    assert state.phase is Phase.MOVE_ROBBER
    assert sum(state.bank) == 95 - 5 - 5 - 3


def test_discards_go_back_to_the_bank():
    state = _seven(0, 8)
    after = play(state, Discard(BLUE, cards(lumber=2, brick=2)))
    assert after.bank[0] == state.bank[0] + 2 and after.bank[1] == state.bank[1] + 2


def _robber_board():
    """Blue and White beside hills 6, Red too; Red has rolled a seven and moves the robber."""
    state = fresh(3)
    state = place_settlement(state, RED, corner(HILLS_6, 0))
    state = place_settlement(state, BLUE, corner(HILLS_6, 2))
    state = place_settlement(state, WHITE, corner(HILLS_6, 4))
    state = give(state, BLUE, cards(wool=3))
    state = give(state, WHITE, cards(ore=1, grain=1))
    state = give(state, RED, cards(lumber=1))
    return roll(at_turn(state, RED, Phase.ROLL), 7)


def test_robber_cannot_stay_on_its_tile():
    state = _robber_board()
    refused(state, MoveRobber(RED, DESERT), "robber must leave")
    assert all(a.tile != DESERT for a in legal_actions(state))


def test_robber_cannot_rob_yourself():
    state = _robber_board()
    refused(state, MoveRobber(RED, HILLS_6, RED), "cannot rob yourself")
    assert all(a.victim != RED for a in legal_actions(state))


def test_steal_takes_one_card_from_the_victim():
    state = _robber_board()
    after = play(state, MoveRobber(RED, HILLS_6, BLUE))
    assert after.hands[1].resources == cards(wool=2)
    assert after.hands[0].resources == cards(lumber=1, wool=1)
    assert after.robber == state.board.graph.tile_index[HILLS_6]
    assert after.phase is Phase.MAIN


def test_steal_is_random_and_recorded():
    state = _robber_board()
    stolen = set()
    for i in range(20):
        _, resolved = step(state, MoveRobber(RED, HILLS_6, WHITE), derive_chance("s", str(i)))
        stolen.add(resolved.stolen)
    assert {int(r) for r in stolen} == {3, 4}  # grain or ore, each seen


def test_steal_must_name_a_victim_when_one_is_there():
    refused(_robber_board(), MoveRobber(RED, HILLS_6), "must rob one of")


def test_victim_needs_a_building_at_the_tile():
    refused(_robber_board(), MoveRobber(RED, FOREST_3, BLUE), "robber")


def test_player_without_cards_cannot_be_robbed():
    state = _robber_board()
    state = take(state, BLUE, cards(wool=3))
    refused(state, MoveRobber(RED, HILLS_6, BLUE), "robber")
    assert {a.victim for a in legal_actions(state) if a.tile == HILLS_6} == {WHITE}


def test_robber_to_a_tile_without_victims_steals_nothing():
    state = _robber_board()
    after = play(state, MoveRobber(RED, (2, -2)))
    assert after.hands == state.hands
    assert after.phase is Phase.MAIN


def test_robber_may_return_to_the_desert():
    state = _robber_board()
    state = play(state, MoveRobber(RED, (2, -2)), EndTurn(RED))
    state = roll(state, 7)
    after = play(state, MoveRobber(BLUE, DESERT, WHITE))  # White's settlement touches it
    assert after.robber == state.board.graph.desert


def test_robber_off_the_board_is_refused():
    refused(_robber_board(), MoveRobber(RED, (5, 5)), "robber")


def test_only_players_owing_a_discard_act_and_they_act_at_once():
    state = _seven(3, 9, 8)
    assert set(actors(state)) == {BLUE, WHITE}
    assert legal_actions(state, RED) == []
    assert {a.player for a in legal_actions(state)} == {BLUE, WHITE}
    assert all(sum(a.cards) == 4 for a in legal_actions(state, WHITE))
    # White may discard before Blue although Blue sits first.
    after = play(state, Discard(WHITE, cards(lumber=2, brick=2)))
    assert actors(after) == [BLUE]
