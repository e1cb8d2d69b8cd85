"""The protocol test vectors (state_schema/vectors/) are what the code writes and accepts."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

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
    for oid in commits[1:]:
        done = subprocess.run(
            ["git", "-c", f"gpg.ssh.allowedSignersFile={signers}", "verify-commit", oid],
            cwd=tmp_path / "v",
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
