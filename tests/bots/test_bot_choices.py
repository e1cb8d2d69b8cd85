"""Bots choose only among the legal actions, in every phase, including concurrent steps."""

from __future__ import annotations

import pytest
from builders import at_turn, cards, fresh, give, play, quick_setup, set_hand

from catan_p2p.bots import STRATEGIES, GreedyBot, make_bot
from catan_p2p.rules.actions import Action, AnswerTrade, Discard, MoveRobber, OfferTrade
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import GameState, Phase
from catan_p2p.sim import play_game
from catan_p2p.trust.engine import is_legal

COLOURS = ("red", "blue", "white", "orange")


class Checked:
    """Wraps a bot and fails the game the moment it returns an action it was not offered."""

    def __init__(self, bot) -> None:  # type: ignore[no-untyped-def]
        self.bot = bot
        self.kinds: set[str] = set()

    def decide(self, state: GameState, actions: list[Action]) -> Action:
        choice = self.bot.decide(state, actions)
        assert choice in actions, f"{choice} was not among the legal actions"
        assert is_legal(state, choice), f"{choice} is refused by the rules"
        self.kinds.add(choice.kind)
        return choice


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_bots_only_choose_offered_legal_actions_and_finish(strategy: str, players: int) -> None:
    names = COLOURS[:players]
    bots = [Checked(make_bot(strategy, f"legal/{i}")) for i in range(players)]
    result = play_game(names, bots, f"legal-{strategy}-{players}", check_invariants=True)
    assert result.winner in names
    assert result.state.points(result.state.seat(result.winner)) >= 10
    assert set().union(*(b.kinds for b in bots)) >= {"build_settlement", "roll_dice", "end_turn"}


def test_greedy_mixed_with_random_answers_discards_and_offers_legally() -> None:
    # Random bots offer trades and hoard cards, so the greedy bot meets every concurrent step.
    greedy = Checked(GreedyBot("mixed"))
    kinds: set[str] = set()
    for g in range(6):
        bots = [
            greedy,
            Checked(make_bot("random", f"m{g}/1")),
            Checked(make_bot("random", f"m{g}/2")),
        ]
        play_game(COLOURS[:3], bots, f"mixed-{g}", check_invariants=True)
        kinds |= greedy.kinds
    assert {"answer_trade", "move_robber", "build_city"} <= kinds


def _discard_state() -> GameState:
    state = quick_setup(fresh(2), seed=3)
    state = set_hand(state, "blue", cards(lumber=4, wool=1, grain=2, ore=3))
    return at_turn(state, "red", Phase.DISCARD)._replace(discards=(0, 5))


def test_greedy_discards_the_cards_its_plan_needs_least() -> None:
    state = _discard_state()
    actions = legal_actions(state, "blue")
    choice = GreedyBot(0).decide(state, actions)
    # A city (2 grain, 3 ore) is within reach: it keeps those and gives up the rest.
    assert choice == Discard("blue", cards(lumber=4, wool=1))


def _offer(state: GameState, give_: dict, get: dict) -> GameState:
    state = at_turn(state, "red", Phase.MAIN)
    state = give(state, "red", give_)
    return play(state, OfferTrade("red", cards(**give_), cards(**get)))


def test_greedy_accepts_an_offer_that_brings_what_its_plan_misses() -> None:
    state = quick_setup(fresh(2), seed=3)
    state = set_hand(state, "blue", cards(lumber=3, grain=2, ore=2))
    state = _offer(state, {"ore": 1}, {"lumber": 1})
    choice = GreedyBot(0).decide(state, legal_actions(state, "blue"))
    assert choice == AnswerTrade("blue", True)


def test_greedy_declines_an_offer_that_takes_what_its_plan_needs() -> None:
    state = quick_setup(fresh(2), seed=3)
    state = set_hand(state, "blue", cards(lumber=3, grain=2, ore=2))
    state = _offer(state, {"lumber": 1}, {"ore": 1})
    choice = GreedyBot(0).decide(state, legal_actions(state, "blue"))
    assert choice == AnswerTrade("blue", False)


def test_greedy_never_puts_the_robber_on_its_own_buildings_when_it_can_avoid_it() -> None:
    state = quick_setup(fresh(2), seed=5)
    state = at_turn(state, "red", Phase.MOVE_ROBBER)
    graph = state.board.graph
    choice = GreedyBot(0).decide(state, legal_actions(state, "red"))
    assert isinstance(choice, MoveRobber)
    tile = graph.tile_index[choice.tile]
    owners = {state.vertex_owner[v] for v in graph.tile_vertices[tile]}
    assert state.seat("red") not in owners
    assert choice.victim == "blue"  # the only opponent: rob it when it has cards


def test_greedy_accepts_a_generous_offer_that_brings_a_build_nearer() -> None:
    state = quick_setup(fresh(2), seed=3)
    state = set_hand(state, "blue", cards(lumber=1, wool=2))
    # red gives brick and grain for one wool: blue's settlement comes two cards nearer
    state = _offer(state, {"brick": 1, "grain": 1}, {"wool": 1})
    assert GreedyBot(0).decide(state, legal_actions(state, "blue")) == AnswerTrade("blue", True)


def test_greedy_refuses_to_feed_a_player_close_to_victory() -> None:
    state = quick_setup(fresh(2), seed=3)
    state = set_hand(state, "blue", cards(lumber=1, wool=2))
    state = _offer(state, {"brick": 1, "grain": 1}, {"wool": 1})
    state = state._replace(victory_points=4)  # red's 2 points are 2 from victory
    assert GreedyBot(0).decide(state, legal_actions(state, "blue")) == AnswerTrade("blue", False)


def test_the_non_trading_greedy_declines_even_a_generous_offer() -> None:
    from catan_p2p.bots import NoTradeGreedyBot

    state = quick_setup(fresh(2), seed=3)
    state = set_hand(state, "blue", cards(lumber=1, wool=2))
    state = _offer(state, {"brick": 1, "grain": 1}, {"wool": 1})
    choice = NoTradeGreedyBot(0).decide(state, legal_actions(state, "blue"))
    assert choice == AnswerTrade("blue", False)


def test_greedy_offers_a_spare_card_for_the_one_its_plan_misses() -> None:
    state = quick_setup(fresh(2), seed=3)
    state = at_turn(set_hand(state, "red", cards(lumber=1, wool=1, grain=1)), "red", Phase.MAIN)
    choice = GreedyBot(0).decide(state, legal_actions(state, "red"))
    assert isinstance(choice, OfferTrade)  # a development card misses only ore
    assert sum(choice.give) == 1 and sum(choice.get) == 1 and choice.get != choice.give
