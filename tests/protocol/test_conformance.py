"""The conformance kit (tools/conformance.py) passes our own games and names what a
non-conformant repository gets wrong: a re-spaced message, a junk ref, a missing vector."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from gitgames import play_some, sign_commit

from catan_p2p.protocol.message import action_message
from catan_p2p.rules.actions import EndTurn
from catan_p2p.session.git import GitSession
from catan_p2p.session.keys import seat_key
from catan_p2p.session.start import create_game

ROOT = Path(__file__).resolve().parents[2]


def _kit():
    spec = importlib.util.spec_from_file_location("conformance", ROOT / "tools" / "conformance.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["conformance"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _game(path: Path) -> GitSession:
    create_game(path, ["red", "blue"], seed="kit", game_id="g")
    session = GitSession(path, "g")
    play_some(session, 40, seed="kit")
    return session


@pytest.mark.slow
def test_our_own_game_passes_every_check(tmp_path, capsys):
    _game(tmp_path / "g").close()
    assert _kit().main(["--repo", str(tmp_path / "g"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    checks = report["games"]["g"]
    assert report["ok"] and all(c["passed"] and c["ran"] for c in checks)
    assert {c["check"] for c in checks} >= {"refs", "header", "message", "signature", "files"}


@pytest.mark.slow
def test_a_respaced_message_and_a_junk_ref_fail_their_checks(tmp_path, capsys):
    session = _game(tmp_path / "g")
    state, head, repo = session.state, session.head, session.repo
    player = state.players[state.current]
    action = EndTurn(player)
    bad = action_message(action, "g").replace("end turn", "end  turn")
    tree = repo.commit(head).tree
    forged = sign_commit(repo, head, player, action, tree, seat_key(player), bad, "g")
    repo.refs.set(f"refs/heads/catan/g/trade/{head}/{player}", forged, None)
    repo.refs.set("refs/heads/catan/g/seat/not-a-commit/red", head, None)
    session.close()
    assert _kit().main(["--repo", str(tmp_path / "g")]) == 1
    out = capsys.readouterr().out
    assert "FAIL  §3 The message" in out and forged[:10] in out
    assert "FAIL  §2 Refs" in out and "not-a-commit" in out
    assert "not conformant" in out


@pytest.mark.slow
def test_a_repository_without_the_vectors_fails_the_vector_check(tmp_path, capsys):
    _game(tmp_path / "g").close()
    kit = _kit()
    check = kit.check_vectors(kit.GameRepo(tmp_path / "g"), json.loads(kit.VECTORS.read_text()))
    assert not check.passed and "missing" in check.failures[0]


def test_a_folder_that_is_no_game_repository_is_one_sentence_and_exit_2(tmp_path, capsys):
    assert _kit().main(["--repo", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("conformance: ") and "Traceback" not in err
