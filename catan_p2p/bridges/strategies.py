"""Every bot strategy a command can name: ours (``catan_p2p.bots``) and catanatron's
players (an optional package), which only this bridge knows how to seat."""

from __future__ import annotations

from catan_p2p import bots
from catan_p2p.bots import Bot
from catan_p2p.errors import UsageError

CATANATRON_STRATEGIES: tuple[str, ...] = (
    "catanatron:weighted",
    "catanatron:value",
    "catanatron:alphabeta",
)
ALL_STRATEGIES: tuple[str, ...] = (*bots.ALL_STRATEGIES, *CATANATRON_STRATEGIES)


def make_bot(strategy: str, seed: object = 0, think: float | None = None) -> Bot:
    """A new bot of ``strategy`` (one of ``ALL_STRATEGIES``); see ``bots.make_bot``.

    Raises:
        ValueError: the strategy is unknown (the message lists the known ones).
        UsageError: a catanatron strategy without catanatron installed.
    """
    if strategy not in CATANATRON_STRATEGIES:
        if strategy not in ALL_STRATEGIES:
            known = ", ".join(sorted(ALL_STRATEGIES))
            raise ValueError(f"unknown bot strategy {strategy!r}; choose from {known}")
        return bots.make_bot(strategy, seed, think)
    try:
        from catan_p2p.bridges.catanatron_players import CatanatronBot
    except ImportError:
        raise UsageError(
            f"{strategy} needs catanatron, which is not installed: "
            "pip install 'catan_p2p[bench]' (or pip install catanatron==3.2.1)"
        ) from None
    return CatanatronBot(strategy.split(":", 1)[1], seed)
