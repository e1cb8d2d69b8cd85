"""Trades as players make them: an offer to one player, counter-offers, the offerer's pick."""

import pytest
from builders import BLUE, RED, WHITE, at_turn, cards, fresh, give, play, refused

from catan_p2p.errors import InvariantViolation
from catan_p2p.rules.actions import AnswerTrade, CancelTrade, ConfirmTrade, OfferTrade
from catan_p2p.rules.invariants import check_invariants
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import NOBODY, Answer, Phase, Terms
from catan_p2p.rules.trade import counter_offers
from catan_p2p.rules.waiting import actors

ONE_LUMBER = cards(lumber=1)
ONE_ORE = cards(ore=1)


def _market():
    state = give(fresh(3), RED, cards(lumber=2, wool=1))
    state = give(state, BLUE, cards(ore=2))
    state = give(state, WHITE, cards(grain=1))
    return at_turn(state, RED)


def _counter(player, give, get):
    """``player`` counters: it would give ``give`` and get ``get``."""
    return AnswerTrade(player, False, give, get)


# --- an offer to one player -------------------------------------------------------------------


def test_offer_to_one_player_waits_on_that_player_only():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE, BLUE))
    assert state.trade.to == 1
    assert set(actors(state)) == {RED, BLUE}
    assert legal_actions(state, WHITE) == []
    assert AnswerTrade(BLUE, True) in legal_actions(state, BLUE)


def test_only_the_player_an_offer_is_made_to_answers_it():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE, BLUE))
    refused(state, AnswerTrade(WHITE, False), "made to Blue only")
    refused(state, _counter(WHITE, cards(grain=1), ONE_LUMBER), "made to Blue only")


def test_offer_to_one_player_trades_with_that_player():
    state = play(
        _market(),
        OfferTrade(RED, ONE_LUMBER, ONE_ORE, BLUE),
        AnswerTrade(BLUE, True),
        ConfirmTrade(RED, BLUE),
    )
    assert state.hands[1].resources == cards(lumber=1, ore=1)


def test_offer_to_nobody_at_the_table_is_refused():
    refused(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE, "purple"), "no player 'purple'")


def test_offer_to_oneself_is_refused():
    refused(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE, RED), "offer to itself")


def test_offer_to_all_is_the_offer_of_old():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE))
    assert state.trade.to == NOBODY
    assert OfferTrade(RED, ONE_LUMBER, ONE_ORE).dumps() == (
        '{"get":{"ore":1},"give":{"lumber":1},"player":"red","type":"offer_trade"}'
    )


# --- counter-offers ------------------------------------------------------------------------------


def test_counter_offer_names_other_counts():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE))
    after = play(state, _counter(BLUE, ONE_ORE, cards(lumber=2)))
    assert after.trade.answers[1] is Answer.COUNTER
    assert after.trade.counter_of(1) == Terms(cards(lumber=2), ONE_ORE)
    assert after.trade.terms_with(1) == (cards(lumber=2), ONE_ORE)
    assert after.trade.terms_with(2) == (ONE_LUMBER, ONE_ORE)
    assert str(_counter(BLUE, ONE_ORE, cards(lumber=2))) == (
        "Blue: counter-offer 1 ore for 2 lumber"
    )


def test_offerer_takes_a_counter_offer():
    state = play(
        _market(),
        OfferTrade(RED, ONE_LUMBER, ONE_ORE),
        _counter(BLUE, ONE_ORE, cards(lumber=2)),
        ConfirmTrade(RED, BLUE),
    )
    assert state.hands[0].resources == cards(wool=1, ore=1)
    assert state.hands[1].resources == cards(lumber=2, ore=1)
    assert state.phase is Phase.MAIN and state.trade is None


def test_offerer_chooses_among_the_answers():
    state = give(_market(), WHITE, cards(ore=1))
    state = play(
        state,
        OfferTrade(RED, ONE_LUMBER, ONE_ORE),
        _counter(BLUE, ONE_ORE, cards(lumber=2)),
        AnswerTrade(WHITE, True),
    )
    picks = {a.partner for a in legal_actions(state, RED) if isinstance(a, ConfirmTrade)}
    assert picks == {BLUE, WHITE}
    after = play(state, ConfirmTrade(RED, WHITE))
    assert after.hands[2].resources == cards(lumber=1, grain=1)
    assert after.hands[1].resources == cards(ore=2)  # Blue's counter is not taken


def test_counter_offer_no_gifts():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE))
    refused(state, _counter(BLUE, ONE_ORE, cards()), "no gifts")
    refused(state, _counter(BLUE, cards(), ONE_LUMBER), "no gifts")
    refused(state, AnswerTrade(BLUE, False, ONE_ORE, None), "no gifts")


def test_counter_offer_no_like_for_like():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE))
    refused(state, _counter(BLUE, ONE_ORE, cards(ore=1, lumber=1)), "like-for-like")


def test_counter_offer_must_change_the_counts():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE))
    refused(state, _counter(BLUE, ONE_ORE, ONE_LUMBER), "accept it")


def test_counter_offer_must_be_payable_by_its_player():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE))
    refused(state, _counter(BLUE, cards(ore=3), ONE_LUMBER), "cannot counter")
    refused(state, _counter(WHITE, ONE_ORE, cards(lumber=2)), "cannot counter")


def test_counter_offer_cannot_also_accept():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE))
    refused(state, AnswerTrade(BLUE, True, ONE_ORE, cards(lumber=2)), "both accept")


def test_counter_offer_is_one_answer():
    state = play(
        _market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE), _counter(BLUE, ONE_ORE, cards(lumber=2))
    )
    refused(state, AnswerTrade(BLUE, True), "already answered")
    refused(state, _counter(BLUE, ONE_ORE, cards(wool=1)), "already answered")


def test_offerer_cannot_take_a_counter_it_cannot_pay():
    state = play(
        _market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE), _counter(BLUE, ONE_ORE, cards(lumber=3))
    )
    refused(state, ConfirmTrade(RED, BLUE), "cannot take Blue's counter-offer")
    assert [a for a in legal_actions(state, RED)] == [CancelTrade(RED)]


def test_offerer_cannot_pick_a_declined_or_pending_answer():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE), AnswerTrade(BLUE, False))
    refused(state, ConfirmTrade(RED, BLUE), "nor countered")
    refused(state, ConfirmTrade(RED, WHITE), "nor countered")


def test_counter_offer_to_one_player():
    state = play(
        _market(),
        OfferTrade(RED, ONE_LUMBER, ONE_ORE, BLUE),
        _counter(BLUE, cards(ore=2), cards(lumber=1, wool=1)),
        ConfirmTrade(RED, BLUE),
    )
    assert state.hands[0].resources == cards(lumber=1, ore=2)
    assert state.hands[1].resources == cards(lumber=1, wool=1)


def test_counter_offer_cancelled_changes_no_hand():
    state = play(
        _market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE), _counter(BLUE, ONE_ORE, cards(lumber=2))
    )
    after = play(state, CancelTrade(RED))
    assert after.hands == state.hands and after.trade is None


def test_counter_offers_lists_counters_the_offerer_could_take():
    state = give(_market(), BLUE, cards(grain=1))
    state = play(state, OfferTrade(RED, ONE_LUMBER, ONE_ORE))
    listed = counter_offers(state, 1)
    assert _counter(BLUE, ONE_ORE, cards(lumber=2)) in listed  # one more lumber
    assert _counter(BLUE, cards(grain=1), ONE_LUMBER) in listed  # grain, not ore
    assert all(play(state, a).trade.answers[1] is Answer.COUNTER for a in listed)
    assert counter_offers(state, 0) == []  # the offerer does not answer
    after = play(state, listed[0])
    assert counter_offers(after, 1) == []  # one answer each


def test_a_counter_answer_without_its_counts_breaks_an_invariant():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE, BLUE))
    answers = (Answer.PENDING, Answer.COUNTER, Answer.PENDING)
    broken = state._replace(trade=state.trade._replace(answers=answers))
    with pytest.raises(InvariantViolation, match="counter counts"):
        check_invariants(broken)
    answers = (Answer.PENDING, Answer.PENDING, Answer.DECLINE)
    with pytest.raises(InvariantViolation, match="not made to it"):
        check_invariants(state._replace(trade=state.trade._replace(answers=answers)))
