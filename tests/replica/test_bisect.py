"""``bisect`` finds the first commit where a condition holds, alone or under ``git bisect run``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from gitgames import cli, git

from catan_p2p.rules.query import evaluate


def _first_by_scan(session, condition: str) -> str:
    line = list(reversed(session.repo.first_parents(session.head)))
    return next(c for c in line if evaluate(condition, session.repo.state_of(c)[0]))


@pytest.mark.slow
def test_bisect_finds_the_first_commit_where_a_condition_holds(finished_game):
    path, session, _ = finished_game
    for condition in (
        "turn >= 15",
        "knights(red) >= 1 or knights(blue) >= 1",
        "winner == red or winner == blue or winner == white or winner == orange",
    ):
        out = cli("bisect", "--when", condition, "--repo", str(path), "--json")
        assert out.returncode in (0, 1), out.stderr
        found = json.loads(out.stdout)
        if found["found"]:
            assert found["commit"] == _first_by_scan(session, condition)
            assert found["tested"] < 20  # a binary search, not a scan


@pytest.mark.slow
def test_git_bisect_run_agrees(finished_game, tmp_path: Path):
    path, session, _ = finished_game
    checkout = tmp_path / "checkout"
    git("clone", "-q", "--branch", "catan/g/red", str(path), str(checkout))
    genesis = session.repo.first_parents(session.head)[-1]
    git("bisect", "start", session.head, genesis, cwd=checkout)
    run = git(
        "bisect",
        "run",
        sys.executable,
        "-m",
        "catan_p2p.cli",
        "bisect",
        "--when",
        "turn >= 15",
        "--commit",
        "HEAD",
        "--repo",
        ".",
        cwd=checkout,
    )
    first = _first_by_scan(session, "turn >= 15")
    assert f"{first} is the first bad commit" in run


@pytest.mark.slow
def test_a_bad_condition_is_one_clear_sentence(finished_game):
    path, _, _ = finished_game
    out = cli("bisect", "--when", "points(purple) > 3", "--repo", str(path))
    assert out.returncode == 1
    assert "'purple'" in out.stderr and "Traceback" not in out.stderr
    out = cli("bisect", "--when", "__import__('os')", "--repo", str(path))
    assert out.returncode == 1 and "unknown function" in out.stderr
