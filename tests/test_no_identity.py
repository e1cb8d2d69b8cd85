"""The suite runs as on a fresh machine: no Git identity, no ~/.gitconfig (conftest.py).

`./test.sh` in a fresh clone on a machine with no Git identity once failed 6 tests
whose fixtures made plain commits; CI passed only because `.ci/run` wrote a global
identity first. Now every test sees no global or system configuration, so a test
that needs an identity fails on every machine until it names one.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from builders import git_identity

pytestmark = pytest.mark.slow  # starts git


def _commit(tmp_path: Path, env: dict[str, str] | None) -> subprocess.CompletedProcess:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return subprocess.run(
        ["git", "-C", str(tmp_path), "commit", "-q", "--allow-empty", "-m", "x"],
        capture_output=True,
        text=True,
        env=env,
    )


def test_no_identity_reaches_the_tests(tmp_path):
    made = _commit(tmp_path, None)
    assert made.returncode != 0, "a plain commit found an identity: the developer's config leaks"
    assert "identity" in made.stderr.lower() or "tell me who you are" in made.stderr.lower()


def test_a_test_that_needs_an_identity_names_one(tmp_path):
    assert _commit(tmp_path, git_identity()).returncode == 0
