"""Bots counter an offer when a counter helps them, and weigh the counters they receive."""

from __future__ import annotations

import pytest
from builders import at_turn, cards, fresh, play, quick_setup, set_hand

from catan_p2p.bots import GreedyBot
from catan_p2p.bots.strong import StrongBot
from catan_p2p.rules.actions import AnswerTrade, CancelTrade, ConfirmTrade, OfferTrade
from catan_p2p.rules.menu import legal_actions, with_counters
from catan_p2p.rules.state import GameState, Phase
from catan_p2p.sim import play_game
from catan_p2p.trust.engine import is_legal

BOTS = {"greedy": lambda: GreedyBot(0), "strong": lambda: StrongBot("c", think=0.0)}


def _offer(blue: dict, red: dict, give: dict, get: dict) -> GameState:
    state = quick_setup(fresh(2), seed=3)
    state = set_hand(at_turn(state, "red", Phase.MAIN), "blue", cards(**blue))
    state = set_hand(state, "red", cards(**red))
    return play(state, OfferTrade("red", cards(**give), cards(**get)))


def test_the_bot_loops_offer_counters_beside_the_legal_answers():
    state = _offer(dict(grain=2, ore=2, wool=1), dict(ore=2, brick=1), dict(ore=1), dict(wool=2))
    listed = legal_actions(state, "blue")
    offered = with_counters(state, "blue", listed)
    assert offered[: len(listed)] == listed
    assert AnswerTrade("blue", False, cards(wool=1), cards(ore=1)) in offered
    assert all(is_legal(state, a) for a in offered)
    assert with_counters(state, "red", legal_actions(state, "red")) == legal_actions(state, "red")


def test_greedy_counters_an_offer_it_cannot_take_with_one_that_completes_its_city():
    # Red asks two wool for the ore Blue's city lacks; Blue holds one wool.
    state = _offer(dict(grain=2, ore=2, wool=1), dict(ore=2, brick=1), dict(ore=1), dict(wool=2))
    choice = GreedyBot(0).decide(state, with_counters(state, "blue", legal_actions(state, "blue")))
    assert choice == AnswerTrade("blue", False, cards(wool=1), cards(ore=1))


def test_greedy_declines_when_no_counter_helps():
    state = _offer(dict(grain=2, ore=2, wool=1), dict(ore=2, brick=1), dict(brick=1), dict(ore=1))
    choice = GreedyBot(0).decide(state, with_counters(state, "blue", legal_actions(state, "blue")))
    assert choice == AnswerTrade("blue", False)


def test_strong_counters_a_dear_offer_with_a_cheaper_one():
    # Red asks two wool for a brick; one wool for it is what Blue's plan can spare.
    state = _offer(dict(lumber=1, wool=2), dict(brick=2, grain=2), dict(brick=1), dict(wool=2))
    choice = StrongBot("a", think=0.0).decide(
        state, with_counters(state, "blue", legal_actions(state, "blue"))
    )
    assert choice == AnswerTrade("blue", False, cards(wool=1), cards(brick=1))


@pytest.mark.parametrize("bot", sorted(BOTS))
def test_the_offerer_takes_a_counter_that_completes_its_city(bot: str):
    # Red offers two lumber for the ore its city lacks; Blue wants only one lumber.
    state = _offer(dict(ore=2, wool=1), dict(grain=2, ore=2, lumber=2), dict(lumber=2), dict(ore=1))
    state = play(state, AnswerTrade("blue", False, cards(ore=1), cards(lumber=1)))
    choice = BOTS[bot]().decide(state, legal_actions(state, "red"))
    assert choice == ConfirmTrade("red", "blue")


@pytest.mark.parametrize("bot", sorted(BOTS))
def test_the_offerer_refuses_a_counter_that_does_not_help(bot: str):
    state = _offer(dict(ore=2, wool=1), dict(grain=2, ore=2, lumber=2), dict(lumber=2), dict(ore=1))
    state = play(state, AnswerTrade("blue", False, cards(wool=1), cards(lumber=2)))
    assert ConfirmTrade("red", "blue") in legal_actions(state, "red")
    choice = BOTS[bot]().decide(state, legal_actions(state, "red"))
    assert choice == CancelTrade("red")


def test_bot_games_with_counters_finish_and_counter():
    """Whole games of greedy bots: counters are made and taken, and every move is legal."""
    made = 0
    for g in range(3):
        result = play_game(
            ("red", "blue", "white"),
            [GreedyBot(g), GreedyBot(g + 10), GreedyBot(g + 20)],
            f"counter-{g}",
            record=True,
            check_invariants=True,
        )
        assert result.winner is not None
        made += sum(1 for a in result.log if isinstance(a, AnswerTrade) and a.is_counter)
    assert made > 0
