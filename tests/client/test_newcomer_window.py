"""What a new player tripped over in the window (issue 24), each fixed and held here.

The window is drawn for real (SDL's dummy driver) and what it writes is read back by a
font that notes every text it renders.
"""

from __future__ import annotations

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from builders import BLUE, RED, at_turn, cards, give
from test_play import scenario

from catan_p2p.bots import make_bot
from catan_p2p.client import dialogs, theme
from catan_p2p.client.app import App
from catan_p2p.client.dialogs import HelpDialog
from catan_p2p.client.layout import Layout
from catan_p2p.client.seats import Seats
from catan_p2p.client.trade_dialogs import TradeDialog
from catan_p2p.client.widgets import fit_text
from catan_p2p.net.driver import Driver
from catan_p2p.rules.actions import BuyDevCard, OfferTrade
from catan_p2p.rules.state import Phase
from catan_p2p.session.git import GitSession
from catan_p2p.session.memory import MemorySession
from catan_p2p.session.start import create_game
from catan_p2p.sim import next_actor

BIG = (1400, 1000)


class RecordingFont(pygame.font.Font):
    """A font that notes every text it renders (what the window wrote on screen)."""

    drawn: list[str] = []

    def render(self, text, *args, **kwargs):  # type: ignore[no-untyped-def]
        RecordingFont.drawn.append(str(text))
        return super().render(text, *args, **kwargs)


@pytest.fixture
def written(monkeypatch):
    """Every text drawn while the test runs, in order."""
    pygame.font.init()

    def recording(size: int, bold: bool = False) -> pygame.font.Font:
        return RecordingFont(None, size)

    monkeypatch.setattr(theme, "font", recording)
    import catan_p2p.client.render as render

    monkeypatch.setattr(render, "font", recording)
    RecordingFont.drawn = []
    yield RecordingFont.drawn
    pygame.display.quit()


def _app(state, humans, bots=(), size=BIG) -> App:  # type: ignore[no-untyped-def]
    session = MemorySession(state, "newcomer")
    seats = Seats(humans, {p: make_bot("random", p) for p in bots})
    return App(session, seats, screen=pygame.display.set_mode(size), bot_delay=3600)


def test_every_tile_is_named_by_what_it_produces(written):
    app = _app(scenario(), (RED,), (BLUE,))
    written.clear()
    app.view._static = None  # draw the board again, with its tiles
    app.draw()
    for word in ("lumber", "brick", "wool", "grain", "ore", "desert"):
        assert word in written, f"no tile says {word}"


def test_the_help_overlay_fits_its_box_at_1400x1000(monkeypatch):
    pygame.font.init()
    drawn: list[pygame.Rect] = []
    real = dialogs.draw_text

    def noting(*args, **kwargs):  # type: ignore[no-untyped-def]
        rect = real(*args, **kwargs)
        drawn.append(rect)
        return rect

    monkeypatch.setattr(dialogs, "draw_text", noting)
    screen = pygame.Surface(BIG)
    help_box = HelpDialog()
    help_box.place(Layout.for_size(BIG, 4).board)
    help_box.draw(screen, None)
    assert len(drawn) >= 2 * len(HelpDialog.KEYS)
    for rect in drawn:
        assert help_box.rect.contains(rect), f"{rect} runs past the help box {help_box.rect}"


def test_the_hot_seat_footer_fits_at_1400x1000(written):
    app = _app(scenario(3), (RED, BLUE), ("white",))
    text = app.local_text()
    width = app.layout.sync.width - 30
    assert fit_text(text, theme.font(13), width) == text, "the footer is cut short"


def test_answering_a_bots_offer_the_header_and_the_row_say_so(written):
    state = at_turn(scenario(), BLUE, Phase.MAIN)
    state = give(state, BLUE, cards(lumber=1))
    state = give(state, RED, cards(ore=1))
    app = _app(state, (RED,), (BLUE,))
    app.session.submit(OfferTrade(BLUE, cards(lumber=1), cards(ore=1)))
    app.tick()
    assert isinstance(app.dialog, TradeDialog)
    written.clear()
    app.draw()
    assert "Red to answer Blue's offer" in written and "Red to play" not in written
    assert "your answer" in written and "thinking…" not in written
    assert "Blue's offer stays open until everyone has answered" in written


@pytest.mark.slow
def test_a_just_bought_card_is_not_shown_as_no_cards(tmp_path, written):
    create_game(tmp_path / "g", ["red", "blue"], seed="buy", game_id="b")
    session = GitSession(tmp_path / "g", "b")
    bots = {p: make_bot("greedy", f"buy/{p}") for p in ("red", "blue")}
    driver = Driver(session, bots)
    for _ in range(3000):
        state = session.state
        player = next_actor(state)
        if state.players[state.current] == player and BuyDevCard(player) in session.legal_actions(
            player
        ):
            session.submit(BuyDevCard(player))
            break
        driver.step()
    else:
        raise AssertionError("nobody could buy a development card")
    app = App(session, Seats((player,)), screen=pygame.display.set_mode(BIG), bot_delay=3600)
    written.clear()
    app.draw()
    assert any("just bought" in t for t in written), "the bought card is hidden without a word"
    assert "no development cards" not in written
    session.close()


@pytest.mark.slow
def test_the_window_log_says_how_many_cards_a_bank_trade_gave(tmp_path, written):
    from catan_p2p.rules.actions import MaritimeTrade

    create_game(tmp_path / "g", ["red", "blue"], seed="bank", game_id="k")
    session = GitSession(tmp_path / "g", "k")
    driver = Driver(session, {p: make_bot("greedy", f"bank/{p}") for p in ("red", "blue")})
    while not any(isinstance(e.action, MaritimeTrade) for e in session.history()):
        assert driver.step() is not None
    driver.step()  # one more action: the trade is not the newest line
    app = App(session, Seats(("red",)), screen=pygame.display.set_mode(BIG), bot_delay=3600)
    written.clear()
    app.draw()
    import re

    assert any(re.search(r"trade [234] \w+ for 1 \w+ with the bank", t) for t in written), written
    session.close()


def test_in_hot_seat_the_header_names_the_player_answering_not_the_offerer(written):
    state = at_turn(scenario(), RED, Phase.MAIN)
    state = give(state, RED, cards(lumber=1))
    state = give(state, BLUE, cards(ore=1))
    app = _app(state, (RED, BLUE))
    app.revealed = RED
    app.session.submit(OfferTrade(RED, cards(lumber=1), cards(ore=1)))
    app._follow(app.session.state)
    app.revealed = BLUE  # Blue took the screen to answer
    app.dialog = None
    app._open_forced_dialog(app.state)
    written.clear()
    app.draw()
    assert "Blue to answer Red's offer" in written and "Red to play" not in written
