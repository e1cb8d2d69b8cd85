"""Smoke test of the WAN benchmark, so it cannot rot: the link adds its round trip, and
short runs through it (points over ``git daemon``, then a shared remote over ssh merged
into the same figures) write every figure. No timing is asserted beyond the link's own
check being recorded."""

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


def _check_run(fig: dict) -> None:
    for key in ("to_each_peer", "to_every_peer", "to_remote", "remote_to_fetched", "idle_fetch"):
        assert "n" in fig[key]
    assert fig["actions"] >= 3 and fig["connections_per_action"] > 0
    assert fig["bytes_per_action"] > 0 and fig["load_before"] and fig["idle_fetch"]["n"]


def test_short_runs_write_every_figure_and_merge(tmp_path: Path):
    # Two peers: every figure is a move reaching the other peers, and one other shows it.
    short = ["--repeats", "1", "--actions", "3", "--rtt", "40", "--peers", "2"]
    short += ["--out", str(tmp_path)]
    assert wan.main(["--rows", "daemon/points", *short]) == 0
    assert wan.main(["--rows", "ssh/shared", "--merge", *short]) == 0
    saved = json.loads((tmp_path / "wan.json").read_text())
    assert set(saved) >= {"link_checks", "runs", "summary", "target_ms", "floor_ms", "rtt_ms"}
    assert len(saved["link_checks"]) == 2
    (points,) = saved["runs"]["daemon/points"]
    _check_run(points)
    (ssh,) = saved["runs"]["ssh/shared"]
    if "skipped" not in ssh:  # no sshd on this machine
        _check_run(ssh)
    table = (tmp_path / "wan.md").read_text()
    assert "daemon/points" in table and "ssh/shared" in table


def test_merging_runs_of_another_number_of_peers_is_refused(tmp_path: Path, capsys):
    (tmp_path / "wan.json").write_text(json.dumps({"peers": 4, "runs": {}}))
    with pytest.raises(SystemExit) as exit_:
        wan.main(["--rows", "daemon/points", "--merge", "--peers", "2", "--out", str(tmp_path)])
    assert exit_.value.code == 2
    assert "holds runs of 4 peers; give --peers 4" in capsys.readouterr().err
