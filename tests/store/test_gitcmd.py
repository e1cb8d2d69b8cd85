"""One home for Git: every start of the ``git`` program goes through ``store.gitcmd``,
and the window never reaches into a session's repository."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import catan_p2p
from catan_p2p.store import gitcmd

PACKAGE = Path(catan_p2p.__file__).parent
HOME = PACKAGE / "store" / "gitcmd.py"


def _modules(under: Path = PACKAGE) -> list[Path]:
    return sorted(p for p in under.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_module_but_gitcmd_names_the_git_program():
    """A module that spells ``"git"`` builds a Git command line of its own."""
    found = []
    for path in _modules():
        if path == HOME:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value == "git":
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not found, f"git started outside store/gitcmd.py: {found}"


def test_no_module_but_gitcmd_starts_a_process_of_git_by_path():
    """Nor does one start ``/usr/bin/git`` or pass Git a command through a shell."""
    for path in _modules():
        text = path.read_text(encoding="utf-8")
        if path != HOME:
            assert "bin/git" not in text and "shell=True" not in text, path


def test_the_client_never_reaches_into_a_sessions_repository():
    for path in _modules(PACKAGE / "client"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                assert node.attr != "repo", f"{path.name}:{node.lineno}"
            if isinstance(node, ast.Constant):
                assert node.value != "repo", f"{path.name}:{node.lineno}"


@pytest.mark.slow  # starts git
def test_git_runs_with_no_terminal_prompt_and_says_its_version():
    assert gitcmd.environment()["GIT_TERMINAL_PROMPT"] == "0"
    assert gitcmd.argv("/x", "log") == ["git", "--git-dir", "/x", "log"]
    done = gitcmd.run(None, "--version")
    assert done.returncode == 0 and done.stdout.startswith("git version")
