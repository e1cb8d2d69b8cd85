"""Bots: players that choose actions from ``rules.legal_actions``.

random, uniform and greedy are instant; strong searches for up to ``think`` seconds a
decision. catanatron's players are bots too, but through ``catan_p2p.bridges``, which
builds on this package: ``bridges.strategies`` names every strategy a command can ask for.
"""

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


#: Strategies that take time, so they are named apart from ``STRATEGIES``; ``make_bot``
#: knows them all.
SEARCH_STRATEGIES: tuple[str, ...] = ("strong",)
ALL_STRATEGIES: tuple[str, ...] = (*STRATEGIES, *SEARCH_STRATEGIES)


def make_bot(strategy: str, seed: object = 0, think: float | None = None) -> Bot:
    """A new bot of ``strategy`` with its own generator seeded by ``seed``.

    Args:
        strategy: one of ``ALL_STRATEGIES``.
        seed: seeds the bot's own generator.
        think: seconds per decision of the strong bot (None: its default).

    Raises:
        ValueError: the strategy is unknown (the message lists the known ones).
    """
    if strategy == "strong":
        from catan_p2p.bots.strong import DEFAULT_THINK, StrongBot

        return StrongBot(seed, DEFAULT_THINK if think is None else think)
    try:
        cls = STRATEGIES[strategy]
    except KeyError:
        known = ", ".join(sorted(ALL_STRATEGIES))
        raise ValueError(f"unknown bot strategy {strategy!r}; choose from {known}") from None
    return cls(seed)


__all__ = [
    "ALL_STRATEGIES",
    "STRATEGIES",
    "Bot",
    "GreedyBot",
    "NoTradeGreedyBot",
    "RandomBot",
    "UniformBot",
    "make_bot",
]
