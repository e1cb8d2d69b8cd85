"""The genesis is derived from what it declares, never trusted; hostile trees are refused.

Each rigged start is written the way a dishonest creator could and then offered to
``join`` (over a real bare remote, with and without the guard hook) and ``verify``:
each is refused in one sentence naming the genesis, nothing is adopted, no traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from gitgames import REPOSITORIES, cli, git

from catan_p2p.errors import VerificationError
from catan_p2p.protocol.genesis import derive_genesis, open_genesis
from catan_p2p.protocol.message import GenesisInfo, genesis_message
from catan_p2p.rules.state import new_game
from catan_p2p.session.start import create_game, join_game
from catan_p2p.store.codec import StateWriter, dumps
from catan_p2p.store.formats import commit_data, parse_tree, player_email, tree_data
from catan_p2p.store.memory import MemoryRepo
from catan_p2p.store.refnames import player_ref
from catan_p2p.store.repo import GameRepo, Repository, init_repo

DECLARED = GenesisInfo("g", ("red", "blue"), "s", 10)


def _write_genesis(repo: Repository, tree: str, message: str | None = None) -> str:
    data = commit_data(
        tree, [], "red", player_email("red"), 1_700_000_000, message or genesis_message(DECLARED)
    )
    return repo.store.write(b"commit", data)


def _honest_tree(repo: Repository) -> str:
    state = new_game(DECLARED.players, seated=True)
    from catan_p2p.store.codec import GameInfo

    return StateWriter(repo.store, GameInfo("g", "s")).write(state)


def _swap(repo: Repository, tree: str, path: str, blob: bytes | None, tree_entry=None) -> str:
    """``tree`` with file ``path`` replaced by ``blob`` (or an entry added as given)."""
    store = repo.store
    parts = path.split("/")
    entries = parse_tree(store.read(tree)[1])
    if len(parts) == 1:
        if tree_entry is not None:
            entries[parts[0]] = tree_entry
        else:
            entries[parts[0]] = (False, store.write(b"blob", blob))
        return store.write(b"tree", tree_data(entries))
    sub = entries[parts[0]][1]
    entries[parts[0]] = (True, _swap(repo, sub, "/".join(parts[1:]), blob, tree_entry))
    return store.write(b"tree", tree_data(entries))


def _raw_tree(repo: Repository, tree: str, entries: list[tuple[bytes, bytes, str]]) -> str:
    """A tree with raw entries (mode, name bytes, id) appended: what tree_data never writes."""
    data = repo.store.read(tree)[1]
    for mode, name, oid in entries:
        data += mode + b" " + name + b"\0" + bytes.fromhex(oid)
    return repo.store.write(b"tree", data)


def _rig(repo: Repository, name: str) -> str:
    """The genesis tree a dishonest creator could write, by what is wrong with it (only
    that one is written: the deep tree alone is 3,000 tree objects)."""
    honest = _honest_tree(repo)
    entries = parse_tree(repo.store.read(honest)[1])
    turn = json.loads(repo.store.read(entries["turn.json"][1])[1])
    game_json = repo.store.read(entries["game.json"][1])[1]

    def rich() -> str:
        rich = json.loads(json.dumps(turn))
        for res in rich["resources"].values():
            res["red"], res["bank"] = 5, res["bank"] - 5
        return _swap(repo, honest, "turn.json", dumps(rich))

    def empty() -> str:
        return repo.store.write(b"blob", b"")

    def deep() -> str:
        deep = repo.store.write(b"tree", b"")
        for _ in range(3000):
            deep = repo.store.write(b"tree", b"40000 d\0" + bytes.fromhex(deep))
        return _swap(repo, honest, "board", None, (True, deep))

    rigs = {
        "rich start": rich,
        "turn 99 by a duplicate key": lambda: _swap(
            repo,
            honest,
            "turn.json",
            dumps(turn)[:-2] + b',\n "turn": 99\n}\n',
        ),
        "late start": lambda: _swap(repo, honest, "turn.json", dumps(dict(turn, turn=99))),
        "count as a string": lambda: _swap(
            repo, honest, "deck.json", dumps({"knight": "14"} | {"monopoly": 2})
        ),
        "extra file": lambda: _swap(repo, honest, "notes.txt", b"hi\n"),
        "extra player file": lambda: _swap(repo, honest, "players/x.json", b"{}\n"),
        "dot-dot entry": lambda: _raw_tree(repo, honest, [(b"100644", b"..", empty())]),
        "non-utf8 name": lambda: _raw_tree(repo, honest, [(b"100644", b"\xff\xfe.json", empty())]),
        "symlink": lambda: _raw_tree(repo, honest, [(b"120000", b"zz", empty())]),
        "submodule": lambda: _raw_tree(repo, honest, [(b"160000", b"zz", empty())]),
        "deep tree": deep,
        "huge board": lambda: _swap(repo, honest, "board/board.json", b" " * (300 * 1024)),
        "game.json with a float": lambda: _swap(
            repo,
            honest,
            "game.json",
            game_json.replace(b'"victory_points": 10', b'"victory_points": 10.0'),
        ),
    }
    return rigs[name]()


@pytest.fixture(params=REPOSITORIES)
def repo(request, tmp_path: Path) -> Repository:
    """An empty repository in memory, and (slow) a real one on disk."""
    if request.param == "memory":
        return MemoryRepo()
    init_repo(tmp_path / "rig")
    return GameRepo(tmp_path / "rig")


def test_the_honest_genesis_is_derived(repo):
    oid = _write_genesis(repo, _honest_tree(repo))
    state, info = derive_genesis(repo.store, repo.commit(oid))
    assert state.players == DECLARED.players and info.seed == "s" and state.lobby_open


@pytest.mark.parametrize(
    "rig",
    [
        "rich start",
        "turn 99 by a duplicate key",
        "late start",
        "count as a string",
        "extra file",
        "extra player file",
        "dot-dot entry",
        "non-utf8 name",
        "symlink",
        "submodule",
        "deep tree",
        "huge board",
        "game.json with a float",
    ],
)
def test_a_rigged_genesis_is_refused_by_the_peer(repo, rig):
    oid = _write_genesis(repo, _rig(repo, rig))
    with pytest.raises(VerificationError) as err:
        derive_genesis(repo.store, repo.commit(oid))
    assert oid[:10] in str(err.value)


@pytest.mark.parametrize(
    "message",
    [
        genesis_message(DECLARED).replace("\n\n", " \n\n"),
        genesis_message(DECLARED).replace('{"game"', '{ "game"'),
        genesis_message(DECLARED).replace('"seed":"s"', '"seed":"s","extra":1'),
        genesis_message(DECLARED).replace('"victory_points":10', '"victory_points":10.0'),
        genesis_message(DECLARED).replace('"protocol":7', '"protocol":4'),
        genesis_message(DECLARED) + "Catan-Note: x\n",
    ],
)
def test_a_genesis_message_that_is_not_canonical_is_refused(repo, message):
    oid = _write_genesis(repo, _honest_tree(repo), message)
    with pytest.raises(VerificationError, match=oid[:10]):
        derive_genesis(repo.store, repo.commit(oid))


def _hosted(tmp_path: Path, hook: bool) -> Path:
    remote = tmp_path / "remote.git"
    if hook:
        made = cli("host", "init", str(remote))
        assert made.returncode == 0, made.stderr
    else:
        git("init", "-q", "--bare", str(remote))
    return remote


@pytest.mark.slow  # a remote, join and the hook: processes
@pytest.mark.parametrize("hook", [False, True], ids=["bare", "guarded"])
def test_join_refuses_a_rigged_genesis_and_adopts_nothing(tmp_path, hook):
    remote = _hosted(tmp_path, hook)
    creator = tmp_path / "creator"
    init_repo(creator)
    repo = GameRepo(creator)
    oid = _write_genesis(repo, _rig(repo, "rich start"))
    repo.refs.set(player_ref("g", "red"), oid, None)
    pushed = git("push", str(remote), "refs/heads/catan/g/red", cwd=creator, check=False)
    del pushed
    on_remote = git("for-each-ref", "refs/heads/catan", cwd=remote)
    if hook:
        assert on_remote == "", "the guarded remote took a rigged genesis"
        return
    joined = cli("join", str(remote), "--game", "g", "--as", "blue", "--repo", str(tmp_path / "b"))
    assert joined.returncode == 1
    assert oid[:10] in joined.stderr and "Traceback" not in joined.stderr
    # Nothing adopted, nothing left behind: the repository join made is gone again.
    assert not (tmp_path / "b").exists() or git("for-each-ref", cwd=tmp_path / "b") == ""


@pytest.mark.slow  # a remote, join and the hook: processes
def test_join_does_not_adopt_a_planted_copy_of_its_own_branch(tmp_path):
    """The remote's copy of Blue's branch is a fabricated state: join must verify it."""
    remote = _hosted(tmp_path, hook=False)
    red = tmp_path / "red"
    create_game(red, ["red", "blue"], seed="p", game_id="g", local=("red",))
    repo = GameRepo(red)
    genesis = repo.refs.get(player_ref("g", "red"))
    state = open_genesis(repo, genesis)[0]
    rich = state._replace(
        hands=tuple(h._replace(resources=(6,) * 5) for h in state.hands),
        bank=tuple(n - 12 for n in state.bank),
    )
    tree = repo.writer(open_genesis(repo, genesis)[1]).write(rich)
    planted = repo.write_commit(tree, [genesis], "blue", "Blue: rich\n")
    repo.refs.set(player_ref("g", "blue"), planted, None)
    git("push", str(remote), "refs/heads/catan/g/*:refs/heads/catan/g/*", cwd=red)
    blue = join_game(str(remote), tmp_path / "blue", "g", "blue")
    assert blue.peers["blue"].head != planted
    assert blue.state.hands[1].resources == (0,) * 5
    assert planted in blue.rejected


@pytest.mark.slow  # a remote, join and the hook: processes
def test_the_hook_answers_hostile_input_in_one_line(tmp_path):
    remote = _hosted(tmp_path, hook=True)
    work = tmp_path / "w"
    init_repo(work)
    repo = GameRepo(work)
    for name in ("non-utf8 name", "deep tree", "symlink"):
        oid = _write_genesis(repo, _rig(repo, name))
        repo.refs.set(player_ref("g", "red"), oid, repo.refs.get(player_ref("g", "red")))
        import subprocess

        done = subprocess.run(
            ["git", "push", "-f", str(remote), "refs/heads/catan/g/red"],
            cwd=work,
            capture_output=True,
            text=True,
        )
        assert done.returncode != 0, name
        assert "catan-p2p: refused" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert sys.executable  # the hook ran under this Python
