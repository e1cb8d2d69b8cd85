"""A game kept in memory, without Git: quick experiments, hot-seat tests and the
engine's own tests play through it as through a ``GitSession``."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from catan_p2p.net.game import LogEntry, SyncStatus
from catan_p2p.rules.actions import Action
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import GameState
from catan_p2p.store.codec import GameInfo
from catan_p2p.trust.engine import refusal, step


class MemorySession:
    """A session without Git: chance is derived from the seed and the action's index."""

    def __init__(self, state: GameState, seed: str, local_players: tuple[str, ...] | None = None):
        self.game_id = f"memory-{seed}"
        self.seed = seed
        self._state = state
        self._log: list[LogEntry] = []
        self.players = tuple(state.players)
        self.local_players = tuple(local_players or state.players)
        self.info: GameInfo | None = None
        self.git_dir: Path | None = None
        self.rejected: dict[str, str] = {}

    networked = False

    def remotes(self) -> tuple[str, ...]:
        return ()

    @property
    def state(self) -> GameState:
        return self._state

    def submit(self, action: Action) -> GameState:
        chance = derive_chance(self.seed, str(len(self._log)))
        self._state, resolved = step(self._state, action, chance)
        self._log.append(LogEntry(str(len(self._log)), action.player, resolved, str(resolved)))
        return self._state

    def legal_actions(self, player: str | None = None) -> list[Action]:
        return legal_actions(self._state, player)

    def view(self, player: str) -> GameState:
        return self._state  # no hidden deck without seat keys: everything is in the state

    def refusal(self, action: Action) -> str | None:
        return refusal(self._state, action)

    def history(self) -> list[LogEntry]:
        return list(self._log)

    def said(self, entries: Iterable[LogEntry]) -> dict[str, str]:
        return {}  # no repository: the subjects say it all

    def sync(self) -> SyncStatus:
        return SyncStatus(peers=self._state.players)

    def waiting_since(self) -> int:
        return 0

    def take_rejected(self) -> dict[str, str]:
        return {}

    def peer_heads(self) -> dict[str, tuple[str, int]]:
        return {}

    def flush(self) -> None:
        """Nothing to push: a game in memory has no remote."""

    served = None

    def nudges(self) -> list[tuple[bytes, tuple[str, int]]]:
        return []

    def hear(self, datagram: bytes) -> bool:
        return False

    def close(self) -> None:
        """Nothing to let go."""
