"""Smoke test of the reader A/B, so it cannot rot: a short game, one round, every layout
and kind measured for our reader (the others only where their library is installed).
No timing is asserted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import ab_reader  # noqa: E402

pytestmark = [pytest.mark.slow]


def test_a_short_run_measures_our_reader_on_every_layout(tmp_path, capsys):
    out = tmp_path / "ab_reader.json"
    assert ab_reader.main(["--actions", "30", "--rounds", "1", "--out", str(out)]) == 0
    saved = json.loads(out.read_text())
    cases = {
        f"{layout} {kind}"
        for layout in ("packed", "played", "loose")
        for kind in ("commit", "tree")
    }
    assert set(saved["us_per_object"]) == cases
    for figures in saved["us_per_object"].values():
        assert figures["ours"]["cpu"] > 0 and figures["ours"]["vs_ours"] == 1.0
    assert saved["game"]["commits"] > 0 and saved["start_ms"]["ours"] > 0
    assert "packed commit" in capsys.readouterr().out
