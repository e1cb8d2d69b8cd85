"""Largest army transfers, and victory at 10 points claimed only on one's own turn."""

from builders import (
    BLUE,
    RED,
    WHITE,
    at_turn,
    award,
    corner,
    fresh,
    give,
    give_dev,
    path,
    place_roads,
    place_settlement,
    play,
    played_knights,
    refused,
    top_zigzag,
)

from catan_p2p.rules.actions import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    EndTurn,
    MoveRobber,
    PlayKnight,
    PlayRoadBuilding,
    RollDice,
)
from catan_p2p.rules.cards import CITY_COST, SETTLEMENT_COST, DevCard
from catan_p2p.rules.state import NOBODY, Phase

KNIGHT = DevCard.KNIGHT


def _knights(red_played: int, blue_played: int = 0, holder: str | None = None):
    state = played_knights(fresh(2), RED, red_played) if red_played else fresh(2)
    if blue_played:
        state = played_knights(state, BLUE, blue_played)
    if holder is not None:
        state = award(state, largest_army=holder)
    return give_dev(at_turn(state, RED), RED, KNIGHT)


def test_third_knight_takes_largest_army():
    state = play(_knights(2), PlayKnight(RED))
    assert state.largest_army == 0
    assert state.points(0) == 2


def test_two_knights_are_not_an_army():
    state = play(_knights(1), PlayKnight(RED))
    assert state.largest_army == NOBODY


def test_more_knights_take_largest_army_from_the_holder():
    state = play(_knights(3, 3, holder=BLUE), PlayKnight(RED))
    assert state.largest_army == 0
    assert state.points(1) == 0


def test_equal_knights_leave_largest_army_with_the_holder():
    state = play(_knights(2, 3, holder=BLUE), PlayKnight(RED))
    assert state.hands[0].knights == 3
    assert state.largest_army == 1


def test_holder_keeps_largest_army_playing_more_knights():
    state = play(_knights(3, holder=RED), PlayKnight(RED))
    assert state.largest_army == 0 and state.hands[0].knights == 4


def _nine_points(state, player, where):
    """Give ``player`` 9 points: settlements at the first three places, cities at the next three."""
    for i, v in enumerate(where[:6]):
        state = place_settlement(state, player, v, city=i >= 3)
    return state


RED_SPOTS = [
    corner((2, -2), 0),
    corner((0, 0), 0),
    corner((0, 0), 2),
    corner((0, 0), 4),
    corner((-2, 0), 3),
    corner((0, 2), 5),
]


def test_reaching_ten_on_own_turn_wins():
    state = _nine_points(fresh(2), RED, RED_SPOTS)
    assert state.points(0) == 9
    state = give(at_turn(state, RED), RED, CITY_COST)
    after = play(state, BuildCity(RED, RED_SPOTS[0]))
    assert after.phase is Phase.GAME_OVER and after.winner == 0


def test_nothing_is_legal_after_the_game_is_won():
    state = give(at_turn(_nine_points(fresh(2), RED, RED_SPOTS), RED), RED, CITY_COST)
    after = play(state, BuildCity(RED, RED_SPOTS[0]))
    refused(after, EndTurn(RED), "game over")
    refused(after, RollDice(BLUE), "game over")


def test_hidden_victory_point_cards_count_toward_the_win():
    state = place_settlement(fresh(2), RED, RED_SPOTS[1])
    state = give_dev(state, RED, DevCard.VICTORY_POINT, 5)
    state = place_settlement(state, RED, RED_SPOTS[2], city=True)
    state = place_settlement(state, RED, RED_SPOTS[3])
    assert state.points(0) == 9 and state.public_points(0) == 4
    state = place_roads(state, RED, path(RED_SPOTS[1], corner((0, 0), 1)))
    state = give(at_turn(state, RED), RED, CITY_COST)
    after = play(state, BuildCity(RED, RED_SPOTS[1]))
    assert after.winner == 0


def test_ten_points_on_another_players_turn_wait_for_own_turn():
    # White holds longest road with 6; Blue has 5 roads and 8 points in cities.
    # Red settles in the middle of White's road: Blue takes the card and has 10
    # points, but it is Red's turn, so the game goes on until Blue's turn comes.
    white_row = top_zigzag([(-2, 0), (-1, 0), (0, 0)])
    blue_row = top_zigzag([(-2, 2), (-1, 2), (0, 2)])
    state = fresh(3)
    state = place_settlement(state, WHITE, white_row[0])
    state = place_roads(state, WHITE, path(*white_row))
    state = place_settlement(state, BLUE, blue_row[0], city=True)
    state = place_roads(state, BLUE, path(*blue_row[:6]))
    for v in (corner((2, -2), 0), corner((2, 0), 5), corner((1, 1), 5)):
        state = place_settlement(state, BLUE, v, city=True)
    state = award(state, longest_road=WHITE)
    # Red reaches the middle of White's road from above.
    red_settlement, red_step = corner((0, -1), 1), corner((0, -1), 2)
    state = place_settlement(state, RED, red_settlement)
    state = place_roads(state, RED, path(red_settlement, red_step, white_row[3]))
    state = give(at_turn(state, RED), RED, SETTLEMENT_COST)
    assert state.points(1) == 8
    after = play(state, BuildSettlement(RED, white_row[3]))
    assert after.longest_road == 1 and after.points(1) == 10
    assert after.phase is Phase.MAIN and after.winner == NOBODY
    after = play(after, EndTurn(RED))
    assert after.phase is Phase.GAME_OVER and after.winner == 1


def test_win_by_largest_army_on_own_turn_before_the_roll():
    state = _nine_points(fresh(2), RED, RED_SPOTS)
    state = played_knights(state, RED, 2)
    state = give_dev(at_turn(state, RED, Phase.ROLL), RED, KNIGHT)
    after = play(state, PlayKnight(RED))
    assert after.phase is Phase.GAME_OVER and after.winner == 0
    refused(after, MoveRobber(RED, (1, 0)), "game over")


def test_win_with_the_first_free_road_ends_road_building_at_once():
    # Red has 8 points and 4 roads; the first free road makes 5: longest road and the win.
    row = top_zigzag([(-2, 0), (-1, 0), (0, 0)])
    state = place_settlement(fresh(2), RED, row[0])
    state = place_roads(state, RED, path(*row[:5]))
    others = [corner((2, -2), 0), corner((0, 2), 5), corner((0, 0), 4), corner((-2, 2), 3)]
    for i, v in enumerate(others):
        state = place_settlement(state, RED, v, city=i >= 1)
    state = give_dev(at_turn(state, RED), RED, DevCard.ROAD_BUILDING)
    assert state.points(0) == 8
    state = play(state, PlayRoadBuilding(RED))
    after = play(state, BuildRoad(RED, path(row[4], row[5])[0]))
    assert after.phase is Phase.GAME_OVER and after.winner == 0
    assert after.free_roads == 0
