"""Smoke test of ``benchmarks/motion.py``: a key is taken in the first tick, animated or not."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import motion  # noqa: E402


@pytest.mark.slow
def test_a_key_is_taken_in_the_first_tick_with_motion_and_without(tmp_path: Path):
    assert motion.main(["--rounds", "5", "--out", str(tmp_path / "motion.json")]) == 0
    report = motion.run(5)
    assert report["ticks_to_input"] == {"motion": 1.0, "still": 1.0}
    running = report["presses_during_animation"]
    assert running["motion"] == 5 and running["still"] == 0  # type: ignore[index]
