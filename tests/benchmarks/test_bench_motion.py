"""Smoke test of ``benchmarks/motion.py``: a key is taken in the first tick, animated or not."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import motion  # noqa: E402


@pytest.mark.slow
def test_a_key_is_taken_in_the_first_tick_with_motion_and_without(tmp_path: Path):
    out = tmp_path / "motion.json"
    assert motion.main(["--rounds", "6", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["ticks_to_input"] == {"motion": 1.0, "still": 1.0}
    later = sum(1 for r in range(6) if motion.MOMENTS[r % len(motion.MOMENTS)] > 0)
    assert report["presses_during_animation"] == {"motion": later, "still": 0}
