"""Who plays which seat in this window, and whom the window serves right now.

Hot-seat passes the mouse to whoever must act; bot seats are played by calling the
bot; every other seat is a remote peer the window waits for. Pure logic on the
state, no pygame, so the hand-over rules are tested without a window.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from catan_p2p.bots.base import Bot
from catan_p2p.rules.actions import Action
from catan_p2p.rules.engine import actors
from catan_p2p.rules.state import GameState, Phase

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
        it never withdraws an offer before the humans had a chance to accept it.
        """
        waiting = actors(state)
        bots = [p for p in waiting if p in self.bots]
        if state.phase is Phase.TRADE:
            offerer = state.players[state.current]
            if offerer in bots and len(waiting) > 1:
                bots.remove(offerer)
        return bots

    def remote_acting(self, state: GameState) -> list[str]:
        """Seats played elsewhere that the game waits on (networked play)."""
        return [p for p in actors(state) if not self.is_local(p)]

    def viewer(self, state: GameState, previous: str | None) -> str:
        """The human whose hand the window shows: the one who must act, else the last one.

        During discards and trade answers several humans act at once; the window then
        shows the player whose turn it is when human, else the first acting human.
        """
        acting = self.humans_acting(state)
        current = state.players[state.current]
        if acting:
            return current if current in acting else acting[0]
        if current in self.humans:
            return current
        if previous in self.humans:
            return previous  # type: ignore[return-value]
        return self.humans[0] if self.humans else current


def bot_move(seats: Seats, state: GameState, legal: Callable[[str], list[Action]]) -> Action | None:
    """The next bot action, or None when no bot of this window may act now.

    ``legal(player)`` lists that player's legal actions (the session's view).
    """
    for player in seats.bots_acting(state):
        actions = legal(player)
        if actions:
            return seats.bots[player].decide(state, actions)
    return None
