"""Crossing abandons end in one outcome, with real peers: three repositories on disk and
a bare remote, each player's moves made as its own process would (open, act, push).

Red team: Red and White both ran ``abandon`` on Blue at the same moment while Blue's late
move arrived; both succeeded and the peers were left on two heads that ``verify``
refused. Now the abandon by the player earlier in seat order wins, and its author alone
joins every line that loses to it (PROTOCOL.md "Liveness").
"""

from __future__ import annotations

import time

import pytest
from gitgames import git

from catan_p2p.cli import main
from catan_p2p.rules.actions import Abandon
from catan_p2p.rules.menu import legal_actions
from catan_p2p.session.git import GitSession

HOUR = 3600
PLAYERS = ("red", "blue", "white")


def _three_players(tmp_path, monkeypatch):
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    repos = {p: tmp_path / p for p in PLAYERS}
    new = ["new", "--players", ",".join(PLAYERS), "--timeout", "1h", "--game", "g"]
    assert main([*new, "--repo", str(repos["red"]), "--remote", str(remote)]) == 0
    for p in PLAYERS[1:]:
        assert main(["join", str(remote), "--game", "g", "--as", p, "--repo", str(repos[p])]) == 0
    for p in PLAYERS:
        assert main(["sync", "--repo", str(repos[p])]) == 0
    return remote, repos


def _act(repo, player: str, action=None) -> str:
    """``player`` acts without fetching first (it has not seen the others) and pushes."""
    session = GitSession.open(repo, "g", (player,))
    session.submit(action or legal_actions(session.state, player)[0])
    head = session.head
    session.flush()
    session.close()
    return head


@pytest.mark.network
def test_two_abandons_and_a_late_move_at_once_end_on_one_verified_head(
    tmp_path, monkeypatch, capsys, fake_clock
):
    remote, repos = _three_players(tmp_path, monkeypatch)
    for p in PLAYERS:  # every peer has seen the set-up begin: the game waits on Red
        assert main(["sync", "--repo", str(repos[p])]) == 0
    later = time.time() + HOUR + 60
    fake_clock.set(later)
    # Blue and White both end the game on Red, neither seeing the other's abandon, and
    # Red, back at that moment, places its settlement without seeing either.
    _act(repos["blue"], "blue", Abandon("blue", "red"))
    _act(repos["white"], "white", Abandon("white", "red"))
    late = _act(repos["red"], "red")
    heads = {git("rev-parse", f"refs/heads/catan/g/{p}", cwd=remote).strip() for p in PLAYERS}
    assert len(heads) == 3 and late in heads, "the three lines did not cross"
    for _ in range(4):  # a few ordinary sync rounds, in seat order
        for p in PLAYERS:
            main(["sync", "--repo", str(repos[p])])
    capsys.readouterr()
    heads = {git("rev-parse", f"refs/heads/catan/g/{p}", cwd=remote).strip() for p in PLAYERS}
    assert len(heads) == 1, f"the peers end on {len(heads)} heads"
    for p in PLAYERS:
        assert main(["sync", "--repo", str(repos[p])]) == 0, capsys.readouterr().err
        assert main(["verify", "--repo", str(repos[p])]) == 0, capsys.readouterr().out
        session = GitSession.open(repos[p], "g", (p,))
        assert session.head in heads
        state = session.state
        assert state.is_over and state.players[state.abandoned] == "red"
        # Blue's abandon (earlier in seat order than White's) is the one on the line.
        line = [session.repo.commit(o) for o in session.repo.first_parents(session.head)]
        ends = [c for c in line if "end the game" in c.message]
        assert [c.author for c in ends] == ["blue"]
        session.close()
    # White's abandon and Red's late move are kept, joined by Blue's closing merges.
    merges = [
        c
        for c in line
        if len(c.parents) == 2 and '"kind":"abandon"' in c.message and c.author == "blue"
    ]
    assert len(merges) >= 2
