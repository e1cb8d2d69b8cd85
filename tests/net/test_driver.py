"""The one bot driver: who acts, how long an offer waits, and that it plays like the engine."""

from __future__ import annotations

from catan_p2p.bots import make_bot
from catan_p2p.net.driver import Driver, waiting_bots
from catan_p2p.rules.state import Phase, new_game
from catan_p2p.session.memory import MemorySession
from catan_p2p.sim import play_game, play_session_game

PLAYERS = ("red", "blue", "white")


def _bots(seed: str) -> dict:
    return {p: make_bot("random", f"{seed}/{p}") for p in PLAYERS}


def _open_offer(seed: str = "t") -> MemorySession:
    """A memory game played by bots until someone has just offered a trade."""
    session = MemorySession(new_game(PLAYERS), seed)
    driver = Driver(session, _bots(seed))
    while session.state.phase is not Phase.TRADE:
        assert driver.step() is not None
    return session


def test_a_driver_on_a_memory_session_plays_the_same_game_as_the_engine_loop():
    for seed in ("a", "b"):
        session = MemorySession(new_game(PLAYERS), seed)
        through_driver = play_session_game(session, _bots(seed), check_invariants=True)
        direct = play_game(PLAYERS, _bots(seed), seed)
        assert through_driver.state == direct.state
        assert through_driver.actions == direct.actions


def test_answers_come_before_the_offer_is_closed():
    state = _open_offer().state
    offerer = state.players[state.current]
    everyone = waiting_bots(state, dict.fromkeys(PLAYERS))
    assert everyone and offerer not in everyone
    assert waiting_bots(state, {offerer: None}) == []
    assert waiting_bots(state, {offerer: None}, offer_may_close=True) == [offerer]


def test_an_offer_to_remote_seats_waits_trade_wait_seconds_then_closes():
    session = _open_offer()
    state = session.state
    offerer = state.players[state.current]
    now = [100.0]
    driver = Driver(session, {offerer: make_bot("random", "o")}, trade_wait=3, clock=lambda: now[0])
    assert driver.step() is None  # the others may still answer
    now[0] += 2.9
    assert driver.step() is None
    now[0] += 0.2
    action = driver.step()  # time is up: the offerer closes (or confirms) the offer
    assert action is not None and action.player == offerer
    assert session.state.phase is not Phase.TRADE
    patient = Driver(session, {offerer: make_bot("random", "o")})  # local answerers: no clock
    assert patient.trade_wait is None


def test_play_stops_when_no_seat_of_the_driver_may_act():
    session = MemorySession(new_game(PLAYERS), "s")
    driver = Driver(session, {"red": make_bot("random", "r")})
    assert driver.play() == 2  # red's first settlement and road, then blue's turn
    assert session.state.players[session.state.current] == "blue"
