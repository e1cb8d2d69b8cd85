"""Bots: players that choose actions from ``rules.legal_actions`` (random, uniform, greedy)."""

from __future__ import annotations

from catan_p2p.bots.base import Bot
from catan_p2p.bots.greedy import GreedyBot, NoTradeGreedyBot
from catan_p2p.bots.random_bot import RandomBot, UniformBot

#: Bot strategies by the name used on the command line.
STRATEGIES: dict[str, type] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "greedy-notrade": NoTradeGreedyBot,
    "uniform": UniformBot,
}


def make_bot(strategy: str, seed: object = 0) -> Bot:
    """A new bot of ``strategy`` with its own generator seeded by ``seed``.

    Raises:
        ValueError: the strategy is unknown (the message lists the known ones).
    """
    try:
        cls = STRATEGIES[strategy]
    except KeyError:
        known = ", ".join(sorted(STRATEGIES))
        raise ValueError(f"unknown bot strategy {strategy!r}; choose from {known}") from None
    return cls(seed)


__all__ = [
    "STRATEGIES",
    "Bot",
    "GreedyBot",
    "NoTradeGreedyBot",
    "RandomBot",
    "UniformBot",
    "make_bot",
]
