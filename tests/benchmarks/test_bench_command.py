"""``catan-p2p bench`` runs the checkout's benchmarks as their own program.

The benchmarks build on every layer of the package, so the package imports none of
them (``tests/test_layers.py``); the command starts ``python -m benchmarks`` instead.
"""

from __future__ import annotations

import sys

import pytest

from catan_p2p.cli import main


@pytest.mark.slow  # starts a Python process
def test_bench_hands_its_options_to_the_benchmarks_from_any_folder(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)  # not the checkout: the benchmarks are found all the same
    # another test in this worker may have imported it; what counts is that bench does not
    monkeypatch.delitem(sys.modules, "benchmarks.run", raising=False)
    assert main(["bench", "--quick", "--games", "2"]) == 2
    err = capfd.readouterr().err
    assert err.strip() == "bench: give either --quick or --games N, not both."
    assert "benchmarks.run" not in sys.modules  # run apart, not imported


def test_bench_quick_says_what_it_costs_as_measured(capsys):
    """Issue 33: the help said 'a minute or two'; a quick run took 4 minutes under load."""
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "a minute or two" not in said
    assert "about a minute on a quiet machine, several under load" in said
