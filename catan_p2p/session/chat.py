"""Table talk beside a game: each player's messages on an append-only ref of their own.

A message is a commit on ``refs/catan-chat/<game>/<player>`` whose parent is the
player's previous message; its author is the player, its message the text, its tree
the empty tree. The chat never touches the game's refs, so it can never block or fork
the game. Others' chat arrives with the game's fetch (into
``refs/remotes/origin/catan-chat/<game>/``) and is adopted only as a fast-forward, so
a message once seen cannot be taken back. Only the own refs are pushed.

Chat commits are not signed yet: any peer that can push to the remote can write on
another player's chat ref there; peers keep what they saw (fast-forward only). Once
seats have keys, a chat commit should be signed with its seat's key like a move.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from catan_p2p.errors import CatanError, UsageError
from catan_p2p.store.refs import check_name
from catan_p2p.sync import transport
from catan_p2p.sync.repo import GameRepo

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

    def __init__(self, path: Path, game: str) -> None:
        self.repo = GameRepo(Path(path))
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
        stamp = f"{int(time.time())} +0000"
        email = f"{player}@catan-p2p"
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": player,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_NAME": player,
            "GIT_COMMITTER_EMAIL": email,
            "GIT_COMMITTER_DATE": stamp,
        }
        args = ["commit-tree", tree, "-m", line]
        if parent is not None:
            args[2:2] = ["-p", parent]
        oid = self._git(*args, env=env)
        self.repo.refs.set(ref, oid, parent)
        self._unpushed.add(player)
        self._cache = None
        return ChatMessage(oid, player, float(stamp.split()[0]), line)

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

    def messages(self) -> list[ChatMessage]:
        """Every message of the game, oldest first."""
        heads = self.repo.refs.list(self.prefix)
        key = tuple(sorted(heads.items()))
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
                if author != player:
                    continue  # a commit on someone else's chat ref is not theirs
                out.append(
                    (float(at), player, index, ChatMessage(commit, player, float(at), text.strip()))
                )  # type: ignore[arg-type]
        out.sort(key=lambda m: m[:3])  # type: ignore[index]
        messages = [m[3] for m in out]  # type: ignore[index]
        self._cache = (key, messages)
        return messages
