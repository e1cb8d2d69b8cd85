"""Attacks through a shared remote: writing into another player's branch, equivocation,
rolling a player's branch back, and merges that break the seat order.

Real peers (sessions in their own clones) and real bare remotes, with the guard hook
(``catan-p2p host init``) and without it (a forge runs no hooks, so peers must catch
the same things themselves).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gitgames import CLI, cli, git, sign_commit

from catan_p2p.bots import make_bot
from catan_p2p.net import transport
from catan_p2p.protocol.message import merge_message, parse_action
from catan_p2p.protocol.signing import SeatKey
from catan_p2p.rules.actions import BuildSettlement, ClaimSeat
from catan_p2p.rules.menu import legal_actions
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game, join_game
from catan_p2p.sim import next_actor
from catan_p2p.store.refnames import answer_ref, player_ref
from catan_p2p.trust.engine import step

pytestmark = pytest.mark.slow  # starts processes (git, the CLI): see tests/conftest.py


def _remote(tmp_path: Path, hook: bool) -> Path:
    remote = tmp_path / "remote.git"
    if hook:
        assert cli("host", "init", str(remote)).returncode == 0
    else:
        git("init", "-q", "--bare", str(remote))
    return remote


def _table(tmp_path: Path, hook: bool) -> tuple[Path, dict[str, GitSession]]:
    """Red creates on a remote, Blue and White join; the lobby closes at Red's sync."""
    remote = _remote(tmp_path, hook)
    create_game(tmp_path / "red", ["red", "blue", "white"], seed="q", game_id="g", local=("red",))
    transport.set_remote(GitSession(tmp_path / "red", "g", ("red",)).repo.git_dir, str(remote))
    red = GitSession(tmp_path / "red", "g", ("red",))
    red.flush()
    seats = {"red": red}
    for p in ("blue", "white"):
        seats[p] = join_game(str(remote), tmp_path / p, "g", p)
    for _ in range(2):
        for s in seats.values():
            assert s.sync().error is None
    assert not red.state.lobby_open and red.head == seats["white"].head
    return remote, seats


def _push(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "push", *args], cwd=cwd, capture_output=True, text=True)


def _two_settlements(red: GitSession) -> tuple[str, str]:
    """Two valid, signed alternatives of Red's first set-up settlement on one parent."""
    state = red.committed_state
    a, b = [x for x in legal_actions(state, "red") if isinstance(x, BuildSettlement)][:2]
    out = []
    for action in (a, b):
        action = red.peers["red"].with_secrets(action, state)  # its shuffle of the deck
        new = step(state, action)[0]
        tree = red.repo.writer(red.info).write(new)
        out.append(sign_commit(red.repo, red.head, "red", action, tree, red.keys["red"]))
    return out[0], out[1]


@pytest.fixture(scope="module")
def guarded_table(tmp_path_factory) -> tuple[Path, Path, dict[str, GitSession]]:
    """A table on a guarded remote, set once for the two tests below: (folder, remote,
    seats). Each push they make is refused, or (the first settlement of the second)
    one the first's refused push does not touch, so neither depends on the other's run."""
    folder = tmp_path_factory.mktemp("guarded")
    remote, seats = _table(folder, hook=True)
    return folder, remote, seats


def test_the_hook_refuses_a_move_pushed_into_another_players_branch(guarded_table):
    tmp_path, remote, seats = guarded_table
    red = seats["red"]
    mine, _ = _two_settlements(red)
    done = _push(tmp_path / "red", str(remote), f"{mine}:refs/heads/catan/g/white")
    assert done.returncode != 0
    assert "only White's key can move this branch" in done.stderr, done.stderr
    assert git("rev-parse", "refs/heads/catan/g/white", cwd=remote).strip() == red.head


def test_equivocation_is_refused_by_the_hook_and_reported_by_peers(guarded_table):
    tmp_path, remote, seats = guarded_table
    red = seats["red"]
    first, second = _two_settlements(red)
    assert _push(tmp_path / "red", str(remote), f"{first}:refs/heads/catan/g/red").returncode == 0
    done = _push(tmp_path / "red", "-f", str(remote), f"{second}:refs/heads/catan/g/red")
    assert done.returncode != 0 and "never rewritten" in done.stderr, done.stderr
    done = _push(tmp_path / "red", str(remote), f"{second}:refs/heads/catan/g/blue")
    assert done.returncode != 0 and "catan-p2p: refused" in done.stderr


def test_without_a_hook_peers_catch_equivocation_themselves(tmp_path):
    remote, seats = _table(tmp_path, hook=False)
    red, blue = seats["red"], seats["blue"]
    first, second = _two_settlements(red)
    _push(tmp_path / "red", str(remote), f"{first}:refs/heads/catan/g/red")
    _push(tmp_path / "red", str(remote), f"{second}:refs/heads/catan/g/white")
    status = blue.sync()
    assert status.forks, "two signed alternatives of one move must be reported as a fork"
    assert blue.head in (first, second)
    report = cli("verify", "--repo", str(tmp_path / "blue"))
    assert report.returncode == 1 and "fork" in report.stderr


@pytest.mark.parametrize("attack", ["delete", "roll back"])
def test_a_running_peer_puts_its_branch_back_after_a_rollback(tmp_path, attack):
    remote, seats = _table(tmp_path, hook=False)
    bots = {p: make_bot("random", p) for p in seats}
    for _ in range(4):
        player = next_actor(seats["red"].state)
        s = seats[player]
        s.submit(bots[player].decide(s.state, s.legal_actions(player)))
        for other in seats.values():
            other.sync()
    red = seats["red"]
    ref = player_ref("g", "red")
    if attack == "delete":
        git("update-ref", "-d", ref, cwd=remote)
    else:
        git("update-ref", ref, red.genesis, cwd=remote)
    red.sync()
    assert git("rev-parse", ref, cwd=remote).strip() == red.head


def test_a_seat_merge_out_of_seat_order_is_refused(tmp_path):
    path = tmp_path / "g"
    create_game(path, ["red", "blue", "white"], seed="o", game_id="g", local=("red",))
    for p in ("blue", "white"):
        git("update-ref", player_ref("g", p), GitSession(path, "g", ("red",)).genesis, cwd=path)
        s = GitSession(path, "g", (p,))
        s.sync()  # claims the seat on its answer branch
    red = GitSession(path, "g", ("red",))
    genesis = red.genesis
    answers = [
        red.repo.refs.get(answer_ref("g", "seat", genesis, p)) for p in ("red", "blue", "white")
    ]
    assert all(answers)
    state = red.peers["red"].verifier.verify(genesis)
    for p, oid in zip(("white", "blue", "red"), reversed(answers), strict=True):
        action = parse_action(red.repo.commit(oid))
        assert isinstance(action, ClaimSeat) and action.player == p
        state = step(state, action)[0]
    tree = red.repo.writer(red.info).write(state)
    message = merge_message("red", "seat", ["white", "blue", "red"], "g")
    data_key: SeatKey = red.keys["red"]
    bad = red.repo.write_commit(tree, [genesis, *reversed(answers)], "red", message, data_key)
    red.repo.refs.set(player_ref("g", "red"), bad, genesis)
    blue = GitSession(path, "g", ("blue",))
    blue.sync()
    assert bad in blue.rejected and "seat order" in blue.rejected[bad]


def test_a_bot_whose_seat_is_played_on_another_device_stops_with_one_sentence(tmp_path):
    remote, seats = _table(tmp_path, hook=False)
    red = seats["red"]
    other = join_game(str(remote), tmp_path / "red2", "g", "red")  # the same seat, same key
    assert other.head == red.head
    first, second = [a for a in legal_actions(red.state, "red") if isinstance(a, BuildSettlement)][
        :2
    ]
    red.submit(first)
    assert red.sync().error is None
    other.submit(second)  # the other device plays the same seat differently
    assert other.sync().error is not None  # its push is refused: not a fast-forward
    done = subprocess.run(
        [*CLI, "bot", "--as", "red", "--repo", str(tmp_path / "red2"), "--poll", "0.02"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert "another device is playing this seat" in done.stderr and "Traceback" not in done.stderr


def test_a_disk_error_is_one_sentence(tmp_path, monkeypatch, capsys):
    import errno

    from catan_p2p import cli as cli_module
    from catan_p2p.store.repo import GameRepo

    path = tmp_path / "g"
    create_game(path, ["red", "blue"], seed="d", game_id="g")

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(GameRepo, "write_commit", read_only)
    assert cli_module.main(["show", "--repo", str(path)]) == 0  # reading is fine

    from catan_p2p.net import runtime

    monkeypatch.setattr(runtime, "DISK_RETRY", 0.0)
    tries = []

    def rest(self, seconds: float) -> None:  # the bot keeps trying: Ctrl-C after a few tries
        tries.append(seconds)
        if len(tries) >= 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(runtime.Runtime, "_rest", rest)
    assert cli_module.main(["bot", "--as", "red", "--repo", str(path)]) == 130
    err = capsys.readouterr().err
    assert f"the disk holding {path} is read-only" in err and "make it writable" in err
    assert "Traceback" not in err
