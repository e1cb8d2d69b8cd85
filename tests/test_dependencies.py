"""Every dependency pyproject.toml declares is imported by the code that needs it: the
package for ``dependencies``, the benchmarks for the ``bench`` extra (the dev extra is
mostly tools: pytest, ruff, ...)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Distributions whose module is not their name (for one that is not installed here).
MODULES = {"gitpython": "git", "pynacl": "nacl", "pillow": "PIL"}


def _modules(requirement: str) -> set[str]:
    """The top-level modules of a requirement's distribution."""
    dist = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]
    try:
        names = importlib.metadata.distribution(dist).read_text("top_level.txt") or ""
        if names.split():
            return set(names.split())
    except importlib.metadata.PackageNotFoundError:
        pass
    return {MODULES.get(dist.lower(), dist.lower().replace("-", "_"))}


def _imported(folder: Path) -> set[str]:
    """Top-level modules imported anywhere under ``folder``."""
    found = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".")[0])
    return found


def test_every_declared_dependency_is_imported():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {
        "catan_p2p": project["dependencies"],
        "benchmarks": project["optional-dependencies"]["bench"],
    }
    unused = [
        f"{req} ({folder}/)"
        for folder, reqs in wanted.items()
        for req in reqs
        if not _modules(req) & _imported(ROOT / folder)
    ]
    assert not unused, f"declared but imported nowhere: {unused}"
