"""The protocol's ref names, built and read, and the interface refs are read through.

Every ref name is built here (``player_ref``, ``answer_ref``), never by concatenation
elsewhere, and read here (``read_name``: what a name is, or None for junk). Pure, so
``protocol/`` can name refs without importing the store that writes them
(``store/refs.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from catan_p2p.errors import UsageError
from catan_p2p.rules.steps import STEPS

PREFIX = "refs/heads/catan"
HEADS = "refs/heads/"
REMOTES = "refs/remotes/"
#: The one remote a game repository fetches from and pushes to.
REMOTE = "origin"
#: Where the players' chat refs live: ``refs/catan-chat/<game>/<player>``.
CHAT_PREFIX = "refs/catan-chat"
ZERO = "0" * 40
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
KINDS = tuple(s.name for s in STEPS)  # the concurrent steps (rules.steps)


def check_name(what: str, name: str) -> str:
    """Game ids and player names are short lower-case words (they become ref parts)."""
    if not _NAME.match(name):
        raise UsageError(
            f"{what} {name!r} must be 1-40 characters of a-z, 0-9, '-' or '_', "
            "starting with a letter or digit"
        )
    return name


def game_prefix(game: str) -> str:
    return f"{PREFIX}/{check_name('game id', game)}"


def player_ref(game: str, player: str) -> str:
    """``refs/heads/catan/<game>/<player>``: the player's single-writer log."""
    return f"{game_prefix(game)}/{check_name('player', player)}"


def answer_ref(game: str, kind: str, opening: str, player: str) -> str:
    """``refs/heads/catan/<game>/<kind>/<opening>/<player>``: a concurrent answer."""
    return f"{answers_prefix(game, kind, opening)}/{check_name('player', player)}"


def answers_prefix(game: str, kind: str, opening: str) -> str:
    """``refs/heads/catan/<game>/<kind>/<opening>``: where the answers to one step live."""
    if kind not in KINDS:
        raise UsageError(f"concurrent step kind {kind!r} must be one of {', '.join(KINDS)}")
    return f"{game_prefix(game)}/{kind}/{opening}"


def tracking_ref(ref: str, remote: str = REMOTE) -> str:
    """Where a fetched ``refs/heads/...`` ref lands: ``refs/remotes/<remote>/...``."""
    if not ref.startswith(HEADS):
        raise UsageError(f"{ref} is not a branch (refs/heads/...)")
    return f"refs/remotes/{remote}/{ref[len(HEADS) :]}"


def tracking_prefix(game: str, remote: str = REMOTE) -> str:
    """Where fetched refs of ``game`` land: ``refs/remotes/origin/catan/<game>``."""
    return tracking_ref(game_prefix(game), remote)


def local_ref(ref: str, game: str, remote: str | None = None) -> str:
    """The local name of a game ref, fetched (``refs/remotes/<any remote>/...``) or local."""
    if ref.startswith(REMOTES):
        source, _, rest = ref[len(REMOTES) :].partition("/")
        if remote in (None, source) and (rest + "/").startswith(f"catan/{game}/"):
            return HEADS + rest
    return ref


def source_of(ref: str) -> str | None:
    """The remote a fetched ref came from (``origin``, ``seat-blue``), None for a local ref."""
    if not ref.startswith(REMOTES):
        return None
    return ref[len(REMOTES) :].partition("/")[0]


def point_source(player: str) -> str:
    """The tracking namespace of ``player``'s publication point: ``seat-<player>``."""
    return f"seat-{check_name('player', player)}"


def game_of(ref: str) -> str:
    """The game id of a ref under ``refs/heads/catan/``."""
    if not ref.startswith(PREFIX + "/"):
        raise UsageError(f"{ref} is not a catan_p2p ref")
    return ref[len(PREFIX) + 1 :].split("/", 1)[0]


def parse_ref(ref: str, game: str) -> tuple[str, str | None, str | None]:
    """``(player, kind, opening)`` of a game ref (local or fetched); kind/opening are
    None for player logs."""
    ref = local_ref(ref, game)
    prefix = game_prefix(game)
    if not ref.startswith(prefix + "/"):
        raise UsageError(f"{ref} is not a ref of game {game}")
    rest = ref[len(prefix) + 1 :]
    parts = rest.split("/")
    if len(parts) == 1:
        return parts[0], None, None
    if len(parts) == 3 and parts[0] in KINDS:
        return parts[2], parts[0], parts[1]
    raise UsageError(f"{ref} is not a catan_p2p ref")


_OPENING = re.compile(r"^[0-9a-f]{40}$")
_GAMES = HEADS + "catan/"
_CHATS = CHAT_PREFIX + "/"


@dataclass(frozen=True)
class RefName:
    """What a ref name is in the protocol: whose, of which game, log, answer or chat."""

    game: str
    player: str
    kind: str | None = None  # the step's name for an answer branch
    opening: str | None = None
    chat: bool = False
    source: str | None = None  # the remote it was fetched from; None for a local ref

    @property
    def is_log(self) -> bool:
        """A player's single-writer log (not an answer branch, not chat)."""
        return self.kind is None and not self.chat


def read_name(ref: str, game: str | None = None) -> RefName | None:
    """The protocol name ``ref`` is (local, or fetched from any source), or None when it
    has no protocol shape or belongs to another game than ``game``. Reads no object."""
    source = None
    if ref.startswith(REMOTES):
        source, _, tail = ref[len(REMOTES) :].partition("/")
        if not source:
            return None
    elif ref.startswith(_GAMES):
        tail = ref[len(HEADS) :]
    elif ref.startswith(_CHATS):
        tail = ref[len("refs/") :]
    else:
        return None
    top, _, rest = tail.partition("/")
    parts = rest.split("/")
    if top not in ("catan", "catan-chat") or not _NAME.match(parts[0]):
        return None
    if game is not None and parts[0] != game:
        return None
    if not _NAME.match(parts[-1]):
        return None
    if top == "catan-chat":
        return RefName(parts[0], parts[1], chat=True, source=source) if len(parts) == 2 else None
    if len(parts) == 2:
        return RefName(parts[0], parts[1], source=source)
    if len(parts) == 4 and parts[1] in KINDS and _OPENING.match(parts[2]):
        return RefName(parts[0], parts[3], parts[1], parts[2], source=source)
    return None


def well_formed(ref: str, game: str) -> bool:
    """Whether ``ref`` has a shape of PROTOCOL.md section 2 (a player's log, or an answer
    under a known kind and a full commit id), so a junk ref anyone can push is not read."""
    name = read_name(ref, game)
    return name is not None and not name.chat


class RefStore(Protocol):
    """Where refs live: read one, list a namespace, move one by compare-and-swap."""

    def get(self, name: str) -> str | None: ...

    def list(self, prefix: str) -> dict[str, str]: ...

    def set(self, name: str, new: str, expected: str | None) -> None: ...

    def delete(self, name: str, expected: str | None = None) -> None: ...


def fetched(refs: RefStore, game: str) -> dict[str, str]:
    """Every fetched ref of ``game``, from every remote (the shared one and each seat's)."""
    out: dict[str, str] = {}
    for ref, oid in refs.list(REMOTES.rstrip("/")).items():
        if local_ref(ref, game) != ref:
            out[ref] = oid
    return out
