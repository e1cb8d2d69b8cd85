"""Who plays which seat in this window, and whom the window serves right now.

Hot-seat passes the mouse to whoever must act; bot seats are played by calling the
bot; every other seat is a remote peer the window waits for. Pure logic on the
state, no pygame, so the hand-over rules are tested without a window.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from catan_p2p.bots.base import Bot
from catan_p2p.net.driver import waiting_bots
from catan_p2p.rules.state import GameState, Phase
from catan_p2p.rules.waiting import actors, waits_for

#: Opponent levels offered for bot seats, and the bot strategy each plays. Any other
#: strategy name (e.g. ``catanatron:alphabeta``) may be picked directly.
DIFFICULTIES: dict[str, str] = {"easy": "random", "greedy": "greedy", "strong": "strong"}


def strategy_for(level: str) -> str:
    """The bot strategy of a difficulty level (a strategy name is passed through)."""
    return DIFFICULTIES.get(level, level)


@dataclass
class Seats:
    """The seats this window plays: ``humans`` with the mouse, ``bots`` by calling them."""

    humans: tuple[str, ...]
    bots: Mapping[str, Bot] = field(default_factory=dict)

    def is_human(self, player: str) -> bool:
        return player in self.humans

    def is_bot(self, player: str) -> bool:
        return player in self.bots

    def is_local(self, player: str) -> bool:
        return player in self.humans or player in self.bots

    def humans_acting(self, state: GameState) -> list[str]:
        """Humans of this window the game waits on now, in seat order."""
        return [p for p in actors(state) if p in self.humans]

    def bots_acting(self, state: GameState) -> list[str]:
        """Bots of this window that may act now.

        A bot that made a trade offer waits until every other player has answered, so
        it never withdraws an offer before the humans had a chance to accept it (the
        rule of the one bot driver, net/driver.py).
        """
        return waiting_bots(state, self.bots)

    def remote_acting(self, state: GameState) -> list[str]:
        """Seats played elsewhere that the game waits on (networked play)."""
        return [p for p in waits_for(state) if not self.is_local(p)]

    def viewer(self, state: GameState, previous: str | None) -> str:
        """The human whose hand the window shows: the one who must act, else the last one.

        During discards several humans act at once; the window then shows the player
        whose turn it is when human, else the first acting human. While a trade offer is
        open, the humans who still have to answer it come before the offerer (who can
        only close the offer once the answers are in).
        """
        acting = self.humans_acting(state)
        current = state.players[state.current]
        if state.phase is Phase.TRADE:
            answering = [p for p in acting if p != current]
            if answering:
                return answering[0]
        if acting:
            return current if current in acting else acting[0]
        if current in self.humans:
            return current
        if previous in self.humans:
            return previous  # type: ignore[return-value]
        return self.humans[0] if self.humans else current
