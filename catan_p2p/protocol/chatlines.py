"""What a chat line is (PROTOCOL.md "Chat"): the rules every peer and the hook apply.

A chat line is a commit on ``refs/catan-chat/<game>/<player>``: the empty tree, at most
one parent (the player's previous line), the player as author, one line of printable
text of at most ``MAX_CHARS`` characters as its message, and the player's seat key's
signature. Anything else on a chat ref (a blob, a game's log pushed there, a line
signed by another key, a megabyte of terminal escapes) is junk: not adopted, not shown.
"""

from __future__ import annotations

from catan_p2p import printable
from catan_p2p.errors import CatanError
from catan_p2p.protocol.graph import CommitGraph
from catan_p2p.protocol.signing import check_signature
from catan_p2p.store.formats import Commit, player_email

#: The longest line, in characters (one line in the window).
MAX_CHARS = 200
#: The most new lines one update may bring (a longer run is not read).
MAX_NEW_LINES = 10_000
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def line_refusal(c: Commit, player: str, key: str) -> str | None:
    """Why commit ``c`` is not a chat line of ``player`` signed with ``key``, or None."""
    text = c.message
    if c.tree != EMPTY_TREE:
        return "a chat line has the empty tree (this commit holds files)"
    if len(c.parents) > 1:
        return "a chat line has at most one parent"
    if c.author != player or c.email != player_email(player):
        return f"a chat line on {player}'s chat is written by {player}"
    if not text.endswith("\n") or "\n" in text[:-1] or len(text) > MAX_CHARS + 1:
        return f"a chat line is one line of at most {MAX_CHARS} characters"
    if not all(ch.isprintable() for ch in text[:-1]):
        return "a chat line holds printable characters only"
    if not key or c.signature is None or not c.canonical:
        return f"a chat line is signed by {player}'s seat key"
    if check_signature(key, c.signed_data, c.signature) is not None:
        return f"a chat line is signed by {player}'s seat key"
    return None


def update_refusal(
    repo: CommitGraph, old: str | None, new: str, player: str, key: str
) -> str | None:
    """Why a chat ref may not move from ``old`` to ``new``, or None: ``new`` must extend
    ``old`` by chat lines of ``player`` only (a line once seen cannot be taken back)."""
    oid: str | None = new
    for _ in range(MAX_NEW_LINES):
        if oid == old:
            return None
        if oid is None:
            return f"{new[:10]} does not extend {old[:10]}" if old else None
        try:
            c = repo.commit(oid)
        except (CatanError, KeyError, ValueError, OSError):
            return f"{oid[:10]} is not a commit"
        reason = line_refusal(c, player, key)
        if reason is not None:
            return f"{oid[:10]}: {reason}"
        oid = c.parents[0] if c.parents else None
    return f"{new[:10]} brings more than {MAX_NEW_LINES} new lines"


def shown(text: str) -> str:
    """A line as a terminal or the window may print it: control characters escaped,
    at most ``MAX_CHARS`` characters (a peer checks lines, but a file may be anything)."""
    return printable.shown(text, MAX_CHARS)
