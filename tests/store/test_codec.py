"""The state <-> files codec: canonical, round-tripping, and loud about bad files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from catan_p2p.bots import make_bot
from catan_p2p.errors import StateFileError, UsageError
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import GameState, Phase, PlayerState, new_game
from catan_p2p.session.start import create_game
from catan_p2p.sim import next_actor
from catan_p2p.store.codec import (
    DERIVED_HAND_FIELDS,
    HAND_FIELDS_BY_FILE,
    STATE_FIELDS_BY_FILE,
    GameInfo,
    StateWriter,
    dumps,
    turn_data,
)
from catan_p2p.store.formats import HashingStore, MemoryObjectStore, parse_tree
from catan_p2p.store.objects import GitObjectStore
from catan_p2p.store.reading import decode, read_files, read_state
from catan_p2p.store.repo import init_repo
from catan_p2p.trust.engine import step

INFO = GameInfo("g", "seed")


def states(n: int = 400, seed: str = "c"):
    """States of a bot game, one per action."""
    state = new_game(("red", "blue", "white"))
    bots = {p: make_bot("random", f"{seed}{p}") for p in state.players}
    for i in range(n):
        if state.is_over:
            return
        player = next_actor(state)
        state = step(
            state,
            bots[player].decide(state, legal_actions(state, player)),
            derive_chance(seed, str(i)),
        )[0]
        yield state


def test_every_state_round_trips_through_its_files():
    store = MemoryObjectStore()
    writer = StateWriter(store, INFO)
    for i, state in enumerate(states()):
        tree = writer.write(state)
        if i % 7 == 0:
            back, info = read_state(store, tree, f"state {i}")
            assert back == state
            assert info == INFO


def test_tree_id_is_a_pure_function_of_the_state():
    a, b = StateWriter(MemoryObjectStore(), INFO), StateWriter(HashingStore(), INFO)
    for state in states(150):
        # b's caches are cold in a different order: ids must still agree.
        assert a.write(state) == b.write(state._replace())


def test_board_subtree_is_never_rewritten():
    store = MemoryObjectStore()
    writer = StateWriter(store, INFO)
    boards = {parse_tree(store.read(writer.write(s))[1])["board"] for s in states(100)}
    assert len(boards) == 1


def _entries(text: str) -> list[tuple[int, str]]:
    """(depth, key) of every entry line; asserts every line is a brace or one entry."""
    out, depth = [], 0
    for line in text.splitlines():
        body = line.strip().rstrip(",")
        if body in ("}", "]"):
            depth -= 1
            continue
        if body in ("{", "["):
            depth += 1
            continue
        if body == "{}":  # an empty file
            continue
        key, sep, value = body.partition(": ")
        assert sep and key.startswith('"'), f"not one entry: {line!r}"
        assert line.startswith(" " * depth) and line[depth] != " ", f"indent: {line!r}"
        if value == "{":
            depth += 1
        elif value != "[":
            json.loads(value)  # a whole value on its line
        out.append((depth - (value == "{"), json.loads(key)))
    return out


def test_files_have_one_entry_per_line_and_sorted_keys():
    store = MemoryObjectStore()
    for state in list(states(120))[::20]:
        files = read_files(store, StateWriter(store, INFO).write(state), "test")
        assert set(files) >= {"game.json", "turn.json", "deck.json", "players/red.json"}
        for path, data in files.items():
            text = data.decode()
            assert dumps(json.loads(text)) == data, path
            if path == "board/board.json":
                continue
            entries = _entries(text)
            for depth in {d for d, _ in entries}:
                keys = [k for d, k in entries if d == depth]
                assert keys and all(k for k in keys)
            top = [k for d, k in entries if d == 0]
            assert top == sorted(top), path


def test_turn_file_leaves_out_what_holds_its_default():
    main = next(s for s in states() if s.phase is Phase.MAIN and s.trade is None)
    turn = json.loads(_files_of(main)["turn.json"])
    assert set(turn) == {"current", "dice", "phase", "resources", "robber", "turn"}
    setup = json.loads(_files_of(new_game(("red", "blue")))["turn.json"])
    assert setup["setup_step"] == 0 and "dice" not in setup and "winner" not in setup


def test_turn_file_lists_the_bank_and_every_player_by_resource():
    for state in list(states(200))[::25]:
        table = json.loads(_files_of(state)["turn.json"])["resources"]
        assert list(table) == ["brick", "grain", "lumber", "ore", "wool"]
        for resource, holders in table.items():
            assert set(holders) == {"bank", *state.players}
            assert sum(holders.values()) == 19, resource


def test_a_resource_table_missing_a_player_is_refused():
    files = _files_of(new_game(("red", "blue")))
    turn = json.loads(files["turn.json"])
    del turn["resources"]["ore"]["blue"]
    files["turn.json"] = dumps(turn)
    with pytest.raises(StateFileError, match="turn.json.*resources.ore.*blue"):
        decode(files, "commit x")


def test_bank_cannot_be_a_players_name(tmp_path: Path):
    with pytest.raises(UsageError, match="bank"):
        create_game(tmp_path / "r", ["red", "bank"])


@pytest.mark.slow
def test_a_git_repository_agrees_with_git_about_object_ids(tmp_path: Path):
    git_dir = init_repo(tmp_path / "repo")
    store = GitObjectStore(git_dir)
    tree = StateWriter(store, INFO).write(new_game(("red", "blue")))
    listed = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", tree],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "turn.json" in listed and "players/red.json" in listed and "deck.json" in listed
    fsck = subprocess.run(
        ["git", "--git-dir", str(git_dir), "fsck", "--strict"], capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stderr


def _files_of(state):
    store = MemoryObjectStore()
    return read_files(store, StateWriter(store, INFO).write(state), "test")


@pytest.mark.parametrize(
    ("path", "content", "field"),
    [
        (
            "players/red.json",
            b'{"dev_cards": {"knight": -1}, "new_dev_cards": {}, "played": {}}',
            "dev_cards.knight",
        ),
        ("turn.json", b"not json at all", "(whole file)"),
        ("deck.json", b'{"knight": 14}', "victory_point"),
        ("turn.json", None, "phase"),
    ],
)
def test_a_malformed_file_names_the_file_the_commit_and_the_field(path, content, field):
    files = _files_of(new_game(("red", "blue")))
    if content is None:
        data = json.loads(files[path])
        data["phase"] = "dancing"
        content = json.dumps(data).encode()
    files[path] = content
    with pytest.raises(StateFileError) as err:
        decode(files, "commit abc1234 by red")
    message = str(err.value)
    assert path in message and "abc1234" in message and field in message


def test_a_missing_file_is_named():
    files = _files_of(new_game(("red", "blue")))
    del files["map/roads.json"]
    with pytest.raises(StateFileError, match="map/roads.json is missing"):
        decode(files, "commit x")


def test_a_file_naming_an_unknown_player_is_refused():
    files = _files_of(new_game(("red", "blue")))
    files["map/roads.json"] = b'{"(0,-1|0,0)": "green"}\n'
    with pytest.raises(StateFileError, match="green"):
        decode(files, "commit x")


@pytest.mark.slow
def test_state_schema_folder_matches_the_models():
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, str(root / "tools" / "schema.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr


def test_schema_version_from_the_future_is_refused():
    files = _files_of(new_game(("red", "blue")))
    data = json.loads(files["game.json"])
    data["schema_version"] = 99
    files["game.json"] = dumps(data)
    with pytest.raises(StateFileError, match="upgrade"):
        decode(files, "commit x")


def test_schema_version_from_the_past_is_refused_with_what_to_do():
    files = _files_of(new_game(("red", "blue")))
    data = json.loads(files["game.json"])
    data["schema_version"] = 1
    files["game.json"] = dumps(data)
    with pytest.raises(StateFileError, match="older layout.*release that started it"):
        decode(files, "commit x")


def test_every_state_field_is_written_to_some_file_or_derived():
    """Adding a field to GameState or PlayerState fails here until codec.py says where it goes."""
    in_files = {f for fields in STATE_FIELDS_BY_FILE.values() for f in fields}
    assert in_files == set(GameState._fields)
    in_hands = {f for fields in HAND_FIELDS_BY_FILE.values() for f in fields}
    assert in_hands | set(DERIVED_HAND_FIELDS) == set(PlayerState._fields)
    assert not in_hands & set(DERIVED_HAND_FIELDS)


def test_turn_file_depends_on_exactly_the_fields_its_cache_key_holds():
    """Swapping a field the key leaves out never changes turn.json; each keyed field can."""
    sample = list(states(400, seed="k"))[::9]
    keyed = set(STATE_FIELDS_BY_FILE["turn.json"])
    hand_keyed = set(HAND_FIELDS_BY_FILE["turn.json"])
    matters: set[str] = set()
    for a, b in zip(sample, sample[1:], strict=False):
        base = turn_data(a)
        for f in GameState._fields:
            if f == "hands":
                continue
            changed = turn_data(a._replace(**{f: getattr(b, f)})) != base
            if changed:
                matters.add(f)
            assert not changed or f in keyed, f"turn.json reads {f}, missing from its cache key"
        for f in PlayerState._fields:
            hands = tuple(
                h._replace(**{f: getattr(hb, f)}) for h, hb in zip(a.hands, b.hands, strict=True)
            )
            changed = turn_data(a._replace(hands=hands)) != base
            assert not changed or f in hand_keyed, f"turn.json reads hands' {f}, not in its key"
    # Fields that never varied in the sample (trade, winner, ...) are not required here.
    assert {"phase", "current", "turn", "robber", "bank", "dice", "discards", "trade"} <= matters


def test_a_cached_writer_agrees_with_a_fresh_one_on_every_file():
    cached = StateWriter(MemoryObjectStore(), INFO)
    for state in states(300, seed="w"):
        assert cached.write(state) == StateWriter(HashingStore(), INFO).write(state)


def test_the_resource_table_kept_rendered_writes_the_bytes_of_the_table_itself():
    """``turn.json`` with the table the writer keeps rendered is byte for byte the file
    rendered from the table, move after move (counts changing or not)."""
    writer = StateWriter(MemoryObjectStore(), INFO)
    for state in states(300, seed="r"):
        kept = writer._resources(state)
        assert dumps(turn_data(state, kept)) == dumps(turn_data(state))
