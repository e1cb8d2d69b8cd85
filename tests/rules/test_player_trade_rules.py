"""Player-to-player trade: the active player offers, others answer, one acceptor is chosen."""

from builders import BLUE, RED, WHITE, at_turn, cards, fresh, give, play, refused

from catan_p2p.rules.actions import (
    AnswerTrade,
    BuildRoad,
    CancelTrade,
    ConfirmTrade,
    EndTurn,
    OfferTrade,
)
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import Answer, Phase
from catan_p2p.rules.waiting import actors

ONE_LUMBER = cards(lumber=1)
ONE_ORE = cards(ore=1)


def _market():
    state = give(fresh(3), RED, cards(lumber=2, wool=1))
    state = give(state, BLUE, cards(ore=2))
    state = give(state, WHITE, cards(grain=1))
    return at_turn(state, RED)


def test_offer_opens_a_trade_everyone_else_answers():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE))
    assert state.phase is Phase.TRADE
    assert state.trade.answers == (Answer.PENDING,) * 3
    assert set(actors(state)) == {RED, BLUE, WHITE}


def test_trade_with_an_acceptor_swaps_the_cards():
    state = play(
        _market(),
        OfferTrade(RED, ONE_LUMBER, ONE_ORE),
        AnswerTrade(BLUE, True),
        AnswerTrade(WHITE, False),
        ConfirmTrade(RED, BLUE),
    )
    assert state.hands[0].resources == cards(lumber=1, wool=1, ore=1)
    assert state.hands[1].resources == cards(lumber=1, ore=1)
    assert state.phase is Phase.MAIN and state.trade is None


def test_trade_may_close_before_everyone_answers():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE), AnswerTrade(BLUE, True))
    after = play(state, ConfirmTrade(RED, BLUE))
    assert after.phase is Phase.MAIN


def test_no_gifts_offer_must_ask_for_something():
    refused(_market(), OfferTrade(RED, ONE_LUMBER, cards()), "no gifts")


def test_no_gifts_offer_must_give_something():
    refused(_market(), OfferTrade(RED, cards(), ONE_ORE), "no gifts")


def test_no_like_for_like():
    refused(_market(), OfferTrade(RED, cards(lumber=2), ONE_LUMBER), "like-for-like")
    refused(
        _market(), OfferTrade(RED, cards(lumber=1, wool=1), cards(lumber=1, ore=1)), "like-for-like"
    )


def test_offer_of_cards_the_offerer_does_not_hold_is_refused():
    refused(_market(), OfferTrade(RED, cards(lumber=3), ONE_ORE), "cannot offer")
    refused(_market(), OfferTrade(RED, cards(brick=1), ONE_ORE), "cannot offer")


def test_negative_counts_are_refused():
    refused(_market(), OfferTrade(RED, (1, 0, 0, 0, -1), ONE_ORE), "non-negative")


def test_accept_requires_holding_the_cards():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE))
    refused(state, AnswerTrade(WHITE, True), "cannot accept")
    assert AnswerTrade(WHITE, True) not in legal_actions(state, WHITE)
    play(state, AnswerTrade(WHITE, False))


def test_confirm_only_with_an_acceptor():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE), AnswerTrade(BLUE, False))
    refused(state, ConfirmTrade(RED, BLUE), "has not accepted")
    refused(state, ConfirmTrade(RED, WHITE), "has not accepted")  # still pending
    refused(state, ConfirmTrade(RED, RED), "has not accepted")
    assert not any(isinstance(a, ConfirmTrade) for a in legal_actions(state))


def test_only_the_offerer_confirms():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE), AnswerTrade(BLUE, True))
    refused(state, ConfirmTrade(BLUE, BLUE), "turn order")


def test_offerer_does_not_answer_own_offer():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE))
    refused(state, AnswerTrade(RED, True), "does not answer")


def test_each_player_answers_once():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE), AnswerTrade(BLUE, False))
    refused(state, AnswerTrade(BLUE, True), "already answered")


def test_only_the_active_player_offers():
    refused(_market(), OfferTrade(BLUE, ONE_ORE, ONE_LUMBER), "turn order")


def test_no_trade_before_the_roll():
    state = at_turn(_market(), RED, Phase.ROLL)
    refused(state, OfferTrade(RED, ONE_LUMBER, ONE_ORE), "offer a trade")


def test_nothing_else_happens_while_an_offer_is_open():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE))
    refused(state, EndTurn(RED), "trade offer is open")
    refused(state, OfferTrade(RED, ONE_LUMBER, cards(grain=1)), "trade offer is open")
    refused(state, BuildRoad(RED, state.board.graph.edges[0]), "trade offer is open")


def test_cancel_withdraws_the_offer():
    state = play(_market(), OfferTrade(RED, ONE_LUMBER, ONE_ORE), AnswerTrade(BLUE, True))
    after = play(state, CancelTrade(RED))
    assert after.phase is Phase.MAIN and after.trade is None
    assert after.hands == state.hands


def test_multi_card_offer():
    state = give(_market(), BLUE, cards(grain=1))
    after = play(
        state,
        OfferTrade(RED, cards(lumber=2, wool=1), cards(ore=2, grain=1)),
        AnswerTrade(BLUE, True),
        ConfirmTrade(RED, BLUE),
    )
    assert after.hands[0].resources == cards(ore=2, grain=1)
    assert after.hands[1].resources == cards(lumber=2, wool=1)
