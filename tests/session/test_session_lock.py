"""One owner of a session's state: a reader thread and a writer thread share a GitSession."""

from __future__ import annotations

import threading

from catan_p2p.bots import make_bot
from catan_p2p.session.driver import Driver
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.sync.repo import GameRepo

PLAYERS = ("red", "blue", "white")


def _session(seed: str = "l") -> GitSession:
    repo = GameRepo.in_memory()
    create_game(repo, PLAYERS, seed=seed, game_id="g")
    return GitSession(repo, "g")


def test_the_window_reads_while_the_sync_thread_records_without_errors():
    session = _session()
    driver = Driver(session, {p: make_bot("random", p) for p in PLAYERS})
    errors: list[BaseException] = []
    done = threading.Event()

    def window() -> None:  # what App.tick reads, as fast as it can
        try:
            while not done.is_set():
                state = session.state
                session.legal_actions(state.players[state.current])
                session.history()
                session.sync()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    reader = threading.Thread(target=window)
    reader.start()
    try:
        driver.play(400)
    finally:
        done.set()
        reader.join()
    assert not errors, errors
    history = session.history()
    # + the seat claims and what the session records by itself (no one chooses them): a
    # robbed seat's answer, the dice the seat before a roller gives after a decision, a
    # win shown from hidden cards, the deck secrets at the end.
    own = {"claim_seat", "give_card", "reveal_dice", "claim_victory", "reveal_deck"}
    assert len([e for e in history if e.action.kind not in own]) == driver.actions


def test_history_grows_incrementally_and_equals_a_fresh_walk():
    session = _session("h")
    driver = Driver(session, {p: make_bot("random", f"h{p}") for p in PLAYERS})
    for _ in range(30):
        driver.play(20)
        fresh = GitSession(session.repo, "g")  # no cache: walks the whole history
        assert session.history() == fresh.history()
        if session.state.is_over:
            break
    assert session.lock.acquire(blocking=False)  # nothing left holding it
    session.lock.release()
