"""Junk under the prefixes a peer fetches whole costs it nothing (the chat refs, the
answers to an open step): only each seat's own name there is fetched, by name.

Before, a fetch asked for ``refs/catan-chat/<game>/*`` and ``<step>/*``: 20,000 junk
chat refs on a plain remote took a peer's first sync 7.5 s and every later one 1.3 s
(a hundred thousand: past the fetch's time-out, for ever), and every junk name stayed
in the peer's repository. Real Git, a bare remote on disk.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitgames import git, settle

from catan_p2p.net import transport
from catan_p2p.net.chat import ChatLog
from catan_p2p.rules.board import STANDARD_BOARD
from catan_p2p.session.git import GitSession
from catan_p2p.session.keys import signing_keys
from catan_p2p.session.start import create_game, join_game
from catan_p2p.store.refnames import answers_prefix

pytestmark = pytest.mark.network

G = "c"
CHAT = transport.chat_prefix(G)


def _pack(bare: Path, refs: dict[str, str]) -> None:
    """Add ``refs`` to the remote's packed-refs, as a hostile host or a forge user can
    (a hundred thousand names in one write)."""
    git("pack-refs", "--all", cwd=bare)
    packed = bare / "packed-refs"
    kept = packed.read_bytes().splitlines() if packed.exists() else []
    lines = [ln for ln in kept if ln and not ln.startswith(b"#")]
    lines += [f"{oid} {ref}".encode("utf-8", "surrogateescape") for ref, oid in refs.items()]
    lines.sort(key=lambda ln: ln.split(b" ", 1)[1])
    packed.write_bytes(
        b"# pack-refs with: peeled fully-peeled sorted \n" + b"\n".join(lines) + b"\n"
    )


def _tracked(repo: Path) -> set[str]:
    return set(git("for-each-ref", "--format=%(refname)", "refs/remotes", cwd=repo).split())


def test_a_fetch_takes_each_players_ref_under_a_prefix_and_no_other_name(tmp_path: Path):
    """Seats whose names begin with one another's (``re``, ``red``, ``red2``), one of
    them absent, and junk that begins with a seat's name, lies below it, or holds a
    byte of no encoding: exactly the seats' refs arrive, and the absent one fails
    nothing."""
    bare = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(bare))
    git("init", "-q", str(tmp_path / "w"))
    git("commit", "-q", "--allow-empty", "-m", "x", cwd=tmp_path / "w")
    oid = git("rev-parse", "HEAD", cwd=tmp_path / "w").strip()
    git("push", "-q", str(bare), "HEAD:refs/heads/x", cwd=tmp_path / "w")
    step = answers_prefix(G, "discard", "a" * 40)
    seats = ["re", "red", "red2", "blue"]
    real = [f"{base}/{p}" for base in (CHAT, step) for p in ("red", "red2", "blue")]
    junk = ["red22", "red-x", "redd", "re2", "r", "bluex", "mallory", "red2x/y", "red\udcff"]
    _pack(bare, {ref: oid for ref in real} | {f"{b}/{j}": oid for b in (CHAT, step) for j in junk})
    here = tmp_path / "here"
    git("init", "-q", "--bare", str(here))
    assert transport.fetch(here, G, [], [step], url=str(bare), players=seats) == frozenset()
    want = {transport.chat_tracking_prefix(G) + r[len(CHAT) :] for r in real if r.startswith(CHAT)}
    want |= {transport.tracking_ref(r) for r in real if r.startswith(step)}
    assert _tracked(here) == want


def test_twenty_thousand_junk_chat_and_answer_names_stop_no_sync_nor_join(tmp_path: Path):
    """Junk chat refs of no seat and of names beginning with a seat's, and junk beside
    the seat claims: Blue's sync brings none of it and Red's line still arrives, and a
    new device still joins."""
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    host = tmp_path / "host"
    create_game(host, ["red", "blue"], STANDARD_BOARD, seed="chat", game_id=G)
    git("push", "-q", str(remote), "refs/heads/catan/*:refs/heads/catan/*", cwd=host)
    red = join_game(str(remote), tmp_path / "red", G, "red")
    blue = join_game(str(remote), tmp_path / "blue", G, "blue")
    red_chat = ChatLog(red.repo.path, G, signing_keys(red.repo.git_dir))
    red_chat.send("red", "hello")
    red_chat.push()
    seat = answers_prefix(G, "seat", red.genesis)
    junk = {f"{CHAT}/mallory{i:05d}": red.head for i in range(10_000)}
    junk |= {f"{CHAT}/red{i:05d}": red.head for i in range(5_000)}
    junk |= {f"{seat}/blue{i:05d}": red.head for i in range(5_000)}
    _pack(remote, junk)
    assert blue.sync().error is None
    blue_chat = ChatLog(blue.repo.path, G, signing_keys(blue.repo.git_dir))
    blue_chat.update()
    assert [m.text for m in blue_chat.messages()] == ["hello"]
    assert not any(("mallory" in r or "red0" in r) for r in _tracked(tmp_path / "blue"))
    spare = join_game(str(remote), tmp_path / "blue-laptop", G, "blue")
    assert spare.head == blue.head
    assert not any("blue0" in r for r in _tracked(tmp_path / "blue-laptop"))


def test_a_seats_answer_jammed_before_it_answers_is_put_back(tmp_path: Path):
    """Someone writes Blue's and White's seat claims on the shared remote before they
    join (another seat's commit, a blob): each still claims its seat, every peer takes
    the claims, and set-up starts."""
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    first = tmp_path / "red"
    create_game(first, ["red", "blue", "white"], seed="jam", game_id=G, local=("red",))
    transport.set_remote(first / ".git", str(remote))
    red = GitSession(first, G, ("red",))
    assert red.sync().error is None
    seat = answers_prefix(G, "seat", red.genesis)
    blob = git("hash-object", "-w", "--stdin", cwd=remote, input="junk\n").strip()
    git("update-ref", f"{seat}/blue", red.head, cwd=remote)
    (remote / f"{seat}/white").write_text(blob + "\n")  # Git itself would refuse a blob
    joined = [join_game(str(remote), tmp_path / p, G, p) for p in ("blue", "white")]
    for s in (red, *joined):
        assert s.sync().error is None
    settle({"red": red, "blue": joined[0], "white": joined[1]})
    assert not red.state.lobby_open and all(red.state.seats)
    assert len(set(red.state.seats)) == 3 and {s.head for s in (red, *joined)} == {red.head}
