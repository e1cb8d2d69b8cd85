"""Faults: an offline device catches up, a crash mid-commit loses nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitgames import cli, git, settle

from catan_p2p.bots import make_bot
from catan_p2p.net.driver import play_round_robin
from catan_p2p.protocol.message import action_message
from catan_p2p.rules.chance import derive_chance
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import join_game
from catan_p2p.sim import next_actor
from catan_p2p.store.refnames import player_ref
from catan_p2p.trust.engine import step


def _networked(
    tmp_path: Path, players=("red", "blue", "white"), seed: str = "f"
) -> dict[str, GitSession]:
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote))
    made = cli(
        "new",
        "--players",
        ",".join(players),
        "--seed",
        seed,
        "--game",
        "g",
        "--repo",
        str(tmp_path / players[0]),
        "--remote",
        str(remote),
    )
    assert made.returncode == 0, made.stderr
    sessions = {players[0]: GitSession(tmp_path / players[0], "g", (players[0],))}
    for p in players[1:]:
        sessions[p] = join_game(str(remote), tmp_path / p, "g", p)
    return sessions


def _play(sessions: dict[str, GitSession], actions: int) -> None:
    """Round-robin: whoever the game waits on syncs (fetch, verify, push) and acts."""
    bots = {p: make_bot("random", p) for p in sessions}
    play_round_robin(sessions, bots, actions)


@pytest.mark.slow
@pytest.mark.network
def test_a_device_that_was_offline_for_many_turns_catches_up_and_takes_over(tmp_path: Path):
    sessions = _networked(tmp_path)
    remote = str(tmp_path / "remote.git")
    spare = join_game(remote, tmp_path / "white-laptop", "g", "white")  # white's second device
    start = spare.head
    _play(sessions, 100)  # the laptop is offline meanwhile
    assert spare.head == start
    settle(sessions)  # the others push what they held back (lazy pushes)
    status = spare.sync()
    assert status.error is None and not spare.rejected and not status.forks
    assert spare.head == sessions["red"].head  # verified every commit it missed
    assert spare.repo.depth(spare.head) - spare.repo.depth(start) >= 80
    sessions["white"] = spare  # the laptop plays on from here
    _play(sessions, 30)
    settle(sessions)  # one round is not enough right after a robbery (see settle)
    assert len({s.head for s in sessions.values()}) == 1


@pytest.mark.slow
def test_a_crash_between_writing_objects_and_moving_the_ref_loses_nothing(tmp_path: Path):
    sessions = _networked(tmp_path, ("red", "blue"))
    _play(sessions, 12)
    red = sessions["red"]
    while next_actor(red.state) != "red":
        _play(sessions, 1)
        red.sync()
    head = red.head
    # A crash after the objects were written but before the ref moved: loose objects
    # without a ref. Simulate it by writing the objects of the next commit only.
    state = red.state
    action = make_bot("random", "c").decide(state, red.legal_actions("red"))
    peer = red.peers["red"]
    new, resolved = step(state, peer.with_reveal(action, state), derive_chance(red.info.seed, head))
    tree = red.repo.writer(red.info).write(new)
    red.repo.write_commit(tree, [head], "red", action_message(resolved, red.info.game))
    # ... crash. A new process opens the game: the branch is where it was, intact.
    reopened = GitSession(tmp_path / "red", "g", ("red",))
    assert reopened.head == head == reopened.repo.refs.get(player_ref("g", "red"))
    assert reopened.state == state
    reopened.submit(action)  # and the game goes on
    assert reopened.repo.depth(reopened.head) == reopened.repo.depth(head) + 1
    assert peer.head == head
    git("fsck", cwd=tmp_path / "red")


def test_a_pack_removed_while_the_game_end_sizes_the_packs_is_skipped(tmp_path: Path):
    """A background roll-up may delete a pack between listing and stat: not an error.

    (This once failed whole games at their last commit, flakily, under load.)
    """
    from catan_p2p.store.repo import _pack_bytes

    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "pack-a.pack").write_bytes(b"x" * 10)
    (folder / "pack-gone.pack").symlink_to(folder / "deleted")  # listed, but stat fails
    assert _pack_bytes(folder) == 10
    assert _pack_bytes(tmp_path / "missing") == 0


class _Killed(BaseException):
    """The process dying where this is raised (SIGKILL gives no chance to clean up)."""


def _dies(*_args, **_kwargs):
    raise _Killed


@pytest.mark.network
def test_a_seat_killed_between_finishing_its_answer_and_pushing_deletes_it_at_the_next_start(
    tmp_path: Path,
):
    """A finished answer branch leaves the remotes first and this repository after: one
    the remote refuses for now (another push holds it) is kept and tried again, and a
    seat killed in between still holds it and deletes both at its next start. (Deleted
    here first, a SIGKILL at that moment left the branch on the shared remote for good:
    seen once in the four-bot game through a bare remote with its SIGKILL.)"""
    sessions = _networked(tmp_path, seed="n")
    bots = {p: make_bot("random", p) for p in sessions}
    for _ in range(400):
        state = play_round_robin(sessions, bots, 1)
        if state.phase.name == "STEAL":
            break
        settle(sessions)
    else:
        pytest.fail("no robbery in 400 actions")
    robber, victim = state.players[state.current], state.players[state.victim]
    remote = tmp_path / "remote.git"
    logs = sorted(player_ref("g", p) for p in sessions)

    def on_remote() -> list[str]:
        return sorted(git("for-each-ref", "--format=%(refname)", "refs/", cwd=remote).split())

    assert sessions[victim].sync().error is None  # gives the card on its answer branch
    answers = [r for r in on_remote() if r not in logs]
    assert len(answers) == 1 and answers[0].endswith(f"/{victim}"), on_remote()
    assert sessions[robber].sync().error is None  # merges it
    refused = []

    def busy(git_dir, updates, deletes, leases, target):  # type: ignore[no-untyped-def]
        refused.extend(deletes)  # "failed to update ref": another push holds it right now
        return frozenset(deletes)

    sessions[victim].exchange._push = busy
    sessions[victim].sync()  # adopts the merge, the step is over: the remote refuses for now
    assert refused == answers * len(refused) and refused
    assert git("for-each-ref", answers[0], cwd=tmp_path / victim).strip()  # kept: tried again
    sessions[victim].exchange._push = _dies
    with pytest.raises(_Killed):
        sessions[victim].sync()  # killed at the next try
    assert on_remote() == sorted(logs + answers)
    sessions[victim].exchange.deletes, sessions[victim].exchange._push = [], None  # the kill
    sessions[victim].close()

    restarted = GitSession(tmp_path / victim, "g", (victim,))
    try:
        assert restarted.sync().error is None
        assert on_remote() == logs
        assert git("for-each-ref", answers[0], cwd=tmp_path / victim).strip() == ""
    finally:
        restarted.close()
        for s in sessions.values():
            s.close()


@pytest.mark.network
def test_one_round_of_sync_after_a_robbery_leaves_the_robbers_merge_for_the_next(
    tmp_path: Path,
):
    """Why games on a remote are settled, not synced once: right after a robbery the
    robbed seat's sync gives the card and the robber's sync merges it, so a seat that
    synced earlier in the round is one merge behind until the next round; a second round
    always brings every peer onto one head.

    The game is the same on every run (conftest fixes the keys and the genesis time); with
    seed "n" such a robbery comes at action 32 (with the first seed tried, at 241)."""
    sessions = _networked(tmp_path, seed="n")
    bots = {p: make_bot("random", p) for p in sessions}
    order = list(sessions)
    for _ in range(400):
        state = play_round_robin(sessions, bots, 1)
        robbed = state.phase.name == "STEAL"
        robber = state.players[state.current]
        victim = state.players[state.victim] if robbed else None
        if robbed and order.index(victim) < order.index(robber) and order.index(robber) > 0:
            break
        settle(sessions)
    else:
        pytest.fail("no robbery of an earlier seat by a later one in 400 actions")
    for s in sessions.values():
        s.sync()
    assert len({s.head for s in sessions.values()}) == 2  # the first seat lags one merge
    for s in sessions.values():
        s.sync()
    assert len({s.head for s in sessions.values()}) == 1
