"""Smoke test of the transport benchmark, so it cannot rot: short runs over a bare
remote, plain and guarded by the hook, write every figure. No timing is asserted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import transports  # noqa: E402

pytestmark = [pytest.mark.slow]


def test_short_runs_over_a_bare_remote_write_every_figure(tmp_path, capsys):
    out = tmp_path / "transports.json"
    assert transports.main(["--rounds", "2", "--transports", "bare", "--out", str(out)]) == 0
    saved = json.loads(out.read_text())
    for label in ("plain", "hook"):
        fig = saved["transports"]["bare"][label]
        assert fig["rounds"] == 2
        assert 0 < fig["round_min_ms"] <= fig["round_median_ms"] <= fig["round_p90_ms"]
        assert fig["submit_median_ms"] > 0 and fig["sync_median_ms"] > 0
    assert "bare" in capsys.readouterr().out
