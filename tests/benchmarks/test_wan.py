"""Smoke test of the WAN benchmark: the link adds its round trip, and a short run writes
every figure. No timing is asserted beyond the link's own check being recorded."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import wan  # noqa: E402
from benchmarks.wan_link import check  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.network]


def test_the_link_check_reports_what_it_added():
    result = check(rtt_ms=40, pings=5)
    assert set(result) >= {"added_median_ms", "rtt_setting_ms", "bandwidth_measured_bytes_s"}
    assert result["linked_median_ms"] > result["direct_median_ms"]


def test_a_short_run_over_git_daemon_writes_every_figure(tmp_path: Path):
    assert wan.main(["--quick", "--actions", "6", "--out", str(tmp_path)]) == 0
    saved = json.loads((tmp_path / "wan.json").read_text())
    assert set(saved) >= {"link_checks", "runs", "target_ms", "floor_ms", "rtt_ms"}
    for layout in wan.LAYOUTS:
        (fig,) = saved["runs"][f"daemon/{layout}"]
        for key in ("to_each_peer", "to_every_peer", "to_remote"):
            assert "n" in fig[key]
        assert fig["actions"] >= 6 and fig["connections_per_action"] > 0
        assert fig["bytes_per_action"] > 0 and fig["load_before"]
    assert "daemon/shared" in (tmp_path / "wan.md").read_text()
