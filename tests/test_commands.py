"""The commands a new user types first: bad input is one sentence, exit 1, nothing left behind.

Each test drives ``catan_p2p.cli.main`` in this process over real Git repositories
(a bare repository on disk stands in for a shared remote).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
from pathlib import Path

import pytest

from catan_p2p.cli import COMMANDS, build_parser, main
from catan_p2p.commands._progress import ProgressBar
from catan_p2p.protocol.genesis import genesis_of
from catan_p2p.store.repo import GameRepo


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_sentence(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def new_game(capsys, repo: Path, *extra: str) -> str:
    code, out, err = run(capsys, "new", "--players", "red,blue", "--repo", str(repo), *extra)
    assert code == 0, err
    return GameRepo(repo).games()[0] if "--game" not in extra else extra[extra.index("--game") + 1]


# --- new --------------------------------------------------------------------------------


@pytest.mark.parametrize("existing", [False, True])
def test_new_with_a_colour_twice_is_refused_and_leaves_no_git_behind(capsys, tmp_path, existing):
    repo = tmp_path / "g"
    if existing:
        repo.mkdir()
    code, out, err = run(capsys, "new", "--players", "red,red", "--repo", str(repo))
    assert code == 1
    assert "red more than once" in one_sentence(err)
    assert not (repo / ".git").exists()
    assert repo.exists() is existing


@pytest.mark.slow
def test_new_at_a_fixed_genesis_time_deals_the_same_game_again(capsys, tmp_path, monkeypatch):
    """``$CATAN_P2P_GENESIS_TIME`` (set for every test by conftest) fixes the genesis, so
    the same keys and seed deal the same game; another time deals another."""
    from catan_p2p.session.start import GENESIS_TIME_ENV
    from catan_p2p.store.refnames import player_ref

    def genesis(repo: Path, when: int) -> str:
        monkeypatch.setenv(GENESIS_TIME_ENV, str(when))
        new_game(capsys, repo, "--game", "g", "--seed", "s")
        game = GameRepo(repo)
        return genesis_of(game, game.refs.get(player_ref("g", "red")))

    first = genesis(tmp_path / "a", 1_700_000_123)
    assert genesis(tmp_path / "b", 1_700_000_123) == first
    assert GameRepo(tmp_path / "a").commit(first).when == 1_700_000_123
    assert genesis(tmp_path / "c", 1_700_000_124) != first


@pytest.mark.parametrize("value", ["yesterday", "-5", "1.5"])
def test_new_with_a_genesis_time_that_is_no_number_is_refused_and_leaves_nothing(
    capsys, tmp_path, monkeypatch, value
):
    from catan_p2p.session.start import GENESIS_TIME_ENV

    monkeypatch.setenv(GENESIS_TIME_ENV, value)
    repo = tmp_path / "g"
    code, out, err = run(capsys, "new", "--players", "red,blue", "--repo", str(repo))
    assert code == 1
    assert GENESIS_TIME_ENV in one_sentence(err) and "unset it" in err
    assert not repo.exists()


@pytest.mark.slow
def test_new_into_a_repository_holding_a_game_is_refused_without_game(capsys, tmp_path):
    repo = tmp_path / "g"
    first = new_game(capsys, repo)
    code, out, err = run(capsys, "new", "--players", "red,white", "--repo", str(repo))
    assert code == 1
    assert "already holds game" in one_sentence(err)
    assert GameRepo(repo).games() == [first]


@pytest.mark.slow
def test_a_second_game_added_with_game_prints_hints_that_work(capsys, tmp_path):
    repo = tmp_path / "g"
    new_game(capsys, repo)
    code, out, err = run(
        capsys, "new", "--players", "red,white", "--repo", str(repo), "--game", "second"
    )
    assert code == 0, err
    assert f"catan-p2p play --resume {repo} --game second" in out
    code, out, err = run(capsys, "log", "--repo", str(repo), "--game", "second")
    assert code == 0, err


@pytest.mark.slow
def test_new_without_repo_never_writes_into_another_projects_clone(capsys, tmp_path, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", str(project))
    (project / "src").mkdir()
    monkeypatch.chdir(project / "src")
    code, out, err = run(capsys, "new", "--players", "red,blue")
    assert code == 1
    assert "pass --repo PATH" in one_sentence(err)
    assert git("-C", str(project), "for-each-ref") == ""
    assert not (project / "src" / ".git").exists()


@pytest.mark.slow
def test_new_without_repo_in_an_empty_folder_makes_the_game_there(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "new", "--players", "red,blue")
    assert code == 0, err
    assert len(GameRepo(tmp_path).games()) == 1


# --- join -------------------------------------------------------------------------------


def shared_game(capsys, tmp_path: Path) -> tuple[Path, str]:
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    code, out, err = run(
        capsys,
        "new",
        "--players",
        "red,blue,white",
        "--repo",
        str(tmp_path / "red"),
        "--remote",
        str(remote),
        "--game",
        "friday",
    )
    assert code == 0, err
    return remote, "friday"


@pytest.mark.slow
def test_join_into_another_players_repository_is_refused(capsys, tmp_path):
    remote, game = shared_game(capsys, tmp_path)
    red = tmp_path / "red"
    code, out, err = run(
        capsys, "join", str(remote), "--game", game, "--as", "blue", "--repo", str(red)
    )
    assert code == 1
    assert "already holds red's seat" in one_sentence(err)
    refs = git("-C", str(red), "for-each-ref", "--format=%(refname)", "refs/heads").split()
    assert "refs/heads/catan/friday/red" in refs  # red's log (and its seat claim), no blue
    assert not [r for r in refs if r.endswith("/blue")]


@pytest.mark.slow
def test_join_twice_into_ones_own_repository_is_fine(capsys, tmp_path):
    remote, game = shared_game(capsys, tmp_path)
    blue = tmp_path / "blue"
    for _ in range(2):
        code, out, err = run(
            capsys, "join", str(remote), "--game", game, "--as", "blue", "--repo", str(blue)
        )
        assert code == 0, err


@pytest.mark.slow
def test_a_failed_join_leaves_no_repository_and_does_not_promise_a_retry(capsys, tmp_path):
    gone = tmp_path / "nowhere.git"
    target = tmp_path / "blue"
    code, out, err = run(
        capsys, "join", str(gone), "--game", "g", "--as", "blue", "--repo", str(target)
    )
    assert code == 1
    sentence = one_sentence(err)
    assert "cannot fetch from the remote" in sentence
    assert "will retry" not in sentence and "catan-p2p join" in sentence
    assert not target.exists()


@pytest.mark.slow
def test_joining_a_game_the_remote_lacks_leaves_no_repository(capsys, tmp_path):
    remote, _ = shared_game(capsys, tmp_path)
    target = tmp_path / "blue"
    code, out, err = run(
        capsys, "join", str(remote), "--game", "nope", "--as", "blue", "--repo", str(target)
    )
    assert code == 1
    assert "has no game 'nope'" in one_sentence(err)
    assert not target.exists()


@pytest.mark.slow
def test_a_failed_play_remote_leaves_nothing_in_the_games_folder(capsys, tmp_path, monkeypatch):
    from catan_p2p.commands import play

    monkeypatch.setenv("CATAN_P2P_HOME", str(tmp_path / "home"))
    args = build_parser("play").parse_args(
        ["play", "--remote", str(tmp_path / "nowhere.git"), "--game", "g1", "--as", "blue"]
    )
    with pytest.raises(Exception) as failure:
        play.start(args)
    assert "will retry" not in str(failure.value)
    games = tmp_path / "home" / "games"
    assert not games.exists() or list(games.iterdir()) == []


@pytest.mark.slow
def test_a_failed_sync_does_not_tell_you_to_run_sync(capsys, tmp_path):
    remote, game = shared_game(capsys, tmp_path)
    remote.rename(tmp_path / "moved.git")
    code, out, err = run(capsys, "sync", "--repo", str(tmp_path / "red"))
    assert code == 1
    assert "cannot fetch from the remote" in err
    assert "catan-p2p sync" not in err and "will retry" not in err


# --- show, options, progress ------------------------------------------------------------


@pytest.mark.slow
def test_show_png_into_a_missing_folder_is_one_sentence(capsys, tmp_path):
    repo = tmp_path / "g"
    new_game(capsys, repo)
    code, out, err = run(capsys, "show", "--repo", str(repo), "--png", "/nonexistent/dir/x.png")
    assert code == 1
    assert "folder /nonexistent/dir does not exist" in one_sentence(err)


def test_every_option_of_every_command_has_help_text():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = []
    for name in COMMANDS:
        for action in sub.choices[name]._actions:
            if not action.help:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def test_each_command_owns_its_options():
    from catan_p2p.cli import command_module

    for name in COMMANDS:
        module = command_module(name)
        assert module is not None and hasattr(module, "add_arguments"), name


def test_progress_bar_writes_no_carriage_returns_off_a_terminal():
    stream = io.StringIO()
    bar = ProgressBar(50, "games", stream=stream)
    for done in range(51):
        bar.update(done)
    assert "\r" not in stream.getvalue()
    assert stream.getvalue().count("\n") == 1 and "50/50" in stream.getvalue()


def test_progress_bar_redraws_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    bar = ProgressBar(2, "games", stream=stream)
    bar.update(0)
    bar.update(2)
    assert stream.getvalue().startswith("\rgames") and stream.getvalue().endswith("\n")


def test_readme_links_only_inside_the_repository():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "../shared" not in readme
    assert os.path.exists(Path(__file__).resolve().parents[1] / "docs" / "design.md")


@pytest.mark.slow
def test_log_verify_and_bisect_counts_add_up_and_say_what_they_count(capsys, tmp_path):
    import re

    repo = tmp_path / "g"
    code, out, err = run(capsys, "play", "--headless", "--repo", str(repo), "--seed", "7")
    assert code == 0, err
    code, log, err = run(capsys, "log", "--repo", str(repo))
    actions, main_line, answers = map(
        int,
        re.search(r"(\d+) actions: (\d+) on the game's main line and (\d+) answers", log).groups(),
    )
    code, verify, err = run(capsys, "verify", "--repo", str(repo))
    commits, acted, merges = map(
        int,
        re.search(
            r"all (\d+) commits .*the genesis, (\d+) actions and (\d+) merges", verify
        ).groups(),
    )
    code, bisect, err = run(capsys, "bisect", "--repo", str(repo), "--when", "turn >= 3")
    line = int(re.search(r"of the (\d+) commits of the game's main line", bisect).group(1))
    assert acted == actions == main_line + answers
    assert commits == 1 + actions + merges
    assert line == 1 + main_line + merges


@pytest.mark.slow
def test_the_resume_hint_names_the_game_when_the_repository_holds_several(capsys, tmp_path):
    from catan_p2p.commands.play import pick_flag

    repo = tmp_path / "g"
    first = new_game(capsys, repo)
    assert pick_flag(repo, first) == ""
    run(capsys, "new", "--players", "red,white", "--repo", str(repo), "--game", "second")
    assert pick_flag(repo, "second") == " --game second"


@pytest.mark.slow  # git update-ref
def test_verify_names_the_refs_beside_the_game_it_did_not_read(capsys, tmp_path):
    repo = tmp_path / "g"
    game = new_game(capsys, repo)
    head = git("-C", str(repo), "rev-parse", f"refs/heads/catan/{game}/red").strip()
    for name in ("zz-not-a-seat", "purple", "x1", "x2"):
        git("-C", str(repo), "update-ref", f"refs/heads/catan/{game}/{name}", head)
    code, out, err = run(capsys, "verify", "--repo", str(repo))
    assert code == 0, err
    line = out.splitlines()[-1]
    assert line.startswith("Not read: 4 refs beside the game that the protocol does not take")
    assert (
        f"refs/heads/catan/{game}/purple: 'purple' holds no seat" in line
        and line.count(f"catan/{game}/") == 3
    )
    assert line.endswith("; and 1 more); the game was verified without them.")
    code, out, err = run(capsys, "verify", "--repo", str(repo), "--json")
    assert code == 0 and json.loads(out)["junk"] == 4
