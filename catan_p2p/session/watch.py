"""Watching a game: a read-only peer with no key and no seat.

A spectator fetches a game like any peer and verifies every commit from its derived
genesis, but it holds no seat key: its peers sign nothing and read no face-down card
(each stands on a throw-away key made for this process, which no seat claimed), it
records nothing and never pushes. ``Spectator`` is the ``Session`` a window watches
through: its state and its view of every player are the public state, what anyone
may know; its history is the public log.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from catan_p2p.errors import UsageError
from catan_p2p.net import transport
from catan_p2p.net.game import LogEntry, SyncStatus
from catan_p2p.protocol.genesis import open_genesis
from catan_p2p.rules.actions import Action
from catan_p2p.rules.state import GameState
from catan_p2p.session.git import GitSession
from catan_p2p.session.keys import catan_home, new_key
from catan_p2p.session.start import check_start, fetch, joined_genesis
from catan_p2p.store.refnames import (
    check_name,
    game_prefix,
    parse_ref,
    player_ref,
    tracking_prefix,
    well_formed,
)
from catan_p2p.store.repo import GameRepo, init_repo

#: A file in a spectator repository's Git directory: its branches are copies, no seats.
WATCH_MARK = "catan-p2p-watch"


def watch_folder(home: Path | None = None) -> Path:
    """Where ``watch`` keeps the games it follows (``$CATAN_P2P_HOME/watch``)."""
    return (home or catan_home()) / "watch"


def default_watch_repo(url: str, game: str, home: Path | None = None) -> Path:
    """``watch/<game>-<hash of the URL>``: one folder per game and remote."""
    tag = hashlib.sha256(url.encode()).hexdigest()[:8]
    return watch_folder(home) / f"{check_name('game id', game)}-{tag}"


def is_spectator_repo(git_dir: Path | None) -> bool:
    """True for a repository ``watch`` made (its branches are no seats of this machine)."""
    return git_dir is not None and (Path(git_dir) / WATCH_MARK).exists()


def open_watch(url: str, game: str, repo: Path, start: str | None = None) -> Spectator:
    """Fetch ``game`` from ``url`` into ``repo`` and open it read-only; ``start``: the
    game's first commit id as its creator named it (``start.joined_genesis``).

    Raises:
        UsageError: ``repo`` is a player's repository or a folder of something else, or
            the remote has no such game.
        RemoteError: the remote cannot be reached.
    """
    check_name("game id", game)
    start = None if start is None else check_start(start)
    path = Path(repo).expanduser()
    try:
        game_repo = GameRepo(path)
    except UsageError:
        if path.exists() and any(path.iterdir()):
            raise UsageError(
                f"{path} is not empty and is not a game repository; watch into a new or "
                "empty folder with --repo PATH"
            ) from None
        init_repo(path)
        game_repo = GameRepo(path)
        (game_repo.git_dir / WATCH_MARK).write_text("a spectator's copy: no seat is played here\n")
    if not is_spectator_repo(game_repo.git_dir):
        seats = [
            parse_ref(ref, game)[0]
            for ref in game_repo.refs.list(game_prefix(game))
            if well_formed(ref, game) and parse_ref(ref, game)[1] is None
        ]
        if seats or game_repo.games():
            raise UsageError(
                f"{path} is a player's repository; watch into a folder of its own with "
                "--repo PATH (or play it with `catan-p2p play --resume`)"
            )
        (game_repo.git_dir / WATCH_MARK).write_text("a spectator's copy: no seat is played here\n")
    transport.set_remote(game_repo.git_dir, url)
    fetch(game_repo, game)
    tracked = {
        ref: oid
        for ref, oid in game_repo.refs.list(tracking_prefix(game)).items()
        if well_formed(ref, game) and parse_ref(ref, game)[1] is None
    }
    if not tracked:
        raise UsageError(
            f"the remote {url} has no game {game!r}; list its games with `catan-p2p games {url}`"
        )
    # the start the seats' logs lead to, as a join reads it: not whichever log is listed
    # first (a log of no seat may lead to another game of the same id, or to no game)
    genesis = joined_genesis(game_repo, game, tracked, url, start)
    players = open_genesis(game_repo, genesis)[0].players
    for p in players:  # the spectator's verified copies start at the genesis
        if game_repo.refs.get(player_ref(game, p)) is None:
            game_repo.refs.set(player_ref(game, p), genesis, None)
    keys = {p: new_key() for p in players}  # throw-away: no seat claimed them
    session = GitSession(path, game, players, keys=keys, read_only=True)
    return Spectator(session)


class Spectator:
    """A ``Session`` that shows only what anyone may know and can do nothing.

    Every read goes to a read-only ``GitSession`` whose seats hold throw-away keys;
    ``view`` of any player is the public state, never a private view.
    """

    local_players: tuple[str, ...] = ()

    def __init__(self, session: GitSession) -> None:
        self._session = session
        self.game_id = session.game_id
        self.repo = session.repo
        self.remote = session.remote
        self.info = session.info
        self.players = session.players
        self.git_dir = session.git_dir

    @property
    def state(self) -> GameState:
        """The public state: the verified head plus verified answers, no hidden card."""
        return self._session.state

    def view(self, player: str) -> GameState:
        """What a spectator sees of ``player``: the public state."""
        return self.state

    def legal_actions(self, player: str | None = None) -> list[Action]:
        return []

    def refusal(self, action: Action) -> str | None:
        return "you are watching this game: a spectator holds no seat and cannot act"

    def submit(self, action: Action) -> GameState:
        raise UsageError("you are watching this game: a spectator holds no seat and cannot act")

    def history(self) -> list[LogEntry]:
        return self._session.history()

    def said(self, entries: Iterable[LogEntry]) -> dict[str, str]:
        return self._session.said(entries)

    def peer_heads(self) -> dict[str, tuple[str, int]]:
        return self._session.peer_heads()

    def sync(self) -> SyncStatus:
        """Fetch, verify and fast-forward the copies; nothing is pushed."""
        return self._session.sync()

    def waiting_since(self) -> int:
        return self._session.waiting_since()

    @property
    def networked(self) -> bool:
        return self._session.networked

    def remotes(self) -> tuple[str, ...]:
        return self._session.remotes()

    def take_rejected(self) -> dict[str, str]:
        return self._session.take_rejected()

    @property
    def rejected(self) -> dict[str, str]:
        return self._session.rejected

    def flush(self) -> None:
        """Nothing to push: a spectator never pushes."""

    served = None

    def nudges(self) -> list[tuple[bytes, tuple[str, int]]]:
        return []  # a spectator never says it moved

    def hear(self, datagram: bytes) -> bool:
        return False  # it serves nothing, so nobody nudges it

    def close(self) -> None:
        self._session.close()
