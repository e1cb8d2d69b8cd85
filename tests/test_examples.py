"""A property test draws the same examples on every run (tests/conftest.py, profile "ci")."""

from __future__ import annotations

import importlib
import sys

from hypothesis import given, settings
from hypothesis import strategies as st


def test_a_module_imported_before_changes_no_example(tmp_path, monkeypatch):
    """Hypothesis draws some numbers from the constants of the local modules imported so
    far; a module of constants imported between two runs (as the tests a pytest worker
    ran before import more of catan_p2p) must change none of them."""
    drawn: list[int] = []

    @settings(max_examples=200)
    @given(st.integers(0, 2**16))
    def draw(n: int) -> None:
        drawn.append(n)

    draw()
    alone = list(drawn)
    numbers = ", ".join(str(n) for n in range(7, 2**16, 257))
    (tmp_path / "many_constants.py").write_text(f"NUMBERS = ({numbers})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "many_constants", raising=False)
    importlib.import_module("many_constants")
    drawn.clear()
    draw()
    assert drawn == alone
