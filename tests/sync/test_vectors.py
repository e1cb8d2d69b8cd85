"""The protocol test vectors (state_schema/vectors/) are what the code writes and accepts,
hold a commit of every kind, and rebuild from their inputs alone (PROTOCOL.md §9)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from catan_p2p.sync.repo import GameRepo
from catan_p2p.sync.signing import allowed_signers
from catan_p2p.sync.verify import Verifier

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "state_schema" / "vectors" / "vectors.json"


def _vectors(where: Path) -> dict:
    spec = importlib.util.spec_from_file_location("vectors_tool", ROOT / "tools" / "vectors.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.vectors(where)


def _tool():
    spec = importlib.util.spec_from_file_location("vectors_tool", ROOT / "tools" / "vectors.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # plays the vectors' whole game again (about 15 s)
def test_the_code_writes_and_accepts_exactly_the_committed_vectors(tmp_path):
    committed = json.loads(VECTORS.read_text())
    assert _vectors(tmp_path / "v") == committed
    repo = GameRepo(tmp_path / "v")
    commits = [e["commit"] for e in committed["commits"]]
    for entry in committed["commits"]:
        assert repo.commit(entry["commit"]).data.decode() == entry["raw"]
        assert repo.commit(entry["commit"]).tree == entry["tree"]
    state, info = repo.open_genesis(commits[0])
    verifier = Verifier(repo, info, commits[0], state)
    final = verifier.verify(commits[-1])  # the main line: merge (and its claims), moves
    assert dict(zip(final.players, final.seats, strict=True)) == committed["seat_keys"]
    signers = tmp_path / "signers"
    signers.write_text(allowed_signers(committed["seat_keys"]))
    # One git for every commit: it exits non-zero if any signature is not good.
    done = subprocess.run(
        ["git", "-c", f"gpg.ssh.allowedSignersFile={signers}", "verify-commit", *commits[1:]],
        cwd=tmp_path / "v",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("Good ") == len(commits) - 1, done.stderr


def test_the_vectors_hold_a_commit_of_every_kind_with_its_trees_and_inputs():
    committed = json.loads(VECTORS.read_text())
    tool = _tool()
    entries = committed["commits"] + committed["abandon"]["commits"]
    kinds = {e["kind"] for e in entries}
    assert [k for k in tool.REQUIRED if k not in kinds] == []
    vectors = [e for e in entries if e.get("vector")]
    assert {e["kind"] for e in vectors} == kinds  # the first of every kind is a vector
    for entry in vectors:
        if entry["kind"] != "chat":
            assert entry["tree"] in committed["trees"]
    for tree in committed["trees"].values():
        assert "board/board.json" in tree and all(b in committed["blobs"] for b in tree.values())
    for game in (committed["play"], committed["abandon"]):
        assert game["board"] and set(game["seats"]) == set(game["players"])
        for seat in game["seats"].values():
            assert len(seat["deck_secret"]) == len(seat["dice_secret"]) == 64
    assert set(committed["private_keys"]) == set(committed["seat_keys"])


def test_every_vector_rebuilds_from_its_inputs_alone():
    """What a second implementation would do: decode the parent's tree, recompute every
    secret from the seat's inputs, apply, serialise, write and sign the commit."""
    done = _tool().rebuild_all(json.loads(VECTORS.read_text()))
    assert len(done) >= 40
    assert all(sections.startswith("§") for _, _, sections in done)


@pytest.mark.parametrize(
    "where",
    ["blob", "raw", "secret", "private"],
)
def test_a_vector_changed_anywhere_does_not_rebuild(where):
    """A vector file someone edited (a state file, a commit byte, a seat's secret, a
    private key) fails the rebuild, naming the section whose step broke."""
    tool = _tool()
    data = json.loads(VECTORS.read_text())
    roll = next(e for e in data["commits"] if e["kind"] == "action:roll_dice:number")
    if where == "blob":
        turn = data["trees"][roll["tree"]]["turn.json"]
        data["blobs"][turn] = data["blobs"][turn].replace('"phase": "main"', '"phase": "roll"')
    elif where == "raw":
        roll["raw"] = roll["raw"].replace("+0000", "+0100", 1)
    elif where == "secret":
        seat = data["play"]["seats"]["blue"]
        seat["deck_secret"] = "00" * 32
    else:
        data["private_keys"]["red"] = "11" * 32
    with pytest.raises(tool.Mismatch, match="§"):
        tool.rebuild_all(data)


@pytest.mark.slow  # plays the vectors' games again (about 20 s)
def test_the_check_ci_runs_passes():
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "vectors.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rebuild from their inputs" in done.stdout


def test_every_vector_the_protocol_names_is_in_the_vectors():
    """PROTOCOL.md names the vector of each statement the vectors exercise; each one named
    must be there (a renamed or vanished kind would leave the page pointing at nothing)."""
    text = (ROOT / "state_schema" / "PROTOCOL.md").read_text()
    named = set(re.findall(r"`((?:action|answer|merge):[a-z_:]+|genesis|chat)`", text))
    committed = json.loads(VECTORS.read_text())
    kinds = {e["kind"] for e in committed["commits"] + committed["abandon"]["commits"]}
    assert len(named) >= 40
    assert sorted(named - kinds) == []
