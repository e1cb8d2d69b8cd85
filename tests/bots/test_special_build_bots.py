"""Bots in the special building phase (5-6 players): they build when it pays, never
try what the phase forbids, and let the phase go on when there is nothing to build."""

from __future__ import annotations

import pytest
from builders import at_turn, give, play, quick_setup

from catan_p2p.bots import make_bot
from catan_p2p.rules.actions import BuildCity, EndSpecialBuild, EndTurn
from catan_p2p.rules.cards import CITY_COST
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import SEAT_COLOURS, GameState, Phase, new_game
from catan_p2p.sim import play_game
from catan_p2p.trust.engine import step

SIX = SEAT_COLOURS
STRATEGIES = ("random", "greedy", "strong")


def _builder_with(cost) -> GameState:
    state = quick_setup(new_game(SIX), seed=6)
    state = at_turn(state, "red", Phase.MAIN, dice=(3, 2))
    bank, hands = list(state.bank), []
    for h in state.hands:
        bank = [b + n for b, n in zip(bank, h.resources, strict=True)]
        hands.append(h._replace(resources=(0, 0, 0, 0, 0)))
    state = state._replace(bank=tuple(bank), hands=tuple(hands))
    state = give(state, "white", cost)
    state = play(state, EndTurn("red"))
    assert state.phase is Phase.SPECIAL_BUILD and state.players[state.current] == "white"
    return state


@pytest.mark.parametrize("strategy", ["greedy", "strong"])
def test_a_bot_holding_a_city_builds_it_in_the_special_building_phase(strategy):
    state = _builder_with(CITY_COST)
    bot = make_bot(strategy, "sb", think=0.05)
    choice = bot.decide(state, legal_actions(state, "white"))
    assert isinstance(choice, BuildCity), choice


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_bot_chooses_only_what_the_phase_allows(strategy):
    state = _builder_with(CITY_COST)
    options = legal_actions(state, "white")
    bot = make_bot(strategy, "sb", think=0.05)
    assert bot.decide(state, options) in options


@pytest.mark.parametrize("strategy", ["random", "greedy"])
def test_six_bots_finish_games_of_the_extension_with_invariants_checked(strategy):
    bots = [make_bot(strategy, f"six/{i}") for i in range(6)]
    result = play_game(SIX, bots, f"six-{strategy}", check_invariants=True, record=True)
    assert result.winner in SIX
    # Replay the resolved actions: which were taken in a special building phase?
    state, built = new_game(SIX), 0
    for action in result.log:
        if state.phase is Phase.SPECIAL_BUILD and not isinstance(action, EndSpecialBuild):
            built += 1
        state = step(state, action)[0]
    assert state.winner == SIX.index(result.winner)
    assert built > 0, "no bot ever built between its turns"
