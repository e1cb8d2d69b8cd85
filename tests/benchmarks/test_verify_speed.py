"""Smoke test of the verify benchmark, so it cannot rot: two short games, one round,
the fresh-process figure and the bound's counts. No timing is asserted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import verify_speed  # noqa: E402

pytestmark = [pytest.mark.slow]


def test_a_short_run_counts_every_shuffle_proofs_multiplications(tmp_path, capsys):
    out = tmp_path / "verify_speed.json"
    args = ["--actions", "150", "--rounds", "1", "--games-dir", str(tmp_path), "--out", str(out)]
    assert verify_speed.main(args) == 0
    assert not out.exists()  # a cut-short run is not the project's figure
    result = json.loads(capsys.readouterr().out)
    for n in (4, 6):
        fresh, bound = result["fresh_process"][f"{n}p"], result["bound"][f"{n}p"]
        assert fresh["commits"] == bound["commits"] > 0
        # Every seat shuffled in set-up; each proof's check recomputes every card of
        # every round, and nothing else multiplies as much.
        assert bound["ops"]["mul"] >= bound["shuffle_proof_muls_min"] > 0
        assert bound["floor_cpu_s"] > 0
