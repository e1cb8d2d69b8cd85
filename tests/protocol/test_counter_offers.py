"""Counter-offers and offers to one player on the wire: forged picks and counters are refused.

A cheating offerer writes a trade merge and a ``confirm_trade`` the rules refuse
(naming a player who declined, or taking a counter-offer it cannot pay); a cheating
answerer commits a counter-offer that is a gift. The verifier of an honest peer, the
hook of a guarded remote and the conformance kit each refuse it and name the rule.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from gitgames import copy_game, forge_commit, play_some

from catan_p2p.net import hook
from catan_p2p.rules.actions import AnswerTrade, ConfirmTrade, OfferTrade, RollDice
from catan_p2p.rules.cards import NO_CARDS, one
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.state import Answer, Phase, Terms
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.codec import StateWriter
from catan_p2p.store.memory import MemoryRepo
from catan_p2p.store.refnames import answer_ref, player_ref
from catan_p2p.trust.engine import step

ROOT = Path(__file__).resolve().parents[2]


def _kit():
    spec = importlib.util.spec_from_file_location("conformance", ROOT / "tools" / "conformance.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["conformance"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def in_main():
    """A 3-player game in memory, Red in its main phase: (repo, the resource Red gives,
    the one Blue gives)."""
    repo = MemoryRepo()
    create_game(repo, ["red", "blue", "white"], seed="t", game_id="g")
    everyone = GitSession(repo, "g")
    play_some(everyone, 12)  # the set-up
    everyone.submit(RollDice("red"))
    for _ in range(20):
        if everyone.state.phase is Phase.MAIN:
            break
        play_some(everyone, 1)
    state = everyone.state
    assert state.phase is Phase.MAIN and state.current == 0
    red, blue = state.hands[0].resources, state.hands[1].resources
    give = next(r for r in range(5) if red[r])
    get = next(r for r in range(5) if blue[r] and r != give)
    everyone.close()
    return repo, give, get


@pytest.fixture
def game(in_main, tmp_path):
    repo, give, get = in_main
    copy = copy_game(repo, tmp_path / "game")
    return copy, give, get


def _forge_pick(everyone: GitSession, partner: str, answer: Answer) -> tuple[str, str]:
    """Red merges the answers given and confirms with ``partner`` as though its answer
    were ``answer``; returns (the merge, the forged confirm)."""
    repo, red = everyone.repo, everyone.seats.peers["red"]
    merge, merged = red.record_merge("trade", everyone.seats.open_answers())
    seat = merged.players.index(partner)
    offer = merged.trade
    pretend = merged._replace(
        trade=offer._replace(answers=offer.answers[:seat] + (answer,) + offer.answers[seat + 1 :])
    )
    action = ConfirmTrade("red", partner)
    new, _ = step(pretend, action, derive_chance(everyone.info.seed, merge))
    tree = StateWriter(repo.store, everyone.info).write(new)
    return merge, forge_commit(repo, merge, "red", action, tree)


def _refused_everywhere(repo, merge: str, forged: str, *words: str) -> None:
    """The hook (before Red's branch moves), then an honest peer and the conformance kit
    (after it moved) each refuse ``forged``: Red's confirm on Red's merge."""
    said = hook.check_update(repo, merge, forged, player_ref("g", "red"))
    assert said is not None and all(word in said for word in words), said
    repo.refs.set(player_ref("g", "red"), forged, merge)
    white = GitSession(repo, "g", ("white",))
    before = white.head
    white.sync()
    assert white.head != forged and white.head in (before, merge)
    reason = white.rejected.get(forged)
    assert reason is not None and forged[:10] in reason
    for word in words:
        assert word in reason, reason
    white.close()
    rules = next(c for c in _kit().run_checks(repo, "g") if c.name == "rules")
    assert not rules.passed and any(words[0] in f for f in rules.failures), rules.failures


def test_a_forged_pick_of_a_declined_answer_is_refused(game):
    repo, give, get = game
    everyone = GitSession(repo, "g")
    everyone.submit(OfferTrade("red", one(give), one(get)))
    everyone.submit(AnswerTrade("blue", False))
    merge, forged = _forge_pick(everyone, "blue", Answer.ACCEPT)
    everyone.close()
    _refused_everywhere(repo, merge, forged, "has not accepted", "Blue")


def test_a_forged_pick_of_a_counter_the_offerer_cannot_pay_is_refused(game):
    repo, give, get = game
    everyone = GitSession(repo, "g")
    held = everyone.state.hands[0].resources[give]
    everyone.submit(OfferTrade("red", one(give), one(get)))
    # Blue asks for one card more than Red holds of what Red offers.
    counter = AnswerTrade(
        "blue", False, one(get), tuple(held + 1 if r == give else 0 for r in range(5))
    )
    everyone.submit(counter)
    assert everyone.state.trade.answers[1] is Answer.COUNTER
    merge, forged = _forge_pick_counter(everyone)
    everyone.close()
    _refused_everywhere(repo, merge, forged, "cannot take Blue's counter-offer")


def _forge_pick_counter(everyone: GitSession) -> tuple[str, str]:
    """Red merges Blue's counter and writes a confirm whose tree pays it from nowhere."""
    repo, red = everyone.repo, everyone.seats.peers["red"]
    merge, merged = red.record_merge("trade", everyone.seats.open_answers())
    give, get = merged.trade.terms_with(1)
    hands = list(merged.hands)
    mine, theirs = hands[0], hands[1]
    hands[0] = mine._replace(
        resources=tuple(
            max(0, m - g) + w for m, g, w in zip(mine.resources, give, get, strict=True)
        )
    )
    hands[1] = theirs._replace(
        resources=tuple(t - w + g for t, g, w in zip(theirs.resources, give, get, strict=True))
    )
    new = merged._replace(hands=tuple(hands), trade=None, phase=Phase.MAIN)
    tree = StateWriter(repo.store, everyone.info).write(new)
    return merge, forge_commit(repo, merge, "red", ConfirmTrade("red", "blue"), tree)


def test_a_counter_offer_that_is_a_gift_is_refused_on_its_branch(game):
    repo, give, get = game
    everyone = GitSession(repo, "g")
    everyone.submit(OfferTrade("red", one(give), one(get)))
    opening = everyone.head
    state = everyone.state
    gift = AnswerTrade("blue", False, NO_CARDS, one(give))
    # The tree a cheat would write: the answer recorded as a counter of those counts.
    counters = (None, Terms(one(give), NO_CARDS), None)
    answers = (Answer.PENDING, Answer.COUNTER, Answer.PENDING)
    forged_state = state._replace(trade=state.trade._replace(answers=answers, counters=counters))
    tree = StateWriter(repo.store, everyone.info).write(forged_state)
    ref = answer_ref("g", "trade", opening, "blue")
    forged = forge_commit(repo, opening, "blue", gift, tree)
    repo.refs.set(ref, forged, None)
    everyone.close()
    said = hook.check_update(repo, "0" * 40, forged, ref)
    assert said is not None and "no gifts" in said, said
    white = GitSession(repo, "g", ("white",))
    white.sync()
    assert white.state.trade.answers[1] is Answer.PENDING  # the gift is not taken
    reason = white.rejected.get(forged)
    assert reason is not None and "no gifts" in reason, white.rejected
    white.close()


def test_an_answer_to_an_offer_made_to_another_is_refused(game):
    repo, give, get = game
    everyone = GitSession(repo, "g")
    everyone.submit(OfferTrade("red", one(give), one(get), "blue"))
    opening = everyone.head
    state = everyone.state
    assert state.trade.to == 1
    tree = StateWriter(repo.store, everyone.info).write(state)
    ref = answer_ref("g", "trade", opening, "white")
    forged = forge_commit(repo, opening, "white", AnswerTrade("white", False), tree)
    repo.refs.set(ref, forged, None)
    everyone.close()
    said = hook.check_update(repo, "0" * 40, forged, ref)
    assert said is not None and "made to Blue only" in said, said
