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

from catan_p2p import clock
from catan_p2p.protocol.genesis import open_genesis
from catan_p2p.protocol.signing import allowed_signers
from catan_p2p.protocol.verify import Verifier
from catan_p2p.store.repo import GameRepo

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


@pytest.mark.slow  # plays the vectors' games again (about 15 s)
def test_the_code_writes_and_accepts_exactly_the_committed_vectors(tmp_path):
    committed = json.loads(VECTORS.read_text())
    assert _vectors(tmp_path / "v") == committed
    repo = GameRepo(tmp_path / "v")
    signed = []
    for game in (committed["play"], committed["extension"]):
        entries = committed["commits"] if game is committed["play"] else game["commits"]
        commits = [e["commit"] for e in entries]
        for entry in entries:
            assert repo.commit(entry["commit"]).data.decode() == entry["raw"]
            assert repo.commit(entry["commit"]).tree == entry["tree"]
        state, info = open_genesis(repo, commits[0])
        verifier = Verifier(repo, info, commits[0], state, clock=clock.now)
        final = verifier.verify(commits[-1])  # the main line: merge (and its claims), moves
        keys = {p: committed["seat_keys"][p] for p in game["players"]}
        assert dict(zip(final.players, final.seats, strict=True)) == keys
        signed += commits[1:]
    signers = tmp_path / "signers"
    signers.write_text(allowed_signers(committed["seat_keys"]))
    # One git for every commit: it exits non-zero if any signature is not good.
    done = subprocess.run(
        ["git", "-c", f"gpg.ssh.allowedSignersFile={signers}", "verify-commit", *signed],
        cwd=tmp_path / "v",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("Good ") == len(signed), done.stderr


def test_the_vectors_hold_a_commit_of_every_kind_with_its_trees_and_inputs():
    committed = json.loads(VECTORS.read_text())
    tool = _tool()
    entries = [e for game in tool.games_of(committed) for e in game["commits"]]
    kinds = {e["kind"] for e in entries}
    assert [k for k in tool.REQUIRED if k not in kinds] == []
    vectors = [e for e in entries if e.get("vector")]
    assert {e["kind"] for e in vectors} == kinds  # the first of every kind is a vector
    for entry in vectors:
        if entry["kind"] != "chat":
            assert entry["tree"] in committed["trees"]
    for tree in committed["trees"].values():
        assert "board/board.json" in tree and all(b in committed["blobs"] for b in tree.values())
    for game in (committed["play"], committed["abandon"], committed["extension"]):
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
    games = _tool().games_of(committed)
    kinds = {e["kind"] for game in games for e in game["commits"]}
    assert len(named) >= 40
    assert sorted(named - kinds) == []


# --- what a second implementation had to guess (issue 33): each now a vector ---------------


def _data() -> dict:
    return json.loads(VECTORS.read_text())


def _files(data: dict, entry: dict) -> dict[str, object]:
    """A vector commit's state files, decoded."""
    return {p: json.loads(data["blobs"][b]) for p, b in data["trees"][entry["tree"]].items()}


def _parent(game: list[dict], entry: dict) -> dict:
    parent = re.search(r"^parent ([0-9a-f]{40})$", entry["raw"], re.M).group(1)
    return next(e for e in game if e["commit"] == parent)


def test_every_commit_lists_its_time_and_the_rebuild_takes_it_from_there():
    """A commit's time is an input of its vector, as its author's clock gave it: the
    rebuild writes the header from the entry's ``time``, not from the recorded bytes."""
    tool, data = _tool(), _data()
    for game in tool.games_of(data):
        for entry in game["commits"]:
            assert re.search(rf"^committer \S+ <\S+> {entry['time']} \+0000$", entry["raw"], re.M)
    roll = next(e for e in data["commits"] if e["kind"] == "action:roll_dice:number")
    roll["time"] += 1
    with pytest.raises(tool.Mismatch, match="§3 Commits"):
        tool.rebuild_all(data)


def test_the_last_reveal_deck_shows_every_face_down_card_and_moves_every_pending_steal():
    """PROTOCOL.md §3 "The end": the reveal that completes the secrets writes ``shown`` on
    every card still face down, takes it out of ``deck.json`` into its holder's
    ``dev_cards``, and moves the card of every pending steal from victim to robber."""
    data = _data()
    game = data["extension"]["commits"]
    last = next(e for e in game if e["kind"] == "action:reveal_deck:last")
    assert last.get("vector") and last is game[-1]
    before, after = _files(data, _parent(game, last)), _files(data, last)
    face_down = [
        (p.split("/")[1].removesuffix(".json"), c)
        for p, f in before.items()
        if p.startswith("players/")
        for c in f.get("cards", ())
        if "shown" not in c
    ]
    assert len(face_down) >= 2 and before["turn.json"]["steals"]
    opened: dict[str, int] = {}
    for player, card in face_down:
        mine = after[f"players/{player}.json"]["cards"]
        kind = next(c for c in mine if c["position"] == card["position"])["shown"]
        opened[kind] = opened.get(kind, 0) + 1
    for kind, n in opened.items():
        assert after["deck.json"][kind] == before["deck.json"][kind] - n
    for player in data["extension"]["players"]:
        held = before[f"players/{player}.json"]["dev_cards"]
        gained = after[f"players/{player}.json"]["dev_cards"]
        mine = [c for p, c in face_down if p == player]
        assert sum(gained.values()) - sum(held.values()) == len(mine)
        assert "secret" in after[f"deck/{player}.json"]
    assert "steals" not in after["turn.json"]
    moved = {
        who: sum(
            after["turn.json"]["resources"][r][who] - before["turn.json"]["resources"][r][who]
            for r in after["turn.json"]["resources"]
        )
        for who in data["extension"]["players"]
    }
    for steal in before["turn.json"]["steals"]:
        moved[steal["mover"]] -= 1
        moved[steal["victim"]] += 1
    assert set(moved.values()) == {0}


def test_the_special_building_turn_is_whole_with_its_fresh_beacon_roll():
    """Six seats: ``end_turn`` opens phase ``special_build`` with ``dice`` (and
    ``dev_played``) kept; seats build in seat order; the seat after the turn's player
    then rolls on a fresh beacon and the seat before it reveals the dice."""
    data = _data()
    game = data["extension"]["commits"]
    turn = [e for e in game if e.get("vector")]
    start = next(
        i
        for i, e in enumerate(turn)
        if e["kind"] == "action:end_turn:special_build"
        and _files(data, e)["turn.json"].get("fresh_beacon")
    )
    end = next(
        i for i in range(start, len(turn)) if turn[i]["kind"].startswith("action:reveal_dice")
    )
    kinds = [e["kind"] for e in turn[start : end + 1]]
    assert "action:end_special_build" in kinds
    assert any(k.endswith(":special_build") and "end_turn" not in k for k in kinds)
    assert kinds[-2].startswith("action:roll_dice:decided") and kinds[-2].endswith(":fresh_beacon")
    opened = _files(data, turn[start])["turn.json"]
    assert opened["phase"] == "special_build" and opened["dice"]
    phase = [_files(data, e)["turn.json"] for e in turn[start:end]]
    phase = [t for t in phase if t["phase"] == "special_build"]
    assert len(phase) >= 3
    for state in phase:  # kept until the next turn starts
        assert state["dice"] == opened["dice"]
        assert state.get("dev_played") == opened.get("dev_played")
    started = _files(data, turn[end - 2])["turn.json"]  # the phase's last step
    assert started["phase"] == "roll" and "dice" not in started and "dev_played" not in started


def test_build_city_and_show_steal_are_vectors_played_in_a_real_game():
    data = _data()
    for kind in ("action:build_city", "answer:show_steal", "merge:monopoly"):
        entry = next(e for e in data["commits"] if e["kind"] == kind)
        assert entry.get("vector") and entry["tree"] in data["trees"]
