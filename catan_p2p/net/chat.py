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

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from catan_p2p import clock
from catan_p2p.errors import CatanError, UsageError
from catan_p2p.net import transport
from catan_p2p.protocol import refpolicy
from catan_p2p.protocol.audit import seat_keys
from catan_p2p.protocol.chatlines import MAX_CHARS, line_refusal, shown, update_refusal
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.store import gitcmd
from catan_p2p.store.refnames import ZERO, check_name, read_name
from catan_p2p.store.repo import GameRepo


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
        self,
        path: Path,
        game: str,
        key: Callable[[str], SeatKey],
        seats: Callable[[], dict[str, str]] | None = None,
    ) -> None:
        """The chat of ``game``; ``key`` gives the key a player's lines are signed with
        here (``session.keys.signing_keys``: the keys are the session's, not the wire's);
        ``seats`` gives the verified seat keys (player -> key).

        Without ``seats`` they are read by verifying the game (``protocol.audit.seat_keys``).
        """
        self.repo = GameRepo(Path(path))
        self._key = key
        self._seats = seats
        self.game = check_name("game id", game)
        self.prefix = transport.chat_prefix(game)
        self.tracking = transport.chat_tracking_prefix(game)
        self._cache: tuple[tuple, list[ChatMessage]] | None = None  # type: ignore[type-arg]
        self._unpushed: set[str] = set()

    def ref(self, player: str) -> str:
        return f"{self.prefix}/{check_name('player', player)}"

    def _git(self, *args: str, stdin: str | None = None, env: dict | None = None) -> str:  # type: ignore[type-arg]
        proc = gitcmd.run(self.repo.git_dir, *args, input=stdin, env=env)
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
        when = int(clock.now())
        key = self._key(player)
        oid = self.repo.write_commit(
            tree, [parent] if parent else [], player, line + "\n", key, when
        )
        self.repo.refs.set(ref, oid, parent)
        self._unpushed.add(player)
        self._cache = None
        return ChatMessage(oid, player, float(when), line)

    def push(self) -> None:
        """Share the own chat refs written since the last push (nothing without a remote),
        to the shared remote and the own publication point. An own chat ref the remote
        holds junk on (a blob, lines of another key) is put back with a lease on what was
        seen there, as the own branch is (PROTOCOL.md section 2a)."""
        git_dir = self.repo.git_dir
        targets = [(transport.REMOTE, transport.REMOTE)] if transport.remote_url(git_dir) else []
        own_point = transport.config(git_dir, "catan.publish")
        if own_point is not None:
            targets += [(f"seat-{p}", own_point) for p in sorted(self._unpushed)[:1]]
        if not self._unpushed or not targets:
            return
        refs = [self.ref(p) for p in sorted(self._unpushed)]
        for source, where in targets:
            leases = {}
            for ref in refs:
                seen = self.repo.refs.get(ref.replace("refs/", f"refs/remotes/{source}/", 1))
                if seen is not None and not self._is_ancestor(seen, self.repo.refs.get(ref) or ""):
                    leases[ref] = seen  # junk there: restore over it
            transport.push(git_dir, refs, (), leases, where)
        self._unpushed.clear()

    # --- reading ---------------------------------------------------------------------------

    def update(self) -> int:
        """Adopt fetched chat that extends what is here by lines its seat signed (PROTOCOL.md
        "Chat"), from every source; returns how many refs moved. A rewritten chat ref, junk
        (a blob, a game log, a line of another key) and names of no seat are ignored."""
        moved = 0
        local = self.repo.refs.list(self.prefix)
        seats = self.seat_keys()
        for tracked, oid in sorted(self._fetched().items()):
            name = read_name(tracked, self.game)
            if name is None or not name.chat:
                continue
            if refpolicy.check_update(self.repo, tracked, ZERO, oid, self.game, lambda: seats):
                continue  # no chat ref of a seat, or no commit: junk
            player = name.player
            ref = self.ref(player)
            have = local.get(ref)
            if have == oid or update_refusal(self.repo, have, oid, player, seats[player]):
                continue
            self.repo.refs.set(ref, oid, have)
            local[ref] = oid
            moved += 1
        if moved:
            self._cache = None
        return moved

    def _fetched(self) -> dict[str, str]:
        """The chat refs of this game fetched from any source (``refs/remotes/*/``)."""
        marker = "/" + self.prefix[len("refs/") :] + "/"
        return {
            r: o
            for r, o in self.repo.refs.list("refs/remotes").items()
            if marker in r and r.count("/") == self.prefix.count("/") + 3
        }

    def _is_ancestor(self, old: str, new: str) -> bool:
        proc = gitcmd.run(self.repo.git_dir, "merge-base", "--is-ancestor", old, new)
        return proc.returncode == 0

    def seat_keys(self) -> dict[str, str]:
        if self._seats is not None:
            return self._seats()
        try:
            return seat_keys(self.repo, self.game, clock.now)
        except CatanError:
            return {}

    def _signed(self, oid: str, player: str, key: str) -> bool:
        """True when commit ``oid`` is a chat line of ``player`` signed by its seat key."""
        return line_refusal(self.repo.commit(oid), player, key) is None

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
                    continue  # not a chat line this seat's key signed: not theirs
                line = shown(text.strip("\n"))
                out.append((float(at), player, index, ChatMessage(commit, player, float(at), line)))  # type: ignore[arg-type]
        out.sort(key=lambda m: m[:3])  # type: ignore[index]
        messages = [m[3] for m in out]  # type: ignore[index]
        self._cache = (key, messages)
        return messages
