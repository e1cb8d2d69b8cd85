"""Refused actions: ``IllegalAction`` names the rule, and the state is left as it was."""

import random
from dataclasses import replace
from itertools import product

import pytest
from builders import BLUE, RED, at_turn, cards, fresh, give, pick_action, quick_setup, refused
from test_action_json import EXAMPLES

from catan_p2p.errors import IllegalAction
from catan_p2p.rules.actions import (
    AnswerTrade,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ConfirmTrade,
    Discard,
    EndRoadBuilding,
    EndTurn,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RollDice,
)
from catan_p2p.rules.cards import Resource
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import Phase
from catan_p2p.trust.engine import apply, is_legal, step


def test_illegal_action_is_a_value_error():
    assert issubclass(IllegalAction, ValueError)


def test_unknown_player_is_refused():
    refused(fresh(2), EndTurn("green"), "not in this game")


def test_wrong_phase_says_what_the_game_waits_for():
    state = quick_setup(fresh(2))
    error = refused(state, EndTurn(RED), "end the turn")
    assert "Red must roll the dice" in str(error)


def test_wrong_turn_names_whose_turn_it_is():
    state = quick_setup(fresh(2))
    error = refused(state, RollDice(BLUE), "turn order")
    assert "Red's turn" in str(error)


def test_bad_dice_are_refused():
    state = quick_setup(fresh(2))
    refused(state, RollDice(RED, (0, 7)), "dice")


def test_edge_off_the_board_is_refused():
    state = at_turn(fresh(2), RED)
    refused(state, BuildRoad(RED, ((5, 5), (5, 6))), "board")


def test_cost_error_names_cost_and_hand():
    state = give(at_turn(fresh(2), RED), RED, cards(wool=3))
    error = refused(state, MaritimeTrade(RED, Resource.WOOL, Resource.ORE), "maritime trade")
    assert "4:1" in str(error) and "only 3" in str(error)


def test_refused_action_leaves_the_game_playable_as_before():
    state = quick_setup(fresh(2), seed=5)
    chance = derive_chance("same", "0")
    expected = apply(state, RollDice(RED), chance)
    with pytest.raises(IllegalAction):
        apply(state, EndTurn(RED))
    assert apply(state, RollDice(RED), derive_chance("same", "0")) == expected


def _states_of_a_game(seed: int, per_phase: int = 6, limit: int = 3000):
    """Up to ``per_phase`` states of each phase met along one seeded random game."""
    rng = random.Random(seed)
    state = fresh(3)
    kept: dict[Phase, list] = {}
    for i in range(limit):
        group = kept.setdefault(state.phase, [])
        if len(group) < per_phase and (not group or rng.random() < 0.2):
            group.append(state)
        if state.is_over:
            break
        state, _ = step(state, pick_action(rng, legal_actions(state)), derive_chance("g", str(i)))
    return [s for group in kept.values() for s in group]


def test_every_action_type_is_applied_or_refused_cleanly():
    """Whatever is thrown at any state, the answer is a new state or ``IllegalAction``."""
    for state in _states_of_a_game(11):
        for example in EXAMPLES:
            for player in state.players:
                action = replace(example, player=player)
                try:
                    step(state, action, derive_chance("fuzz", "0"))
                except IllegalAction as exc:
                    assert ":" in str(exc) or "cannot" in str(exc), str(exc)
                assert is_legal(state, action) in (True, False)


def test_listed_actions_are_legal_and_others_are_refused():
    for state in _states_of_a_game(12):
        listed = legal_actions(state)
        assert listed or state.is_over
        for action in listed:
            assert is_legal(state, action), action
        if state.phase is Phase.MAIN:
            assert EndTurn(state.players[state.current]) in listed


def _candidates(state):
    """Every action of a fixed shape any player could try now (player offers excepted)."""
    graph = state.board.graph
    out = []
    for p in state.players:
        out += [BuildSettlement(p, v) for v in graph.vertices]
        out += [BuildCity(p, v) for v in graph.vertices]
        out += [BuildRoad(p, e) for e in graph.edges]
        for t in graph.tiles:
            out += [MoveRobber(p, t, victim) for victim in (None, *state.players)]
        out += [MaritimeTrade(p, a, b) for a in Resource for b in Resource]
        out += [PlayYearOfPlenty(p, a, b) for a in Resource for b in Resource if a <= b]
        out += [PlayMonopoly(p, r) for r in Resource]
        out += [AnswerTrade(p, True), AnswerTrade(p, False)]
        out += [ConfirmTrade(p, q) for q in state.players]
        for kind in (RollDice, EndTurn, BuyDevCard, PlayKnight, PlayRoadBuilding):
            out.append(kind(p))
        out += [EndRoadBuilding(p), CancelTrade(p)]
        owed = state.discards[state.seat(p)] if state.discards else 0
        if owed:
            hand = state.hands[state.seat(p)].resources
            out += [Discard(p, c) for c in product(*(range(n + 1) for n in hand)) if sum(c) == owed]
    return out


def test_legal_actions_lists_exactly_what_apply_accepts():
    for seed in (21, 22):
        for state in _states_of_a_game(seed, per_phase=4):
            listed = {a for a in legal_actions(state) if not isinstance(a, OfferTrade)}
            accepted = {a for a in _candidates(state) if is_legal(state, a)}
            assert listed == accepted, (state.phase, listed ^ accepted)
