"""catanatron's players as seats of our games: in memory, in `simulate`, and as network peers."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("catanatron")

from catan_p2p.bots import GreedyBot  # noqa: E402
from catan_p2p.bridges.catanatron_players import CatanatronBot, implementation  # noqa: E402
from catan_p2p.bridges.strategies import make_bot  # noqa: E402
from catan_p2p.rules.actions import Action  # noqa: E402
from catan_p2p.sim import play_game  # noqa: E402

CLI = [sys.executable, "-m", "catan_p2p.cli"]


class Checked:
    def __init__(self, bot) -> None:  # type: ignore[no-untyped-def]
        self.bot = bot

    def decide(self, state, actions: list[Action]) -> Action:  # type: ignore[no-untyped-def]
        choice = self.bot.decide(state, actions)
        assert choice in actions, f"{choice} was not offered"
        return choice


@pytest.mark.parametrize("kind", ["weighted", "value", "alphabeta"])
def test_a_catanatron_player_plays_a_whole_game_with_legal_actions(kind: str) -> None:
    bots = [Checked(make_bot(f"catanatron:{kind}", "c")), GreedyBot("g")]
    result = play_game(("red", "blue"), bots, f"cat-{kind}", check_invariants=True)
    assert result.winner in ("red", "blue")
    assert implementation(kind)


def test_a_catanatron_seat_in_a_four_player_game_with_trades_offered_to_it() -> None:
    bots = [
        GreedyBot("a"),
        CatanatronBot("value", "b"),
        GreedyBot("c"),
        make_bot("strong", "d", 0.01),
    ]
    result = play_game(("red", "blue", "white", "orange"), bots, "cat-4p", check_invariants=True)
    assert result.winner is not None


@pytest.mark.slow
def test_simulate_takes_strong_and_catanatron_bots() -> None:
    out = subprocess.run(
        [
            *CLI,
            "simulate",
            "--players",
            "2",
            "--games",
            "1",
            "--bots",
            "strong,catanatron:alphabeta",
            "--think",
            "0.01",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["bots"] == {"red": "strong", "blue": "catanatron:alphabeta"}
    assert sum(report["winners"].values()) == 1


@pytest.mark.slow
def test_strong_and_alphabeta_bots_play_as_network_peers(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--bare", "-q", str(remote)], check=True)
    red, blue = tmp_path / "red", tmp_path / "blue"
    made = subprocess.run(
        [
            *CLI,
            "new",
            "--players",
            "red,blue",
            "--seed",
            "net",
            "--game",
            "g",
            "--repo",
            str(red),
            "--remote",
            str(remote),
            # Two searching bots as peers, past set-up to the first building after it:
            # what a network game adds is the same at every score (5 points: 12-13 s of
            # CPU; 3: under 5 s).
            "--victory-points",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    joined = subprocess.run(
        [*CLI, "join", str(remote), "--game", "g", "--as", "blue", "--repo", str(blue)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert joined.returncode == 0, joined.stderr
    logs = {p: (tmp_path / f"{p}.log").open("wb") for p in ("red", "blue")}
    procs = {
        "red": subprocess.Popen(
            [
                *CLI,
                "bot",
                "--as",
                "red",
                "--repo",
                str(red),
                "--strategy",
                "catanatron:alphabeta",
                "--poll",
                "0.02",
            ],
            stdout=logs["red"],
            stderr=logs["red"],
        ),
        "blue": subprocess.Popen(
            [
                *CLI,
                "bot",
                "--as",
                "blue",
                "--repo",
                str(blue),
                "--strategy",
                "strong",
                "--think",
                "0.05",
                "--poll",
                "0.02",
            ],
            stdout=logs["blue"],
            stderr=logs["blue"],
        ),
    }
    deadline = time.monotonic() + 600
    try:
        for p in procs.values():
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise AssertionError("the networked game did not finish in time") from None
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
    for name, p in procs.items():
        text = (tmp_path / f"{name}.log").read_text()
        assert p.returncode == 0, text[-2000:]
        assert "won." in text
    for clone in (red, blue):
        verified = subprocess.run(
            [*CLI, "verify", "--repo", str(clone)], capture_output=True, text=True, timeout=300
        )
        assert verified.returncode == 0, verified.stderr
