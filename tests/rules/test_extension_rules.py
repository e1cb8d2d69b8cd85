"""The 5-6 player extension: its box (30 tiles, 28 tokens, 11 harbours, 24 of each
resource, 34 development cards) and the special building phase after every turn."""

from __future__ import annotations

from collections import Counter

import pytest
from builders import at_turn, award, give, give_dev, play, played_knights, quick_setup, refused

from catan_p2p.boards import make_board
from catan_p2p.errors import BoardError
from catan_p2p.rules.actions import (
    BuildCity,
    BuildRoad,
    BuyDevCard,
    EndSpecialBuild,
    EndTurn,
    MaritimeTrade,
    OfferTrade,
    PlayKnight,
    PlayMonopoly,
    PlayYearOfPlenty,
    RollDice,
)
from catan_p2p.rules.board import (
    EXTENSION_BOARD,
    EXTENSION_ISLAND,
    STANDARD_BOARD,
    Board,
    HexTile,
)
from catan_p2p.rules.cards import (
    CITY_COST,
    DEV_CARD_COST,
    NO_CARDS,
    ROAD_COST,
    DevCard,
    Resource,
    Terrain,
    one,
)
from catan_p2p.rules.deck import new_deck
from catan_p2p.rules.hexgrid import neighbours
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import NOBODY, SEAT_COLOURS, Phase, new_game
from catan_p2p.trust import poker as cards_deck

SIX = SEAT_COLOURS
RED, BLUE, WHITE, ORANGE, GREEN, BROWN = SIX


# --- the box -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [5, 6])
def test_five_or_six_players_get_24_of_each_resource_and_34_development_cards(n):
    state = new_game(SIX[:n])
    assert state.bank == (24, 24, 24, 24, 24)
    assert state.dev_deck == (20, 5, 3, 3, 3)  # knights, VP, road building, plenty, monopoly
    assert sum(state.dev_deck) == 34
    assert state.board is EXTENSION_BOARD


@pytest.mark.parametrize("n", [2, 3, 4])
def test_two_to_four_players_keep_the_base_box(n):
    state = new_game(SIX[:n])
    assert state.bank == (19, 19, 19, 19, 19)
    assert state.dev_deck == (14, 5, 2, 2, 2)
    assert state.board is STANDARD_BOARD


def test_seven_players_are_no_game():
    with pytest.raises(ValueError, match="2 to 6 players"):
        new_game([*SIX, "purple"])


def _box(board: Board) -> tuple[Counter, Counter, Counter]:
    terrain = Counter(t.terrain for t in board.tiles)
    numbers = Counter(t.number for t in board.tiles if t.number is not None)
    ports = Counter(p.resource for p in board.ports)
    return terrain, numbers, ports


EXTENSION_TERRAIN = {
    Terrain.FOREST: 6,
    Terrain.PASTURE: 6,
    Terrain.FIELDS: 6,
    Terrain.HILLS: 5,
    Terrain.MOUNTAINS: 5,
    Terrain.DESERT: 2,
}
EXTENSION_NUMBERS = {2: 2, 3: 3, 4: 3, 5: 3, 6: 3, 8: 3, 9: 3, 10: 3, 11: 3, 12: 2}
EXTENSION_PORTS = {
    None: 5,
    Resource.WOOL: 2,
    Resource.LUMBER: 1,
    Resource.BRICK: 1,
    Resource.GRAIN: 1,
    Resource.ORE: 1,
}


@pytest.mark.parametrize("kind", ["standard", "random", "balanced"])
@pytest.mark.parametrize("seed", ["a", "b"])
def test_every_extension_board_has_the_boxs_30_tiles_28_tokens_and_11_harbours(kind, seed):
    board = make_board(kind, seed, players=6)
    terrain, numbers, ports = _box(board)
    assert {t.tile for t in board.tiles} == EXTENSION_ISLAND
    assert len(board.tiles) == 30 and sum(numbers.values()) == 28 and len(board.ports) == 11
    assert terrain == EXTENSION_TERRAIN
    assert numbers == EXTENSION_NUMBERS
    assert ports == EXTENSION_PORTS
    # The rulebook's placement rule: no 6 or 8 next to another 6 or 8.
    red = {t.tile for t in board.tiles if t.number in (6, 8)}
    assert not any(n in red for t in red for n in neighbours(t))


def test_the_extension_island_is_rows_of_3_4_5_6_5_4_3():
    rows = Counter(r for _, r in EXTENSION_ISLAND)
    assert [rows[r] for r in range(-3, 4)] == [3, 4, 5, 6, 5, 4, 3]


def test_the_balance_dial_turns_on_the_extension_island():
    from catan_p2p.boards import score_board

    fair = score_board(make_board("balanced", "dial", players=6, balance=0.0)).score
    wild = score_board(make_board("balanced", "dial", players=6, balance=0.6)).score
    assert fair < 0.2 < 0.5 < wild


def test_thirty_tiles_in_another_shape_are_no_board():
    tiles = list(EXTENSION_BOARD.tiles)
    moved = tiles[0]
    spare = next(
        n
        for t in EXTENSION_ISLAND
        for n in neighbours(t)
        if n not in EXTENSION_ISLAND and max(abs(n[0]), abs(n[1]), abs(n[0] + n[1])) <= 3
    )
    tiles[0] = HexTile(spare, moved.terrain, moved.number)
    with pytest.raises(BoardError, match="5-6 player island"):
        Board(3, tuple(tiles), ())


def test_the_hidden_deck_of_six_seats_is_34_cards_and_a_base_deck_is_unchanged():
    deck = new_deck(6)
    assert deck.size == deck.left == 34
    types = Counter(cards_deck.card_type(c) for c in cards_deck.first_cards(34))
    assert types == {
        DevCard.KNIGHT: 20,
        DevCard.VICTORY_POINT: 5,
        DevCard.ROAD_BUILDING: 3,
        DevCard.YEAR_OF_PLENTY: 3,
        DevCard.MONOPOLY: 3,
    }
    assert new_deck(4).size == 25
    assert cards_deck.first_cards(34)[:25] == cards_deck.first_cards(25)
    base = Counter(cards_deck.card_type(c) for c in cards_deck.first_cards(25))
    assert base == {
        DevCard.KNIGHT: 14,
        DevCard.VICTORY_POINT: 5,
        DevCard.ROAD_BUILDING: 2,
        DevCard.YEAR_OF_PLENTY: 2,
        DevCard.MONOPOLY: 2,
    }


def test_a_34_card_shuffle_is_proved_and_checked():
    secret = bytes(range(32))
    before = cards_deck.first_cards(34)
    context = cards_deck.shuffle_context(("ab",), 0)
    after, proof = cards_deck.prove_shuffle(before, secret, context)
    cards_deck._proved.clear()  # check it as a peer that did not make it
    cards_deck.check_pass(after, 34)
    cards_deck.check_shuffle(before, after, cards_deck.public_key(secret), proof, context)
    with pytest.raises(ValueError, match="34 distinct cards"):
        cards_deck.check_pass(after[:25], 34)


# --- the special building phase ------------------------------------------------------------


@pytest.fixture
def table():
    """Six players after set-up, Red's turn (turn 1), everyone's hand empty."""
    state = quick_setup(new_game(SIX), seed=6)
    state = at_turn(state, RED, Phase.MAIN, dice=(3, 2))
    for s, hand in enumerate(state.hands):  # empty every hand into the bank
        if any(hand.resources):
            state = state._replace(
                bank=tuple(b + n for b, n in zip(state.bank, hand.resources, strict=True)),
                hands=state.hands[:s] + (hand._replace(resources=NO_CARDS),) + state.hands[s + 1 :],
            )
    return state


def _road(state, player):
    return next(a for a in legal_actions(state, player) if isinstance(a, BuildRoad))


def test_after_a_turn_every_other_seat_builds_in_seat_order(table):
    state = table
    for p in SIX[1:]:
        state = give(state, p, ROAD_COST)
    state = play(state, EndTurn(RED))
    order = []
    while state.phase is Phase.SPECIAL_BUILD:
        assert state.turn == 1  # still Red's turn's phase
        player = state.players[state.current]
        order.append(player)
        state = play(state, EndSpecialBuild(player))
    assert order == [BLUE, WHITE, ORANGE, GREEN, BROWN]
    assert state.phase is Phase.ROLL and state.players[state.current] == BLUE
    assert state.turn == 2


def test_the_phase_starts_after_the_turn_player_and_wraps_round_the_table(table):
    state = table._replace(turn=5, current=4)  # Green's turn (turn 5)
    for p in SIX:
        if p != GREEN:
            state = give(state, p, ROAD_COST)
    state = play(state, EndTurn(GREEN))
    order = []
    while state.phase is Phase.SPECIAL_BUILD:
        order.append(state.players[state.current])
        state = play(state, EndSpecialBuild(order[-1]))
    assert order == [BROWN, RED, BLUE, WHITE, ORANGE]
    assert state.players[state.current] == BROWN and state.phase is Phase.ROLL


def test_a_seat_that_can_pay_for_nothing_is_passed_over_and_commits_nothing(table):
    state = give(table, ORANGE, ROAD_COST)
    state = give(state, WHITE, {"lumber": 1})  # one card short of any piece
    state = play(state, EndTurn(RED))
    assert state.phase is Phase.SPECIAL_BUILD and state.players[state.current] == ORANGE
    state = play(state, EndSpecialBuild(ORANGE))
    assert state.phase is Phase.ROLL and state.players[state.current] == BLUE


def test_when_nobody_can_build_the_next_turn_begins_at_once(table):
    state = play(table, EndTurn(RED))
    assert state.phase is Phase.ROLL and state.players[state.current] == BLUE and state.turn == 2


def test_a_builder_may_build_roads_settlements_cities_and_buy_cards(table):
    state = give(table, BLUE, ROAD_COST)
    state = give(state, BLUE, CITY_COST)
    state = give(state, BLUE, DEV_CARD_COST)
    state = play(state, EndTurn(RED))
    assert state.players[state.current] == BLUE
    kinds = {type(a) for a in legal_actions(state, BLUE)}
    assert kinds == {EndSpecialBuild, BuildRoad, BuildCity, BuyDevCard}
    city = next(a for a in legal_actions(state, BLUE) if isinstance(a, BuildCity))
    state = play(state, city, _road(state, BLUE), BuyDevCard(BLUE))
    blue = state.hands[1]
    assert len(blue.cities) == 1 and len(blue.roads) == 3 and sum(blue.dev_cards) == 1
    # Blue could pay for nothing more, so its step ended by itself; it was the only one.
    assert state.phase is Phase.ROLL and state.players[state.current] == BLUE


def test_a_builder_may_not_trade_or_play_development_cards(table):
    state = give(table, BLUE, {"lumber": 4, "brick": 1, "grain": 1, "ore": 1, "wool": 1})
    state = give_dev(state, BLUE, DevCard.KNIGHT)
    state = give_dev(state, BLUE, DevCard.MONOPOLY)
    state = give_dev(state, BLUE, DevCard.YEAR_OF_PLENTY)
    state = play(state, EndTurn(RED))
    assert state.phase is Phase.SPECIAL_BUILD and state.players[state.current] == BLUE
    refused(state, MaritimeTrade(BLUE, Resource.LUMBER, Resource.ORE), "cannot")
    refused(state, OfferTrade(BLUE, one(Resource.LUMBER), one(Resource.ORE)), "cannot")
    refused(state, PlayKnight(BLUE), "cannot play knight now")
    refused(state, PlayMonopoly(BLUE, Resource.ORE), "cannot play monopoly now")
    refused(state, PlayYearOfPlenty(BLUE, Resource.ORE, Resource.ORE), "cannot")
    refused(state, RollDice(BLUE, (3, 4)), "cannot roll")
    refused(state, EndTurn(BLUE), "cannot end the turn")


def test_only_the_seat_whose_step_it_is_may_build(table):
    state = table
    for p in (BLUE, WHITE):
        state = give(state, p, ROAD_COST)
    state = give(state, RED, ROAD_COST)
    state = play(state, EndTurn(RED))
    refused(state, _road(at_turn(state, WHITE), WHITE), "turn order")  # White waits for Blue
    refused(state, _road(at_turn(state, RED), RED), "turn order")  # Red's turn is over
    refused(state, EndSpecialBuild(WHITE), "turn order")


def test_two_to_four_players_have_no_special_building_phase():
    state = quick_setup(new_game(SIX[:4]), seed=4)
    state = at_turn(state, RED, Phase.MAIN)
    state = give(state, BLUE, ROAD_COST)
    state = play(state, EndTurn(RED))
    assert state.phase is Phase.ROLL and state.players[state.current] == BLUE


def test_a_card_bought_in_the_phase_is_played_on_the_buyers_next_turn(table):
    state = give(table, WHITE, DEV_CARD_COST)
    state = play(state, EndTurn(RED))
    assert state.players[state.current] == WHITE
    state = play(state, BuyDevCard(WHITE, DevCard.KNIGHT))
    white = state.hands[2]
    assert white.dev_cards[DevCard.KNIGHT] == 1 and not any(white.new_dev_cards)
    assert state.phase is Phase.ROLL and state.players[state.current] == BLUE
    state = at_turn(state, WHITE, Phase.ROLL)._replace(turn=3)
    assert PlayKnight(WHITE) in legal_actions(state, WHITE)


# --- winning: only on one's own turn -------------------------------------------------------


def _nine_points(state, player):
    """``player`` at 9 points: two settlements, five victory point cards, largest army."""
    state = give_dev(state, player, DevCard.VICTORY_POINT, 5)
    state = played_knights(state, player, 3)
    state = award(state, largest_army=player)
    assert state.points(state.seat(player)) == 9
    return state


def test_reaching_the_winning_points_in_the_phase_wins_only_when_ones_turn_begins(table):
    state = _nine_points(table, BLUE)
    state = give(state, BLUE, CITY_COST)
    state = give(state, WHITE, ROAD_COST)
    state = play(state, EndTurn(RED))
    city = next(a for a in legal_actions(state, BLUE) if isinstance(a, BuildCity))
    state = play(state, city)
    assert state.points(1) == 10
    assert state.winner == NOBODY and not state.is_over  # not Blue's turn: no win yet
    assert state.phase is Phase.SPECIAL_BUILD and state.players[state.current] == WHITE
    state = play(state, EndSpecialBuild(WHITE))
    # Blue's turn begins: Blue wins before it rolls.
    assert state.is_over and state.winner == 1 and state.turn == 2


def test_a_later_seat_at_the_winning_points_waits_and_an_earlier_turn_may_win_first(table):
    state = table._replace(victory_points=5)
    state = played_knights(state, ORANGE, 3)
    state = award(state, largest_army=ORANGE)  # Orange: 2 settlements + the army = 4
    state = give_dev(state, BLUE, DevCard.VICTORY_POINT, 2)  # Blue: 2 + 2 cards = 4
    state = give(state, ORANGE, CITY_COST)
    state = play(state, EndTurn(RED))
    assert state.players[state.current] == ORANGE
    city = next(a for a in legal_actions(state, ORANGE) if isinstance(a, BuildCity))
    state = play(state, city)
    assert state.points(3) == 5 and not state.is_over
    assert state.phase is Phase.ROLL and state.players[state.current] == BLUE
    # Blue's turn comes before Orange's: Blue reaches 5 on its own turn and wins.
    state = give(state._replace(phase=Phase.MAIN, dice=(2, 2)), BLUE, CITY_COST)
    city = next(a for a in legal_actions(state, BLUE) if isinstance(a, BuildCity))
    state = play(state, city)
    assert state.is_over and state.winner == 1


def test_the_winner_of_the_phase_is_named_when_its_own_turn_comes(table):
    state = _nine_points(table, ORANGE)
    state = give(state, ORANGE, CITY_COST)
    state = play(state, EndTurn(RED))
    city = next(a for a in legal_actions(state, ORANGE) if isinstance(a, BuildCity))
    state = play(state, city)
    assert state.points(3) == 10 and not state.is_over
    # Blue and White play their turns without winning; Orange wins when its turn begins.
    for player, turn in ((BLUE, 2), (WHITE, 3)):
        assert state.players[state.current] == player and state.turn == turn
        state = play(state._replace(phase=Phase.MAIN, dice=(2, 2)), EndTurn(player))
        while state.phase is Phase.SPECIAL_BUILD:
            state = play(state, EndSpecialBuild(state.players[state.current]))
        assert not state.is_over or state.winner == 3
    assert state.is_over and state.winner == 3 and state.turn == 4
