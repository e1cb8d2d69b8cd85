"""Foresight: a roller must not know its roll while it still decides what to do before it.

Before protocol 6 a roll took the roller's next dice-chain element and the element the
seat before it revealed ending its turn, so the roller could compute its roll as its turn
began and play a knight (or not) knowing it. Now a roller that holds a card face down,
played one, or built in the special building phase rolls without dice, and the seat
before it gives them with its next element (``reveal_dice``): these are the attacks a
roller and its neighbours could try against that rule.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from gitgames import copy_game, sign_commit

from catan_p2p.bots import make_bot
from catan_p2p.errors import IllegalAction, VerificationError
from catan_p2p.net.driver import Driver
from catan_p2p.rules import engine
from catan_p2p.rules.actions import EndTurn, PlayKnight, RevealDice, RollDice
from catan_p2p.rules.chance import roll_of
from catan_p2p.rules.engine import dice_step_due
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import Phase
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.memory import MemoryRepo
from catan_p2p.trust.engine import step
from catan_p2p.trust.seats import take_reveal


def _play_until(session: GitSession, wanted, limit: int = 3000) -> None:  # type: ignore[no-untyped-def]
    """Let bots play the session's seats until ``wanted(state)``; fails if it never is."""
    driver = Driver(session, {p: make_bot("random", f"f/{p}") for p in session.players})
    for _ in range(limit):
        if wanted(session.state):
            return
        assert not session.state.is_over, "the game ended before the position the test needs"
        driver.play(1)
    raise AssertionError("the bots' game never reached the position the test needs")


@pytest.fixture(scope="module")
def played():
    """A keyed 3-seat hot-seat game at a roll whose roller holds a card face down."""
    repo = MemoryRepo()
    create_game(repo, ["red", "blue", "white"], seed="foresight", game_id="g")
    session = GitSession(repo, "g")
    _play_until(
        session,
        lambda s: s.phase is Phase.ROLL and not s.dev_played and dice_step_due(s, s.current),
    )
    session.close()
    return repo


@pytest.fixture
def game(played, tmp_path):  # type: ignore[no-untyped-def]
    session = GitSession(copy_game(played, tmp_path / "g"), "g")
    yield session
    session.close()


def _names(state):  # type: ignore[no-untyped-def]
    n = len(state.players)
    roller = state.current
    return state.players[roller], state.players[(roller - 1) % n], state.players[(roller + 1) % n]


def test_a_roller_holding_a_card_cannot_roll_the_dice_it_could_compute(game):
    state = game.committed_state
    roller, before, _ = _names(state)
    assert state.deck is not None and state.deck.held(state.current)
    roll = game.peers[roller].with_reveal(RollDice(roller), state)
    foreseen = roll_of(state.turn, roll.reveal, state.reveals[state.players.index(before)])
    with pytest.raises(IllegalAction, match="decided something before rolling"):
        step(state, replace(roll, dice=foreseen))
    after, recorded = step(state, roll)
    assert recorded.dice is None and after.dice is None
    assert (after.phase, after.players[after.current]) == (Phase.DICE, before)


def test_while_the_dice_are_owed_only_the_seat_before_acts_and_only_with_its_next_element(game):
    state = game.committed_state
    roller, before, third = _names(state)
    rolled = step(state, game.peers[roller].with_reveal(RollDice(roller), state))[0]
    assert legal_actions(rolled, roller) == [] and legal_actions(rolled, third) == []
    assert legal_actions(rolled, before) == [RevealDice(before)]
    for move in (EndTurn(roller), PlayKnight(roller), RollDice(roller)):
        with pytest.raises(IllegalAction):
            step(rolled, move)
    with pytest.raises(IllegalAction, match="turn order"):
        step(rolled, game.peers[third].with_reveal(RevealDice(third), rolled))
    # the element Blue revealed ending its turn, revealed again: not the next one back
    seat = rolled.players.index(before)
    with pytest.raises(IllegalAction, match="next dice-chain element"):
        step(rolled, RevealDice(before, rolled.reveals[seat]))
    honest = game.peers[before].with_reveal(RevealDice(before), rolled)
    derived = roll_of(rolled.turn, rolled.reveals[rolled.players.index(roller)], honest.reveal)
    wrong = (derived[0] % 6 + 1, derived[1])
    with pytest.raises(IllegalAction, match="revealed chain elements give"):
        step(rolled, replace(honest, dice=wrong))
    done, given = step(rolled, honest)
    assert given.dice == derived == done.dice
    assert done.players[done.current] == roller
    assert done.phase in (Phase.MAIN, Phase.DISCARD, Phase.MOVE_ROBBER)


def test_a_peer_refuses_a_roll_the_roller_wrote_with_the_dice_it_foresaw(game):
    """What a roller on an old rule (or a cheating one) would commit: its roll with the
    dice it could compute at the start of its turn, the tree made to match."""
    state = game.committed_state
    roller, before, _ = _names(state)
    roll = game.peers[roller].with_reveal(RollDice(roller), state)
    seat = state.current
    revealed = take_reveal(state, seat, roll.reveal, "rolling")
    foreseen = roll_of(state.turn, roll.reveal, state.reveals[state.players.index(before)])
    tree = game.repo.writer(game.info).write(engine._rolled(revealed, foreseen))
    forged = sign_commit(
        game.repo, game.head, roller, replace(roll, dice=foreseen), tree, game.keys[roller]
    )
    with pytest.raises(VerificationError, match="is rejected: it records .* roll dice"):
        game.peers[before].verifier.verify(forged)


def test_the_session_gives_the_dice_of_a_local_seat_by_itself(game):
    roller, before, _ = _names(game.state)
    head = game.head
    state = game.submit(RollDice(roller))
    assert state.players[state.current] == roller and state.dice is not None
    new = [game.repo.commit(c) for c in reversed(game.repo.first_parents(game.head, head))]
    assert [c.summary for c in new[:2]] == [
        f"{roller.capitalize()}: roll dice",
        f"{before.capitalize()}: reveal the dice: "
        f"{state.dice[0]}+{state.dice[1]}={sum(state.dice)}",
    ]
    assert [c.author for c in new[:2]] == [roller, before]


def test_a_roller_with_nothing_to_decide_rolls_in_one_commit():
    repo = MemoryRepo()
    create_game(repo, ["red", "blue"], seed="plain", game_id="g")
    session = GitSession(repo, "g")
    try:
        _play_until(session, lambda s: s.phase is Phase.ROLL and s.turn >= 1)
        state = session.state
        assert not dice_step_due(state, state.current)  # the first roll: no card yet
        head = session.head
        after = session.submit(RollDice(state.players[state.current]))
        assert after.dice is not None and after.players[after.current] == state.players[0]
        new = [repo.commit(c) for c in reversed(repo.first_parents(session.head, head))]
        assert new[0].summary.startswith("Red: roll ") and new[0].summary != "Red: roll dice"
        assert all("reveal the dice" not in c.summary for c in new)
    finally:
        session.close()


@pytest.mark.slow
def test_a_seat_that_built_in_the_special_building_phase_rolls_with_a_fresh_element():
    """5-6 players: the seat after the turn's player builds first in the phase, when it
    could compute its own roll from the element the turn's player just revealed."""
    repo = MemoryRepo()
    players = ["red", "blue", "white", "orange", "green"]
    create_game(repo, players, seed="sbp", game_id="g")
    session = GitSession(repo, "g")
    try:
        _play_until(session, lambda s: s.fresh_beacon)
        state = session.state
        nxt = state.turn % len(players)  # the seat after the turn's player rolls next
        assert state.phase is Phase.SPECIAL_BUILD and state.current == nxt
        _play_until(session, lambda s: s.phase is Phase.ROLL and s.current == nxt)
        state = session.state
        assert state.fresh_beacon and dice_step_due(state, nxt)
        roll = session.peers[players[nxt]].with_secrets(RollDice(players[nxt]), state)
        after = step(state, roll)[0]
        assert after.phase is Phase.DICE and not after.fresh_beacon
    finally:
        session.close()
