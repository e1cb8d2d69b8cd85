"""The random bot: uniform over the legal actions, nudged just enough that games end.

Pure uniform play rarely finishes a game: it offers trades most of the time (there
are twenty one-for-one offers), and ends its turn as often as it builds. So action
kinds get weights: builds are preferred to ending the turn, offers are rare.
Within a kind every action is equally likely.
"""

from __future__ import annotations

import random

from catan_p2p.rules.actions import (
    Action,
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    MaritimeTrade,
    OfferTrade,
)
from catan_p2p.rules.state import GameState

#: Relative weight of one action of each kind (kinds not listed weigh 1).
WEIGHTS: dict[type[Action], float] = {
    BuildCity: 10.0,
    BuildSettlement: 10.0,
    BuyDevCard: 3.0,
    BuildRoad: 1.0,
    MaritimeTrade: 0.25,
    OfferTrade: 0.01,
}


class RandomBot:
    """Chooses a legal action at random (weighted per kind, see ``WEIGHTS``)."""

    def __init__(self, seed: object = 0) -> None:
        self.rng = random.Random(str(seed))

    def decide(self, state: GameState, actions: list[Action]) -> Action:
        if len(actions) == 1:
            return actions[0]
        get = WEIGHTS.get
        weights = [get(type(a), 1.0) for a in actions]
        return self.rng.choices(actions, weights)[0]


class UniformBot:
    """Uniform over the legal actions except player trade offers.

    This is the random player of catanatron (which cannot offer trades to players),
    so the engine benchmark compares like with like: its games last about as many
    turns and actions as catanatron's random games.
    """

    def __init__(self, seed: object = 0) -> None:
        self.rng = random.Random(str(seed))

    def decide(self, state: GameState, actions: list[Action]) -> Action:
        n = len(actions)
        if n == 1:
            return actions[0]
        action = actions[self.rng.randrange(n)]
        if type(action) is not OfferTrade:
            return action
        # Drew an offer: choose again among the rest (still uniform over non-offers).
        rest = [a for a in actions if type(a) is not OfferTrade]
        return rest[self.rng.randrange(len(rest))] if rest else action
