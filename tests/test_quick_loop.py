"""The quick loop stays quick: a test that starts a process says so with a mark.

``tests/conftest.py`` watches every process a test starts; one not marked ``slow`` or
``network`` (which ``./test.sh --quick`` skips) fails at the start, with one sentence
saying what to do.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


def _spy(request):
    """The top conftest module, which keeps what the running test started."""
    top = Path(__file__).parent / "conftest.py"
    return next(
        p
        for p in request.config.pluginmanager.get_plugins()
        if getattr(p, "__file__", None) == str(top)
    )


def test_a_test_not_marked_slow_or_network_may_not_start_a_process(request):
    with pytest.raises(pytest.fail.Exception, match="not marked slow or network") as failed:
        subprocess.run(["git", "--version"], check=True)
    assert "`git --version`" in str(failed.value)
    assert "mark it" in str(failed.value) and "MemoryRepo()" in str(failed.value)
    _spy(request)._started.clear()  # refused before it started: nothing ran


def test_nor_may_a_thread_it_starts(request):
    import threading

    errors: list[BaseException] = []

    def start() -> None:
        try:
            subprocess.run(["git", "--version"], check=True)
        except BaseException as exc:  # noqa: BLE001 - the failure the check raises
            errors.append(exc)

    thread = threading.Thread(target=start)
    thread.start()
    thread.join()
    assert errors and "not marked slow or network" in str(errors[0])
    spy = _spy(request)
    assert spy._started == ["git --version"]  # so the test fails after its call too
    spy._started.clear()
