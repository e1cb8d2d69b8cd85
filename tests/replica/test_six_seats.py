"""Six seats (the 5-6 player extension) through the whole protocol: the hidden deck of 34
cards every seat shuffled, six dice chains, steals, the special building phase on the
players' own logs; hot-seat in one repository, and every seat a separate ``catan-p2p
bot`` process with its own clone of a bare remote on disk. Every clone must verify.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest
from gitgames import CLI, cli, git, hotseat_game

from catan_p2p.cli import main
from catan_p2p.rules.cards import DevCard
from catan_p2p.rules.state import SEAT_COLOURS
from catan_p2p.store.refnames import player_ref

pytestmark = pytest.mark.slow

SIX = SEAT_COLOURS
GAME_TIMEOUT = 600
#: The network game's target: 3 points, one more than the set-up gives. The game is the
#: same on every run (conftest fixes the keys and the genesis time; the bots decide by
#: what they see): with seed "s25" it is 68 commits, 6 of them rolls, the same game the
#: hot-seat driver plays (the shortest of seeds s0-s60; "s21" played 76). The sevens,
#: steals and special builds are asserted on the hot-seat game above.
VICTORY_POINTS = 3
#: What a seat may do in the special building phase, by commit summary.
SPECIAL = re.compile(
    r": (build road|build settlement|build city|buy development card|done building)$"
)


def _log(repo: Path, ref: str) -> list[str]:
    return git("log", "--first-parent", "--reverse", "--format=%s", ref, cwd=repo).splitlines()


def _special_builds(subjects: list[str]) -> list[str]:
    """The commits made in special building phases: after an ``end turn``, before the next
    turn's first move (a roll or a card, never a build)."""
    out, inside = [], False
    for s in subjects:
        if s.endswith(": end turn"):
            inside = True
        elif inside and SPECIAL.search(s):
            out.append(s)
        else:
            inside = False
    return out


@pytest.fixture(scope="module")
def hotseat(tmp_path_factory):
    path = tmp_path_factory.mktemp("six") / "game"
    session, result = hotseat_game(path, players=SIX, seed="six", strategy="greedy")
    return path, session, result


def test_a_six_seat_hot_seat_game_is_played_to_the_end_and_verifies(hotseat):
    path, session, result = hotseat
    state = session.state
    assert result.winner in SIX and state.settled
    assert state.deck.size == 34 and len(state.deck.passes) == 6  # every seat shuffled 34 cards
    verified = cli("verify", "--repo", str(path))
    assert verified.returncode == 0, verified.stderr
    assert "every development card is checked" in verified.stdout


def test_the_hidden_deck_of_six_seats_deals_the_extensions_cards(hotseat):
    _, session, _ = hotseat
    state = session.state
    drawn = [DevCard(t) for t in state.deck.shown]  # every drawn card is read at the end
    assert len(drawn) >= 10
    counts = {c: drawn.count(c) for c in DevCard}
    assert counts[DevCard.KNIGHT] <= 20 and counts[DevCard.ROAD_BUILDING] <= 3
    assert counts[DevCard.YEAR_OF_PLENTY] <= 3 and counts[DevCard.MONOPOLY] <= 3


def test_six_dice_chains_steals_and_special_builds_are_all_in_the_log(hotseat):
    path, session, _ = hotseat
    subjects = _log(path, player_ref(session.game_id, SIX[0]))
    rolls = [s for s in subjects if ": roll " in s]
    assert {s.split(":")[0].lower() for s in rolls} == set(SIX)  # every chain rolled
    # Steals: the robber's move, then the merge of the robbed player's answer.
    assert any(", rob " in s for s in subjects)
    assert any("merge the card given" in s for s in subjects)
    special = _special_builds(subjects)
    assert special, "nobody built in a special building phase"
    assert any("done building" not in s for s in special)  # something was built or bought


def _start_bot(clone: Path, player: str, log: Path) -> subprocess.Popen:
    out = log.open("ab")
    return subprocess.Popen(
        [*CLI, "bot", "--as", player, "--repo", str(clone), "--strategy", "greedy"],
        stdout=out,
        stderr=out,
    )


@pytest.mark.network
def test_six_bot_processes_play_through_a_bare_remote_and_every_clone_verifies(
    tmp_path: Path, capsys
):
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    clones = {p: tmp_path / p for p in SIX}
    made = cli(
        "new",
        "--players",
        ",".join(SIX),
        "--seed",
        "s25",
        "--game",
        "g",
        "--repo",
        str(clones[SIX[0]]),
        "--remote",
        str(remote),
        "--victory-points",
        str(VICTORY_POINTS),
    )
    assert made.returncode == 0, made.stderr
    for p in SIX[1:]:
        joined = cli("join", str(remote), "--game", "g", "--as", p, "--repo", str(clones[p]))
        assert joined.returncode == 0, joined.stderr
    procs = {p: _start_bot(c, p, tmp_path / f"{p}.log") for p, c in clones.items()}
    deadline = time.monotonic() + GAME_TIMEOUT
    try:
        while any(proc.poll() is None for proc in procs.values()):
            if time.monotonic() > deadline:
                raise AssertionError("the six-seat networked game did not finish in time")
            time.sleep(0.2)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    logs = {p: (tmp_path / f"{p}.log").read_text() for p in clones}
    for p, proc in procs.items():
        assert proc.returncode == 0, f"{p}'s bot failed:\n{logs[p][-2000:]}"
    trees = {
        p: git("rev-parse", f"{player_ref('g', p)}^{{tree}}", cwd=c).strip()
        for p, c in clones.items()
    }
    assert len(set(trees.values())) == 1, trees
    for p, c in clones.items():  # ``catan-p2p verify`` in this process: no Python start each
        capsys.readouterr()
        verified = main(["verify", "--repo", str(c)])
        assert verified == 0, f"{p}: {capsys.readouterr().err}"
    board = cli("show", "--repo", str(clones[SIX[-1]]), "--json")
    assert board.returncode == 0, board.stderr
    subjects = _log(clones[SIX[0]], player_ref("g", SIX[0]))
    assert sum(": roll " in s for s in subjects) >= 6
