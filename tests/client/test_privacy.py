"""Hot-seat privacy: a hand is drawn only after its owner took the screen.

Several humans share one window in hot-seat. Every hand-over (a new turn, a discard,
a trade answer) shows a "pass to <player>" screen first, and the hand panel stays face
down until that player confirms. These tests look at the drawn pixels of the hand
panel, not just at the app's fields.
"""

from __future__ import annotations

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from builders import BLUE, RED, WHITE, at_turn, cards, give
from driving import Driver, screens_dir
from test_play import make_app, scenario

from catan_p2p.client import theme
from catan_p2p.client.dialogs import PassDialog
from catan_p2p.client.trade_dialogs import TradeDialog
from catan_p2p.rules.cards import Resource
from catan_p2p.rules.state import Phase

LUMBER, BRICK, WOOL, GRAIN, ORE = Resource


@pytest.fixture
def drive(tmp_path, request):
    def start(app, auto_pass: bool = False) -> Driver:
        return Driver(app, screens_dir(tmp_path), request.node.name, auto_pass=auto_pass)

    yield start
    pygame.display.quit()


def hand_shows(app, resource: Resource) -> bool:
    """True if the drawn hand panel holds a card face of ``resource``'s colour."""
    app.draw()
    colour = pygame.Color(*theme.RESOURCE_COLOURS[resource])
    rect = app.layout.hand
    for x in range(rect.left, rect.right, 2):
        for y in range(rect.top, rect.bottom, 2):
            if app.screen.get_at((x, y)) == colour:
                return True
    return False


def confirm(d: Driver, player: str) -> None:
    dialog = d.app.dialog
    assert isinstance(dialog, PassDialog) and dialog.player == player
    d.press(f"I am {player.capitalize()}: show my hand")
    assert d.app.dialog is not dialog


def test_next_players_hand_stays_hidden_until_they_confirm(drive):
    state = give(scenario(), RED, cards(lumber=2))
    state = give(state, BLUE, cards(ore=3))
    app = make_app(state, humans=(RED, BLUE), seed="turns")
    d = drive(app)
    assert isinstance(app.dialog, PassDialog), "even the first hand waits for its owner"
    assert not hand_shows(app, LUMBER)
    confirm(d, RED)
    assert hand_shows(app, LUMBER) and app.actor() == RED
    d.key(pygame.K_r)
    d.key(pygame.K_e)
    assert app.state.players[app.state.current] == BLUE
    d.shot("pass_to_blue")
    assert isinstance(app.dialog, PassDialog) and app.dialog.player == BLUE
    assert app.shown_player is None
    assert not hand_shows(app, ORE), "blue's hand must not show before blue confirms"
    assert not hand_shows(app, LUMBER), "nor red's, once red has passed the screen on"
    d.key(pygame.K_r)  # keys behind the pass screen do nothing
    assert [e.action.kind for e in app.session.history()] == ["roll_dice", "end_turn"]
    confirm(d, BLUE)
    assert hand_shows(app, ORE) and app.actor() == BLUE


def test_trade_answer_shows_the_answering_players_hand_not_the_offerers(drive):
    state = at_turn(scenario(3), RED, Phase.MAIN)
    state = give(state, RED, cards(lumber=2))
    state = give(state, BLUE, cards(ore=1))
    app = make_app(state, humans=(RED, BLUE), bots=(WHITE,))
    d = drive(app)
    confirm(d, RED)
    d.key(pygame.K_o)
    offer = app.dialog
    d.click(offer.give[LUMBER].plus.rect.center)
    d.click(offer.get[ORE].plus.rect.center)
    d.press("Offer")
    d.settle()
    assert isinstance(app.dialog, PassDialog) and app.dialog.player == BLUE
    assert "Red offers you a trade" in app.dialog.reason
    assert not hand_shows(app, LUMBER) and not hand_shows(app, ORE)
    confirm(d, BLUE)
    dialog = app.dialog
    assert isinstance(dialog, TradeDialog) and dialog.humans == (BLUE,)
    assert app.viewer == BLUE and hand_shows(app, ORE) and not hand_shows(app, LUMBER)
    d.shot("blue_answers")
    with pytest.raises(KeyError):
        dialog.answer_button(RED, accept=True)
    d.click(dialog.answer_button(BLUE, accept=True).rect.center)
    d.settle()
    confirm(d, RED)
    d.press("Trade with Blue")
    assert app.state.hands[0].resources == cards(lumber=1, ore=1)


def test_one_human_with_bots_never_passes_the_screen_nor_shows_a_bot_hand(drive):
    app = make_app(scenario(3), humans=(RED,), bots=(BLUE, WHITE), seed="solo")
    d = drive(app)
    for _ in range(6):
        assert not isinstance(app.dialog, PassDialog)
        assert app.shown_player == RED
        if app.actor() == RED:
            d.key(pygame.K_r)
            d.key(pygame.K_e)
        d.settle()
        if app.dialog is not None and not isinstance(app.dialog, PassDialog):
            break  # a discard or a robber: not what this test is about
    assert d.passes == []
