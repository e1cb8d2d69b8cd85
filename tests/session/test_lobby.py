"""The lobby: ``catan-p2p games URL`` and ``catan-p2p games`` over real repositories.

A remote is listed from ``ls-remote`` and the newest commit of each log only, so the
lobby reads whom a game waits for from three files; it must agree with the engine's
``waits_for`` on every commit of a real game. A remote may be hostile: junk refs are
skipped, an unreadable game is listed with the reason, a silent server is given up on.
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
from builders import git_identity

from catan_p2p.bots import make_bot
from catan_p2p.cli import main
from catan_p2p.errors import RemoteError
from catan_p2p.net.driver import Driver
from catan_p2p.rules.waiting import waits_for
from catan_p2p.session.git import GitSession
from catan_p2p.session.lobby import list_local, list_remote, summarise
from catan_p2p.session.start import create_game, join_game
from catan_p2p.store.catfile import CatFile
from catan_p2p.store.refnames import player_ref

pytestmark = pytest.mark.network


def git(*args: str, input: bytes | None = None) -> str:
    return subprocess.run(
        ["git", *args], capture_output=True, check=True, input=input, env=git_identity()
    ).stdout.decode()


def _bare(path: Path) -> Path:
    git("init", "-q", "--bare", str(path))
    return path


def _push(src: Path, remote: Path) -> None:
    git("-C", str(src), "push", "-q", str(remote), "refs/heads/catan/*:refs/heads/catan/*")


def test_the_lobby_reads_whom_a_game_waits_for_as_the_engine_does(tmp_path):
    players = ("red", "blue", "white")
    create_game(tmp_path / "g", list(players), seed="lobby", game_id="g")
    session = GitSession(tmp_path / "g", "g")
    bots = {p: make_bot("greedy", f"lobby/{p}") for p in players}
    Driver(session, bots).play(400)
    ref = player_ref("g", "red")
    commits = git("-C", str(tmp_path / "g"), "rev-list", "--first-parent", ref).split()
    phases = set()
    with CatFile(session.repo.git_dir) as reader:
        for oid in commits:
            state = session.repo.state_of(oid)[0]
            summary = summarise("g", oid, set(), reader.read)
            assert summary.problem is None
            assert list(summary.waiting_for) == waits_for(state), (oid, state.phase)
            assert summary.turn == state.turn and summary.phase == state.phase.name.lower()
            phases.add(state.phase.name.lower())
    session.close()
    assert {"discard", "trade", "steal", "main", "roll", "setup_settlement"} <= phases


@pytest.fixture
def remote(tmp_path):
    """A bare remote with a game under way, a game with an open seat, and junk."""
    remote = _bare(tmp_path / "remote.git")
    src = tmp_path / "src"
    create_game(src, ["red", "blue"], seed="a", game_id="busy")
    session = GitSession(src, "busy")
    Driver(session, {p: make_bot("random", p) for p in ("red", "blue")}).play(60)
    session.close()
    create_game(src, ["red", "blue", "white"], seed="b", game_id="open", local=("red",))
    _push(src, remote)
    join_game(str(remote), tmp_path / "blue", "open", "blue").close()
    # junk anyone with write access can push to a plain remote
    blob = git("--git-dir", str(remote), "hash-object", "-w", "--stdin", input=b"x").strip()
    tree = git("--git-dir", str(remote), "mktree", input=b"").strip()
    commit = git("--git-dir", str(remote), "commit-tree", tree, "-m", "junk").strip()
    heads = remote / "refs" / "heads" / "catan"
    for rel, oid in (
        ("busy/mallory", blob),  # a log naming a blob
        ("busy/a/b/c", commit),  # a deeper path
        ("Upper/red", commit),  # an upper-case game id
        ("nogame/red", commit),  # a commit holding no game
    ):
        (heads / rel).parent.mkdir(parents=True, exist_ok=True)
        (heads / rel).write_text(oid + "\n")
    return remote, src


@pytest.mark.parametrize("how", ["path", "file://"])
def test_a_remote_lists_its_games_and_skips_junk(remote, tmp_path, how):
    path, src = remote
    url = str(path) if how == "path" else f"file://{path}"  # read in place, or fetched
    found = list_remote(url, home=tmp_path / "home")
    games = {g.game: g for g in found.games}
    assert set(games) == {"busy", "open", "nogame"}
    assert found.junk_refs == 2
    busy = games["busy"]
    state = GitSession(src, "busy", read_only=True).state
    assert busy.players == ("red", "blue") and busy.turn == state.turn
    assert list(busy.waiting_for) == waits_for(state) and busy.open_seats == ()
    assert busy.last_move > 0 and busy.problem is None
    opened = games["open"]
    assert opened.open_seats == ("white",), "blue's claim waits on its branch: not open"
    assert opened.waiting_for == ("white",)
    assert "no game.json" in games["nogame"].problem
    again = list_remote(url, home=tmp_path / "home")  # from the cache: the same
    assert again.games == found.games


def test_games_command_lists_a_remote_and_the_games_here(remote, tmp_path, capsys, monkeypatch):
    url, src = remote
    monkeypatch.setenv("CATAN_P2P_HOME", str(tmp_path / "home"))
    assert main(["games", str(url), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [g["game"] for g in listed["games"]] == ["busy", "nogame", "open"]
    assert listed["games"][2]["open_seats"] == ["white"]
    assert main(["games", str(url)]) == 0
    out = capsys.readouterr().out
    assert "catan-p2p join" in out and "White" in out
    assert main(["games", "--in", str(tmp_path / "blue"), "--json"]) == 0
    here = json.loads(capsys.readouterr().out)
    (game,) = here["games"]
    assert game["yours"] == ["blue"] and game["waits_for_you"] == []
    assert main(["games", "--in", str(src), "--json"]) == 0
    here = {g["game"]: g for g in json.loads(capsys.readouterr().out)["games"]}
    busy = here["busy"]
    assert busy["yours"] == ["red", "blue"] and busy["waits_for_you"] == busy["waiting_for"]
    assert main(["games", "--in", str(src)]) == 0
    assert "1 game waits for you:" in capsys.readouterr().out


def test_local_games_of_bots_do_not_wait_for_you(remote):
    _, src = remote
    (busy,) = [g for g in list_local([src], {src: {"red", "blue"}}) if g.game == "busy"]
    assert busy.waiting_for and busy.mine_waiting == ()


def test_a_silent_remote_is_given_up_on_with_one_sentence(tmp_path, capsys):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    held = []
    threading.Thread(target=lambda: held.append(server.accept()), daemon=True).start()
    started = time.monotonic()
    with pytest.raises(RemoteError, match="cannot list the games"):
        list_remote(f"git://127.0.0.1:{port}/x.git", home=tmp_path, deadline=1.0)
    assert time.monotonic() - started < 30, "the deadline stops a remote that never answers"
    server.close()


def test_a_remote_that_is_no_repository_is_one_sentence(tmp_path, capsys):
    assert main(["games", str(tmp_path / "nothing")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot list the games" in err and "Traceback" not in err


def test_names_from_a_forged_game_reach_the_terminal_only_as_printable_text(tmp_path, capsys):
    """A forged game's files may name its players with anything JSON holds: `games URL`
    printed the raw bytes, escape sequences that retitle a terminal and change its colours
    (`--json` escaped them). Every text from a remote now passes one sanitiser
    (``catan_p2p.printable``): nothing that is not printable reaches the terminal."""
    remote = _bare(tmp_path / "remote.git")
    src = tmp_path / "src"
    create_game(src, ["red", "blue"], seed="evil", game_id="evil", local=("red",))
    head = git("-C", str(src), "rev-parse", player_ref("evil", "red")).strip()
    evil = "\x1b]0;pwned\x07\x1b[31mred\u202e"
    entries = []
    for line in git("-C", str(src), "ls-tree", head).splitlines():
        mode_kind_oid, name = line.split("\t")
        if name in ("game.json", "turn.json", "seats.json"):
            text = git("-C", str(src), "cat-file", "blob", f"{head}:{name}")
            text = text.replace('"red"', json.dumps(evil))
            oid = git("-C", str(src), "hash-object", "-w", "--stdin", input=text.encode()).strip()
            mode_kind_oid = " ".join([*mode_kind_oid.split()[:2], oid])
        entries.append(f"{mode_kind_oid}\t{name}\n")
    tree = git("-C", str(src), "mktree", input="".join(entries).encode()).strip()
    forged = git("-C", str(src), "commit-tree", tree, "-p", head, "-m", "x").strip()
    git("-C", str(src), "push", "-q", str(remote), f"{forged}:{player_ref('evil', 'red')}")
    assert main(["games", str(remote)]) == 0
    out, err = capsys.readouterr()
    assert "pwned" in out, out  # listed ...
    assert not any(not (ch.isprintable() or ch == "\n") for ch in out + err), repr(out)
