"""The strong bot: legal, within its time budget, blind to hidden cards, and it trades."""

from __future__ import annotations

import random
import time

from builders import at_turn, fresh, give_dev, quick_setup, set_hand

from catan_p2p.bots import ALL_STRATEGIES, GreedyBot, make_bot
from catan_p2p.bots.strong import StrongBot, determinise, unseen_cards
from catan_p2p.rules.actions import Action, AnswerTrade, EndTurn, OfferTrade
from catan_p2p.rules.cards import DEV_DECK, DevCard
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import Phase
from catan_p2p.sim import play_game
from catan_p2p.trust.engine import apply, is_legal


class Checked:
    """Fails the game the moment the bot returns an action it was not offered."""

    def __init__(self, bot) -> None:  # type: ignore[no-untyped-def]
        self.bot = bot
        self.kinds: set[str] = set()

    def decide(self, state, actions: list[Action]) -> Action:  # type: ignore[no-untyped-def]
        choice = self.bot.decide(state, actions)
        assert choice in actions or (isinstance(choice, OfferTrade) and is_legal(state, choice))
        self.kinds.add(choice.kind)
        return choice


def test_strong_bot_plays_legal_games_to_the_end() -> None:
    # Strength is measured by benchmarks/bots.py; decisions depend on the clock.
    kinds: set[str] = set()
    for g in range(2):
        strong = Checked(StrongBot(f"s{g}", think=0.02))
        greedy = GreedyBot(f"g{g}")
        bots = [strong, greedy] if g % 2 == 0 else [greedy, strong]
        result = play_game(("red", "blue"), bots, f"strong-{g}", check_invariants=True)
        assert result.winner is not None
        kinds |= strong.kinds
    assert {"build_road", "build_settlement", "roll_dice", "end_turn"} <= kinds


def test_strong_is_a_named_strategy_with_a_think_budget() -> None:
    assert "strong" in ALL_STRATEGIES
    bot = make_bot("strong", "x", think=0.3)
    assert isinstance(bot, StrongBot) and bot.think == 0.3


def test_a_decision_keeps_to_the_budget() -> None:
    state = at_turn(quick_setup(fresh(4), seed=3), "red")
    state = set_hand(state, "red", (3, 3, 2, 3, 3))
    bot = StrongBot("t", think=0.2)
    actions = legal_actions(state, "red")
    start = time.perf_counter()
    choice = bot.decide(state, actions)
    # A search that ignored its budget would run for many seconds; the bound is loose so
    # a loaded machine (CI, two test workers) cannot fail it. How close decisions keep
    # to the budget is measured in benchmarks/bots.py (median and p99 at 1 s).
    assert time.perf_counter() - start < 0.2 * 10
    assert choice in actions or is_legal(state, choice)


def test_determinisation_never_reveals_the_opponents_cards() -> None:
    base = at_turn(quick_setup(fresh(3), seed=1), "red")
    # Blue holds three cards: knights in one world, victory points in the other.
    world_a = give_dev(base, "blue", DevCard.KNIGHT, 3)
    world_b = give_dev(base, "blue", DevCard.VICTORY_POINT, 3)
    a = determinise(world_a, 0, random.Random(7))
    b = determinise(world_b, 0, random.Random(7))
    assert a.hands[1] == b.hands[1] and a.dev_deck == b.dev_deck
    assert sum(a.hands[1].dev_cards) == 3
    assert sum(unseen_cards(world_a, 0)) == sum(DEV_DECK)
    set_a = set_hand(world_a, "red", (1, 1, 1, 1, 3))
    set_b = set_hand(world_b, "red", (1, 1, 1, 1, 3))
    pick_a = StrongBot("same", think=0.0).decide(set_a, legal_actions(set_a, "red"))
    pick_b = StrongBot("same", think=0.0).decide(set_b, legal_actions(set_b, "red"))
    assert pick_a == pick_b


def test_it_offers_a_trade_for_the_card_it_lacks() -> None:
    state = at_turn(quick_setup(fresh(4), seed=2), "red")
    state = set_hand(state, "red", (2, 0, 0, 2, 2))  # one ore short of a city, spare lumber
    state = set_hand(state, "blue", (0, 1, 1, 1, 1))  # blue: lumber short of a settlement
    choice = StrongBot("o", think=0.0).decide(state, legal_actions(state, "red"))
    assert isinstance(choice, OfferTrade), choice
    assert choice.get[4] >= 1


def test_it_accepts_a_helpful_offer_and_declines_one_that_costs_its_plan() -> None:
    state = at_turn(quick_setup(fresh(4), seed=2), "red")
    state = set_hand(state, "red", (2, 0, 0, 2, 2))
    state = set_hand(state, "blue", (0, 1, 1, 1, 1))  # blue: lumber short of a settlement
    offer = apply(state, OfferTrade("red", (1, 0, 0, 0, 0), (0, 0, 0, 0, 1)))
    assert offer.phase is Phase.TRADE
    answer = StrongBot("a", think=0.0).decide(offer, legal_actions(offer, "blue"))
    assert answer == AnswerTrade("blue", True)
    # Asked for the grain of its settlement in exchange for ore it does not need: no.
    bad = apply(state, OfferTrade("red", (0, 0, 0, 0, 1), (0, 0, 0, 1, 0)))
    answer = StrongBot("a", think=0.0).decide(bad, legal_actions(bad, "blue"))
    assert answer == AnswerTrade("blue", False)


def test_it_builds_rather_than_ending_the_turn() -> None:
    state = at_turn(quick_setup(fresh(2), seed=4), "red")
    state = set_hand(state, "red", (0, 0, 0, 2, 3))
    choice = StrongBot("b", think=0.0).decide(state, legal_actions(state, "red"))
    assert choice.kind == "build_city"
    assert choice != EndTurn("red")
