"""What this machine verified in an earlier process, so a command need not verify it again.

Every process verifies a game from its derived genesis before it adopts anything; in a
long game that is seconds per ``catan-p2p`` command (a shuffle proof alone takes half a
second). A peer therefore notes the last head it verified, per game and seat, in its
git directory: ``catan-p2p-verified/<game>.<player>`` holds ``<commit id> <mac>``, the
MAC an HMAC-SHA256 keyed by a secret derived from that seat's key. The next process that
holds the same key trusts that commit's state (read from its tree, which the verifier
had matched) and verifies only what came after it.

Anyone who can write the git directory can write this file, but without the seat key no
MAC it writes is accepted: a repository copied from another player, with their file in
it, proves nothing here, and a file that does not check is ignored (the game is then
verified from its genesis, as without one).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import time
from collections.abc import Mapping
from pathlib import Path

from catan_p2p.errors import StateFileError
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.protocol.verify import Verifier
from catan_p2p.store.repo import Repository

FOLDER = "catan-p2p-verified"


def _path(git_dir: Path, game: str, player: str) -> Path:
    return Path(git_dir) / FOLDER / f"{game}.{player}"


def _mac(key: SeatKey, genesis: str, game: str, oid: str) -> str:
    secret = key.secret(b"catan-p2p verified", bytes.fromhex(genesis))
    return hmac.new(secret, f"{game} {oid}".encode(), hashlib.sha256).hexdigest()


def line(key: SeatKey, genesis: str, game: str, oid: str) -> str:
    """The file's text noting ``oid``: the commit id and its MAC."""
    return f"{oid} {_mac(key, genesis, game, oid)}\n"


def parse(text: str, key: SeatKey, genesis: str, game: str) -> str | None:
    """The commit a file's ``text`` names, if its MAC checks under ``key``; else None."""
    oid, _, mac = text.strip().partition(" ")
    if len(oid) != 40 or not hmac.compare_digest(mac, _mac(key, genesis, game, oid)):
        return None
    return oid


def load(git_dir: Path, game: str, genesis: str, player: str, key: SeatKey) -> str | None:
    """The commit ``player``'s key vouches this machine verified, or None."""
    try:
        text = _path(git_dir, game, player).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None
    return parse(text, key, genesis, game)


def save(git_dir: Path, game: str, genesis: str, player: str, key: SeatKey, oid: str) -> None:
    """Note that this process verified ``oid`` (write, then rename: never half a file)."""
    path = _path(git_dir, game, player)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(exist_ok=True)
        tmp.write_text(line(key, genesis, game, oid), encoding="ascii")
        tmp.replace(path)
    except OSError:
        tmp.unlink(missing_ok=True)  # a read-only disk costs the next command time, no more


def seat_of(
    players: tuple[str, ...], local: tuple[str, ...], throwaway: frozenset[str]
) -> str | None:
    """The seat whose key keeps the checkpoint: the first local one holding its own key,
    in the game's order whatever order the caller named the seats in (the CLI sorts
    them, a game played here does not), so every command in this repository shares it."""
    return next((p for p in players if p in local and p not in throwaway), None)


#: Seconds between two saves of the verified head while syncing (and always at close).
EVERY = 5.0


class Keeper:
    """The checkpoint of one session: ``seat``'s key vouches for the head it verified.

    Built with ``seat`` None (no git directory, or no key held here) it keeps nothing.
    """

    def __init__(
        self,
        git_dir: Path | None,
        game: str,
        genesis: str,
        seat: str | None,
        keys: Mapping[str, SeatKey],
    ) -> None:
        self.git_dir, self.game, self.genesis = git_dir, game, genesis
        key = keys.get(seat) if seat is not None else None
        self.seat = seat if git_dir is not None and key is not None else None
        self.key = key
        self.head: str | None = None
        self._at = 0.0  # time.monotonic() of the last save

    def resume(self, repo: Repository, verifier: Verifier) -> str | None:
        """Trust the head an earlier process here verified, if its file checks and the
        commit is still here with the tree the verifier derives from its state."""
        if self.seat is None:
            return None
        oid = self._load()
        if oid is None:
            return None
        try:
            state = repo.state_of(oid)[0]
        except (StateFileError, ValueError, KeyError):
            return None  # gone (a pruned or copied repository): verify from the genesis
        if verifier.tree_of(state) != repo.commit(oid).tree:
            return None
        verifier.trust(oid, state, pin=True)
        self.head = oid
        return oid

    def note(self, head: str | None, now: bool = False) -> None:
        """Save ``head`` when it moved: ``now``, or at most every ``EVERY`` seconds (a save
        costs about 0.8 ms)."""
        if self.seat is None or head is None or head == self.head:
            return
        if not now and time.monotonic() - self._at < EVERY:
            return
        self._at = time.monotonic()
        self._save(head)
        self.head = head

    def _load(self) -> str | None:
        """The commit the seat's file names, if its MAC checks (``load``)."""
        return load(self.git_dir, self.game, self.genesis, self.seat, self.key)  # type: ignore[arg-type]

    def _save(self, head: str) -> None:
        save(self.git_dir, self.game, self.genesis, self.seat, self.key, head)  # type: ignore[arg-type]
