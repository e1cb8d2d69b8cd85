"""``python -m benchmarks.bots --quick``: the round robin's smoke run writes what it promises."""

from __future__ import annotations

import json

import pytest

from benchmarks.bots import jobs, main, wilson


def test_wilson_interval_brackets_the_share() -> None:
    lo, hi = wilson(55, 100)
    assert lo < 0.55 < hi and round(hi - lo, 2) == 0.19
    assert wilson(0, 0) == (0.0, 1.0)


def test_seats_are_swapped_and_rotated() -> None:
    todo = jobs(2, 4, 4, 0.1, ("greedy", "strong"))
    two = [j for j in todo if j.match == "strong vs greedy (2p)"]
    assert [j.seats for j in two] == [("strong", "greedy"), ("greedy", "strong")] * 2
    assert all(j.seats[j.hero] == "strong" for j in todo)
    four = [j for j in todo if "(4p)" in j.match]
    assert sorted(j.hero for j in four) == [0, 1, 2, 3]


@pytest.mark.slow
def test_quick_run_writes_json_table_and_plot(tmp_path, capsys) -> None:
    assert main(["--quick", "--out", str(tmp_path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in (
        "strong_vs_alphabeta_2p",
        "strong_vs_alphabeta_4p",
        "strong_vs_greedy_2p",
        "games",
        "decision_ms_median",
        "decision_ms_p99",
    ):
        assert key in result
    assert result["games"] >= 6
    assert (tmp_path / "bots.json").exists() and (tmp_path / "bots.md").exists()
    assert (tmp_path / "bots.png").stat().st_size > 1000
