"""An idle poll of a remote on this machine's disk starts no Git (``net.ondisk``,
``store.foreign``), and a hostile remote folder only ever makes the peer fetch.

The quick tests build a remote folder by hand (no Git process): each hostile shape
(symlinks out of the remote or to ``/dev/zero``, a FIFO, a huge file, a directory where a
ref belongs, ``..``, a ``.lock``, a reftable, a packed-refs of another shape, too many
names) is read as "doubt", so the peer runs the real ``git fetch``, even where a naive
reader would have found the tracking refs equal. The slow tests play over a real bare
remote: an idle sync starts no Git, a remote that moved is fetched, and a hostile remote
leaves the peer exactly where the real fetch leaves it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from catan_p2p.net import ondisk
from catan_p2p.net.transport import chat_prefix, chat_tracking_prefix
from catan_p2p.store import foreign
from catan_p2p.store.foreign import read_foreign
from catan_p2p.store.refnames import answers_prefix, player_ref, tracking_ref
from catan_p2p.store.refs import MemoryRefs

G = "g"
A, B, C = "a" * 40, "b" * 40, "c" * 40
RED, BLUE = player_ref(G, "red"), player_ref(G, "blue")
STEP = answers_prefix(G, "discard", C)
ANSWER = f"{STEP}/blue"
CHAT = f"{chat_prefix(G)}/red"
LOGS = [RED, BLUE]

posix = pytest.mark.skipif(not foreign.SUPPORTED, reason="needs O_NOFOLLOW and dir_fd opens")


def _write(root: Path, ref: str, value: str) -> None:
    path = root / ref
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value + "\n")


def _remote(tmp_path: Path) -> Path:
    """A bare remote as Git's files backend writes it: both logs, one answer, one chat."""
    bare = tmp_path / "remote.git"
    (bare / "objects").mkdir(parents=True)
    (bare / "refs" / "heads").mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    (bare / "config").write_text("[core]\n\tbare = true\n")
    for ref, value in {RED: A, BLUE: B, ANSWER: A, CHAT: B}.items():
        _write(bare, ref, value)
    return bare


def _tracking(values: dict[str, str]) -> MemoryRefs:
    """This repository's tracking refs of ``origin`` holding ``values``."""
    refs = MemoryRefs()
    chat = chat_prefix(G)
    for ref, value in values.items():
        if ref.startswith(chat + "/"):
            refs.refs[chat_tracking_prefix(G) + ref[len(chat) :]] = value
        else:
            refs.refs[tracking_ref(ref)] = value
    return refs


HONEST = {RED: A, BLUE: B, ANSWER: A, CHAT: B}


def _idle(bare: Path, refs: MemoryRefs | None = None, url: str | None = None) -> bool:
    refs = refs if refs is not None else _tracking(HONEST)
    return ondisk.unchanged(refs, url or str(bare), G, LOGS, [STEP], "origin")


@posix
def test_an_unchanged_remote_is_read_as_idle(tmp_path: Path):
    bare = _remote(tmp_path)
    assert read_foreign(bare, LOGS, [STEP, chat_prefix(G)]) == HONEST
    assert _idle(bare)
    assert _idle(bare, url=f"file://{bare}")
    # a tracking ref the remote does not hold (an answer gone, not pruned) is no change
    assert _idle(bare, _tracking({**HONEST, f"{STEP}/white": C}))


@posix
@pytest.mark.parametrize(
    "move",
    ["a log advanced", "an answer appeared", "a chat ref appeared", "a chat ref moved"],
)
def test_a_remote_that_moved_is_fetched(tmp_path: Path, move: str):
    bare = _remote(tmp_path)
    ref, value = {
        "a log advanced": (RED, C),
        "an answer appeared": (f"{STEP}/red", C),
        "a chat ref appeared": (f"{chat_prefix(G)}/blue", A),
        "a chat ref moved": (CHAT, C),
    }[move]
    _write(bare, ref, value)
    assert not _idle(bare)


@posix
def test_a_log_the_remote_lacks_is_left_to_the_fetch_to_report(tmp_path: Path):
    bare = _remote(tmp_path)
    (bare / BLUE).unlink()
    assert not _idle(bare, _tracking({k: v for k, v in HONEST.items() if k != BLUE}))


@posix
def test_packed_refs_are_read_and_a_loose_ref_overrides_its_packed_copy(tmp_path: Path):
    bare = _remote(tmp_path)
    (bare / RED).unlink()
    (bare / "packed-refs").write_text(
        f"# pack-refs with: peeled fully-peeled sorted \n{A} {RED}\n{C} {BLUE}\n^{C}\n"
    )
    assert read_foreign(bare, LOGS, [STEP]) == {RED: A, BLUE: B, ANSWER: A}
    assert _idle(bare)


def _many(bare: Path) -> None:
    for i in range(foreign.ENTRIES + 1):
        _write(bare, f"{STEP}/p{i}", A)


def _symlink_out(bare: Path) -> None:
    """The log a link to a file outside the remote holding the very value tracked."""
    outside = bare.parent / "elsewhere"
    outside.write_text(A + "\n")
    (bare / RED).unlink()
    (bare / RED).symlink_to(outside)


def _dir_link_out(bare: Path) -> None:
    outside = bare.parent / "elsewhere" / "g"
    outside.mkdir(parents=True)
    os.rename(bare / "refs/heads/catan/g", outside)
    (bare / "refs/heads/catan/g").symlink_to(outside, target_is_directory=True)


def _replace(ref: str, how):  # type: ignore[no-untyped-def]
    def shape(bare: Path) -> None:
        (bare / ref).unlink()
        how(bare / ref)

    return shape


HOSTILE = {
    "a log linked to /dev/zero": _replace(RED, lambda p: p.symlink_to("/dev/zero")),
    "a log linked out of the remote": _symlink_out,
    "the game's directory linked out of the remote": _dir_link_out,
    "a FIFO for a log": _replace(RED, lambda p: os.mkfifo(p)),
    "a FIFO for an answer": _replace(ANSWER, lambda p: os.mkfifo(p)),
    "a huge log": _replace(RED, lambda p: p.write_text(A * 100_000)),
    "a directory for a log": _replace(RED, lambda p: (p / "x").mkdir(parents=True)),
    "a lock beside a log": lambda b: (b / f"{RED}.lock").write_text(C + "\n"),
    "a lock under a step": lambda b: (b / f"{STEP}/red.lock").write_text(C + "\n"),
    "a lock of packed-refs": lambda b: (b / "packed-refs.lock").write_text(""),
    "upper-case hex": _replace(RED, lambda p: p.write_text(A.upper() + "\n")),
    "39 hex": _replace(RED, lambda p: p.write_text(A[:39] + "\n")),
    "a symbolic ref": _replace(RED, lambda p: p.write_text(f"ref: {BLUE}\n")),
    "no newline": _replace(RED, lambda p: p.write_text(A + " ")),
    "a reftable": lambda b: (b / "reftable").mkdir(),
    "a config naming the ref storage": lambda b: (b / "config").write_text(
        "[extensions]\n\trefStorage = reftable\n"
    ),
    "a config including another": lambda b: (b / "config").write_text(
        "[include]\n\tpath = /elsewhere\n"
    ),
    "a config linked to /dev/zero": _replace("config", lambda p: p.symlink_to("/dev/zero")),
    "a config hiding refs": lambda b: (b / "config").write_text(
        "[uploadpack]\n\thideRefs = refs/heads/catan\n"
    ),
    "a linked worktree's git directory": lambda b: (b / "commondir").write_text("..\n"),
    "no HEAD": lambda b: (b / "HEAD").unlink(),
    "packed-refs of another shape": lambda b: (b / "packed-refs").write_text(f"{A}  {RED}\n"),
    "packed-refs of a peeled line first": lambda b: (b / "packed-refs").write_text(f"^{A}\n"),
    "packed-refs not ASCII": lambda b: (b / "packed-refs").write_bytes(b"\xff\xfe\n"),
    "huge packed-refs": lambda b: (b / "packed-refs").write_text(
        f"{A} refs/heads/x\n" * (foreign.PACKED_BYTES // 50)
    ),
    "packed-refs linked to /dev/zero": lambda b: (b / "packed-refs").symlink_to("/dev/zero"),
    "packed-refs a FIFO": lambda b: os.mkfifo(b / "packed-refs"),
    "packed-refs a directory": lambda b: (b / "packed-refs").mkdir(),
    "a link under a step": lambda b: (b / f"{STEP}/red").symlink_to("/dev/zero"),
    "a FIFO under the chat": lambda b: os.mkfifo(b / f"{chat_prefix(G)}/blue"),
}


#: Junk beside the refs the fetch brings (it asks for the players' answers and chat refs
#: by name): neither a doubt nor a change, so an idle poll stays idle.
BESIDE = {
    "too many names under a step": _many,
    "names nested too deep": lambda b: _write(b, f"{STEP}/a/b/c/d/e", A),
    "a name Git does not write": lambda b: _write(b, f"{STEP}/.hidden", A),
    "a chat ref of no player": lambda b: _write(b, f"{chat_prefix(G)}/mallory", C),
    "a longer name beginning with a player's": lambda b: _write(b, f"{CHAT}-x", C),
}


@posix
@pytest.mark.parametrize("shape", sorted(BESIDE))
def test_junk_beside_the_players_refs_is_not_read_and_keeps_a_poll_idle(tmp_path: Path, shape: str):
    bare = _remote(tmp_path)
    BESIDE[shape](bare)
    assert _idle(bare)


@posix
@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_a_hostile_remote_folder_is_read_as_doubt_and_fetched(tmp_path: Path, shape: str):
    """Each shape ends in the real fetch, with the tracking refs equal to the honest
    values (a reader that took the shape at its word would have skipped it)."""
    bare = _remote(tmp_path)
    HOSTILE[shape](bare)
    assert read_foreign(bare, LOGS, [STEP, chat_prefix(G)]) is None
    assert not _idle(bare)


@posix
def test_a_git_namespace_is_left_to_git(tmp_path: Path, monkeypatch):
    bare = _remote(tmp_path)
    monkeypatch.setenv("GIT_NAMESPACE", "other")
    assert not _idle(bare)


@posix
@pytest.mark.parametrize(
    "url",
    [
        "{bare}/missing.git",
        "{bare}/HEAD",  # a file, not a directory
        "file://host{bare}",
        "{bare}%2e",
        "~/remote.git",
        "ssh://127.0.0.1{bare}",
        "host:{bare}",
        "https://example.org/{bare}",
    ],
)
def test_a_url_that_is_no_folder_here_is_fetched(tmp_path: Path, url: str):
    bare = _remote(tmp_path)
    assert ondisk.remote_dir(url.format(bare=bare)) is None
    assert not _idle(bare, url=url.format(bare=bare))


@posix
def test_a_work_tree_is_read_where_git_reads_it(tmp_path: Path):
    """``<path>/.git`` comes first, as Git looks; a ``.git`` file, or a path that is a
    bare repository and holds a ``.git`` too, is left to Git."""
    work = tmp_path / "work"
    work.mkdir()
    os.rename(_remote(tmp_path), work / ".git")
    assert ondisk.remote_dir(str(work)) == work / ".git"
    assert _idle(work)
    assert ondisk.remote_dir(str(work / ".git")) == work / ".git"
    bare = _remote(tmp_path)
    (bare / ".git").write_text("gitdir: /elsewhere\n")
    assert ondisk.remote_dir(str(bare)) is None
    (bare / ".git").unlink()
    (bare / ".git").mkdir()
    assert ondisk.remote_dir(str(bare)) is None


@posix
@pytest.mark.parametrize("name", ["refs/heads/../../x", "refs//x", "heads/x", "refs/./x"])
def test_a_name_with_dots_or_outside_refs_is_not_read(tmp_path: Path, name: str):
    bare = _remote(tmp_path)
    assert read_foreign(bare, [name], []) is None
    assert read_foreign(bare, [], [name]) is None


# --- real Git, a real bare remote ----------------------------------------------------------


def _game(tmp_path: Path):  # type: ignore[no-untyped-def]
    from gitgames import git, settle

    from catan_p2p.net import transport
    from catan_p2p.session.git import GitSession
    from catan_p2p.session.start import create_game, join_game

    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    create_game(tmp_path / "red", ["red", "blue"], seed="ondisk", game_id=G, local=("red",))
    transport.set_remote(tmp_path / "red" / ".git", str(remote))
    sessions = {"red": GitSession(tmp_path / "red", G, ("red",))}
    sessions["red"].sync()
    sessions["blue"] = join_game(str(remote), tmp_path / "blue", G, "blue")
    settle(sessions)
    return remote, sessions


class _Gits:
    """Counts the Git processes started (``gitcmd.start`` and ``run``) while in use."""

    def __init__(self, monkeypatch) -> None:  # type: ignore[no-untyped-def]
        from catan_p2p.store import gitcmd

        self.started: list[tuple[str, ...]] = []
        real = gitcmd.argv

        def argv(git_dir, *args):  # type: ignore[no-untyped-def]
            self.started.append(args)
            return real(git_dir, *args)

        monkeypatch.setattr(gitcmd, "argv", argv)

    def fetches(self) -> int:
        return sum(1 for a in self.started if "fetch" in a)


@pytest.mark.network
@pytest.mark.slow
def test_an_idle_sync_of_a_bare_remote_starts_no_git_and_a_move_is_fetched(
    tmp_path: Path, monkeypatch
):
    from gitgames import settle

    from catan_p2p.bots import make_bot
    from catan_p2p.net.driver import play_round_robin

    remote, sessions = _game(tmp_path)
    red, blue = sessions["red"], sessions["blue"]
    gits = _Gits(monkeypatch)
    for session in (red, blue):
        assert not session.sync().error
    assert gits.started == [], gits.started
    # a move (a log advanced): blue's next sync fetches it and adopts it
    play_round_robin(sessions, {p: make_bot("random", f"od/{p}") for p in sessions}, 3)
    settle(sessions)
    assert gits.fetches() > 0
    assert red.head == blue.head
    gits.started.clear()
    assert not blue.sync().error and not red.sync().error
    assert gits.started == [], gits.started
    assert remote.is_dir()


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def _sentence(error: str | None) -> str | None:
    """An error without Git's own words (which of its processes says "not our ref"
    first varies from run to run)."""
    return None if error is None else error.split(" (", 1)[0]


@pytest.mark.network
@pytest.mark.slow
@pytest.mark.parametrize(
    "shape",
    [
        "a lock beside a log",
        "a symbolic ref",
        "a log linked out of the remote",
        "packed-refs of another shape",
    ],
)
def test_a_hostile_bare_remote_leaves_the_peer_where_the_real_fetch_leaves_it(
    tmp_path: Path, monkeypatch, shape: str
):
    """The shortcut steps aside: the real fetch runs and its outcome (an error, or the
    refs it brings) is the same as with the shortcut switched off."""
    remote, sessions = _game(tmp_path)
    blue = sessions["blue"]
    HOSTILE[shape](remote)
    gits = _Gits(monkeypatch)
    with_shortcut = _sentence(blue.sync().error)
    assert gits.fetches() == 1
    tracked = _git(tmp_path / "blue", "for-each-ref", "refs/remotes")
    monkeypatch.setattr(ondisk, "unchanged", lambda *a, **k: False)
    assert _sentence(blue.sync().error) == with_shortcut
    assert _git(tmp_path / "blue", "for-each-ref", "refs/remotes") == tracked


@pytest.mark.network
@pytest.mark.slow
def test_a_seat_the_remote_lacks_is_still_reported_missing(tmp_path: Path, monkeypatch):
    """The log of a seat gone from the remote: the real fetch runs, leaves it out and
    tries again, so the others' logs still come."""
    from catan_p2p.net import transport

    remote, sessions = _game(tmp_path)
    blue = sessions["blue"]
    gone = player_ref(G, "red")
    (remote / gone).unlink()
    missing = []
    real = transport.fetch

    def fetch(*args, **kwargs):  # type: ignore[no-untyped-def]
        missing.append(real(*args, **kwargs))
        return missing[-1]

    monkeypatch.setattr(transport, "fetch", fetch)
    assert not blue.sync().error
    assert missing and missing[0] == frozenset({gone})
