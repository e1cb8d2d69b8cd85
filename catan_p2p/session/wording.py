"""How the log says an action where its commit subject cannot say it all.

A commit subject is part of the signed protocol (PROTOCOL.md), so it stays as it was
written: a bank trade's subject names the resources, not how many cards went to the
bank (the rate is the player's best at the time, a fact of the state, not of the
action). What players read in the window's log and in ``catan-p2p log`` says it in
full, "trade 4 brick for 1 lumber with the bank", from the state before the trade.
"""

from __future__ import annotations

from collections.abc import Iterable

from catan_p2p.errors import StateFileError
from catan_p2p.net.game import LogEntry
from catan_p2p.rules.actions import MaritimeTrade
from catan_p2p.store.repo import Repository


def spoken(repo: Repository, entries: Iterable[LogEntry]) -> dict[str, str]:
    """``commit -> words`` for the entries whose words differ from their subject (bank
    trades, read at their rate in ``repo``)."""
    out = {}
    for e in entries:
        if not isinstance(e.action, MaritimeTrade):
            continue
        try:
            parents = repo.commit(e.commit).parents
            before = repo.state_of(parents[0])[0]
            rate = before.rate(before.players.index(e.author), e.action.give)
        except (StateFileError, ValueError, KeyError, IndexError, OSError):
            continue
        out[e.commit] = f"{e.author.capitalize()}: {e.action.in_full(rate)}"
    return out
