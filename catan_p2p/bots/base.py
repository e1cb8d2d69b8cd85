"""What a bot is: something that picks one of the legal actions.

A bot never computes legality itself (the rules do that) and never touches the
global ``random``: each bot owns a ``random.Random`` seeded at construction, so a
game with the same seeds is the same game.
"""

from __future__ import annotations

from typing import Protocol

from catan_p2p.rules.actions import Action
from catan_p2p.rules.state import GameState


class Bot(Protocol):
    """A player that chooses among the actions the rules allow."""

    def decide(self, state: GameState, actions: list[Action]) -> Action:
        """Pick one of ``actions`` (all legal for one player in ``state``, never empty)."""
        ...
