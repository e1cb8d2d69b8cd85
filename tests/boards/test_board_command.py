"""``catan-p2p board``: text with the score breakdown, one JSON object, a PNG, clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from catan_p2p.boards import FACTORS
from catan_p2p.cli import main


def test_board_prints_the_board_and_its_score_breakdown(capsys) -> None:
    assert main(["board"]) == 0
    out = capsys.readouterr().out
    assert "M 10  P  2  F  9" in out  # the beginner board's top row
    assert "balance score 0.247" in out
    for name in FACTORS:
        assert name.replace("_", " ") in out


def test_board_json_is_one_object_with_score_factors_tiles_numbers_ports(capsys) -> None:
    assert main(["board", "--kind", "random", "--radius", "3", "--seed", "8", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert 0.0 <= data["score"] <= 1.0
    assert set(data["factors"]) == set(FACTORS)
    assert len(data["tiles"]) == 37
    assert sum(data["numbers"].values()) == 35
    assert len(data["ports"]) == 13
    assert data["radius"] == 3


def test_balanced_board_json_scores_near_the_dial(capsys) -> None:
    assert main(["board", "--kind", "balanced", "--balance", "0.35", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert abs(data["score"] - 0.35) < 0.01


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--kind", "balanced", "--balance", "1.2"], "--balance must be between 0"),
        (["--kind", "balanced", "--balance", "-1"], "--balance must be between 0"),
        (["--balance", "0.5"], "only applies to --kind balanced"),
        (["--kind", "random", "--radius", "6"], "--radius must be between 2"),
        (["--kind", "random", "--radius", "1"], "--radius must be between 2"),
        (["--radius", "3"], "standard board has radius 2"),
        (["--png", "/no/such/folder/b.png"], "folder does not exist"),
    ],
)
def test_bad_arguments_exit_2_with_one_sentence(argv: list, words: str, capsys) -> None:
    assert main(["board", *argv]) == 2
    captured = capsys.readouterr()
    assert words in captured.err
    assert captured.err.count("\n") == 1
    assert captured.out == ""


@pytest.mark.slow
def test_board_png_from_a_real_process(tmp_path: Path) -> None:
    out = tmp_path / "board.png"
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "catan_p2p.cli",
            "board",
            "--kind",
            "random",
            "--png",
            str(out),
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)  # nothing but the JSON object on stdout
    assert data["png"] == str(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_constraints_from_seed_004_can_be_asked_for(capsys) -> None:
    argv = ["board", "--kind", "balanced", "--balance", "0.2", "--json"]
    assert main([*argv, "--constraints", "terrain-apart,red-spread"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["factors"]["resource_clustering"] == 0.0  # no equal terrain side by side
    red = [t["terrain"] for t in data["tiles"] if t["number"] in (6, 8)]
    assert len(set(red)) == 4


def test_unknown_constraint_exits_2(capsys) -> None:
    assert main(["board", "--kind", "balanced", "--constraints", "pretty"]) == 2
    assert "unknown constraint 'pretty'" in capsys.readouterr().err
