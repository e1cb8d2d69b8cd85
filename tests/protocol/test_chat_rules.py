"""Chat verified like the game (PROTOCOL.md "Chat"): only lines a seat signed, text only,
junk ignored, one's own chat ref restored, and the hook applying the same rules.

Real repositories: a bare remote on disk and one clone per player.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gitgames import git

from catan_p2p.net import hook
from catan_p2p.net.chat import ChatLog
from catan_p2p.protocol.chatlines import MAX_CHARS, shown, update_refusal
from catan_p2p.rules.board import STANDARD_BOARD
from catan_p2p.session.keys import seat_key, signing_keys
from catan_p2p.session.start import create_game, join_game
from catan_p2p.store.refnames import ZERO
from catan_p2p.store.repo import GameRepo, Repository

pytestmark = pytest.mark.network

CHAT = "refs/catan-chat/c"


def _table(tmp_path: Path):  # type: ignore[no-untyped-def]
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    host = tmp_path / "host"
    create_game(host, ["red", "blue"], STANDARD_BOARD, seed="chat", game_id="c")
    git("push", "-q", str(remote), "refs/heads/catan/*:refs/heads/catan/*", cwd=host)
    red = join_game(str(remote), tmp_path / "red", "c", "red")
    blue = join_game(str(remote), tmp_path / "blue", "c", "blue")
    return remote, red, blue


def _plant(bare: Path, ref: str, oid: str) -> None:
    """Write a ref straight into the remote, as a hostile host or a forge user can."""
    path = bare / ref
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(oid + "\n")


def _signed_line(repo: Repository, player: str, text: str, parent: str | None = None) -> str:
    tree = git("mktree", cwd=repo.path, input="").strip()
    key = seat_key(player, git_dir=repo.git_dir)
    return repo.write_commit(tree, [parent] if parent else [], player, text, key, 1_800_000_000)


def test_junk_on_a_chat_ref_is_neither_adopted_nor_shown(tmp_path: Path):
    """A blob, a game's log and a signed megabyte of terminal escapes on Red's chat ref:
    before, the blob became Blue's local chat ref and the log showed as chat lines."""
    remote, red, blue = _table(tmp_path)
    blob = git("hash-object", "-w", "--stdin", cwd=remote, input="junk\n").strip()
    escapes = _signed_line(red.repo, "red", "\x1b[2J\x1b]0;pwned\x07" * 60_000 + "\n")
    git("push", "-q", str(remote), f"{escapes}:refs/heads/escapes", cwd=tmp_path / "red")
    blue_chat = ChatLog(blue.repo.path, "c", signing_keys(blue.repo.git_dir))
    for junk in (blob, red.head, escapes):  # red.head: Red's game log, signed by Red
        _plant(remote, f"{CHAT}/red", junk)
        blue.sync()
        assert blue_chat.update() == 0
        assert blue_chat.messages() == []
        assert blue.repo.refs.get(f"{CHAT}/red") is None
    # A real line of Red's after all that is taken.
    red_chat = ChatLog(red.repo.path, "c", signing_keys(red.repo.git_dir))
    red_chat.send("red", "hello")
    red.sync()  # Red's peer sees the junk on its chat ref ...
    red_chat.push()  # ... and puts its own line there, with a lease on what it saw
    blue.sync()
    assert blue_chat.update() == 1
    assert [m.text for m in blue_chat.messages()] == ["hello"]


def test_a_blob_on_ones_own_chat_ref_does_not_block_ones_chat(tmp_path: Path):
    remote, red, blue = _table(tmp_path)
    red_chat = ChatLog(red.repo.path, "c", signing_keys(red.repo.git_dir))
    red_chat.send("red", "one")
    red_chat.push()
    blob = git("hash-object", "-w", "--stdin", cwd=remote, input="junk\n").strip()
    _plant(remote, f"{CHAT}/red", blob)
    red.sync()  # sees the blob there
    red_chat.send("red", "two")
    red_chat.push()
    assert git("rev-parse", f"{CHAT}/red", cwd=remote).strip() == red.repo.refs.get(f"{CHAT}/red")
    blue.sync()
    blue_chat = ChatLog(blue.repo.path, "c", signing_keys(blue.repo.git_dir))
    blue_chat.update()
    assert [m.text for m in blue_chat.messages()] == ["one", "two"]


def test_lines_are_shown_escaped_and_bounded():
    assert shown("hi\x1b[2J") == "hi\\x1b[2J"
    assert len(shown("x" * 10_000)) == MAX_CHARS


def test_the_hook_applies_the_chat_rules(tmp_path: Path):
    """``check_update`` on a remote holding the game: a line of the seat passes; a blob,
    a game log, another key's line, a name of no seat and a deletion are refused."""
    remote, red, blue = _table(tmp_path)
    repo = GameRepo(remote)
    line = _signed_line(red.repo, "red", "good luck\n")
    forged = _signed_line(blue.repo, "blue", "i am red\n")
    git("push", "-q", str(remote), f"{line}:refs/heads/x1", cwd=tmp_path / "red")
    git("push", "-q", str(remote), f"{forged}:refs/heads/x2", cwd=tmp_path / "blue")
    blob = git("hash-object", "-w", "--stdin", cwd=remote, input="junk\n").strip()
    assert hook.check_update(repo, ZERO, line, f"{CHAT}/red") is None
    refused = {
        "blob": hook.check_update(repo, ZERO, blob, f"{CHAT}/red"),
        "log": hook.check_update(repo, ZERO, red.head, f"{CHAT}/red"),
        "other key": hook.check_update(repo, ZERO, forged, f"{CHAT}/red"),
        "no seat": hook.check_update(repo, ZERO, line, f"{CHAT}/mallory"),
        "delete": hook.check_update(repo, line, ZERO, f"{CHAT}/red"),
        "deeper": hook.check_update(repo, ZERO, line, f"{CHAT}/red/x"),
    }
    for what, reason in refused.items():
        assert reason is not None and len(reason) <= 300, (what, reason)
    assert update_refusal(repo, None, line, "red", "") is not None  # no key, no line


def test_the_hook_refuses_junk_chat_over_a_real_push(tmp_path: Path):
    remote = tmp_path / "remote.git"
    done = subprocess.run(
        [*__import__("gitgames").CLI, "host", "init", str(remote)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    host = tmp_path / "host"
    create_game(host, ["red", "blue"], STANDARD_BOARD, seed="chat", game_id="c")
    git("push", "-q", str(remote), "refs/heads/catan/*:refs/heads/catan/*", cwd=host)
    red = join_game(str(remote), tmp_path / "red", "c", "red")
    pushed = subprocess.run(
        ["git", "push", str(remote), f"{red.head}:{CHAT}/red"],
        cwd=tmp_path / "red", capture_output=True, text=True,
    )  # fmt: skip
    assert pushed.returncode != 0 and "catan-p2p: refused" in pushed.stderr, pushed.stderr
