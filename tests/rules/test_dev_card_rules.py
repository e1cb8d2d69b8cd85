"""Development cards: buying, one played per turn, not the one bought this turn, each card."""

from builders import (
    BLUE,
    RED,
    at_turn,
    cards,
    corner,
    fresh,
    give,
    give_dev,
    path,
    place_roads,
    place_settlement,
    play,
    refused,
    ring_walk,
    roll,
    spend_roads,
)

from catan_p2p.rules.actions import (
    BuildRoad,
    BuyDevCard,
    EndRoadBuilding,
    EndTurn,
    MoveRobber,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
)
from catan_p2p.rules.cards import DEV_CARD_COST, DevCard, Resource, add, one
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import Phase

KNIGHT, VP, ROAD_BUILDING, YEAR_OF_PLENTY, MONOPOLY = DevCard
RING = ring_walk((0, 0), 0, 6)


def _red_turn(phase=Phase.MAIN):
    state = place_settlement(fresh(2), RED, RING[0])
    state = place_roads(state, RED, path(RING[0], RING[1]))
    state = place_settlement(state, BLUE, corner((2, -2), 3))
    return at_turn(state, RED, phase)


def test_buying_pays_and_draws_from_the_deck():
    state = give(_red_turn(), RED, DEV_CARD_COST)
    after = play(state, BuyDevCard(RED))
    hand = after.hands[0]
    assert sum(hand.new_dev_cards) == 1 and sum(after.dev_deck) == 24
    assert after.bank == add(state.bank, DEV_CARD_COST)


def test_buying_from_an_empty_deck_is_refused():
    state = give(_red_turn(), RED, DEV_CARD_COST)
    state = state._replace(dev_deck=(0, 0, 0, 0, 0))
    state = state._replace(  # the 25 cards are played knights etc. held by Blue
        hands=(state.hands[0], state.hands[1]._replace(dev_cards=(14, 5, 2, 2, 2)))
    )
    refused(state, BuyDevCard(RED), "deck is empty")


def test_card_bought_this_turn_cannot_be_played():
    state = give(_red_turn(), RED, DEV_CARD_COST)
    state = play(state, BuyDevCard(RED, KNIGHT))
    refused(state, PlayKnight(RED), "bought this turn")
    assert PlayKnight(RED) not in legal_actions(state)


def test_card_bought_last_turn_is_playable():
    state = give(_red_turn(), RED, DEV_CARD_COST)
    state = play(state, BuyDevCard(RED, KNIGHT), EndTurn(RED))
    state = at_turn(state, RED, Phase.ROLL)  # Blue's turn passes
    after = play(state, PlayKnight(RED))
    assert after.phase is Phase.MOVE_ROBBER
    assert after.hands[0].knights == 1


def test_only_one_development_card_per_turn():
    state = give_dev(give_dev(_red_turn(), RED, KNIGHT), RED, MONOPOLY)
    state = play(state, PlayMonopoly(RED, Resource.ORE))
    refused(state, PlayKnight(RED), "one development card")
    assert not any(isinstance(a, PlayKnight) for a in legal_actions(state))


def test_one_card_per_turn_resets_next_turn():
    state = give_dev(_red_turn(), RED, MONOPOLY, 2)
    state = play(state, PlayMonopoly(RED, Resource.ORE), EndTurn(RED))
    state = at_turn(state, RED)
    play(state, PlayMonopoly(RED, Resource.WOOL))


def test_victory_point_card_counts_as_soon_as_bought():
    state = give(_red_turn(), RED, DEV_CARD_COST)
    after = play(state, BuyDevCard(RED, VP))
    assert after.points(0) == state.points(0) + 1
    assert after.public_points(0) == state.public_points(0)


def test_victory_point_card_bought_at_nine_wins_at_once():
    state = give(_red_turn(), RED, DEV_CARD_COST)
    state = give_dev(state, RED, VP, 4)
    state = place_settlement(state, RED, RING[2])
    state = place_settlement(state, RED, corner((-2, 2), 3), city=True)
    state = place_settlement(state, RED, corner((-2, 0), 2))
    assert state.points(0) == 9
    after = play(state, BuyDevCard(RED, VP))
    assert after.phase is Phase.GAME_OVER and after.winner == 0


def test_knight_before_the_roll_then_roll():
    state = give_dev(_red_turn(Phase.ROLL), RED, KNIGHT)
    state = play(state, PlayKnight(RED), MoveRobber(RED, (1, 0)))
    assert state.phase is Phase.ROLL and state.dice is None
    state = roll(state, 8)
    assert state.phase is Phase.MAIN


def test_knight_after_the_roll_returns_to_main():
    state = give_dev(_red_turn(), RED, KNIGHT)
    state = play(state, PlayKnight(RED), MoveRobber(RED, (1, 0)))
    assert state.phase is Phase.MAIN


def test_knight_steals_like_the_robber():
    state = give(give_dev(_red_turn(), RED, KNIGHT), BLUE, cards(ore=1))
    state = play(state, PlayKnight(RED), MoveRobber(RED, (2, -2), BLUE))
    assert state.hands[0].resources == cards(ore=1)
    assert state.hands[1].resources == cards()


def test_knight_before_the_roll_blocks_a_second_card_after_it():
    state = give_dev(give_dev(_red_turn(Phase.ROLL), RED, KNIGHT), RED, MONOPOLY)
    state = play(state, PlayKnight(RED), MoveRobber(RED, (1, 0)), RollDice(RED, (4, 4)))
    refused(state, PlayMonopoly(RED, Resource.ORE), "one development card")


def test_development_card_on_another_players_turn_is_refused():
    state = give_dev(_red_turn(), BLUE, KNIGHT)
    refused(state, PlayKnight(BLUE), "turn order")


def test_road_building_places_two_free_roads():
    state = give_dev(_red_turn(), RED, ROAD_BUILDING)
    state = play(state, PlayRoadBuilding(RED))
    assert state.phase is Phase.ROAD_BUILDING and state.free_roads == 2
    state = play(
        state,
        BuildRoad(RED, path(RING[1], RING[2])[0]),
        BuildRoad(RED, path(RING[2], RING[3])[0]),
    )
    assert state.phase is Phase.MAIN and state.free_roads == 0
    assert state.hands[0].resources == cards()  # free
    assert len(state.hands[0].roads) == 3


def test_road_building_roads_must_connect():
    state = play(give_dev(_red_turn(), RED, ROAD_BUILDING), PlayRoadBuilding(RED))
    refused(state, BuildRoad(RED, path(RING[3], RING[4])[0]), "connection")


def test_road_building_may_stop_after_one_road():
    state = play(give_dev(_red_turn(), RED, ROAD_BUILDING), PlayRoadBuilding(RED))
    state = play(state, BuildRoad(RED, path(RING[1], RING[2])[0]), EndRoadBuilding(RED))
    assert state.phase is Phase.MAIN and len(state.hands[0].roads) == 2


def test_road_building_with_one_road_piece_left_places_one():
    state = spend_roads(_red_turn(), RED, 1, RING[0])
    state = give_dev(state, RED, ROAD_BUILDING)
    state = play(state, PlayRoadBuilding(RED))
    assert state.free_roads == 1
    road = next(a for a in legal_actions(state) if isinstance(a, BuildRoad))
    state = play(state, road)
    assert state.hands[0].roads_left == 0
    assert state.phase is Phase.MAIN


def test_road_building_with_no_road_piece_left_is_refused():
    state = give_dev(spend_roads(_red_turn(), RED, 0, RING[0]), RED, ROAD_BUILDING)
    refused(state, PlayRoadBuilding(RED), "no road pieces left")
    assert PlayRoadBuilding(RED) not in legal_actions(state)
    assert state.hands[0].dev_cards[ROAD_BUILDING] == 1  # the card is kept


def test_road_building_before_the_roll_returns_to_the_roll():
    state = give_dev(_red_turn(Phase.ROLL), RED, ROAD_BUILDING)
    state = play(
        state,
        PlayRoadBuilding(RED),
        BuildRoad(RED, path(RING[1], RING[2])[0]),
        BuildRoad(RED, path(RING[2], RING[3])[0]),
    )
    assert state.phase is Phase.ROLL


def test_year_of_plenty_takes_two_from_the_bank():
    state = give_dev(_red_turn(), RED, YEAR_OF_PLENTY)
    after = play(state, PlayYearOfPlenty(RED, Resource.ORE, Resource.GRAIN))
    assert after.hands[0].resources == cards(ore=1, grain=1)
    after = play(state, PlayYearOfPlenty(RED, Resource.ORE, Resource.ORE))
    assert after.hands[0].resources == cards(ore=2)


def test_year_of_plenty_needs_the_bank_to_hold_the_cards():
    state = give_dev(_red_turn(), RED, YEAR_OF_PLENTY)
    state = give(state, BLUE, one(Resource.ORE, 18))
    refused(state, PlayYearOfPlenty(RED, Resource.ORE, Resource.ORE), "year of plenty")
    play(state, PlayYearOfPlenty(RED, Resource.ORE, Resource.WOOL))


def test_monopoly_takes_every_card_of_the_resource():
    state = fresh(3)
    state = give(state, BLUE, cards(ore=3, wool=1))
    state = give(state, "white", cards(ore=2))
    state = give(state, RED, cards(ore=1))
    state = give_dev(at_turn(state, RED), RED, MONOPOLY)
    after = play(state, PlayMonopoly(RED, Resource.ORE))
    assert after.hands[0].resources == cards(ore=6)
    assert after.hands[1].resources == cards(wool=1)
    assert after.hands[2].resources == cards()
    assert after.hands[0].played[MONOPOLY] == 1


def test_monopoly_when_nobody_holds_the_resource():
    state = give_dev(_red_turn(), RED, MONOPOLY)
    after = play(state, PlayMonopoly(RED, Resource.BRICK))
    assert after.hands[0].resources == cards()


def test_victory_point_cards_are_not_played():
    state = give_dev(_red_turn(), RED, VP)
    assert not any("victory" in a.kind for a in legal_actions(state))
