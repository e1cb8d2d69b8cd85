"""A seat's secrets are filled in once per action, and skipping the second pass admits
nothing: the engine still refuses an action that lacks them."""

from __future__ import annotations

import pytest
from gitgames import FOUR, play_some

from catan_p2p.bots import make_bot
from catan_p2p.errors import IllegalAction
from catan_p2p.net.driver import Driver
from catan_p2p.replica.peer import Peer
from catan_p2p.rules.actions import RollDice
from catan_p2p.rules.state import Phase
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.memory import MemoryRepo


@pytest.fixture
def at_a_roll():
    """A hot-seat game in memory, past the set-up, where a seat is to roll."""
    repo = MemoryRepo()
    create_game(repo, FOUR, seed="once", game_id="g")
    session = GitSession(repo, "g")
    play_some(session, 20, seed="once")
    driver = Driver(session, {p: make_bot("random", f"once/{p}") for p in FOUR})
    for _ in range(200):
        state = session.state
        if state.phase is Phase.ROLL and not state.is_setup:
            return session, session.peers[state.players[state.current]]
        driver.step()
    pytest.fail("no roll within 200 actions")


def test_a_submitted_action_has_its_secrets_filled_in_once(at_a_roll, monkeypatch):
    session, peer = at_a_roll
    calls = []
    real = Peer.with_secrets
    monkeypatch.setattr(
        Peer, "with_secrets", lambda self, a, s: calls.append(a) or real(self, a, s)
    )
    session.submit(RollDice(peer.player))
    assert len(calls) == 1
    assert ": roll " in session.repo.commit(peer.head).summary


def test_record_fills_the_secrets_again_when_they_were_filled_on_another_head(at_a_roll):
    session, peer = at_a_roll
    _, _, recorded = peer.record(RollDice(peer.player), filled_on="0" * 40)
    assert recorded.reveal is not None  # the dice-chain element was added here


def test_an_action_said_to_be_filled_on_the_head_but_lacking_its_secrets_is_refused(
    at_a_roll,
):
    session, peer = at_a_roll
    head = peer.head
    with pytest.raises(IllegalAction):
        peer.record(RollDice(peer.player), filled_on=head)
    assert peer.head == head and session.repo.refs.get(peer.ref) == head


def test_the_windows_check_and_the_submit_after_it_fill_the_secrets_in_once(at_a_roll, monkeypatch):
    session, peer = at_a_roll
    calls = []
    real = Peer.with_secrets
    monkeypatch.setattr(
        Peer, "with_secrets", lambda self, a, s: calls.append(a) or real(self, a, s)
    )
    assert session.refusal(RollDice(peer.player)) is None
    session.submit(RollDice(peer.player))
    assert len(calls) == 1
    assert ": roll " in session.repo.commit(peer.head).summary


def test_secrets_filled_on_an_older_head_are_filled_again(at_a_roll, monkeypatch):
    session, peer = at_a_roll
    assert session.refusal(RollDice(peer.player)) is None  # filled on this head
    session.submit(RollDice(peer.player))
    calls = []
    real = Peer.with_secrets
    monkeypatch.setattr(
        Peer, "with_secrets", lambda self, a, s: calls.append(a) or real(self, a, s)
    )
    with pytest.raises(IllegalAction):  # the same roll again, on the new head: refused
        session.submit(RollDice(peer.player))
    assert len(calls) == 1  # judged with secrets filled on the new head, not reused
