"""Trading: with the bank at the seat's rate, and the active player's offers to the others."""

from __future__ import annotations

from catan_p2p.errors import IllegalAction
from catan_p2p.rules.actions import (
    Action,
    AnswerTrade,
    CancelTrade,
    ConfirmTrade,
    MaritimeTrade,
    OfferTrade,
)
from catan_p2p.rules.cards import Resource, add, covers, format_counts, one, sub
from catan_p2p.rules.chance import Chance
from catan_p2p.rules.common import Answer, Phase, replaced, seat_name, spendable, unshown
from catan_p2p.rules.seat_keys import SeatKeys
from catan_p2p.rules.state import NOBODY, GameState, Terms, TradeOffer
from catan_p2p.rules.waiting import need_phase, need_turn


def maritime_trade(
    state: GameState, seat: int, a: MaritimeTrade, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    need_phase(state, "trade with the bank", Phase.MAIN)
    need_turn(state, seat, "trade with the bank")
    give, get = int(a.give), int(a.get)
    if give == get:
        raise IllegalAction("maritime trade: giving and getting the same resource makes no trade")
    rate = state.rate(seat, give)
    hand = state.hands[seat]
    if spendable(state, seat)[give] < rate:
        raise IllegalAction(
            f"maritime trade: {seat_name(state, seat)} trades {Resource(give).label} at {rate}:1 "
            f"and holds only {hand.resources[give]}{unshown(state, seat)}"
        )
    if state.bank[get] <= 0:
        raise IllegalAction(f"maritime trade: the bank has no {Resource(get).label} left")
    paid = one(give, rate)
    hand = hand._replace(resources=add(sub(hand.resources, paid), one(get)))
    state = state._replace(
        hands=replaced(state.hands, seat, hand), bank=sub(add(state.bank, paid), one(get))
    )
    return state, a


def _check_counts(give: tuple, get: tuple, what: str) -> None:
    """The rules every trade between players keeps, offer or counter-offer alike."""
    if len(give) != 5 or len(get) != 5 or min(give) < 0 or min(get) < 0:
        raise IllegalAction(f"player trade: {what} lists non-negative counts of the five resources")
    if not any(give) or not any(get):
        raise IllegalAction("player trade: no gifts, both sides of a trade must give something")
    if any(g and w for g, w in zip(give, get, strict=True)):
        raise IllegalAction("player trade: no like-for-like, a resource cannot be on both sides")


def offer_trade(
    state: GameState, seat: int, a: OfferTrade, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    need_phase(state, "offer a trade", Phase.MAIN)
    need_turn(state, seat, "offer a trade")
    give, get = tuple(a.give), tuple(a.get)
    _check_counts(give, get, "an offer")
    to = NOBODY
    if a.to is not None:
        if a.to not in state.players:
            raise IllegalAction(f"player trade: there is no player {a.to!r} to make the offer to")
        to = state.seat(a.to)
        if to == seat:
            raise IllegalAction(
                f"player trade: {seat_name(state, seat)} cannot make an offer to itself"
            )
    if not covers(spendable(state, seat), give):  # type: ignore[arg-type]
        raise IllegalAction(
            f"player trade: {seat_name(state, seat)} cannot offer {format_counts(give)} "  # type: ignore[arg-type]
            f"holding {format_counts(state.hands[seat].resources)}{unshown(state, seat)}"
        )
    answers = tuple(Answer.PENDING for _ in state.players)
    counters = tuple(None for _ in state.players)
    offer = TradeOffer(give, get, answers, to, counters)  # type: ignore[arg-type]
    return state._replace(phase=Phase.TRADE, trade=offer), a


def answer_trade(
    state: GameState, seat: int, a: AnswerTrade, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    need_phase(state, "answer a trade offer", Phase.TRADE)
    offer = state.trade
    assert offer is not None
    if seat == state.current:
        raise IllegalAction("player trade: the player who made the offer does not answer it")
    if not offer.may_answer(seat):
        raise IllegalAction(
            f"player trade: the offer is made to {seat_name(state, offer.to)} only, "
            f"{seat_name(state, seat)} does not answer it"
        )
    if offer.answers[seat] is not Answer.PENDING:
        raise IllegalAction(f"player trade: {seat_name(state, seat)} has already answered")
    if a.is_counter:
        terms = _counter_terms(state, seat, a)
        counters = offer.counters or tuple(None for _ in state.players)
        offer = offer._replace(
            answers=replaced(offer.answers, seat, Answer.COUNTER),
            counters=replaced(counters, seat, terms),
        )
        return state._replace(trade=offer), a
    if a.accept and not covers(spendable(state, seat), offer.get):
        raise IllegalAction(
            f"player trade: {seat_name(state, seat)} cannot accept, it asks for "
            f"{format_counts(offer.get)} and they hold {format_counts(state.hands[seat].resources)}"
            f"{unshown(state, seat)}"
        )
    answer = Answer.ACCEPT if a.accept else Answer.DECLINE
    offer = offer._replace(answers=replaced(offer.answers, seat, answer))
    return state._replace(trade=offer), a


def _counter_terms(state: GameState, seat: int, a: AnswerTrade) -> Terms:
    """The terms of a counter-offer as the offerer would trade them, checked.

    A counter-offer is a trade of its own: no gifts, no like-for-like, other counts
    than the offer's, and cards its player can pay.
    """
    offer = state.trade
    assert offer is not None
    name = seat_name(state, seat)
    if a.accept:
        raise IllegalAction(f"player trade: {name} cannot both accept the offer and counter it")
    if a.give is None or a.get is None:
        raise IllegalAction("player trade: no gifts, a counter-offer names both sides")
    give, get = tuple(a.give), tuple(a.get)
    _check_counts(give, get, "a counter-offer")
    terms = Terms(get, give)  # type: ignore[arg-type]
    if terms == (offer.give, offer.get):
        raise IllegalAction(
            f"player trade: {name}'s counter-offer has the offer's own counts; "
            "to take the offer as made, accept it"
        )
    if not covers(spendable(state, seat), give):  # type: ignore[arg-type]
        raise IllegalAction(
            f"player trade: {name} cannot counter with {format_counts(give)} "  # type: ignore[arg-type]
            f"holding {format_counts(state.hands[seat].resources)}{unshown(state, seat)}"
        )
    return terms


def confirm_trade(
    state: GameState, seat: int, a: ConfirmTrade, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    need_phase(state, "close a trade", Phase.TRADE)
    need_turn(state, seat, "close a trade")
    offer = state.trade
    assert offer is not None
    if a.partner not in state.players:
        raise IllegalAction(f"player trade: there is no player {a.partner!r}")
    partner = state.seat(a.partner)
    answer = offer.answers[partner]
    if partner == seat or answer not in (Answer.ACCEPT, Answer.COUNTER):
        raise IllegalAction(
            f"player trade: {seat_name(state, partner)} has not accepted the offer nor countered it"
        )
    give, get = offer.terms_with(partner)
    if answer is Answer.COUNTER and not covers(spendable(state, seat), give):
        raise IllegalAction(
            f"player trade: {seat_name(state, seat)} cannot take "
            f"{seat_name(state, partner)}'s counter-offer, it asks for {format_counts(give)} "
            f"and they hold {format_counts(state.hands[seat].resources)}{unshown(state, seat)}"
        )
    mine, theirs = state.hands[seat], state.hands[partner]
    if not covers(spendable(state, seat), give) or not covers(spendable(state, partner), get):
        raise IllegalAction("player trade: one side no longer holds the cards of the offer")
    hands = replaced(
        state.hands, seat, mine._replace(resources=add(sub(mine.resources, give), get))
    )
    hands = replaced(
        hands, partner, theirs._replace(resources=add(sub(theirs.resources, get), give))
    )
    return state._replace(hands=hands, trade=None, phase=Phase.MAIN), a


def cancel_trade(
    state: GameState, seat: int, a: CancelTrade, chance: Chance | None, keys: SeatKeys
) -> tuple[GameState, Action]:
    need_phase(state, "withdraw a trade offer", Phase.TRADE)
    need_turn(state, seat, "withdraw a trade offer")
    return state._replace(trade=None, phase=Phase.MAIN), a


def counter_offers(state: GameState, seat: int) -> list[AnswerTrade]:
    """A few counter-offers ``seat`` may make to the open offer, each one the offerer could
    take: ask one card more of a kind offered, give one card fewer of a kind asked, or
    give one card of another kind than the one asked.

    Counter-offers are unbounded, as offers are; these are representatives (for the
    bots and the window's first suggestions), and any other legal one is as good.
    """
    offer = state.trade
    if offer is None or seat == state.current or not offer.may_answer(seat):
        return []
    if offer.answers[seat] is not Answer.PENDING:
        return []
    mine = spendable(state, seat)
    theirs = spendable(state, state.current)
    name = state.players[seat]
    shapes: list[tuple[tuple[int, ...], tuple[int, ...]]] = []  # (it gives, it gets)
    for r in range(5):
        if offer.give[r]:  # one more of a kind offered
            shapes.append((offer.get, add(offer.give, one(r))))
    for r in range(5):
        if offer.get[r] and sum(offer.get) > 1:  # one fewer of a kind asked
            shapes.append((sub(offer.get, one(r)), offer.give))
    for r in range(5):
        if not offer.get[r] and not offer.give[r]:  # another kind than the one asked
            shapes.append((one(r), offer.give))
    out: list[AnswerTrade] = []
    for give, get in shapes:
        if not covers(mine, give) or not covers(theirs, get):
            continue
        answer = AnswerTrade(name, False, give, get)  # type: ignore[arg-type]
        try:
            _counter_terms(state, seat, answer)
        except IllegalAction:
            continue
        if answer not in out:
            out.append(answer)
    return out
