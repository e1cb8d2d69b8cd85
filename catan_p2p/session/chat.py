"""Table talk beside a game: each player's messages on an append-only ref of their own.

A message is a commit on ``refs/catan-chat/<game>/<player>`` whose parent is the
player's previous message; its author is the player, its message the text, its tree
the empty tree. The chat never touches the game's refs, so it can never block or fork
the game. Others' chat arrives with the game's fetch (into
``refs/remotes/origin/catan-chat/<game>/``) and is adopted only as a fast-forward, so
a message once seen cannot be taken back. Only the own refs are pushed.

Every message is signed with its player's seat key, like a move, and shown only when
that key signed it: anyone who can push to a remote can append to another player's chat
ref there, but what they write is never shown as that player's (at worst it blocks that
player's next message from reaching the remote).
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from catan_p2p.errors import CatanError, UsageError
from catan_p2p.session.keys import seat_key
from catan_p2p.store.refs import check_name
from catan_p2p.sync import transport
from catan_p2p.sync.audit import seat_keys
from catan_p2p.sync.protocol import player_email
from catan_p2p.sync.repo import GameRepo
from catan_p2p.sync.signing import check_signature

#: The longest message, in characters (one line in the window).
MAX_CHARS = 200


@dataclass(frozen=True)
class ChatMessage:
    """One line of table talk."""

    commit: str
    player: str
    time: float  # seconds since the epoch, from the commit
    text: str

    def to_json(self) -> dict:
        return {"commit": self.commit, "player": self.player, "time": self.time, "text": self.text}


def clean_text(text: str) -> str:
    """One printable line of at most ``MAX_CHARS`` characters.

    Raises:
        UsageError: nothing is left to say.
    """
    line = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    if not line:
        raise UsageError("the message is empty; type something to say")
    return line[:MAX_CHARS]


class ChatLog:
    """The chat of ``game`` in the repository at ``path``."""

    def __init__(
        self, path: Path, game: str, seats: Callable[[], dict[str, str]] | None = None
    ) -> None:
        """The chat of ``game``; ``seats`` gives the verified seat keys (player -> key).

        Without ``seats`` they are read by verifying the game (``sync.audit.seat_keys``).
        """
        self.repo = GameRepo(Path(path))
        self._seats = seats
        self.game = check_name("game id", game)
        self.prefix = transport.chat_prefix(game)
        self.tracking = transport.chat_tracking_prefix(game)
        self._cache: tuple[tuple, list[ChatMessage]] | None = None  # type: ignore[type-arg]
        self._unpushed: set[str] = set()

    def ref(self, player: str) -> str:
        return f"{self.prefix}/{check_name('player', player)}"

    def _git(self, *args: str, stdin: str | None = None, env: dict | None = None) -> str:  # type: ignore[type-arg]
        proc = subprocess.run(
            ["git", "--git-dir", str(self.repo.git_dir), *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
        )
        if proc.returncode != 0:
            raise CatanError(f"chat: git {args[0]} failed: {proc.stderr.strip() or 'no details'}")
        return proc.stdout.strip()

    # --- writing ---------------------------------------------------------------------------

    def send(self, player: str, text: str) -> ChatMessage:
        """Append ``text`` to ``player``'s chat here (``push`` shares it)."""
        line = clean_text(text)
        ref = self.ref(player)
        parent = self.repo.refs.get(ref)
        tree = self._git("mktree", stdin="")
        when = int(time.time())
        key = seat_key(player, git_dir=self.repo.git_dir)
        oid = self.repo.write_commit(
            tree, [parent] if parent else [], player, line + "\n", key, when
        )
        self.repo.refs.set(ref, oid, parent)
        self._unpushed.add(player)
        self._cache = None
        return ChatMessage(oid, player, float(when), line)

    def push(self) -> None:
        """Share the own chat refs written since the last push (nothing without a remote)."""
        if not self._unpushed or transport.remote_url(self.repo.git_dir) is None:
            return
        refs = [self.ref(p) for p in sorted(self._unpushed)]
        transport.push(self.repo.git_dir, refs)
        self._unpushed.clear()

    # --- reading ---------------------------------------------------------------------------

    def update(self) -> int:
        """Adopt fetched chat that extends what is here (fast-forward only); returns how many
        refs moved. A rewritten chat ref of a peer is ignored: what was seen stays."""
        moved = 0
        local = self.repo.refs.list(self.prefix)
        for tracked, oid in self.repo.refs.list(self.tracking).items():
            ref = f"{self.prefix}/{tracked[len(self.tracking) + 1 :]}"
            have = local.get(ref)
            if have == oid:
                continue
            if have is not None and not self._is_ancestor(have, oid):
                continue  # not a fast-forward: keep what was seen
            self.repo.refs.set(ref, oid, have)
            moved += 1
        if moved:
            self._cache = None
        return moved

    def _is_ancestor(self, old: str, new: str) -> bool:
        proc = subprocess.run(
            ["git", "--git-dir", str(self.repo.git_dir), "merge-base", "--is-ancestor", old, new],
            capture_output=True,
        )
        return proc.returncode == 0

    def seat_keys(self) -> dict[str, str]:
        if self._seats is not None:
            return self._seats()
        try:
            return seat_keys(self.repo, self.game)
        except CatanError:
            return {}

    def _signed(self, oid: str, player: str, key: str) -> bool:
        """True when commit ``oid`` is a canonical chat line signed by ``player``'s key."""
        c = self.repo.commit(oid)
        return (
            bool(key)
            and c.canonical
            and c.author == player
            and c.email == player_email(player)
            and c.signature is not None
            and check_signature(key, c.signed_data, c.signature) is None
        )

    def messages(self) -> list[ChatMessage]:
        """Every message of the game signed by its player's seat key, oldest first."""
        heads = self.repo.refs.list(self.prefix)
        seats = self.seat_keys()
        key = (tuple(sorted(heads.items())), tuple(sorted(seats.items())))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        out: list[tuple] = []  # type: ignore[type-arg]
        for ref, oid in sorted(heads.items()):
            player = ref[len(self.prefix) + 1 :]
            raw = self._git("log", "--reverse", "--format=%H%x00%an%x00%at%x00%B%x1e", oid)
            for index, record in enumerate(raw.split("\x1e")):
                record = record.strip("\n")
                if not record:
                    continue
                commit, author, at, text = record.split("\x00", 3)
                if author != player or not self._signed(commit, player, seats.get(player, "")):
                    continue  # not signed by this seat's key: not theirs
                out.append(
                    (float(at), player, index, ChatMessage(commit, player, float(at), text.strip()))
                )  # type: ignore[arg-type]
        out.sort(key=lambda m: m[:3])  # type: ignore[index]
        messages = [m[3] for m in out]  # type: ignore[index]
        self._cache = (key, messages)
        return messages
