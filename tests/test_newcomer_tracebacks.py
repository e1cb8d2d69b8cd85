"""What a new user met at the command line on 197bc99 (issue 33): tracebacks where a
sentence belonged, and small untruths. Each is one clear sentence now, a non-zero exit
and nothing left behind.

The commands run in this process through ``catan_p2p.cli.main``, as the user typed
them; Ctrl-C and the full disk need a process of their own.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from catan_p2p.bots import make_bot
from catan_p2p.cli import main
from catan_p2p.net.driver import Driver
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game

README = Path(__file__).resolve().parents[1] / "README.md"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_sentence(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", *args], check=True, capture_output=True, text=True, cwd=cwd
    ).stdout


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A two-player hot-seat game 80 moves in, its objects in one pack (as after a game)."""
    path = tmp_path_factory.mktemp("played") / "g"
    create_game(path, ["red", "blue"], seed="cut", game_id="c")
    session = GitSession(path, "c")
    Driver(session, {p: make_bot("random", p) for p in ("red", "blue")}).play(80)
    session.close()
    git("-C", str(path), "repack", "-a", "-d", "-q")
    return path


def _heads(repo: Path) -> dict[str, str]:
    """Every ref file and ``packed-refs``, as read without Git (which a damaged pack stops)."""
    git_dir = repo / ".git"
    files = [*(git_dir / "refs").rglob("*"), git_dir / "packed-refs"]
    return {str(f): f.read_text() for f in files if f.is_file()}


# --- a damaged repository ----------------------------------------------------------------


@pytest.mark.slow  # git processes: the game's repository, its repack
@pytest.mark.parametrize("keep", [0, 20, 5000, "half"])
@pytest.mark.parametrize(
    "command",
    [
        ("verify",),
        ("log",),
        ("play", "--headless", "--bots-take-over", "--resume"),
    ],
    ids=["verify", "log", "play-resume"],
)
def test_a_cut_pack_is_named_in_one_sentence(capsys, tmp_path, played, keep, command):
    """smmap's AttributeError, gitdb's AssertionError, or a wrong 'no genesis' before."""
    repo = tmp_path / "g"
    shutil.copytree(played, repo)
    (pack,) = (repo / ".git" / "objects" / "pack").glob("*.pack")
    pack.chmod(0o644)
    with pack.open("r+b") as f:
        f.truncate(pack.stat().st_size // 2 if keep == "half" else keep)
    before = _heads(repo)
    argv = [*command, str(repo)] if command[0] == "play" else [*command, "--repo", str(repo)]
    code, out, err = run(capsys, *argv)
    sentence = one_sentence(err)
    assert code == 1 and "is damaged" in sentence and pack.name in sentence, sentence
    assert "fetch the game again" in sentence and len(sentence) - len(str(repo)) <= 250
    assert _heads(repo) == before


@pytest.mark.slow  # git processes
def test_a_garbage_head_is_refused_before_a_move_is_played(capsys, tmp_path, played):
    """Before: the bots played the game to its end, then `git repack` failed (a traceback)."""
    repo = tmp_path / "g"
    shutil.copytree(played, repo)
    (repo / ".git" / "HEAD").write_text("garbage\n")
    before = _heads(repo)
    code, out, err = run(capsys, "play", "--resume", str(repo), "--headless", "--bots-take-over")
    sentence = one_sentence(err)
    assert code == 1 and "HEAD" in sentence and "ref: refs/heads/main" in sentence, sentence
    assert _heads(repo) == before and "won after" not in out
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")  # the sentence's advice
    code, out, err = run(capsys, "verify", "--repo", str(repo))
    assert code == 0, err


@pytest.mark.slow  # git processes
@pytest.mark.parametrize(
    "command",
    [("log", "--repo"), ("show", "--repo"), ("play", "--headless", "--bots-take-over", "--resume")],
    ids=["log", "show", "play-resume"],
)
def test_a_garbage_ref_is_one_sentence(capsys, tmp_path, played, command):
    """Before: bytes.fromhex's ValueError (verify already left such a ref unread)."""
    repo = tmp_path / "g"
    shutil.copytree(played, repo)
    git("-C", str(repo), "pack-refs", "--all", "--prune")  # the ref in packed-refs too
    (repo / ".git" / "refs" / "heads" / "catan" / "c").mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "refs" / "heads" / "catan" / "c" / "red").write_text("garbage\n")
    code, out, err = run(capsys, *command, str(repo))
    sentence = one_sentence(err)
    assert code == 1 and "'garbage' is not an object id" in sentence, sentence


# --- a full disk -------------------------------------------------------------------------


def _on_full_disk(folder: Path, free_kib: int) -> list[str] | None:
    """A command prefix running a process with a full tmpfs mounted on ``folder`` (only
    ``free_kib`` KiB left), or None where this machine cannot mount one (not root)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return None
    script = (
        'mount -t tmpfs -o size=1m tmpfs "$0" && '
        f'dd if=/dev/zero of="$0/fill" bs=4k count={256 - free_kib // 4} 2>/dev/null; '
        'exec "$@"'
    )
    folder.mkdir(parents=True, exist_ok=True)
    probe = subprocess.run(["unshare", "-m", "sh", "-c", script, str(folder), "true"])
    return None if probe.returncode else ["unshare", "-m", "sh", "-c", script, str(folder)]


@pytest.mark.slow  # starts the CLI on a disk of its own
@pytest.mark.parametrize("free_kib", [0, 16, 48])
def test_new_on_a_full_disk_says_so_and_leaves_nothing(tmp_path, free_kib):
    """Before: `git init` failed with a CalledProcessError traceback."""
    prefix = _on_full_disk(tmp_path / "disk", free_kib)
    if prefix is None:
        pytest.skip("this machine cannot mount a full disk for a test (root only)")
    repo = tmp_path / "disk" / "g"
    listing = '; echo "left: $(ls "$0" | grep -v fill)"'
    proc = subprocess.run(
        [*prefix, "sh", "-c", '"$@"' + listing, str(tmp_path / "disk"),
         sys.executable, "-m", "catan_p2p.cli", "new", "--players", "red,blue", "--repo", str(repo)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    err = proc.stderr
    assert "Traceback" not in err and "Created game" not in proc.stdout, err
    assert one_sentence(err).startswith("catan-p2p new: the disk holding"), err
    assert "is full" in err and "free some space" in err
    assert proc.stdout.strip().endswith("left:"), proc.stdout  # no half-made repository


# --- Ctrl-C while the program loads -------------------------------------------------------


def _program() -> list[str]:
    """``catan-p2p`` as installed (Python's launcher script), run by this interpreter."""
    script = Path(sys.executable).parent / "catan-p2p"
    return [sys.executable, "-X", "importtime", str(script)]


@pytest.mark.slow  # starts the program
@pytest.mark.parametrize(
    "loaded",
    [
        "catan_p2p.errors",
        "catan_p2p.store.disk",
        "catan_p2p.cli",
        "pygame",
        "catan_p2p.session.git",
    ],
)
def test_ctrl_c_while_the_program_loads_exits_130_without_a_traceback(tmp_path, loaded):
    """Interrupted as soon as ``loaded`` is imported (``-X importtime`` says when)."""
    if not (Path(sys.executable).parent / "catan-p2p").exists():
        pytest.skip("catan-p2p is not installed beside this interpreter")
    proc = subprocess.Popen(
        [*_program(), "play", "--headless", "--repo", str(tmp_path / "g"), "--seed", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    said = []
    for line in proc.stderr:  # Python says each import as it finishes
        if not line.startswith("import time:"):
            said.append(line)
        if line.rstrip().endswith(f"| {loaded}") or line.rstrip().endswith(f"|   {loaded}"):
            proc.send_signal(signal.SIGINT)
            break
    else:
        pytest.fail(f"{loaded} was never imported")
    said += [line for line in proc.stderr if not line.startswith("import time:")]
    assert proc.wait(60) == 130, "".join(said)
    assert "Traceback" not in "".join(said) and "KeyboardInterrupt" not in "".join(said)


# --- the headless resume ------------------------------------------------------------------


@pytest.mark.slow  # git processes
def test_a_headless_resume_asks_before_bots_play_the_human_seats(capsys, tmp_path):
    repo = tmp_path / "g"
    code, _, err = run(capsys, "new", "--players", "red,blue", "--repo", str(repo))
    assert code == 0, err
    before = _heads(repo)
    code, out, err = run(capsys, "play", "--resume", str(repo), "--headless")
    sentence = one_sentence(err)
    assert code == 1 and "human seats (blue, red)" in sentence, sentence
    assert "--bots-take-over" in sentence and _heads(repo) == before
    code, out, err = run(capsys, "play", "--resume", str(repo), "--headless", "--bots-take-over")
    assert code == 0 and "won after" in out, err


# --- small untruths -----------------------------------------------------------------------


@pytest.mark.parametrize("players", ["red,,blue", "red,blue,", ",red,blue", "red, ,blue"])
def test_new_refuses_an_empty_player_name(capsys, tmp_path, players):
    repo = tmp_path / "g"
    code, out, err = run(capsys, "new", "--players", players, "--repo", str(repo))
    sentence = one_sentence(err)
    assert code == 1 and "empty name" in sentence and not repo.exists(), sentence


@pytest.mark.slow  # git processes
def test_verify_and_log_count_one_action_in_the_singular(capsys, tmp_path):
    """A shared game just made holds the genesis and the creator's seat claim."""
    git("init", "-q", "--bare", str(tmp_path / "remote.git"))
    repo = tmp_path / "g"
    code, out, err = run(
        capsys, "new", "--players", "red,blue", "--repo", str(repo),
        "--remote", str(tmp_path / "remote.git"),
    )  # fmt: skip
    assert code == 0, err
    code, out, err = run(capsys, "verify", "--repo", str(repo))
    assert code == 0 and "the genesis, 1 action and 0 merges" in out, out
    assert "1 actions" not in out
    code, out, err = run(capsys, "log", "--repo", str(repo))
    assert code == 0 and "1 action: 0 on the game's main line and 1 answer " in out, out


@pytest.mark.slow  # git processes
def test_new_with_every_peer_named_does_not_ask_for_them_again(capsys, tmp_path):
    point = tmp_path / "red-point.git"
    git("init", "-q", "--bare", str(point))
    code, out, err = run(
        capsys, "new", "--players", "red,blue,white", "--repo", str(tmp_path / "red"),
        "--publish", str(point), "--peer", "blue=/srv/blue.git",
    )  # fmt: skip
    assert code == 0, err
    assert "tell this game where white publishes with" in out and "blue publish" not in out, out
    code, out, err = run(
        capsys, "new", "--players", "red,blue", "--repo", str(tmp_path / "red2"),
        "--game", "two", "--publish", str(point), "--peer", "blue=/srv/blue.git",
    )  # fmt: skip
    assert code == 0, err
    assert "sync --repo" not in out and "--peer" in out, out


def _recipe() -> list[str]:
    """The shell lines of README's ``git bisect run`` recipe."""
    text = README.read_text()
    block = re.search(r"under `git bisect run`.*?```sh\n(.*?)```", text, re.S)
    assert block is not None, "README lost its git bisect run recipe"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line]


@pytest.mark.slow  # git processes, the CLI under git bisect run
def test_the_readmes_git_bisect_recipe_finds_what_catan_p2p_bisect_finds(capsys, tmp_path, played):
    """Before: the recipe said 'a checkout of a player's branch' and no way to get one (a
    clone warns that HEAD names no branch)."""
    code, out, _ = run(capsys, "bisect", "--when", "turn >= 3", "--repo", str(played))
    assert code == 0, out
    expected = re.search(r"holds: ([0-9a-f]{10})", out).group(1)
    lines = _recipe()
    assert lines[0].startswith("git -C G branch --list")
    branches = git("-C", str(played), "branch", "--list", "catan/*").split()
    assert "catan/c/red" in branches
    script = "\n".join(lines[1:]).replace("catan/<game>/red", "catan/c/red")
    script = script.replace(" G ", f" {played} ").replace('"points(red) >= 8"', '"turn >= 3"')
    assert "git bisect run catan-p2p bisect" in script
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(
        ["sh", "-ec", script], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert re.search(rf"{expected}[0-9a-f]* is the first bad commit", proc.stdout), proc.stdout
    assert "warning" not in proc.stderr, proc.stderr


class _StoppedWhileImporting:
    """A command module whose import is cut by SIGTERM inside a class body, where Python
    wraps the signal's exception in a RuntimeError (``__set_name__``): seen once when a
    bot was killed while it was still starting on a loaded machine."""

    INTERRUPTED = None

    @staticmethod
    def run(args: object) -> int:
        from catan_p2p.cli import Terminated

        class Field:
            def __set_name__(self, owner: type, name: str) -> None:
                raise Terminated()

        class Job:
            procs = Field()

        return 0


class _BrokenWhileImporting:
    """A module whose import fails for a reason of its own: still a traceback."""

    INTERRUPTED = None

    @staticmethod
    def run(args: object) -> int:
        class Field:
            def __set_name__(self, owner: type, name: str) -> None:
                raise ValueError("a bug")

        class Job:
            procs = Field()

        return 0


def test_a_sigterm_wrapped_by_an_import_still_stops_with_one_sentence(capsys, monkeypatch):
    from catan_p2p import cli

    monkeypatch.setattr(cli, "command_module", lambda name: _StoppedWhileImporting)
    code, _, err = run(capsys, "bot")
    assert code == 128 + signal.SIGTERM
    assert one_sentence(err) == "catan-p2p bot: terminated; everything played so far is saved."
    monkeypatch.setattr(cli, "command_module", lambda name: _BrokenWhileImporting)
    with pytest.raises(RuntimeError) as raised:
        main(["bot"])
    assert isinstance(raised.value.__cause__, ValueError)
