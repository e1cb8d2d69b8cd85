"""The statistics' tally: each figure from its own kind of action, hidden cards hidden."""

from __future__ import annotations

import pytest
from builders import at_turn, cards, fresh, give, give_dev, play, quick_setup

from catan_p2p.rules.actions import Discard, MaritimeTrade, RollDice
from catan_p2p.rules.cards import DevCard, Resource
from catan_p2p.rules.state import Phase
from catan_p2p.rules.stats import WAYS, tally


def _game(*actions):
    states = [at_turn(quick_setup(fresh(2)), "red", Phase.ROLL)]
    for a in actions:
        states.append(play(states[-1], a))
    return states, list(actions)


def test_the_odds_of_two_dice_add_up_to_every_roll():
    assert sum(WAYS.values()) == 36 and WAYS[7] == 6 and WAYS[2] == WAYS[12] == 1


def test_a_roll_counts_its_sum_and_what_each_player_produced():
    states, actions = _game(RollDice("red", (3, 5)))
    stats = tally(states, actions)
    assert stats.dice[8] == 1 and stats.rolls == 1
    assert stats.expected(8) == pytest.approx(5 / 36)
    for seat, player in enumerate(states[0].players):
        before, after = states[0].hands[seat].resources, states[1].hands[seat].resources
        assert sum(stats.per_player[player].produced) == sum(after) - sum(before)


def test_a_bank_trade_counts_the_cards_given_at_the_players_rate():
    start = give(at_turn(quick_setup(fresh(2)), "red"), "red", cards(brick=4))
    trade = MaritimeTrade("red", Resource.BRICK, Resource.ORE)
    after = play(start, trade)
    stats = tally([start, after], [trade])
    red = stats.per_player["red"]
    assert red.bank_gave[Resource.BRICK] == start.rate(0, Resource.BRICK)
    assert red.bank_got == (0, 0, 0, 0, 1)


def test_a_discard_counts_its_cards():
    start = give(at_turn(quick_setup(fresh(2)), "red", Phase.DISCARD), "red", cards(grain=8))
    start = start._replace(discards=(4, 0))
    discard = Discard("red", cards(grain=4))
    stats = tally([start, play(start, discard)], [discard])
    assert stats.per_player["red"].discarded == cards(grain=4)


def test_a_victory_point_card_in_hand_stays_hidden_until_the_game_is_over():
    state = give_dev(at_turn(quick_setup(fresh(2)), "red"), "red", DevCard.VICTORY_POINT)
    during = tally([state], [])
    assert during.per_player["red"].victory_cards is None
    assert during.per_player["red"].points == state.public_points(0) < state.points(0)
    over = state._replace(phase=Phase.GAME_OVER, winner=0)
    after = tally([over], [])
    assert after.per_player["red"].victory_cards == 1
    assert after.per_player["red"].points == over.points(0)


def test_a_tally_needs_one_more_state_than_actions():
    with pytest.raises(ValueError, match="one longer|before every action"):
        tally([fresh(2)], [RollDice("red", (1, 1))])
