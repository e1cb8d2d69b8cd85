"""The window speaks counter-offers and offers to one player, in hot-seat and against a bot."""

from __future__ import annotations

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from builders import BLUE, RED, WHITE, at_turn, cards, give
from driving import Driver, screens_dir
from test_play import make_app, scenario

from catan_p2p.client.trade_dialogs import OfferDialog, TradeDialog
from catan_p2p.rules.actions import AnswerTrade, OfferTrade
from catan_p2p.rules.cards import Resource
from catan_p2p.rules.state import Answer, Phase

LUMBER, BRICK, WOOL, GRAIN, ORE = Resource


@pytest.fixture
def drive(tmp_path, request):
    def start(app) -> Driver:
        return Driver(app, screens_dir(tmp_path), request.node.name)

    yield start
    pygame.display.quit()


def _click_stepper(
    d: Driver, dialog: TradeDialog, side: str, resource: int, times: int, plus: bool
):
    for _ in range(times):
        stepper = dialog.counter_stepper(side, resource)
        d.click((stepper.plus if plus else stepper.minus).rect.center)


def test_a_person_counters_a_bots_offer(drive):
    state = at_turn(scenario(2), RED, Phase.MAIN)
    state = give(state, RED, cards(ore=1, lumber=2))
    state = give(state, BLUE, cards(wool=2, brick=1))
    app = make_app(state, humans=(BLUE,), bots=(RED,))
    app.session.submit(OfferTrade(RED, cards(ore=1), cards(wool=2)))  # the bot's offer
    d = drive(app)
    d.settle()
    dialog = app.dialog
    assert isinstance(dialog, TradeDialog)
    d.press("Counter…")
    assert dialog.countering == BLUE
    assert dialog.counter_action() == AnswerTrade(BLUE, False, cards(wool=2), cards(ore=1))
    # Not two wool for the ore: one wool, and a lumber on top.
    _click_stepper(d, dialog, "give", WOOL, 1, plus=False)
    _click_stepper(d, dialog, "get", LUMBER, 1, plus=True)
    assert dialog.counter_action() == AnswerTrade(
        BLUE, False, cards(wool=1), cards(ore=1, lumber=1)
    )
    d.shot("counter")
    d.press("Send counter-offer")
    assert "blue:answer_trade" in d.kinds
    answered = [e.action for e in app.session.history() if e.action.kind == "answer_trade"]
    assert answered[-1].is_counter


def test_a_gift_as_counter_offer_is_refused_with_the_rule(drive):
    state = at_turn(scenario(2), RED, Phase.MAIN)
    state = give(state, RED, cards(ore=1))
    state = give(state, BLUE, cards(wool=1))
    app = make_app(state, humans=(BLUE,), bots=(RED,))
    app.session.submit(OfferTrade(RED, cards(ore=1), cards(wool=1)))
    d = drive(app)
    d.settle()
    dialog = app.dialog
    d.press("Counter…")
    _click_stepper(d, dialog, "give", WOOL, 1, plus=False)  # nothing given: a gift
    d.press("Send counter-offer")
    assert "no gifts" in (app.message or "")
    assert app.state.trade.answers[1] is Answer.PENDING and dialog.countering == BLUE


def test_hot_seat_offer_to_one_player_countered_and_taken(drive):
    state = at_turn(scenario(3), RED, Phase.MAIN)
    state = give(state, RED, cards(lumber=3))
    state = give(state, BLUE, cards(ore=2, grain=1))
    state = give(state, WHITE, cards(ore=1))
    app = make_app(state, humans=(RED, BLUE, WHITE))
    d = drive(app)
    d.passes.clear()
    d.key(pygame.K_o)
    offer = app.dialog
    assert isinstance(offer, OfferDialog)
    d.click(offer.give[LUMBER].plus.rect.center)
    d.click(offer.get[ORE].plus.rect.center)
    d.press("Blue")
    assert offer.offer_action() == OfferTrade(RED, cards(lumber=1), cards(ore=1), BLUE)
    d.shot("1_offer_to_blue")
    d.press("Offer")
    # Only Blue is asked: the screen passes to Blue, never to White.
    assert d.passes == [BLUE]
    dialog = app.dialog
    assert isinstance(dialog, TradeDialog)
    d.press("Counter…")
    _click_stepper(d, dialog, "get", LUMBER, 1, plus=True)  # two lumber for the ore
    d.press("Send counter-offer")
    assert d.passes == [BLUE, RED]
    dialog = app.dialog
    assert isinstance(dialog, TradeDialog)
    d.shot("2_counter_in")
    d.press("Take Blue's counter")
    assert app.state.phase is Phase.MAIN and app.dialog is None
    assert app.state.hands[0].resources == cards(lumber=1, ore=1)
    assert app.state.hands[1].resources == cards(lumber=2, ore=1, grain=1)
    assert WHITE not in d.passes
