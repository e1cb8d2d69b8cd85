"""The game a peer runtime drives (``net.runtime``), as its users see it: the client,
bots-as-peers, the CLI.

A ``Session`` is one window's or one process's view of one game: the current state,
the seats it may act for, a way to submit actions and the log of what happened. It is
declared here, below session/, so the runtime drives it without importing up a layer:
``GitSession`` (session/git.py) records every action as a commit; ``MemorySession``
(session/memory.py) keeps everything in memory for quick experiments and the engine's
own tests.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from catan_p2p.replica.adopt import Fork
from catan_p2p.rules.actions import Action
from catan_p2p.rules.state import GameState
from catan_p2p.store.codec import GameInfo


@dataclass(frozen=True)
class LogEntry:
    """One recorded action: where it is in history, who made it and what it was."""

    commit: str  # commit id (or a running number in memory)
    author: str  # the player's colour
    action: Action  # resolved: dice, stolen card and drawn card filled in
    summary: str  # the commit summary line, e.g. "Red: build road (0,-1|0,0)"
    #: For an answer of a concurrent step: the commit it was made on. The answers of one
    #: step share it and count as their merge applies them (``concurrent.as_merged``: a
    #: steal an earlier answer showed is not shown twice); None for a move of the line.
    opening: str | None = None


@dataclass(frozen=True)
class SyncStatus:
    """What the sync indicator shows: one round's result, never changed once made (the
    sync thread publishes a new one, the window reads whichever is the latest)."""

    peers: tuple[str, ...] = ()
    ahead: int = 0  # own commits not yet pushed
    behind: int = 0  # peer commits seen but not yet applied
    last_fetch: float | None = None  # clock.now() at the last successful fetch
    error: str | None = None  # the last sync error, one sentence
    forks: tuple[Fork, ...] = field(default_factory=tuple)  # diverging heads found
    waiting: tuple[str, ...] = ()  # lines that wait for a peer's closing merge (not forks)
    points_down: tuple[
        str, ...
    ] = ()  # seats' points that failed or did not answer, a sentence each


class Session(Protocol):
    """The interface the client, the bots, the CLI and the peer runtime play through:
    every member a caller uses is declared here (no caller probes with ``getattr``)."""

    game_id: str
    players: tuple[str, ...]  # every seat, in seat order
    local_players: tuple[str, ...]  # the seats this session may act for
    info: GameInfo | None  # what the players agreed at the start (None: a game in memory)
    git_dir: Path | None  # the game repository's Git directory (None: a game in memory)

    @property
    def networked(self) -> bool:
        """Whether there is any remote to exchange with (shared, or publication points)."""
        ...

    def remotes(self) -> tuple[str, ...]:
        """The URL of every remote this session fetches from (none when local)."""
        ...

    @property
    def state(self) -> GameState: ...

    def submit(self, action: Action) -> GameState:
        """Apply and record ``action``; raises ``IllegalAction`` and records nothing if illegal."""
        ...

    def legal_actions(self, player: str | None = None) -> list[Action]: ...

    def view(self, player: str) -> GameState:
        """The state as ``player`` may see it (its own hidden cards included)."""
        ...

    def refusal(self, action: Action) -> str | None:
        """Why ``action`` would be refused now (the rule's sentence), or None if it is legal.

        Judged as the session would record it: with what only the player's peer adds
        (its dice-chain element, shuffle, shares and card proofs).
        """
        ...

    def history(self) -> list[LogEntry]: ...

    def said(self, entries: Iterable[LogEntry]) -> dict[str, str]:
        """``commit -> words`` where the log says more than a commit's subject (a bank
        trade's rate: ``session.wording``)."""
        ...

    def sync(self) -> SyncStatus:
        """Exchange with peers (a no-op when every seat is local)."""
        ...

    def waiting_since(self) -> int:
        """When the wait for the next move began, as this peer counts it (seconds)."""
        ...

    def take_rejected(self) -> dict[str, str]:
        """Peers' commits refused and not handed out yet (commit id -> reason)."""
        ...

    @property
    def rejected(self) -> dict[str, str]:
        """Every peer's commit this session refused, with the reason."""
        ...

    def peer_heads(self) -> dict[str, tuple[str, int]]:
        """Each seat's log head on the remotes, with its commit time."""
        ...

    def flush(self) -> None:
        """Push whatever own commits are not on the remotes yet."""
        ...

    @property
    def served(self) -> str | None:
        """The ``git://`` URL this machine serves the game at (``net.serve``), or None."""
        ...

    def nudges(self) -> list[tuple[bytes, tuple[str, int]]]:
        """Signed nudges of the local seats' heads, with where to send each."""
        ...

    def hear(self, datagram: bytes) -> bool:
        """Whether a datagram is a nudge worth a fetch now (``net.nudge``)."""
        ...

    def close(self) -> None:
        """Let go of the repository (a final note of the verified head)."""
        ...
