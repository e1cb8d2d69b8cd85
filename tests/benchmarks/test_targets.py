"""The bench judges each run against the targets: the byte limits we hold since every
commit is signed (600 B packed, 800 B diff per commit, 1 MB per 4-player game), not
the 290 B and 350 B that signatures made impossible."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.reference import MB, TARGETS, check_targets  # noqa: E402
from benchmarks.run import targets_text  # noqa: E402

HELD = {
    "packed_bytes_per_commit_4p": 600,
    "mean_diff_bytes_4p": 800,
    "disk_bytes_per_game_4p": 1 * MB,
}


def _at_the_limits() -> dict:
    return {key: limit for key, limit, _ in TARGETS}


def test_the_byte_targets_are_the_ones_we_hold():
    limits = {key: limit for key, limit, _ in TARGETS}
    assert {k: limits[k] for k in HELD} == HELD
    assert 290 not in limits.values() and 350 not in limits.values()


def test_a_run_at_every_limit_meets_every_target():
    targets = check_targets(_at_the_limits())
    assert all(t["met"] for t in targets.values())
    assert targets_text(targets) == f"  targets (4 players): all {len(TARGETS)} met"


def test_a_byte_over_a_limit_misses_that_target_and_the_summary_names_it():
    for key, limit in HELD.items():
        result = {**_at_the_limits(), key: limit + 1}
        targets = check_targets(result)
        assert [k for k, t in targets.items() if not t["met"]] == [key]
        said = targets_text(targets)
        assert f"above it: {key} " in said and "(limit " in said and "missed" not in said
        assert "load" not in said  # a byte count does not depend on the machine's load


def test_a_figure_the_run_did_not_produce_is_not_met():
    result = _at_the_limits()
    del result["mean_diff_bytes_4p"]
    assert not check_targets(result)["mean_diff_bytes_4p"]["met"]
    assert "mean_diff_bytes_4p none" in targets_text(check_targets(result))


def test_a_time_over_its_limit_reads_as_a_report_with_the_machines_load():
    """Issue 33: '4 of 7 met; missed: ...' read as a failure after a quick run on a busy
    machine: the line is a report, and a time says what it was measured under."""
    result = {**_at_the_limits(), "compute_ms_per_commit_4p": 0.95}
    said = targets_text(check_targets(result), quick=True)
    first, note = said.splitlines()
    assert "for the record: 6 of 7 within their limit" in first and "missed" not in said
    assert "compute_ms_per_commit_4p 0.95 ms (limit 0.80 ms)" in first
    assert "load of" in note and "one game per player count (--quick)" in note
