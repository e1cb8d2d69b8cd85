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
ROOT = PACKAGE.parent


def _modules(under: Path = PACKAGE) -> list[Path]:
    return sorted(p for p in under.rglob("*.py") if "__pycache__" not in p.parts)


def _everywhere() -> list[Path]:
    """The package's modules and the benchmarks' and tools' (which may import it)."""
    return [*_modules(), *_modules(ROOT / "benchmarks"), *_modules(ROOT / "tools")]


def _named_git(path: Path) -> list[int]:
    """Lines where ``path`` spells ``"git"`` other than as a key (``{"git": version}``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys.update(id(k) for k in node.keys if k is not None)
        elif isinstance(node, ast.Subscript):
            keys.add(id(node.slice))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value == "git" and id(node) not in keys
    ]


def test_no_module_but_gitcmd_names_the_git_program():
    """A module that spells ``"git"`` builds a Git command line of its own; so may no
    benchmark or tool."""
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _everywhere()
        if path != HOME
        for line in _named_git(path)
    ]
    assert not found, f"git started outside store/gitcmd.py: {found}"


def test_no_module_but_gitcmd_starts_a_process_of_git_by_path():
    """Nor does one start ``/usr/bin/git`` or pass Git a command through a shell."""
    for path in _everywhere():
        text = path.read_text(encoding="utf-8")
        if path != HOME:
            assert "bin/git" not in text and "shell=True" not in text, path


def test_objects_are_read_by_one_cat_file_reader_and_by_no_library():
    """``cat-file`` is named only by store/catfile.py (one reader for the store, the hook
    and the lobby), and no module reads objects through a library of its own."""
    reader = PACKAGE / "store" / "catfile.py"
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path != reader:
            spelled = [n.lineno for n in ast.walk(tree) if getattr(n, "value", None) == "cat-file"]
            assert not spelled, f"{path.relative_to(ROOT)}:{spelled} starts its own cat-file"
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            roots = {name.split(".")[0] for name in names}
            assert not roots & {"gitdb", "smmap", "git", "dulwich"}, f"{path}:{node.lineno}"


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


def test_no_command_reaches_for_a_repository_a_session_may_not_have():
    """A command asks the session for what it needs (``GitSession.chat``), it does not
    probe for a repository with ``getattr(session, "repo")``."""
    for path in _modules(PACKAGE / "commands"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr":
                named = [a.value for a in node.args[1:2] if isinstance(a, ast.Constant)]
                assert named != ["repo"], f"{path.name}:{node.lineno}"


def test_a_game_played_in_memory_has_no_chat():
    from catan_p2p.commands.play import open_chat
    from catan_p2p.rules.board import STANDARD_BOARD
    from catan_p2p.rules.state import new_game
    from catan_p2p.session.memory import MemorySession

    session = MemorySession(new_game(["red", "blue"], STANDARD_BOARD), "seed")
    assert open_chat(session) is None
