"""One owner of a session's state: the sync thread owns a GitSession (it records, its
bots play), and the window reads the frozen snapshots it publishes."""

from __future__ import annotations

import threading
import time

from catan_p2p.bots import make_bot
from catan_p2p.net.driver import Driver
from catan_p2p.net.runtime import Runtime
from catan_p2p.session.git import GitSession
from catan_p2p.session.history import History
from catan_p2p.session.start import create_game
from catan_p2p.store.memory import MemoryRepo

PLAYERS = ("red", "blue", "white")


def _session(seed: str = "l") -> GitSession:
    repo = MemoryRepo()
    create_game(repo, PLAYERS, seed=seed, game_id="g")
    return GitSession(repo, "g")


def test_the_window_reads_while_the_sync_thread_records_without_errors():
    session = _session()
    syncer = Runtime(session, slowest=0.01, watch=False)
    syncer.drive({p: make_bot("random", p) for p in PLAYERS})
    view = syncer.view
    errors: list[BaseException] = []
    done = threading.Event()

    def window() -> None:  # what App.tick reads, as fast as it can
        try:
            while not done.is_set():
                state = view.state
                view.legal_actions(state.players[state.current])
                view.history()
                view.sync()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    reader = threading.Thread(target=window)
    reader.start()
    syncer.start()
    driver = syncer._driver
    assert driver is not None
    try:
        deadline = time.monotonic() + 600
        while driver.actions < 400 and not view.state.is_over and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        syncer.stop()
        done.set()
        reader.join()
    assert not errors, errors
    assert driver.actions >= 400 or session.state.is_over
    history = session.history()
    # + the seat claims and what the session records by itself (no one chooses them): a
    # robbed seat's answer, the dice the seat before a roller gives after a decision, a
    # win shown from hidden cards, the deck secrets at the end.
    own = {"claim_seat", "give_card", "reveal_dice", "claim_victory", "reveal_deck"}
    assert len([e for e in history if e.action.kind not in own]) == driver.actions


def test_history_grows_incrementally_and_equals_a_fresh_walk():
    """After every 20 actions the session's history (read incrementally) equals a fresh
    ``History``'s walk from the genesis to the same head and answers, and at the end a
    fresh session's (which also verifies the whole game again: once is enough)."""
    session = _session("h")
    driver = Driver(session, {p: make_bot("random", f"h{p}") for p in PLAYERS})
    for _ in range(30):
        driver.play(20)
        fresh = History(session.repo)  # no cache: walks the whole history
        assert session.history() == fresh.upto(session.head, session.seats.open_answers())
        if session.state.is_over:
            break
    assert session.history() == GitSession(session.repo, "g").history()
