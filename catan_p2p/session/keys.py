"""Where a player's signing key lives on this machine.

A seat is bound to a key when it is claimed. The key is, in order: the file given with
``--key`` (an OpenSSH ed25519 key the user already has), the file a repository
remembers for that seat (so ``bot`` and ``play --resume`` find what ``join --key``
used), or one made for the player's name under ``$CATAN_P2P_HOME/keys`` (default
``~/.catan_p2p/keys``) on first use. The same key file on a second device resumes
the same seat.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from catan_p2p.errors import UsageError
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.rules.state import GameState
from catan_p2p.session.home import catan_home

#: File in a repository's git directory: player -> key file used for that seat here.
REMEMBERED = "catan-p2p-keys.json"


def new_key() -> SeatKey:
    """A new seat key from the system's randomness (the protocol only checks keys: it
    draws none)."""
    return SeatKey(Ed25519PrivateKey.generate())


def load_key(path: Path) -> SeatKey:
    """The seat key in an OpenSSH ed25519 private key file, unencrypted."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read the key {path}: {exc.strerror}; check --key") from None
    return SeatKey.from_openssh(data, str(path))


def save_key(key: SeatKey, path: Path) -> None:
    """Write ``key`` as an OpenSSH private key (mode 0600) and its ``.pub`` beside it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(key.to_openssh())
    tmp.chmod(0o600)
    tmp.replace(path)
    path.with_name(path.name + ".pub").write_text(key.public + "\n")


def default_key_path(player: str) -> Path:
    return catan_home() / "keys" / player


def _create_once(path: Path) -> SeatKey:
    """Make the key at ``path`` unless another process made it first (then load that)."""
    key = new_key()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    save_key(key, tmp)
    try:
        os.link(tmp, path)
        os.replace(tmp.with_name(tmp.name + ".pub"), path.with_name(path.name + ".pub"))
    except FileExistsError:
        key = load_key(path)
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + ".pub")):
            leftover.unlink(missing_ok=True)
    return key


def _remembered(git_dir: Path | None) -> dict[str, str]:
    if git_dir is None:
        return {}
    try:
        data = json.loads((Path(git_dir) / REMEMBERED).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def remember(git_dir: Path, player: str, path: Path) -> None:
    """Note in the repository which key file plays ``player`` here."""
    known = _remembered(git_dir)
    known[player] = str(Path(path).resolve())
    target = Path(git_dir) / REMEMBERED
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(known, sort_keys=True, indent=1) + "\n")
    tmp.replace(target)


def existing_key(
    player: str, key_path: Path | None = None, git_dir: Path | None = None
) -> SeatKey | None:
    """The key this machine holds for ``player``, or None (nothing is made)."""
    if key_path is not None:
        return load_key(Path(key_path).expanduser())
    known = _remembered(git_dir).get(player)
    if known is not None:
        return load_key(Path(known))
    path = default_key_path(player)
    return load_key(path) if path.exists() else None


def seat_key(player: str, key_path: Path | None = None, git_dir: Path | None = None) -> SeatKey:
    """The key this machine signs ``player``'s commits with (made on first use)."""
    found = existing_key(player, key_path, git_dir)
    if found is not None:
        return found
    path = default_key_path(player)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return _create_once(path)
    except OSError as exc:
        raise UsageError(
            f"cannot create a signing key in {path.parent} ({exc.strerror}); "
            "set CATAN_P2P_HOME to a writable folder or pass --key"
        ) from None


def signing_keys(git_dir: Path) -> Callable[[str], SeatKey]:
    """``player -> the key this machine signs the player's lines with`` in the game
    repository ``git_dir`` (what ``net.chat.ChatLog`` is given)."""
    return lambda player: seat_key(player, git_dir=git_dir)


def check_claimed(state: GameState, keys: Mapping[str, SeatKey], game: str) -> None:
    """Refuse to play a seat whose claimed key is not the one this machine holds.

    Raises:
        UsageError: a seat of ``keys`` was claimed with another key.
    """
    for p, key in keys.items():
        claimed = state.seats[state.players.index(p)] if state.seats else ""
        if claimed and claimed != key.public:
            raise UsageError(
                f"{p.capitalize()}'s seat in game {game} was claimed with another key than "
                f"this machine's ({key.public[:30]}...); pass --key with the key that claimed it"
            )


def seat_keys(
    players: Sequence[str],
    given: Mapping[str, SeatKey] | None,
    git_dir: Path | None,
    read_only: bool,
) -> tuple[dict[str, SeatKey], frozenset[str]]:
    """The signing key of each of ``players``: ``given``, else this machine's. Reading
    needs no signature: a seat this machine holds no key for then gets a throw-away one
    (its view shows no hidden card); those seats are returned second."""
    keys, throwaway = {}, set()
    for p in players:
        key = (given or {}).get(p)
        if key is None and not read_only:
            key = seat_key(p, git_dir=git_dir)
        elif key is None:
            key = existing_key(p, git_dir=git_dir)
            if key is None:
                throwaway.add(p)
                key = new_key()
        keys[p] = key
    return keys, frozenset(throwaway)
