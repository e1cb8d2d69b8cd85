"""The play window driven by posted mouse and key events; asserts on the actions recorded.

Every test runs the real ``App.tick`` loop on a headless display (SDL dummy driver)
over a ``MemorySession``; the Git-backed session has its own tests in
``test_play_git.py``. States come from ``tests/builders.py`` so a test starts right
where its rule matters (a seven, a trade, a development card).
"""

from __future__ import annotations

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from builders import (
    BLUE,
    RED,
    WHITE,
    at_turn,
    cards,
    corner,
    edge_between,
    fresh,
    give,
    give_dev,
    place_roads,
    place_settlement,
)
from driving import Driver, screens_dir

from catan_p2p.bots import make_bot
from catan_p2p.client import theme
from catan_p2p.client.app import App
from catan_p2p.client.dialogs import DiscardDialog, GameOverDialog, HelpDialog, VictimDialog
from catan_p2p.client.seats import Seats
from catan_p2p.client.trade_dialogs import BankTradeDialog, TradeDialog
from catan_p2p.rules.actions import OfferTrade, RollDice
from catan_p2p.rules.cards import DevCard, Resource
from catan_p2p.rules.hexgrid import edge_ends
from catan_p2p.rules.state import GameState, Phase
from catan_p2p.session.memory import MemorySession

LUMBER, BRICK, WOOL, GRAIN, ORE = Resource
EAST = (1, -1)  # pasture 4: red's corner of the island
WEST = (-1, 1)  # mountains 3: blue and white face each other across it
BRICK_PORT_VERTEX = ((-3, 1), (-2, 0), (-2, 1))


def scenario(players: int = 2) -> GameState:
    """Set-up done: red on EAST with one road, blue (and white) on WEST; red to roll."""
    state = fresh(players)
    state = place_settlement(state, RED, corner(EAST, 0))
    state = place_roads(state, RED, [edge_between(corner(EAST, 0), corner(EAST, 1))])
    state = place_settlement(state, BLUE, corner(WEST, 0))
    if players > 2:
        state = place_settlement(state, WHITE, corner(WEST, 3))
    return at_turn(state, RED, Phase.ROLL)


def make_app(
    state: GameState,
    humans: tuple[str, ...],
    bots: tuple[str, ...] = (),
    seed: str = "ui",
) -> App:
    session = MemorySession(state, seed)
    seats = Seats(humans, {p: make_bot("random", p) for p in bots})
    return App(session, seats, screen=pygame.display.set_mode((1280, 800)), bot_delay=0)


@pytest.fixture
def drive(tmp_path, request):
    def start(app: App) -> Driver:
        return Driver(app, screens_dir(tmp_path), request.node.name)

    yield start
    pygame.display.quit()


# --- set-up and building --------------------------------------------------------------


def _best(targets) -> tuple:
    return sorted(targets)[len(targets) // 2]


def test_setup_snake_order_by_clicks_with_bot_seat(drive):
    app = make_app(fresh(3), humans=(RED, BLUE), bots=(WHITE,))
    d = drive(app)
    d.shot("1_start")
    order = []
    while app.state.is_setup:
        d.settle()
        if not app.state.is_setup:
            break
        player = app.actor()
        assert player in (RED, BLUE), "the window passes the mouse to the human to place"
        assert app.viewer == player
        targets = app.highlights()
        if app.state.phase is Phase.SETUP_SETTLEMENT:
            d.vertex(_best(targets.vertices))
        else:
            d.edge(_best(targets.edges))
        order.append(player)
        if len(order) == 1:
            d.shot("2_first_settlement")
    d.settle()
    d.shot("3_setup_done")
    assert d.kinds == [
        f"{p}:{k}"
        for p in (RED, BLUE, WHITE, WHITE, BLUE, RED)
        for k in ("build_settlement", "build_road")
    ]
    assert app.state.phase is Phase.ROLL and app.actor() == RED


def test_setup_click_breaking_distance_rule_explains_and_records_nothing(drive):
    app = make_app(fresh(2), humans=(RED, BLUE))
    d = drive(app)
    d.vertex(corner(EAST, 0))
    d.edge(edge_between(corner(EAST, 0), corner(EAST, 1)))
    assert app.actor() == BLUE
    d.vertex(corner(EAST, 1))  # next to red's settlement
    assert "distance rule" in (app.message or "")
    d.shot("distance_rule")
    assert len(app.session.history()) == 2
    d.vertex(corner(EAST, 3))
    d.edge(edge_between(corner(EAST, 0), corner(EAST, 5)))  # not next to blue's settlement
    assert (app.message or "").startswith("set-up: the road must touch")
    assert len(app.session.history()) == 3


def test_turns_with_roll_road_settlement_city_and_hot_seat_hand_over(drive):
    state = scenario()
    state = give(state, RED, cards(lumber=1, brick=1))
    state = give(state, RED, cards(lumber=1, brick=1, wool=1, grain=3, ore=3))
    app = make_app(state, humans=(RED, BLUE), seed="turns")
    d = drive(app)
    d.key(pygame.K_r)
    roll = app.session.history()[-1].action
    assert isinstance(roll, RollDice) and sum(roll.dice) != 7, "seed 'turns' must not roll 7"
    d.key(pygame.K_1)
    d.shot("1_road_targets")
    assert edge_between(corner(EAST, 1), corner(EAST, 2)) in app.highlights().edges
    d.edge(edge_between(corner(EAST, 1), corner(EAST, 2)))
    d.key(pygame.K_2)
    assert corner(EAST, 2) in app.highlights().vertices
    d.vertex(corner(EAST, 2))
    d.vertex(corner(EAST, 0))  # no mode: a click on one's own settlement builds a city
    d.shot("2_built")
    d.key(pygame.K_e)
    assert app.actor() == BLUE and app.viewer == BLUE
    d.shot("3_blue_to_roll")
    d.key(pygame.K_r)
    d.key(pygame.K_e)
    d.key(pygame.K_r)
    assert d.kinds == [
        "red:roll_dice",
        "red:build_road",
        "red:build_settlement",
        "red:build_city",
        "red:end_turn",
        "blue:roll_dice",
        "blue:end_turn",
        "red:roll_dice",
    ]
    red = app.state.hands[0]
    assert len(red.cities) == 1 and len(red.settlements) == 1 and len(red.roads) == 2


def test_disabled_button_says_why(drive):
    app = make_app(scenario(), humans=(RED, BLUE))
    d = drive(app)
    d.press("End turn")
    assert "must roll the dice" in (app.message or "")
    d.key(pygame.K_3)
    assert (app.message or "").startswith("cannot build a city now")
    assert app.session.history() == []


# --- the robber -------------------------------------------------------------------------


def test_seven_discards_each_human_in_turn_behind_a_pass_screen_then_robber_steals(drive):
    state = scenario(3)
    state = give(state, RED, cards(lumber=3, brick=3, wool=3))  # 9: discards 4
    state = give(state, BLUE, cards(grain=4, ore=4))  # 8: discards 4
    state = give(state, WHITE, cards(wool=2))
    app = make_app(state, humans=(RED, BLUE, WHITE))
    d = drive(app)
    app.submit(RollDice(RED, (3, 4)))  # what the Roll button does, with the dice fixed
    d.settle()
    dialog = app.dialog
    assert isinstance(dialog, DiscardDialog) and dialog.players == [RED], "one hand at a time"
    d.press("Discard (Red)")
    assert "choose 4 cards" in (dialog.complaint or ""), "an empty discard says what to do"
    for r in (LUMBER, LUMBER, BRICK, WOOL):
        d.click(dialog.stepper(RED, r).plus.rect.center)
    d.shot("1_discard_dialog")
    d.press("Discard (Red)")
    assert d.passes[-1] == BLUE, "blue gets the screen only after a pass screen"
    dialog = app.dialog
    assert isinstance(dialog, DiscardDialog) and dialog.players == [BLUE]
    for r in (GRAIN, GRAIN, ORE, ORE):
        d.click(dialog.stepper(BLUE, r).plus.rect.center)
    d.press("Discard (Blue)")
    assert app.state.phase is Phase.MOVE_ROBBER and app.dialog is None
    assert d.passes[-1] == RED
    assert WEST in app.highlights().tiles
    d.shot("2_robber_targets")
    d.tile(WEST)  # blue and white both border it
    assert isinstance(app.dialog, VictimDialog)
    d.shot("3_victim_choice")
    d.press("Rob Blue (4 cards)")
    history = app.session.history()
    assert [f"{e.author}:{e.action.kind}" for e in history[1:]] == [
        "red:discard",
        "blue:discard",
        "red:move_robber",
    ]
    assert history[2].action.cards == cards(grain=2, ore=2)
    assert history[1].action.cards == cards(lumber=2, brick=1, wool=1)
    robbery = history[-1].action
    assert robbery.victim == BLUE and robbery.stolen in (GRAIN, ORE)
    assert app.state.hands[0].card_count == 6 and app.state.hands[1].card_count == 3
    assert app.state.phase is Phase.MAIN


def test_robber_must_move_and_robs_a_lone_victim_without_asking(drive):
    state = give(scenario(), BLUE, cards(ore=1))
    app = make_app(state, humans=(RED, BLUE))
    d = drive(app)
    app.submit(RollDice(RED, (6, 1)))
    d.tile((0, 0))  # the desert, where the robber stands
    assert "robber must leave" in (app.message or "")
    d.tile(WEST)
    robbery = app.session.history()[-1].action
    assert robbery.victim == BLUE and robbery.stolen == ORE


# --- trade ------------------------------------------------------------------------------


def test_bank_trade_at_four_to_one(drive):
    state = give(at_turn(scenario(), RED, Phase.MAIN), RED, cards(lumber=4))
    app = make_app(state, humans=(RED, BLUE))
    d = drive(app)
    d.key(pygame.K_t)
    assert isinstance(app.dialog, BankTradeDialog)
    d.press("Lumber 4:1")
    d.press("Ore")
    d.shot("bank_dialog")
    d.press("Trade")
    action = app.session.history()[-1].action
    assert (action.kind, action.give, action.get) == ("maritime_trade", LUMBER, ORE)
    assert app.state.hands[0].resources == cards(ore=1)
    assert app.dialog is None


def test_bank_trade_dialog_offers_the_port_rate(drive):
    state = place_settlement(scenario(), RED, BRICK_PORT_VERTEX)
    state = give(at_turn(state, RED, Phase.MAIN), RED, cards(brick=2))
    app = make_app(state, humans=(RED, BLUE))
    d = drive(app)
    d.press("Bank trade")
    d.press("Brick 2:1")
    d.press("Grain")
    d.press("Trade")
    assert app.state.hands[0].resources == cards(grain=1)


def test_player_trade_answered_by_another_hot_seat_player(drive):
    state = at_turn(scenario(3), RED, Phase.MAIN)
    state = give(state, RED, cards(lumber=2))
    state = give(state, BLUE, cards(ore=1))
    app = make_app(state, humans=(RED, BLUE), bots=(WHITE,))  # white holds no ore: declines
    d = drive(app)
    d.key(pygame.K_o)
    offer = app.dialog
    d.click(offer.give[LUMBER].plus.rect.center)
    d.click(offer.get[ORE].plus.rect.center)
    d.shot("1_offer")
    d.press("Offer")
    d.settle()
    dialog = app.dialog
    assert isinstance(dialog, TradeDialog)
    d.click(dialog.answer_button(BLUE, accept=True).rect.center)
    d.settle()
    d.shot("2_answers")
    d.press("Trade with Blue")
    assert d.kinds == [
        "red:offer_trade",
        "white:answer_trade",
        "blue:answer_trade",
        "red:confirm_trade",
    ]
    assert app.state.hands[0].resources == cards(lumber=1, ore=1)
    assert app.state.hands[1].resources == cards(lumber=1)
    assert app.dialog is None and app.state.phase is Phase.MAIN


def test_bot_offer_waits_for_the_human_answer(drive):
    state = at_turn(scenario(2), RED, Phase.MAIN)
    state = give(state, RED, cards(ore=1))
    state = give(state, BLUE, cards(lumber=1))
    app = make_app(state, humans=(BLUE,), bots=(RED,))
    app.session.submit(OfferTrade(RED, cards(ore=1), cards(lumber=1)))  # the bot's offer
    d = drive(app)
    d.settle()
    assert app.state.phase is Phase.TRADE, "the bot must not withdraw before blue answers"
    assert isinstance(app.dialog, TradeDialog)
    d.click(app.dialog.answer_button(BLUE, accept=False).rect.center)
    d.settle()
    assert "blue:answer_trade" in d.kinds and app.state.trade is None


# --- development cards -----------------------------------------------------------------


def test_knight_before_rolling_moves_robber(drive):
    state = give_dev(give(scenario(), BLUE, cards(wool=1)), RED, DevCard.KNIGHT)
    app = make_app(state, humans=(RED, BLUE))
    d = drive(app)
    d.key(pygame.K_k)
    assert app.state.phase is Phase.MOVE_ROBBER
    d.tile(WEST)
    assert d.kinds == ["red:play_knight", "red:move_robber"]
    assert app.state.phase is Phase.ROLL and app.state.hands[0].resources == cards(wool=1)


def test_year_of_plenty_takes_two_cards(drive):
    state = give_dev(at_turn(scenario(), RED, Phase.MAIN), RED, DevCard.YEAR_OF_PLENTY)
    app = make_app(state, humans=(RED, BLUE))
    d = drive(app)
    d.key(pygame.K_y)
    d.press("Ore")
    d.press("Ore ×1")
    d.shot("year_of_plenty")
    d.press("Take")
    action = app.session.history()[-1].action
    assert (action.kind, action.first, action.second) == ("play_year_of_plenty", ORE, ORE)
    assert app.state.hands[0].resources == cards(ore=2)


def test_monopoly_takes_every_card_of_a_kind(drive):
    state = give_dev(at_turn(scenario(3), RED, Phase.MAIN), RED, DevCard.MONOPOLY)
    state = give(give(state, BLUE, cards(grain=3, ore=1)), WHITE, cards(grain=2))
    app = make_app(state, humans=(RED, BLUE, WHITE))
    d = drive(app)
    d.press("Monopoly")
    d.press("Grain")
    assert d.kinds == ["red:play_monopoly"]
    assert app.state.hands[0].resources == cards(grain=5)
    assert app.state.hands[1].resources == cards(ore=1)


def test_road_building_places_two_free_roads(drive):
    state = give_dev(at_turn(scenario(), RED, Phase.MAIN), RED, DevCard.ROAD_BUILDING)
    app = make_app(state, humans=(RED, BLUE))
    d = drive(app)
    d.press("Road building")
    assert app.state.phase is Phase.ROAD_BUILDING
    d.shot("road_building")
    d.edge(edge_between(corner(EAST, 1), corner(EAST, 2)))
    d.edge(edge_between(corner(EAST, 2), corner(EAST, 3)))
    assert d.kinds == ["red:play_road_building", "red:build_road", "red:build_road"]
    assert app.state.phase is Phase.MAIN and app.state.hands[0].resources == cards()


def test_new_dev_card_cannot_be_played_this_turn(drive):
    state = give_dev(at_turn(scenario(), RED, Phase.MAIN), RED, DevCard.KNIGHT, bought_now=True)
    app = make_app(state, humans=(RED, BLUE))
    d = drive(app)
    d.key(pygame.K_k)
    assert "cannot be played until the next turn" in (app.message or "")


# --- whole games with bots ------------------------------------------------------------


def test_bots_play_to_the_end_and_the_window_offers_replay(drive):
    app = make_app(fresh(3), humans=(), bots=(RED, BLUE, WHITE), seed="bots")
    d = drive(app)
    for _ in range(2000):
        if app.state.is_over:
            break
        app.tick()
    assert app.state.is_over, "three random bots should finish within 2000 ticks"
    assert isinstance(app.dialog, GameOverDialog)
    d.shot("game_over")
    d.press("Replay the game")
    assert app.replay_requested and not app.running
    assert not app.bot_errors


def test_port_vertex_is_on_the_brick_port():
    edge = ((-3, 1), (-2, 1))
    assert BRICK_PORT_VERTEX in edge_ends(edge)


def test_resizing_the_window_lays_the_board_out_again(drive):
    app = make_app(scenario(), humans=(RED, BLUE))
    d = drive(app)
    before = app.vertex_point(corner(EAST, 0))
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, size=(1100, 700), w=1100, h=700))
    app.tick()
    assert app.screen.get_size() == (1100, 700)
    assert app.layout.panel.right == 1100 and app.vertex_point(corner(EAST, 0)) != before
    d.key(pygame.K_r)  # still playable: the roll lands
    assert d.kinds == ["red:roll_dice"]
    d.shot("small_window")


def test_help_lists_the_keys_and_an_open_dialog_takes_every_click(drive):
    app = make_app(scenario(), humans=(RED, BLUE))
    d = drive(app)
    d.key(pygame.K_h)
    assert isinstance(app.dialog, HelpDialog)
    d.shot("help")
    d.key(pygame.K_r)  # keys go to the dialog, not to the game
    d.tile(WEST)
    assert app.session.history() == []
    d.key(pygame.K_ESCAPE)
    assert app.dialog is None
    d.key(pygame.K_r)
    assert d.kinds == ["red:roll_dice"]


def test_a_roll_says_who_produced_what(drive):
    app = make_app(scenario(), humans=(RED, BLUE))
    d = drive(app)
    app.submit(RollDice(RED, (1, 3)))
    d.shot("production")
    assert app.message == "Red rolled 4: Red +1 wool · Blue +1 grain"
    assert app.state.hands[0].resources == cards(wool=1)


def test_road_building_can_stop_after_one_road(drive):
    state = give_dev(at_turn(scenario(), RED, Phase.MAIN), RED, DevCard.ROAD_BUILDING)
    app = make_app(state, humans=(RED, BLUE))
    d = drive(app)
    d.key(pygame.K_b)
    d.edge(edge_between(corner(EAST, 1), corner(EAST, 2)))
    assert app.button("Stop roads").enabled
    d.key(pygame.K_e)
    assert d.kinds[-1] == "red:end_road_building" and app.state.phase is Phase.MAIN
    assert app.button("End turn").enabled


def test_the_last_move_is_ringed_in_its_players_colour(drive):
    app = make_app(fresh(2), humans=(RED, BLUE))
    d = drive(app)
    vertex = corner(EAST, 0)
    d.vertex(vertex)
    x, y = app.vertex_point(vertex)
    r = max(6, round(app.view.hex_size * 0.36))
    pixel = app.screen.get_at((x + r - 1, y))
    assert (pixel.r, pixel.g, pixel.b) == theme.player_colour(RED)
