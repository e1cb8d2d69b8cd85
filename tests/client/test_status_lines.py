"""What the side panel says, and where (issue 33): six seats leave the log its lines, a
status text is never cut or drawn into the dice, a status about a state the game left
goes, and the "Rob whom?" dialog leaves the robber's tile in sight.

Real pygame surfaces on SDL's dummy driver; the screenshots go to ``$CATAN_P2P_SCREENS``.
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
    fresh,
    give,
    place_settlement,
    quick_setup,
)
from driving import Driver, screens_dir

from catan_p2p.bots import make_bot
from catan_p2p.client import panels, theme
from catan_p2p.client.app import App
from catan_p2p.client.dialogs import VictimDialog
from catan_p2p.client.layout import LOG_LINE, LOG_LINES, Layout
from catan_p2p.client.seats import Seats
from catan_p2p.net.game import LogEntry
from catan_p2p.rules.actions import EndTurn, MaritimeTrade, RollDice
from catan_p2p.rules.cards import Resource
from catan_p2p.rules.common import unshown
from catan_p2p.rules.state import (
    SEAT_COLOURS,
    Answer,
    GameState,
    Phase,
    Steal,
    TradeOffer,
    new_game,
)
from catan_p2p.session.memory import MemorySession

SIX = SEAT_COLOURS
ORANGE, GREEN, BROWN = SIX[3:]
EAST = (1, -1)  # pasture 4, red's corner in tests/client/test_play.py
WEST = (-1, 1)  # mountains 3


@pytest.fixture
def drive(tmp_path, request):
    def start(app: App) -> Driver:
        return Driver(app, screens_dir(tmp_path), request.node.name)

    yield start
    pygame.display.quit()


def _six(player: str = RED, phase: Phase = Phase.MAIN) -> GameState:
    return at_turn(quick_setup(new_game(SIX), seed=6), player, phase, dice=(3, 2))


def _app(state: GameState, humans, bots=(), size=(1280, 800)) -> App:
    seats = Seats(tuple(humans), {p: make_bot("greedy", p) for p in bots})
    return App(
        MemorySession(state, "status"), seats, screen=pygame.display.set_mode(size), bot_delay=0
    )


# --- six seats and the log ------------------------------------------------------------------


@pytest.mark.parametrize("size", [theme.MIN_WINDOW_SIZE, (1024, 700), theme.WINDOW_SIZE])
def test_six_seats_leave_the_log_its_lines_in_every_window_size(drive, size):
    """Before: at 1024 x 700 the log shrank to its title (14 px)."""
    lay = Layout.for_size(size, 6)
    assert lay.log.height >= 32 + LOG_LINES * LOG_LINE
    parts = [lay.status, lay.players, lay.hand, lay.log, lay.sync]
    assert all(a.bottom <= b.top for a, b in zip(parts, parts[1:], strict=False)), parts
    assert lay.sync.bottom <= size[1]
    app = _app(_six(), humans=(RED,), size=size)
    d = drive(app)
    entries = [
        LogEntry(f"{i:07x}", SIX[i % 6], EndTurn(SIX[i % 6]), f"{SIX[i % 6]}: end turn")
        for i in range(9)
    ]
    shown = panels.draw_log(app.screen, app.layout.log, entries)
    assert len(shown) >= LOG_LINES and all(app.layout.log.contains(r) for r, _ in shown)
    d.shot(f"six_{size[0]}x{size[1]}")
    # Every seat's row is inside the players' panel, the name and the points drawn.
    assert app.layout.players.bottom < app.layout.hand.top


# --- status texts ---------------------------------------------------------------------------


def _status(state: GameState, acting: str | None, message: str | None) -> panels.StatusDrawn:
    lay = Layout.for_size(theme.WINDOW_SIZE, len(state.players))
    surface = pygame.Surface(theme.WINDOW_SIZE)
    pygame.font.init()
    return panels.draw_status(surface, lay.status, state, acting, message)


def test_a_long_refusal_is_shown_whole_below_the_dice():
    """Before: '… (a move that needs th…': the third line and on were cut."""
    state = _six(GREEN)
    steal = Steal(state.seat(GREEN), state.seat(BROWN), 1, "", "", cards(ore=1))
    state = state._replace(steals=(steal, steal))
    message = "city: you need 2 grain and 3 ore, you hold 1 grain and 0 ore" + unshown(
        state, state.seat(GREEN)
    )
    drawn = _status(state, GREEN, message)
    said = " ".join(drawn.texts[1:])
    assert "…" not in said and said == message, drawn.texts
    lay = Layout.for_size(theme.WINDOW_SIZE, 6)
    assert all(lay.status.contains(r) and not r.colliderect(drawn.dice) for r in drawn.lines)


@pytest.mark.parametrize("offerer", [BROWN, ORANGE])
def test_who_acts_fits_left_of_the_dice(offerer):
    """Before: 'Orange to answer Brown's offer' ran under the dice's sum."""
    state = _six(offerer, Phase.TRADE)
    offer = TradeOffer(cards(wool=1), cards(ore=1), (Answer.PENDING,) * 6)
    state = state._replace(trade=offer)
    drawn = _status(state, GREEN, None)
    assert drawn.label == f"Green to answer {offerer.capitalize()}'s offer", drawn.label
    assert drawn.label_rect.right <= drawn.dice.left


def test_not_your_move_goes_once_the_game_moves_on(drive):
    """Before: 'not your move: … Orange …' stayed up while the header named the next
    player (it stayed 8 s whatever happened)."""
    app = _app(_six(ORANGE, Phase.MAIN), humans=(RED,))  # the others play elsewhere
    d = drive(app)
    d.key(pygame.K_r)
    assert app.message is not None and "Orange" in app.message, app.message
    d.shot("1_not_your_move")
    app.session.submit(EndTurn(ORANGE))  # Orange's move comes in: the next one acts
    d.tick()
    assert app.actor() is None and app.state.players[app.state.current] != ORANGE
    assert app.message is None or "Orange" not in app.message, app.message
    d.shot("2_orange_ended")


def _red_east(players: int = 2) -> GameState:
    state = fresh(players)
    state = place_settlement(state, RED, corner(EAST, 0))
    state = place_settlement(state, BLUE, corner(WEST, 0))
    if players > 2:
        state = place_settlement(state, WHITE, corner(WEST, 3))
    return at_turn(state, RED, Phase.ROLL)


def test_a_rolls_gains_go_once_a_hand_changes(drive):
    """Before: 'Red +1 wool' stayed up after Red spent it (a hand of 0 beside it)."""
    state = give(_red_east(), RED, cards(lumber=4))
    app = _app(state, humans=(BLUE,))  # Red plays elsewhere
    d = drive(app)
    app.session.submit(RollDice(RED, (1, 3)))  # pasture 4: Red's settlement takes a wool
    d.tick()
    assert app.message is not None and "Red +1 wool" in app.message, app.message
    d.key(pygame.K_c)  # the costs card: no move, the message stays
    assert app.message is not None and "+1 wool" in app.message
    app.session.submit(MaritimeTrade(RED, Resource.LUMBER, Resource.ORE))
    d.tick()
    assert app.message is None or "+1 wool" not in app.message, app.message


# --- the robber's victim ----------------------------------------------------------------------


def test_the_rob_whom_dialog_leaves_the_robbers_tile_in_sight(drive):
    state = _red_east(3)
    state = give(give(state, BLUE, cards(ore=2)), WHITE, cards(grain=1))
    state = at_turn(state, RED, Phase.MOVE_ROBBER, dice=(3, 4))
    app = _app(state, humans=(RED,))
    d = drive(app)
    d.tile(WEST)  # blue and white both border it
    dialog = app.dialog
    assert isinstance(dialog, VictimDialog)
    corners = app.view.hex_corners(WEST)
    xs, ys = [x for x, _ in corners], [y for _, y in corners]
    hexagon = pygame.Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
    assert not dialog.rect.colliderect(hexagon), (dialog.rect, hexagon)
    assert app.layout.board.contains(dialog.rect)
    d.shot("rob_whom")
    assert "Rob White (1 card)" in [b.label for b in dialog.buttons()]  # was "(1 cards)"
    d.press("Rob Blue (2 cards)")
    assert app.state.phase is not Phase.MOVE_ROBBER
