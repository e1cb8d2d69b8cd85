"""``catan-p2p simulate`` run as a real process: JSON report, progress on stderr, bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # starts processes (git, the CLI): see tests/conftest.py


def simulate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "catan_p2p.cli", "simulate", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_simulate_json_reports_the_games() -> None:
    run = simulate(
        "--players", "3", "--games", "4", "--bots", "greedy,random", "--seed", "cli", "--json"
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)  # stdout holds the JSON object and nothing else
    for key in ("games", "winners", "mean_actions", "mean_turns", "games_per_s"):
        assert key in report
    assert report["games"] == 4
    assert set(report["winners"]) == {"red", "blue", "white"}
    assert sum(report["winners"].values()) + report["unfinished"] == 4
    assert report["bots"] == {"red": "greedy", "blue": "random", "white": "greedy"}
    assert report["invariants_checked"] is True
    assert report["mean_actions"] > report["mean_turns"] > 0
    assert "4/4" in run.stderr  # the progress bar went to stderr


def test_simulate_same_seed_same_games() -> None:
    args = ("--players", "2", "--games", "3", "--seed", "again", "--json", "--no-check")
    first, second = json.loads(simulate(*args).stdout), json.loads(simulate(*args).stdout)
    for key in ("winners", "mean_actions", "mean_turns"):
        assert first[key] == second[key]
    assert first["invariants_checked"] is False


def test_simulate_prints_a_readable_summary() -> None:
    run = simulate("--players", "2", "--games", "2", "--bots", "greedy")
    assert run.returncode == 0, run.stderr
    assert "games/s" in run.stdout
    assert "actions per game" in run.stdout
    assert "red" in run.stdout and "blue" in run.stdout


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("--players", "7"), "--players"),  # (5 and 6 play the 5-6 player extension)
        (("--players", "1"), "--players"),
        (("--games", "0"), "--games"),
        (("--bots", "random,clever"), "clever"),
        (("--bots", ","), "--bots"),
    ],
)
def test_simulate_refuses_bad_arguments_with_one_sentence(
    args: tuple[str, ...], names: str
) -> None:
    run = simulate(*args)
    assert run.returncode == 2
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert names in lines[0]


def test_simulate_git_records_every_action_as_a_commit(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("catan_p2p.session.git")
    repo = tmp_path / "games"
    run = simulate(
        "--git", "--repo", str(repo), "--players", "2", "--games", "1", "--bots", "greedy", "--json"
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    winner = next(p for p, n in report["winners"].items() if n)
    log = subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "rev-list",
            "--count",
            "--no-merges",
            f"refs/heads/catan/sim-0/{winner}",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    shown = subprocess.run(
        ["git", "-C", str(repo), "log", "--format=%s", f"refs/heads/catan/sim-0/{winner}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # One commit per action on top of the genesis commit, one seat claim per player
    # (merges close concurrent steps), and what the peers add by themselves: a win shown
    # from hidden victory point cards, and each player's deck secret after the game.
    players = len(report["winners"])
    assert shown.count("reveal the deck secret") == players
    extra = 1 + players + players + shown.count("victory point card")
    extra += shown.count("give the robber")  # a robbed player's answer picks the card
    extra += shown.count("reveal the dice")  # the dice of a roll after a decision
    assert int(log.stdout) == report["mean_actions"] + extra
