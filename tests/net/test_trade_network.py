"""Trades as players make them, over a bare remote: three peers, each with its own clone.

Blue is played as a person would (a script that answers offers itself and makes its own),
Red and White by greedy bots through the one bot loop (``net.driver.Driver``). Blue
counters a bot's offer, a bot counters Blue's, and Blue makes an offer to one bot only,
which that bot alone answers; then every peer ends on one head and ``verify`` passes in
every clone.
"""

from __future__ import annotations

import time

import pytest
from gitgames import git

from catan_p2p.bots import GreedyBot
from catan_p2p.cli import main
from catan_p2p.net.driver import Driver
from catan_p2p.rules.actions import (
    Action,
    AnswerTrade,
    CancelTrade,
    ConfirmTrade,
    OfferTrade,
)
from catan_p2p.rules.cards import covers
from catan_p2p.rules.menu import legal_actions, with_counters
from catan_p2p.rules.state import Answer, GameState, Phase
from catan_p2p.rules.trade import counter_offers
from catan_p2p.session.git import GitSession
from catan_p2p.trust.engine import apply, is_legal

PLAYERS = ("red", "blue", "white")
HUMAN = "blue"
BOT_SEEDS = {"red": 1, "white": 2}
DEADLINE = 300  # seconds for the three trades to happen


def _offers(state: GameState, seat: int) -> list[tuple[tuple, tuple]]:
    """Small offers the seat can pay: one or two of a held kind for one or two of another."""
    held = state.hands[seat].resources
    out = []
    for give in range(5):
        for get in range(5):
            if give == get:
                continue
            for n, m in ((1, 1), (1, 2), (2, 1)):
                g = tuple(n if r == give else 0 for r in range(5))
                w = tuple(m if r == get else 0 for r in range(5))
                if covers(held, g):
                    out.append((g, w))
    return out


class Person:
    """Blue as a person plays: its own answers and offers, the rest as a greedy player."""

    def __init__(self, session: GitSession) -> None:
        self.session = session
        self.ordinary = GreedyBot(7)
        self.tried_turn = -1
        self.made: list[Action] = []

    def _bot_would_counter(self, state: GameState, offer: OfferTrade) -> bool:
        after = apply(state, offer)
        bot = offer.to or ""
        choice = GreedyBot(BOT_SEEDS[bot]).decide(
            after, with_counters(after, bot, legal_actions(after, bot))
        )
        return isinstance(choice, AnswerTrade) and choice.is_counter

    def move(self) -> Action | None:
        session, me = self.session, HUMAN
        actions = session.legal_actions(me)
        if not actions:
            return None
        state = session.view(me)
        seat = state.players.index(me)
        if state.phase is Phase.TRADE and state.current != seat:
            counters = counter_offers(state, seat)  # a person's counter: any it can pay
            return counters[0] if counters else AnswerTrade(me, False)
        if state.phase is Phase.TRADE:  # Blue's own offer
            confirms = [a for a in actions if isinstance(a, ConfirmTrade)]
            if confirms:
                return confirms[0]
            waiting = [
                s
                for s, a in enumerate(state.trade.answers)
                if s != seat and a is Answer.PENDING and state.trade.may_answer(s)
            ]
            return None if waiting else CancelTrade(me)
        if state.phase is Phase.MAIN and self.tried_turn != state.turn:
            self.tried_turn = state.turn
            for give, get in _offers(state, seat):
                for bot in BOT_SEEDS:
                    offer = OfferTrade(me, give, get, bot)
                    if is_legal(state, offer) and self._bot_would_counter(state, offer):
                        return offer
        choice = self.ordinary.decide(state, actions)
        if isinstance(choice, OfferTrade):
            return next(a for a in actions if not isinstance(a, OfferTrade))
        return choice

    def step(self) -> Action | None:
        action = self.move()
        if action is not None:
            self.session.submit(action)
            self.made.append(action)
        return action


def _peers(tmp_path):
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    repos = {p: tmp_path / p for p in PLAYERS}
    new = ["new", "--players", ",".join(PLAYERS), "--seed", "trades", "--game", "g"]
    assert main([*new, "--repo", str(repos["red"]), "--remote", str(remote)]) == 0
    for p in PLAYERS[1:]:
        assert main(["join", str(remote), "--game", "g", "--as", p, "--repo", str(repos[p])]) == 0
    return remote, repos


@pytest.mark.slow
@pytest.mark.network
def test_counters_both_ways_and_an_offer_to_one_player_verify_on_every_peer(tmp_path, capsys):
    remote, repos = _peers(tmp_path)
    sessions = {p: GitSession.open(repos[p], "g", (p,)) for p in PLAYERS}
    bots = {p: Driver(sessions[p], {p: GreedyBot(s)}) for p, s in BOT_SEEDS.items()}
    person = Person(sessions[HUMAN])
    bot_moves: list[Action] = []
    directed_seen = False
    deadline = time.monotonic() + DEADLINE
    try:

        def done() -> bool:
            return (
                any(isinstance(a, AnswerTrade) and a.is_counter for a in person.made)
                and any(isinstance(a, AnswerTrade) and a.is_counter for a in bot_moves)
                and directed_seen
            )

        while not done():
            assert time.monotonic() < deadline, (person.made[-5:], bot_moves[-5:])
            for p in PLAYERS:
                session = sessions[p]
                session.sync()
                state = session.state
                assert not state.is_over, "the game ended before the three trades"
                if p == HUMAN:
                    person.step()
                    continue
                trade = state.trade
                if trade is not None and trade.to != -1 and trade.to != state.seat(p):
                    # An offer made to the other bot: this one has nothing to answer.
                    assert state.current == state.seat(p) or bots[p].next_move() is None
                moved = bots[p].step()
                if moved is not None:
                    bot_moves.append(moved)
                    offer = [a for a in person.made if isinstance(a, OfferTrade)]
                    if (
                        isinstance(moved, AnswerTrade)
                        and offer
                        and offer[-1].to == p
                        and state.players[state.current] == HUMAN
                    ):
                        directed_seen = True
        # Every peer takes in the last moves and ends on one head.
        for _ in range(6):
            for session in sessions.values():
                session.sync()
            if len({s.head for s in sessions.values()}) == 1:
                break
    finally:
        for session in sessions.values():
            session.close()
    heads = {git("rev-parse", f"refs/heads/catan/g/{p}", cwd=remote).strip() for p in PLAYERS}
    subjects = git("log", "--all", "--format=%s", cwd=remote).splitlines()
    assert any(s.startswith("Blue: counter-offer") for s in subjects)
    assert any(s.startswith(("Red: counter-offer", "White: counter-offer")) for s in subjects)
    to_one = [s for s in subjects if s.startswith("Blue: offer") and " to " in s]
    assert to_one, subjects[:20]
    # The merges of Blue's offers to one bot take that bot's answer alone.
    for line in subjects:
        if line.startswith("Blue: merge trade answers of"):
            assert "," not in line.removeprefix("Blue: merge trade answers of "), line
    capsys.readouterr()
    for p in PLAYERS:
        assert main(["verify", "--repo", str(repos[p])]) == 0, capsys.readouterr()
    assert len(heads) == 1, heads
