"""Two peers through one remote over every transport, with and without the hook.

The remote is one bare repository (``catan-p2p host init`` for the guarded variant, a
plain ``git init --bare`` for the other, as a forge would be) served as a path, by
``git daemon``, by an ``sshd`` of the test's own, and by ``git http-backend`` behind a
small HTTP server (``tests/remotes.py``), all on 127.0.0.1. Red creates the game
and Blue joins through the URL with the real CLI; over git daemon, ssh and HTTP, guarded
and plain alike (``PLAYED``; bots on a path remote are test_network's games), a
``catan-p2p bot`` process per seat then plays a short game (3 victory points) until
Red's log on the remote is past set-up, or to its end if that comes first.
Afterwards both peers verify and hold the same head as the remote.

Forged commits travel over the same transport: the guarded remote refuses one with
"catan-p2p: refused", whatever carried it; the plain remote takes it, and the peer whose
branch it claims refuses it itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

import pytest
from gitgames import CLI, cli, git, sign_commit
from remotes import KINDS, Served, ServerUnavailable, serve

from catan_p2p.cli import main
from catan_p2p.rules.actions import BuildSettlement, EndTurn
from catan_p2p.rules.menu import legal_actions
from catan_p2p.session.git import GitSession
from catan_p2p.store import gitcmd
from catan_p2p.store.repo import find_git_dir
from catan_p2p.trust import poker as cards_deck
from catan_p2p.trust.engine import step

pytestmark = [pytest.mark.network, pytest.mark.slow]

#: Bots play until Red's log on the remote is past set-up (or the game ends first):
#: playing on for a fixed time paid for more of the same moves, each push a hook run.
MIN_COMMITS = 20
HARD_LIMIT = 120.0  # a game that has not got that far by then fails the test
#: Where the bot processes play: every network transport once, guarded remotes twice.
#: Bots on a plain bare remote as a path (and over a plain git daemon) are test_network's
#: four-seat games. The other variants check set-up and forgeries.
PLAYED = {("daemon", True), ("ssh", False), ("http", True)}


@pytest.fixture(
    params=[(kind, hook) for kind in KINDS for hook in (False, True)],
    ids=lambda p: f"{p[0]}-{'hook' if p[1] else 'nohook'}",
)
def served(request, tmp_path: Path, monkeypatch):
    """The game's remote, served over one transport until the test ends (also on failure)."""
    kind, hook = request.param
    bare = tmp_path / "remote.git"
    if hook:
        made = cli("host", "init", str(bare))
        assert made.returncode == 0, made.stderr
    else:
        git("init", "-q", "--bare", str(bare))
    with ExitStack() as stack:
        try:
            remote = stack.enter_context(serve(kind, bare, tmp_path / "server"))
        except ServerUnavailable as exc:
            pytest.skip(f"no {kind}:// remote on this machine: {exc}")
        for name, value in remote.env.items():
            monkeypatch.setenv(name, value)  # every Git child of a peer inherits it
        yield remote, hook


def _hear_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_bot(clone: Path, player: str, log: Path) -> subprocess.Popen:
    with log.open("ab") as out:
        return subprocess.Popen(
            [*CLI, "bot", "--as", player, "--repo", str(clone), "--poll", "0.02"],
            stdout=out,
            stderr=out,
            start_new_session=True,  # its own process group, as a job in a player's terminal
            # Ctrl-C must reach it even when the tests run in a background job, whose
            # children inherit SIGINT ignored (Python then installs no handler for it).
            preexec_fn=_hear_ctrl_c,
        )


def _stop(proc: subprocess.Popen) -> None:
    """Ctrl-C in the bot's terminal: SIGINT to its whole group, its Git children included.

    Interrupting the bot alone would leave a Git child it was waiting for (a fetch's
    ``index-pack``, an ``ssh``) writing into the clone while the test reads it. Whatever
    of the group outlives the grace time is killed, so no process survives the test.
    """
    for sig, grace in ((signal.SIGINT, 10.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            proc.poll()
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
    proc.wait()


def _remote_commits(bare: Path, player: str) -> int:
    out = git("rev-list", "--count", f"refs/heads/catan/g/{player}", cwd=bare, check=False)
    return int(out.strip() or 0)


def _play(tmp_path: Path, clones: dict[str, Path], bare: Path) -> bool:
    """Run one bot process per seat; True if the game ended, False if it was stopped."""
    logs = {p: tmp_path / f"{p}.log" for p in clones}
    procs = {p: _start_bot(c, p, logs[p]) for p, c in clones.items()}
    start = time.monotonic()
    try:
        while any(proc.poll() is None for proc in procs.values()):
            elapsed = time.monotonic() - start
            if _remote_commits(bare, "red") >= MIN_COMMITS:
                break
            if elapsed > HARD_LIMIT:
                tails = "\n".join(f"{p}: {f.read_text()[-800:]}" for p, f in logs.items())
                pytest.fail(f"the game was not past set-up after {HARD_LIMIT} s\n{tails}")
            time.sleep(0.1)
    finally:
        for proc in procs.values():
            _stop(proc)
    texts = {p: f.read_text() for p, f in logs.items()}
    for p, proc in procs.items():
        text = texts[p]
        assert "Traceback" not in text, f"{p}'s bot crashed:\n{text[-2000:]}"
        assert "rejected" not in text, f"{p}'s bot rejected an honest commit:\n{text[-2000:]}"
        # 0: it saw the end; 130 or SIGINT: stopped (also while leaving after the end).
        assert proc.returncode in (0, 130, -signal.SIGINT), f"{p}'s bot failed:\n{text[-2000:]}"
    return all("won." in text for text in texts.values())


def _verified_head(clone: Path, capsys) -> str:  # type: ignore[no-untyped-def]
    """``catan-p2p verify --json`` of ``clone``, run in this process: the command's own
    code, without a Python start per clone (the bots, ``new``, ``join`` and ``sync`` are
    the real processes here)."""
    capsys.readouterr()
    code = main(["verify", "--json", "--repo", str(clone)])
    said = capsys.readouterr()
    report = json.loads(said.out)
    assert code == 0 and report["ok"], f"{clone.name}: {said.out}{said.err}"
    return report["head"]


def _settle(clones: dict[str, Path]) -> None:
    """Sync around the table until a whole round moves no branch.

    A sync may record what nobody chooses (a robbed seat's answer and its merge, a win
    shown from hidden cards, the deck secrets one seat after another), and each can be
    the next seat's cue, so two rounds are not always enough; every round that changes
    something brings the game nearer its end, so a handful always is.

    Each seat syncs as ``catan-p2p sync`` does (``GitSession.sync`` over this transport:
    the test's environment reaches every Git child), in this process: a ``sync``
    process per seat and round cost a Python start and a verification of the whole
    game from its genesis each, most of a test that plays no bots. The real processes
    are the bots', ``new``'s, ``join``'s and the forged push's sync below.
    """
    sessions = {p: GitSession(c, "g", (p,)) for p, c in clones.items()}
    try:
        # Over ssh, one connection for all of these syncs, as a bot keeps one for its own.
        with gitcmd.ssh_reuse(find_git_dir(next(iter(clones.values())))):
            before = None
            for _ in range(8):
                for p, session in sessions.items():
                    status = session.sync()
                    said = f"{p}: {status.error} {status.forks} {session.rejected}"
                    assert status.error is None and not status.forks, said
                    assert not session.rejected, said
                heads = {
                    p: git("for-each-ref", "refs/heads/catan", cwd=c) for p, c in clones.items()
                }
                if heads == before:
                    return
                before = heads
            pytest.fail(f"the peers did not settle in 8 rounds of sync: {before}")
    finally:
        for session in sessions.values():
            session.close()


def _push(clone: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "push", "origin", *args], cwd=clone, capture_output=True, text=True
    )


def _forge_reds_settlement(blue_clone: Path) -> str:
    """Blue writes Red's first settlement, legal and with the right tree, signed with Blue's key."""
    blue = GitSession(blue_clone, "g", ("blue",))
    try:
        state = blue.committed_state
        action = next(a for a in legal_actions(state, "red") if isinstance(a, BuildSettlement))
        # A well-formed shuffle of Blue's making (its proof cannot be Red's), and the tree
        # the rules would write for it: only the signature can give Blue away.
        secret = b"forged by blue"
        context = cards_deck.shuffle_context(state.deck.keys, 0)
        shuffled, proof = cards_deck.prove_shuffle(cards_deck.first_cards(), secret, context)
        after = step(state._replace(deck=None), action)[0]
        after = after._replace(deck=state.deck._replace(passes=(shuffled,)))
        action = replace(action, deck=shuffled, proof=proof)
        tree = blue.repo.writer(blue.info).write(after)
        return sign_commit(blue.repo, blue.head, "red", action, tree, blue.keys["blue"])
    finally:
        blue.close()


def _forge_reds_end_turn(blue_clone: Path) -> str:
    """Blue writes a commit authored Red on Red's head, signed with Blue's key."""
    blue = GitSession(blue_clone, "g", ("blue",))
    try:
        tree = git("rev-parse", f"{blue.head}^{{tree}}", cwd=blue_clone).strip()
        return sign_commit(blue.repo, blue.head, "red", EndTurn("red"), tree, blue.keys["blue"])
    finally:
        blue.close()


def test_two_bot_processes_play_through_the_remote(
    served: tuple[Served, bool], tmp_path: Path, capsys
):
    remote, hook = served
    clones = {"red": tmp_path / "red", "blue": tmp_path / "blue"}
    made = cli(
        *("new", "--players", "red,blue", "--seed", f"{remote.kind}-{hook}", "--game", "g"),
        *("--victory-points", "3", "--remote", remote.url, "--repo", str(clones["red"])),
    )
    assert made.returncode == 0, made.stdout + made.stderr
    joined = cli("join", remote.url, "--game", "g", "--as", "blue", "--repo", str(clones["blue"]))
    assert joined.returncode == 0, joined.stdout + joined.stderr
    _settle(clones)  # Red merges the seat claims; set-up can start

    if hook:
        # Over this very transport, the hook refuses Red's move written with Blue's key.
        before = git("rev-parse", "refs/heads/catan/g/red", cwd=remote.path).strip()
        bad = _forge_reds_settlement(clones["blue"])
        pushed = _push(clones["blue"], f"{bad}:refs/heads/catan/g/red")
        assert pushed.returncode != 0, pushed.stderr
        assert "catan-p2p: refused" in pushed.stderr and bad[:10] in pushed.stderr, pushed.stderr
        assert git("rev-parse", "refs/heads/catan/g/red", cwd=remote.path).strip() == before

    played = (remote.kind, hook) in PLAYED
    finished = _play(tmp_path, clones, remote.path) if played else False
    _settle(clones)
    heads = {p: _verified_head(c, capsys) for p, c in clones.items()}
    assert heads["red"] == heads["blue"], heads
    on_remote = {
        p: git("rev-parse", f"refs/heads/catan/g/{p}", cwd=remote.path).strip() for p in clones
    }
    assert on_remote == heads, (on_remote, heads)
    if played:
        assert finished or _remote_commits(remote.path, "red") >= MIN_COMMITS

    if not hook:
        # A plain remote (a forge) runs no hook: the forgery lands, and Red's peer refuses it.
        bad = _forge_reds_end_turn(clones["blue"])
        pushed = _push(clones["blue"], f"{bad}:refs/heads/catan/g/red")
        assert pushed.returncode == 0, pushed.stderr
        synced = cli("sync", "--repo", str(clones["red"]))
        assert synced.returncode == 1 and f"rejected {bad[:10]}" in synced.stderr, synced.stderr
        assert "Traceback" not in synced.stderr
        assert git("rev-parse", "refs/heads/catan/g/red", cwd=clones["red"]).strip() == heads["red"]
