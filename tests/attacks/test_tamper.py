"""Cheating is caught: each forged commit is rejected with a reason, and play goes on.

A "cheater" writes commits straight into the shared repository (as a dishonest peer
could); an honest peer's session then syncs. Its branch must not move, the reason
must name the commit and the rule, and the honest seats can keep playing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitgames import cli, copy_game, forge_commit, git, play_some

from catan_p2p import clock
from catan_p2p.errors import StateFileError
from catan_p2p.protocol.audit import audit
from catan_p2p.rules.actions import BuildSettlement, EndTurn, RollDice
from catan_p2p.rules.chance import derive_chance
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.codec import StateWriter, dumps
from catan_p2p.store.formats import parse_tree, tree_data
from catan_p2p.store.memory import MemoryRepo
from catan_p2p.store.reading import read_files
from catan_p2p.store.refnames import player_ref
from catan_p2p.store.repo import Repository
from catan_p2p.trust.engine import step


@pytest.fixture(scope="module")
def past_set_up(tmp_path_factory):
    """The game each test starts from, played once on each kind of repository (when a
    test first asks for that kind): ``past_set_up(kind)``.

    Each test changes a copy of it (``copy_game``).
    """
    played: dict[str, Path | Repository] = {}

    def past(kind: str) -> Path | Repository:
        if kind not in played:
            if kind == "memory":
                path: Path | Repository = MemoryRepo()
            else:
                path = tmp_path_factory.mktemp("tamper") / "game"
            create_game(path, ["red", "blue", "white"], seed="t", game_id="g")
            everyone = GitSession(path, "g")
            play_some(everyone, 12)  # the whole set-up: 3 players x 2 x (settlement + road)
            assert everyone.state.phase.name == "ROLL" and everyone.state.current == 0
            everyone.close()
            played[kind] = path
        return played[kind]

    return past


# A real Git repository starts `git init`: those runs are slow (`./test.sh --quick` skips them).
@pytest.fixture(params=["memory", pytest.param("disk", marks=pytest.mark.slow)])
def game(request, past_set_up, tmp_path: Path):
    """A 3-player game in one repo, past set-up, red to roll: (path, red's session, blue's).

    Each test runs on the in-memory repository (``path`` is then the shared
    ``MemoryRepo``) and on a real Git repository on disk.
    """
    path = copy_game(past_set_up(request.param), tmp_path / "game")
    # From here on each seat has its own session (one writer per branch).
    red = GitSession(path, "g", ("red",))
    blue = GitSession(path, "g", ("blue",))
    blue.sync()
    return path, red, blue


def _red_roll(everyone: GitSession) -> RollDice:
    """Red's roll with its next dice-chain element, as Red's peer would submit it."""
    return everyone.peers["red"].with_reveal(RollDice("red"), everyone.committed_state)


def _cheat(
    everyone: GitSession, author: str, action, tree: str | None = None, message: str | None = None
) -> str:
    """Write a commit on top of red's head and move red's branch to it (as red's peer)."""
    repo = everyone.repo
    parent = everyone.head
    if tree is None:
        state = everyone.committed_state
        new, action = step(state, action, derive_chance(everyone.info.seed, parent))
        tree = StateWriter(repo.store, everyone.info).write(new)
    oid = forge_commit(repo, parent, author, action, tree, message)
    repo.refs.set(player_ref("g", "red"), oid, parent)
    return oid


def _assert_rejected(blue: GitSession, oid: str, *words: str) -> None:
    before = blue.head
    blue.sync()
    assert blue.head == before, "the honest branch moved onto a bad commit"
    reason = blue.rejected.get(oid)
    assert reason is not None, f"{oid[:10]} was not rejected"
    assert oid[:10] in reason
    for word in words:
        assert word in reason, reason


def _red_plays_on(path: Path | Repository, blue: GitSession, bad: str) -> None:
    """Red's honest peer resets its ref to the last good commit and the game continues."""
    blue.repo.refs.set(player_ref("g", "red"), blue.head, bad)
    red = GitSession(path, "g", ("red",))
    red.submit(RollDice("red"))
    blue.sync()
    assert blue.head == red.head


def test_a_commit_authored_by_another_player_is_rejected(game):
    path, everyone, blue = game
    bad = _cheat(everyone, "white", _red_roll(everyone))
    _assert_rejected(blue, bad, "White", "only a player may write their own actions")
    _red_plays_on(path, blue, bad)


@pytest.mark.parametrize(
    ("stamp", "words"),
    [
        ("Catan-Game: other\nCatan-Protocol: 7\n", ("belongs to game 'other'",)),
        ("Catan-Game: g\nCatan-Protocol: 8\n", ("protocol 8", "upgrade")),
        ("Catan-Game: g\nCatan-Protocol: 2\n", ("protocol '2'", "older")),
        ("", ("no Catan-Game and Catan-Protocol trailers",)),
    ],
)
def test_a_commit_of_another_game_or_protocol_is_rejected(game, stamp, words):
    path, everyone, blue = game
    roll = _red_roll(everyone)
    honest = step(everyone.committed_state, roll, derive_chance("t", everyone.head))[1]
    message = f"{honest}\n\nCatan-Action: {honest.dumps()}\n{stamp}"
    bad = _cheat(everyone, "red", roll, message=message)
    _assert_rejected(blue, bad, *words)
    _red_plays_on(path, blue, bad)


def test_an_illegal_action_is_rejected(game):
    path, everyone, blue = game
    state = everyone.committed_state
    taken = state.board.graph.vertices[next(v for v, o in enumerate(state.vertex_owner) if o == 1)]
    action = BuildSettlement("red", taken)
    tree = StateWriter(everyone.repo.store, everyone.info).write(state)
    bad = _cheat(everyone, "red", action, tree)
    _assert_rejected(blue, bad, "illegal action")
    _red_plays_on(path, blue, bad)


def test_a_tree_with_extra_resources_is_rejected(game):
    path, everyone, blue = game
    repo = everyone.repo
    state, chosen = step(
        everyone.committed_state, _red_roll(everyone), derive_chance("t", everyone.head)
    )
    store = repo.store
    tree = StateWriter(store, everyone.info).write(state)
    files = read_files(store, tree, "forged")
    turn = json.loads(files["turn.json"])
    turn["resources"]["ore"]["red"] += 5
    root = parse_tree(store.read(tree)[1])
    root["turn.json"] = (False, store.write(b"blob", dumps(turn)))
    forged = store.write(b"tree", tree_data(root))
    bad = _cheat(everyone, "red", chosen, forged)
    _assert_rejected(blue, bad, "tree", "altered")
    _red_plays_on(path, blue, bad)


def test_chance_outcomes_that_do_not_match_the_seed_are_rejected(game):
    path, everyone, blue = game
    state, honest = step(everyone.committed_state, _red_roll(everyone))
    faked = RollDice("red", (6, 6) if honest.dice != (6, 6) else (5, 5), honest.reveal)
    state = state._replace(dice=faked.dice)
    tree = StateWriter(everyone.repo.store, everyone.info).write(state)
    bad = _cheat(everyone, "red", faked, tree)
    _assert_rejected(blue, bad, "seed and parent give")


def test_an_action_out_of_turn_is_rejected(game):
    path, everyone, blue = game
    repo = everyone.repo
    parent = everyone.head
    state = everyone.committed_state
    tree = StateWriter(repo.store, everyone.info).write(state)
    bad = forge_commit(repo, parent, "white", EndTurn("white"), tree)
    repo.refs.set(player_ref("g", "white"), bad, parent)
    before = blue.head
    blue.sync()
    assert blue.head == before
    assert "turn order" in blue.rejected[bad] or "cannot end the turn" in blue.rejected[bad]


def test_a_rewritten_branch_is_reported_as_a_fork_and_both_are_kept(game):
    path, everyone, blue = game
    everyone.submit(RollDice("red"))
    blue.sync()
    good = blue.head
    # Red's peer rewrites its branch: a different action on the same parent.
    parent = everyone.repo.commit(good).parents[0]
    repo = everyone.repo
    state = blue.peers["blue"].verifier.verify(parent)
    other = EndTurn("red")  # not even legal before rolling: the point is the rewrite
    tree = StateWriter(repo.store, everyone.info).write(state)
    rewritten = forge_commit(repo, parent, "red", other, tree)
    repo.refs.set(player_ref("g", "red"), rewritten, good)
    status = blue.sync()
    assert blue.head == good
    assert repo.commit(good).oid == good and repo.commit(rewritten).oid == rewritten
    assert status.forks or rewritten in blue.rejected
    if isinstance(path, Repository):
        assert not audit(path, "g", clock.now).ok
    else:
        report = cli("verify", "--repo", str(path))
        assert report.returncode == 1
        assert "fork" in report.stderr or rewritten[:10] in report.stderr


def test_a_malformed_state_file_is_refused_with_the_file_commit_and_field(game):
    path, everyone, blue = game
    repo = everyone.repo
    tree = repo.commit(everyone.head).tree
    root = parse_tree(repo.store.read(tree)[1])
    root["turn.json"] = (False, repo.store.write(b"blob", b'{"phase": 12}\n'))
    forged = repo.store.write(b"tree", tree_data(root))
    honest = step(everyone.committed_state, _red_roll(everyone), derive_chance("t", everyone.head))[
        1
    ]
    bad = _cheat(everyone, "red", honest, forged)
    _assert_rejected(blue, bad, "tree")
    with pytest.raises(StateFileError) as err:
        repo.state_of(bad)
    assert (
        "turn.json" in str(err.value) and bad[:10] in str(err.value) and "phase" in str(err.value)
    )
    if not isinstance(path, Repository):
        shown = cli("show", bad, "--repo", str(path))
        assert shown.returncode == 1 and "turn.json" in shown.stderr
    _red_plays_on(path, blue, bad)
    if not isinstance(path, Repository):
        git("fsck", cwd=path)
