"""Six at one window: the 5-6 player extension's island, six colours, and the special
building phase played with keys and clicks in hot-seat."""

from __future__ import annotations

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from builders import at_turn, give, quick_setup
from driving import Driver, screens_dir

from catan_p2p.bots import make_bot
from catan_p2p.client import theme
from catan_p2p.client.app import App
from catan_p2p.client.seats import Seats
from catan_p2p.rules.actions import BuildRoad
from catan_p2p.rules.cards import CITY_COST, ROAD_COST
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import SEAT_COLOURS, GameState, Phase, new_game
from catan_p2p.session.memory import MemorySession

SIX = SEAT_COLOURS
RED, BLUE, WHITE, ORANGE, GREEN, BROWN = SIX


def _empty_hands(state: GameState) -> GameState:
    bank = list(state.bank)
    hands = []
    for h in state.hands:
        bank = [b + n for b, n in zip(bank, h.resources, strict=True)]
        hands.append(h._replace(resources=(0, 0, 0, 0, 0)))
    return state._replace(bank=tuple(bank), hands=tuple(hands))


@pytest.fixture
def table() -> GameState:
    state = quick_setup(new_game(SIX), seed=6)
    return _empty_hands(at_turn(state, RED, Phase.MAIN, dice=(3, 2)))


@pytest.fixture
def drive(tmp_path, request):
    def start(app: App) -> Driver:
        return Driver(app, screens_dir(tmp_path), request.node.name)

    yield start
    pygame.display.quit()


def _app(state: GameState, humans=SIX, size=(1280, 800)) -> App:
    bots = {p: make_bot("greedy", p) for p in SIX if p not in humans}
    return App(
        MemorySession(state, "six"),
        Seats(tuple(humans), bots),
        screen=pygame.display.set_mode(size),
        bot_delay=0,
    )


def test_six_players_have_six_colours():
    colours = {theme.player_colour(p) for p in SIX}
    assert len(colours) == 6


def test_the_special_building_phase_by_keys_and_clicks_in_hot_seat(drive, table):
    state = give(table, BLUE, ROAD_COST)
    state = give(state, ORANGE, CITY_COST)
    app = _app(state)
    d = drive(app)
    d.key(pygame.K_e)  # Red ends its turn: Blue, then Orange may build
    assert app.state.phase is Phase.SPECIAL_BUILD and app.actor() == BLUE
    assert d.passes[-1] == BLUE
    assert app.button("Done building").enabled
    d.key(pygame.K_t)  # a bank trade is not allowed in the phase, and the window says why
    assert "special building" in app.message and "Blue" in app.message
    d.shot("blue_builds")
    road = next(a for a in legal_actions(app.state, BLUE) if isinstance(a, BuildRoad))
    d.key(pygame.K_1)
    d.edge(road.edge)
    # Blue can pay for nothing more: its step is over; Orange's begins behind a pass screen.
    assert app.actor() == ORANGE and d.passes[-1] == ORANGE
    d.key(pygame.K_e)  # Orange keeps its cards
    assert app.state.phase is Phase.ROLL and app.actor() == BLUE
    assert d.kinds == [
        "red:end_turn",
        "blue:build_road",
        "orange:end_special_build",
    ]


@pytest.mark.parametrize("size", [(1280, 800), (1024, 700)])
def test_the_window_draws_six_players_on_the_extension_island(drive, table, size):
    app = _app(table, humans=(RED,), size=size)
    d = drive(app)
    path = d.shot(f"six_{size[0]}")
    assert path.stat().st_size > 10_000
    # Every seat's row is inside the players' panel.
    assert len(app.state.players) == 6 and len(app.state.board.tiles) == 30


# --- starting a game of six from the command line -----------------------------------------


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("CATAN_P2P_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.mark.slow
def test_play_with_five_bots_seats_six_on_the_extension_island(home, tmp_path, drive):
    from catan_p2p.cli import build_parser
    from catan_p2p.commands import play as play_command
    from catan_p2p.rules.board import EXTENSION_BOARD

    args = build_parser().parse_args(["play", "--bots", "5", "--repo", str(tmp_path / "g")])
    game = play_command.start(args)
    try:
        state = game.session.state
        assert state.players == SIX and state.board == EXTENSION_BOARD
        assert game.seats.humans == (RED,) and set(game.seats.bots) == set(SIX[1:])
        assert state.bank == (24,) * 5 and state.deck.size == 34
        screen = pygame.display.set_mode((1280, 800))
        app = App(game.session, game.seats, screen=screen, bot_delay=0)
        d = drive(app)
        assert app.actor() == RED  # the first set-up settlement is Red's
        d.vertex(max(app.highlights().vertices))
        d.edge(max(app.highlights().edges))
        d.settle()  # five bots place theirs, in the snake order
        assert app.actor() == RED and app.state.setup_step == 11  # Red's second one
    finally:
        game.session.close()


@pytest.mark.slow
def test_play_headless_with_six_bots_records_a_game_that_verifies(home, tmp_path, capsys):
    from catan_p2p.cli import main

    repo = tmp_path / "six"
    args = ["play", "--headless", "--humans", "0", "--bots", "6", "--seed", "six"]
    assert main([*args, "--repo", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "won after" in out and (repo / "final.png").stat().st_size > 10_000
    assert main(["verify", "--repo", str(repo)]) == 0


@pytest.mark.slow
def test_new_with_six_names_and_not_seven(home, tmp_path, capsys):
    from catan_p2p.cli import main
    from catan_p2p.rules.board import EXTENSION_BOARD
    from catan_p2p.session.git import GitSession

    repo = tmp_path / "new6"
    names = ",".join(SIX)
    assert main(["new", "--players", names, "--repo", str(repo), "--game", "g6"]) == 0
    session = GitSession.open(repo, "g6")
    try:
        assert session.state.players == SIX and session.state.board == EXTENSION_BOARD
    finally:
        session.close()
    capsys.readouterr()
    code = main(["new", "--players", names + ",purple", "--repo", str(tmp_path / "seven")])
    err = capsys.readouterr().err
    assert code != 0 and "2 to 6" in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if line.strip()]) == 1
